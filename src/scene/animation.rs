//! M2 motion in the scene description: a skeleton per model whose bones move (its joints in the
//! scene's frame, their rest transforms and inverse bind poses), the joint nodes each instance of it
//! gets, and the materials whose colour, alpha or texture coordinates move. What plays, and when, is
//! the consumer's: the plugin and the export evaluate `crate::animation` against the model in
//! [`Scene::files`].

use crate::formats::m2::{Billboard, M2Model, TextureUnit};
use crate::mesh::coords::wmo_to_bevy;

use super::{Draw, Node, NodeTransform, Scene};

/// The joints of one animated M2: joint `i` is bone `i`, and one more joint after the bones stands
/// still (vertices weighted to no bone follow it).
#[derive(Clone, Debug, PartialEq)]
pub struct Skeleton {
    /// The model's number in labels (`M2Model{model}/…`): 0 on its own, MODN order in a WMO.
    pub model: usize,
    /// The .m2 in [`Scene::files`] whose animation moves it.
    pub model_file: usize,
    pub joints: Vec<SkeletonJoint>,
    /// Per joint, column-major: the translation to its pivot undone.
    pub inverse_bindposes: Vec<[f32; 16]>,
    /// The joints with each after its parent: the order every instance places its joint nodes in.
    pub order: Vec<usize>,
    /// A box, in the model's space, that holds the model in every pose its sequences take: the union
    /// of the sequences' own bounds and the header's, as the game culls a moving model. `None` when the
    /// file's boxes are flat or empty, and a renderer must follow the joints instead.
    pub motion_bounds: Option<crate::mesh::Bounds>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SkeletonJoint {
    pub parent: Option<usize>,
    /// The joint at rest relative to its parent: at its pivot, unturned, unscaled.
    pub rest: NodeTransform,
    pub billboard: Option<Billboard>,
}

/// A node that is a joint: bone `bone` of skeleton `skeleton` (the identity joint's index is the
/// bone count).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JointOf {
    pub skeleton: usize,
    pub bone: usize,
}

/// How a drawing node's mesh is skinned: the skeleton, and the node of each of its joints in this
/// instance, in joint order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkinBinding {
    pub skeleton: usize,
    pub joints: Vec<usize>,
}

/// A material whose look follows one texture unit's colour, weight and texture transforms.
#[derive(Clone, Debug, PartialEq)]
pub struct AnimatedMaterial {
    pub material: usize,
    /// The model's number in labels.
    pub model: usize,
    /// The .m2 in [`Scene::files`].
    pub model_file: usize,
    pub unit: TextureUnit,
}

/// Joints Bevy can give one skinned mesh; a model needs one more than its bones.
pub const MAX_JOINTS: usize = 256;

/// Whether any bone of the model moves: a track with keys, or a billboard (which turns with the view).
pub fn bones_move(model: &M2Model) -> bool {
    model.animation.bones.iter().any(|b| {
        b.billboard().is_some() || b.translation.is_animated() || b.rotation.is_animated() || b.scale.is_animated()
    })
}

/// Whether a texture unit's colour, alpha or texture coordinates change over time.
pub fn unit_animates(model: &M2Model, unit: &TextureUnit) -> bool {
    let a = &model.animation;
    let color = usize::try_from(unit.color_index)
        .ok()
        .and_then(|i| a.colors.get(i))
        .is_some_and(|c| c.color.is_animated() || c.alpha.is_animated());
    let weight = model
        .transparency_lookup
        .get(usize::from(unit.weight_combo))
        .and_then(|&i| a.texture_weights.get(usize::from(i)))
        .is_some_and(|w| w.is_animated());
    let transform = (0..usize::from(unit.texture_count.clamp(1, 2))).any(|slot| {
        a.texture_transform_lookup
            .get(usize::from(unit.transform_combo) + slot)
            .and_then(|&k| usize::try_from(k).ok())
            .is_some_and(|k| k < a.texture_transforms.len())
    });
    color || weight || transform
}

/// Whether the model is drawn skinned: some bone moves, and its bones fit one skin.
pub fn skinned(model: &M2Model) -> bool {
    bones_move(model) && model.animation.bones.len() < MAX_JOINTS
}

/// The skeleton of a skinned model, in the scene's frame (the M2's Z-up turned as its vertices are).
pub fn skeleton(model: &M2Model, label_model: usize, model_file: usize) -> Skeleton {
    let bones = &model.animation.bones;
    let mut joints = Vec::with_capacity(bones.len() + 1);
    let mut inverse_bindposes = Vec::with_capacity(bones.len() + 1);
    for (i, bone) in bones.iter().enumerate() {
        let offset = crate::animation::joint_offset(&model.animation, i);
        joints.push(SkeletonJoint {
            parent: bone.parent_index(bones.len()),
            rest: NodeTransform::from_translation(wmo_to_bevy(offset)),
            billboard: bone.billboard(),
        });
        let [x, y, z] = wmo_to_bevy(bone.pivot);
        inverse_bindposes.push(translation_matrix([-x, -y, -z]));
    }
    joints.push(SkeletonJoint { parent: None, rest: NodeTransform::IDENTITY, billboard: None });
    inverse_bindposes.push(translation_matrix([0.0; 3]));
    let order = crate::animation::parents_first(joints.len(), |i| joints[i].parent);
    Skeleton { model: label_model, model_file, joints, inverse_bindposes, order, motion_bounds: motion_bounds(model) }
}

