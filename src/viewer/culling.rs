//! Portal culling for the window and the renders: when the camera moves, the shown WMO's portal graph
//! ([`crate::scene::portals`]) says which groups and doodads it can see; [`super::scene::apply_visibility`]
//! hides the rest. On by default; the panel's View section and `view portal-culling off` turn it off.

use bevy::prelude::*;

use super::camera::ViewCamera;
use super::scene::Viewer;
use crate::plugin::ModelAsset;
use crate::scene::portals::{GroupVisibility, frustum_planes};

#[derive(Resource, Clone, Debug, PartialEq)]
pub struct PortalCulling {
    pub enabled: bool,
    /// What the camera sees; `None` when culling is off, the shown model has no portal graph, or culling
    /// steps aside for [`Self::interiors_from_outside`].
    pub seen: Option<GroupVisibility>,
    /// The camera is outside and the user ticked interior groups only: from outside, culling would draw
    /// the (unticked) exterior and what its portals show, so nearly nothing; the ticked rooms are drawn
    /// whole instead, as a cut-away, and the panel says so.
    pub interiors_from_outside: bool,
    /// The camera and model the last answer was for, so a still camera costs nothing.
    asked: Option<(AssetId<ModelAsset>, [[f32; 4]; 4])>,
}

impl PortalCulling {
    pub fn new(enabled: bool) -> Self {
        Self { enabled, seen: None, interiors_from_outside: false, asked: None }
    }

    pub fn group_drawn(&self, group: usize) -> bool {
        self.seen.as_ref().is_none_or(|s| s.group_drawn(group))
    }

    pub fn doodad_drawn(&self, doodad: usize) -> bool {
        self.seen.as_ref().is_none_or(|s| s.doodad_drawn(doodad))
    }
}

/// Asks the portal graph again when the camera, the model or the option changed; the resource changes
/// (and the visibility is applied again) only when the answer does.
pub fn update_portal_culling(
    mut culling: ResMut<PortalCulling>,
    viewer: Res<Viewer>,
    models: Res<Assets<ModelAsset>>,
    cameras: Query<(&Camera, &GlobalTransform), With<ViewCamera>>,
    toggles: Res<super::scene::ViewToggles>,
) {
    let model = viewer.current.as_ref().and_then(|h| models.get(h).map(|m| (h.id(), m)));
    let graph = model.and_then(|(id, m)| m.description.portal_graph.as_ref().map(|g| (id, g)));
    let (Some((id, graph)), true, Ok((camera, transform))) = (graph, culling.enabled, cameras.single()) else {
        if culling.seen.is_some() || culling.asked.is_some() || culling.interiors_from_outside {
            culling.seen = None;
            culling.asked = None;
            culling.interiors_from_outside = false;
        }
        return;
    };
    if toggles.is_changed() {
        culling.bypass_change_detection().asked = None;
    }
    let clip_from_world = (camera.clip_from_view() * transform.to_matrix().inverse()).to_cols_array_2d();
    let asked = Some((id, clip_from_world));
    if culling.bypass_change_detection().asked == asked {
        return;
    }
    culling.bypass_change_detection().asked = asked;
    let seen = graph.visible(transform.translation().to_array(), &frustum_planes(clip_from_world));
    let ticked = |g: usize| toggles.parts.get(g).copied().unwrap_or(true);
    let exterior_ticked =
        graph.groups.iter().enumerate().any(|(g, group)| group.present && group.exterior && ticked(g));
    let has_exterior = graph.groups.iter().any(|g| g.present && g.exterior);
    let interiors_from_outside = seen.camera_in.is_empty() && has_exterior && !exterior_ticked;
    let seen = (!interiors_from_outside).then_some(seen);
    if culling.seen != seen || culling.interiors_from_outside != interiors_from_outside {
        culling.seen = seen;
        culling.interiors_from_outside = interiors_from_outside;
    }
}
