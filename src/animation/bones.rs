//! Bones posed at a clock. Each bone's local matrix is `T(pivot)·T(t)·R(q)·S(s)·T(−pivot)` and its
//! model-space matrix the parent's times it (WebWowViewerCpp, wow.export, WoW Model Viewer and Noggit
//! agree); a track without keys in the sequence takes its default (t = 0, q = identity, s = 1).

use glam::{Mat3, Mat4, Quat, Vec3};

use crate::formats::m2::{Animation, Billboard, Bone};

use super::Clock;

/// A bone's animated translation, rotation and scale at a clock.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoneLocal {
    pub translation: Vec3,
    pub rotation: Quat,
    pub scale: Vec3,
}

fn animated(bone: &Bone, clock: &Clock, loops: &[u32]) -> BoneLocal {
    BoneLocal {
        translation: Vec3::from(bone.translation.sample_or(clock, loops, [0.0; 3])),
        rotation: Quat::from_array(bone.rotation.sample_or(clock, loops, [0.0, 0.0, 0.0, 1.0])).normalize(),
        scale: Vec3::from(bone.scale.sample_or(clock, loops, [1.0; 3])),
    }
}

/// Bone `index` as a joint placed at its pivot, relative to its parent's joint: translation
/// `pivot − parent pivot + t`, rotation `q`, scale `s`. A chain of these (T·R·S each), times the
/// inverse bind `T(−pivot)`, gives the model-space matrix [`pose`] gives, which is how skins in Bevy and
/// glTF carry M2 bones.
pub fn joint_local(animation: &Animation, index: usize, clock: &Clock) -> BoneLocal {
    let mut local = animated(&animation.bones[index], clock, &animation.global_loops);
    local.translation += Vec3::from(joint_offset(animation, index));
    local
}

/// Where bone `index`'s joint sits relative to its parent's at rest: its pivot less its parent's.
pub fn joint_offset(animation: &Animation, index: usize) -> [f32; 3] {
    let bone = &animation.bones[index];
    let parent = bone.parent_index(animation.bones.len()).map_or([0.0; 3], |p| animation.bones[p].pivot);
    std::array::from_fn(|k| bone.pivot[k] - parent[k])
}

/// The indices `0..count` ordered so that each comes after its parent (`parent(i)`), whatever the
/// file order. In a chain that loops back on itself, the first one reached comes first, as a root.
pub fn parents_first(count: usize, parent: impl Fn(usize) -> Option<usize>) -> Vec<usize> {
    let mut placed = vec![false; count];
    let mut order = Vec::with_capacity(count);
    let mut chain = Vec::new();
    for first in 0..count {
        // Climb to the nearest placed ancestor (or a root), then place back down.
        chain.clear();
        let mut at = Some(first);
        while let Some(i) = at.filter(|&i| i < count && !placed[i] && !chain.contains(&i)) {
            chain.push(i);
            at = parent(i);
        }
        for &i in chain.iter().rev() {
            placed[i] = true;
            order.push(i);
        }
    }
    order
}

/// The camera as a model sees it (in the model's own space): for billboarded bones.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CameraInModel {
    /// The direction the camera looks along.
    pub forward: Vec3,
    /// The camera's up.
    pub up: Vec3,
}

/// Every bone's model-space matrix at `clock`, into `out` (one per bone, in file order). A parent is
/// posed before its children whatever the file order; a parent index that is out of range, or a chain
/// that loops back on itself, makes the bone a root. With a camera, billboarded bones turn to face it.
pub fn pose(animation: &Animation, clock: &Clock, camera: Option<&CameraInModel>, out: &mut Vec<Mat4>) {
    let bones = &animation.bones;
    out.clear();
    out.resize(bones.len(), Mat4::IDENTITY);
    let mut done = vec![false; bones.len()];
    for i in parents_first(bones.len(), |i| bones[i].parent_index(bones.len())) {
        let parent = bones[i].parent_index(bones.len()).filter(|&p| done[p]).map_or(Mat4::IDENTITY, |p| out[p]);
        let local = animated(&bones[i], clock, &animation.global_loops);
        let pivot = Vec3::from(bones[i].pivot);
        let matrix = parent
            * Mat4::from_translation(pivot + local.translation)
            * Mat4::from_quat(local.rotation)
            * Mat4::from_scale(local.scale)
            * Mat4::from_translation(-pivot);
        out[i] = match (camera, bones[i].billboard()) {
            (Some(camera), Some(kind)) => face_camera(matrix, pivot, kind, camera),
            _ => matrix,
        };
        done[i] = true;
    }
}