/// [`Skeleton::motion_bounds`]: every sequence's box and the header's, in the view's axes. A flat box
/// (an exporter's zeros) says nothing; without one real sequence box there are none.
fn motion_bounds(model: &M2Model) -> Option<crate::mesh::Bounds> {
    let real = |[low, high]: &[[f32; 3]; 2]| (0..3).all(|k| high[k] - low[k] > 1e-4);
    let sequences: Vec<[[f32; 3]; 2]> = model.animation.sequences.iter().map(|s| s.bounds).filter(real).collect();
    if sequences.is_empty() {
        return None;
    }
    let mut bounds = crate::mesh::Bounds::EMPTY;
    for [low, high] in sequences.into_iter().chain([model.bounding_box].into_iter().filter(real)) {
        for corner in 0..8 {
            let pick = |axis: usize| if corner & (1 << axis) == 0 { low[axis] } else { high[axis] };
            bounds.include(wmo_to_bevy([pick(0), pick(1), pick(2)]));
        }
    }
    bounds.extent().iter().all(|e| e.is_finite()).then_some(bounds)
}

fn translation_matrix([x, y, z]: [f32; 3]) -> [f32; 16] {
    [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, x, y, z, 1.0]
}

/// Joint `joint` of a model's skeleton relative to its parent joint at `clock`, in the scene's frame:
/// bone `joint`'s pivot offset and tracks, or the still joint after the bones.
pub fn joint_pose(model: &M2Model, joint: usize, clock: &crate::animation::Clock) -> NodeTransform {
    use crate::mesh::coords::{wmo_quat_to_bevy, wmo_scale_to_bevy};
    if joint >= model.animation.bones.len() {
        return NodeTransform::IDENTITY;
    }
    let local = crate::animation::joint_local(&model.animation, joint, clock);
    NodeTransform {
        translation: wmo_to_bevy(local.translation.to_array()),
        rotation: wmo_quat_to_bevy(local.rotation.to_array()),
        scale: wmo_scale_to_bevy(local.scale.to_array()),
    }
}

/// The clock a moving model is posed by `seconds` into `sequence` (its default, Stand, when `None`),
/// aliases followed and the sequence looping.
pub fn clock_at(model: &M2Model, sequence: Option<usize>, seconds: f64) -> crate::animation::Clock {
    let animation = &model.animation;
    let chosen = sequence.filter(|&s| s < animation.sequences.len()).or_else(|| animation.default_sequence());
    crate::animation::Clock::looping(animation, chosen.map_or(0, |s| animation.resolve_alias(s)), seconds)
}

/// Places one instance of a built model under `parent`: its joints (when skinned), then one drawing
/// node per unit, made by `node` from the unit's draw and index, skinned to this instance's joints.
pub(super) fn place_instance(
    scene: &mut Scene,
    parent: usize,
    skeleton: Option<usize>,
    draws: impl IntoIterator<Item = Draw>,
    mut node: impl FnMut(usize, Node) -> Node,
) {
    let joints = skeleton.map(|s| {
        let mut nodes = vec![usize::MAX; scene.skeletons[s].joints.len()];
        for k in 0..nodes.len() {
            let i = scene.skeletons[s].order[k];
            let joint = &scene.skeletons[s].joints[i];
            // A parent in a loop is not placed before its child: that joint hangs from the instance.
            let under = joint.parent.map(|p| nodes[p]).filter(|&n| n != usize::MAX).unwrap_or(parent);
            let rest = joint.rest;
            let joint = Some(JointOf { skeleton: s, bone: i });
            nodes[i] = scene.add_node(Node { joint, ..Node::group(format!("Bone{i}"), Some(under), rest) });
        }
        SkinBinding { skeleton: s, joints: nodes }
    });
    for (i, draw) in draws.into_iter().enumerate() {
        let drawing = Node { skin: joints.clone(), ..Node::drawing(parent, draw) };
        scene.add_node(node(i, drawing));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn joint(parent: Option<usize>) -> SkeletonJoint {
        SkeletonJoint { parent, rest: NodeTransform::IDENTITY, billboard: None }
    }

    #[test]
    fn joints_are_ordered_parents_first() {
        let joints = [joint(Some(2)), joint(None), joint(Some(1)), joint(Some(3))];
        let order = crate::animation::parents_first(joints.len(), |i| joints[i].parent);
        assert_eq!(order.len(), 4);
        let at = |j: usize| order.iter().position(|&o| o == j).unwrap();
        assert!(at(1) < at(2) && at(2) < at(0));
        // Joint 3 is its own parent: placed, as a root.
        assert!(order.contains(&3));
    }
}
