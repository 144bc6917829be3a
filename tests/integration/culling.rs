//! WMO portal culling on a scene of known visibility ([`portal_rooms`]): three walled rooms A, B, C
//! and an exterior yard. What the library says is drawn from each camera placement, what the window
//! hides, and renders with culling on and off from inside room A.

use bevy::math::{Mat4, Vec3};
use lwo_wmo_viewer::fixtures::wmo::{portal_rooms, portal_rooms_groups::*};
use lwo_wmo_viewer::mesh::coords::wmo_to_bevy;
use lwo_wmo_viewer::scene::portals::{GroupVisibility, frustum_planes};
use lwo_wmo_viewer::scene::{LoadOptions, Scene, load};
use lwo_wmo_viewer::source::LooseFolder;

use crate::render::{compare_with_baseline, render};
use crate::support::scratch;

fn rooms_scene() -> (std::path::PathBuf, Scene) {
    let dir = scratch("portal-rooms");
    let root = portal_rooms().write_to(&dir, "rooms").unwrap();
    let (source, relative) = LooseFolder::containing(&root);
    let scene = load(&source, &relative, None, &LoadOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    (root, scene)
}

/// What a 16:9 camera with the viewer's field of view sees from `eye` towards `target`, both in the
/// WMO's own coordinates (Z up).
fn seen(scene: &Scene, eye: [f32; 3], target: [f32; 3]) -> GroupVisibility {
    let (eye, target) = (Vec3::from_array(wmo_to_bevy(eye)), Vec3::from_array(wmo_to_bevy(target)));
    let clip_from_world = Mat4::perspective_infinite_reverse_rh(std::f32::consts::FRAC_PI_4, 16.0 / 9.0, 0.05)
        * Mat4::look_at_rh(eye, target, Vec3::Y);
    let graph = scene.portal_graph.as_ref().expect("a WMO root has a portal graph");
    graph.visible(eye.to_array(), &frustum_planes(clip_from_world.to_cols_array_2d()))
}

fn drawn(seen: &GroupVisibility) -> Vec<usize> {
    (0..seen.groups.len()).filter(|&g| seen.groups[g]).collect()
}

#[test]
fn the_camera_sees_the_rooms_its_portals_lead_to_and_the_doodads_in_them() {
    let (_, scene) = rooms_scene();
    let graph = scene.portal_graph.as_ref().unwrap();
    assert_eq!((graph.groups.len(), graph.portals.len(), graph.doodad_count), (4, 3, 3));

    // In A looking east: B through the doorway, the yard (exterior) always; C is behind B's north wall.
    let from_a = seen(&scene, [4.0, 10.0, 3.0], [40.0, 10.0, 3.0]);
    assert_eq!((drawn(&from_a), from_a.camera_in.clone()), (vec![A, B, YARD], vec![A]));
    assert_eq!(from_a.doodads, vec![true, false, true], "C's barrel is hidden with C");

    // In A looking west, out at the yard: B's doorway is behind the camera.
    let west = seen(&scene, [16.0, 10.0, 3.0], [-20.0, 10.0, 3.0]);
    assert_eq!(drawn(&west), vec![A, YARD]);

    // In B looking north at C's doorway: C shows; A's doorway is far to the side, out of view.
    let from_b = seen(&scene, [30.0, 5.0, 3.0], [30.0, 40.0, 3.0]);
    assert_eq!((drawn(&from_b), from_b.camera_in.clone()), (vec![B, C, YARD], vec![B]));
    assert_eq!(from_b.doodads, vec![true, true, true]);

    // In the yard looking at A's west door, low: A through it, and B through A's east door beyond.
    let from_yard = seen(&scene, [-20.0, 10.0, 3.0], [20.0, 10.0, 3.0]);
    assert_eq!((drawn(&from_yard), from_yard.camera_in.clone()), (vec![A, B, YARD], vec![]));

    // In the yard facing away from the building: only the yard.
    let away = seen(&scene, [-20.0, 10.0, 3.0], [-40.0, 10.0, 3.0]);
    assert_eq!(drawn(&away), vec![YARD]);
    assert_eq!(away.doodads, vec![false, false, true]);
}

/// From inside room A everything that shows is reached through portals (walls hide the rest), so the
/// render with culling equals the render without it, and both equal the baseline.
#[test]
fn a_render_from_inside_a_room_is_the_same_with_and_without_culling() {
    let (root, _) = rooms_scene();
    let dir = scratch("render-culling");
    let (culled, full) = (dir.join("culled.png"), dir.join("full.png"));
    let camera = ["--camera", "4,3,-10:40,3,-10"];
    render(&root, &culled, &camera);
    render(&root, &full, &[&camera[..], &["--no-portal-culling"]].concat());
    compare_with_baseline("portal-rooms-from-a.png", &culled);
    compare_with_baseline("portal-rooms-from-a.png", &full);
}