/// `matrix` with its 3×3 part replaced by a basis turned to the camera (each column keeping its length,
/// so scale survives) and its translation re-derived so the pivot stays where it was. Models face +X,
/// so a spherical billboard points X back at the viewer with Z up the screen; a cylindrical one keeps
/// its locked axis and turns about it.
fn face_camera(matrix: Mat4, pivot: Vec3, kind: Billboard, camera: &CameraInModel) -> Mat4 {
    let columns = [matrix.x_axis.truncate(), matrix.y_axis.truncate(), matrix.z_axis.truncate()];
    let lengths = columns.map(Vec3::length);
    let toward_viewer = -camera.forward.normalize_or_zero();
    let basis = match kind {
        Billboard::Spherical => {
            let x = toward_viewer;
            let z = (camera.up - x * camera.up.dot(x)).normalize_or_zero();
            Some(Mat3::from_cols(x, z.cross(x), z))
        }
        Billboard::Cylindrical(axis) => {
            let locked = columns[axis].normalize_or_zero();
            // The axis that faces the viewer: X, or Z when X is the one locked.
            let facing = if axis == 0 { 2 } else { 0 };
            let f = (toward_viewer - locked * toward_viewer.dot(locked)).normalize_or_zero();
            let mut cols = [Vec3::ZERO; 3];
            cols[axis] = locked;
            cols[facing] = f;
            let third = 3 - axis - facing;
            // Right-handed: x × y = z, y × z = x, z × x = y.
            cols[third] = cols[(third + 1) % 3].cross(cols[(third + 2) % 3]);
            Some(Mat3::from_cols(cols[0], cols[1], cols[2]))
        }
    };
    let Some(basis) = basis.filter(|b| b.determinant().abs() > 0.5) else { return matrix };
    let linear = Mat3::from_cols(basis.x_axis * lengths[0], basis.y_axis * lengths[1], basis.z_axis * lengths[2]);
    let translation = matrix.transform_point3(pivot) - linear * pivot;
    Mat4::from_mat3_translation(linear, translation)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::m2::track::{Keys, LINEAR, Track};

    fn bone(parent: i16, pivot: [f32; 3]) -> Bone {
        Bone {
            key_bone_id: -1,
            flags: 0,
            parent,
            submesh_id: 0,
            translation: Track::default(),
            rotation: Track::default(),
            scale: Track::default(),
            pivot,
        }
    }

    fn quarter_turn_about_z() -> Track<[f32; 4]> {
        let q = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2).to_array();
        Track::constant_keys(LINEAR, 1, Keys { times: vec![0], values: vec![q] })
    }

    #[test]
    fn a_bone_turns_about_its_pivot_and_carries_its_children() {
        // Bone 1 (listed first, as some files do) is a child of bone 0 and moves up by 1.
        let mut child = bone(1, [2.0, 0.0, 0.0]);
        child.translation = Track::constant_keys(LINEAR, 1, Keys { times: vec![0], values: vec![[0.0, 0.0, 1.0]] });
        let mut parent = bone(-1, [1.0, 0.0, 0.0]);
        parent.rotation = quarter_turn_about_z();
        let animation = Animation { bones: vec![child, parent], ..Default::default() };
        let mut out = Vec::new();
        pose(&animation, &Clock::default(), None, &mut out);
        // The parent's pivot stays put; a point at (2, 0, 0) swings to (1, 1, 0).
        assert!(out[1].transform_point3(Vec3::new(1.0, 0.0, 0.0)).abs_diff_eq(Vec3::new(1.0, 0.0, 0.0), 1e-6));
        assert!(out[1].transform_point3(Vec3::new(2.0, 0.0, 0.0)).abs_diff_eq(Vec3::new(1.0, 1.0, 0.0), 1e-6));
        // The child's own lift comes first, then the parent's turn: (2, 0, 0) → (2, 0, 1) → (1, 1, 1).
        assert!(out[0].transform_point3(Vec3::new(2.0, 0.0, 0.0)).abs_diff_eq(Vec3::new(1.0, 1.0, 1.0), 1e-6));
    }

    #[test]
    fn joints_at_pivots_times_the_inverse_bind_give_the_pose() {
        let mut root = bone(-1, [1.0, 0.0, 0.0]);
        root.rotation = quarter_turn_about_z();
        let mut child = bone(0, [2.0, 1.0, 0.0]);
        child.scale = Track::constant_keys(LINEAR, 1, Keys { times: vec![0], values: vec![[2.0, 1.0, 1.0]] });
        let animation = Animation { bones: vec![root, child], ..Default::default() };
        let clock = Clock::default();
        let mut posed = Vec::new();
        pose(&animation, &clock, None, &mut posed);
        let mut joints = Vec::new();
        for i in 0..2 {
            let l = joint_local(&animation, i, &clock);
            let local = Mat4::from_scale_rotation_translation(l.scale, l.rotation, l.translation);
            let parent = if i == 0 { Mat4::IDENTITY } else { joints[0] };
            joints.push(parent * local);
        }
        for i in 0..2 {
            let skin = joints[i] * Mat4::from_translation(-Vec3::from(animation.bones[i].pivot));
            assert!(skin.abs_diff_eq(posed[i], 1e-5), "bone {i}: {skin} vs {}", posed[i]);
        }
    }

    #[test]
    fn a_parent_loop_does_not_hang_and_poses_every_bone() {
        let animation = Animation { bones: vec![bone(1, [0.0; 3]), bone(0, [0.0; 3])], ..Default::default() };
        let mut out = Vec::new();
        pose(&animation, &Clock::default(), None, &mut out);
        assert_eq!(out, vec![Mat4::IDENTITY; 2]);
    }

    #[test]
    fn a_spherical_billboard_faces_the_viewer_about_its_pivot() {
        let mut sprite = bone(-1, [0.0, 0.0, 1.0]);
        sprite.flags = 0x8;
        let animation = Animation { bones: vec![sprite], ..Default::default() };
        // A camera looking down −Y (from +Y) with Z up.
        let camera = CameraInModel { forward: Vec3::NEG_Y, up: Vec3::Z };
        let mut out = Vec::new();
        pose(&animation, &Clock::default(), Some(&camera), &mut out);
        let m = out[0];
        assert!(m.x_axis.truncate().abs_diff_eq(Vec3::Y, 1e-6), "X turns to the viewer");
        assert!(m.z_axis.truncate().abs_diff_eq(Vec3::Z, 1e-6), "Z stays up the screen");
        assert!(m.transform_point3(Vec3::new(0.0, 0.0, 1.0)).abs_diff_eq(Vec3::new(0.0, 0.0, 1.0), 1e-6));
    }

    #[test]
    fn a_cylindrical_billboard_keeps_its_axis() {
        let mut sprite = bone(-1, [0.0; 3]);
        sprite.flags = 0x40;
        let animation = Animation { bones: vec![sprite], ..Default::default() };
        let camera = CameraInModel { forward: Vec3::new(-1.0, -1.0, -1.0).normalize(), up: Vec3::Z };
        let mut out = Vec::new();
        pose(&animation, &Clock::default(), Some(&camera), &mut out);
        let m = out[0];
        assert!(m.z_axis.truncate().abs_diff_eq(Vec3::Z, 1e-6));
        assert!(m.x_axis.truncate().abs_diff_eq(Vec3::new(1.0, 1.0, 0.0).normalize(), 1e-6));
        assert!((m.determinant() - 1.0).abs() < 1e-5);
    }
}
