//! Picking a triangle: a click on the model (without dragging) casts a ray through the cursor with
//! Bevy's mesh ray casting; the record that made the hit triangle (a LightWave polygon, a WMO or M2
//! triangle) is outlined, and the panel shows it (the scene description's source of each triangle). Esc clears it. The control hook's `pick X Y`
//! does the same at window pixels.

use bevy::picking::mesh_picking::ray_cast::{MeshRayCast, MeshRayCastSettings, RayCastVisibility};
use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use bevy_egui::input::EguiWantsInput;

use super::panel::{ChunkSelection, PanelState};
use super::scene::Viewer;
use crate::plugin::{DoodadInstance, DrawnMesh, ModelAsset};

/// Farther than this between press and release (logical pixels) is a drag of the camera, not a click.
const CLICK_SLOP: f32 = 4.0;

pub struct PickingPlugin;

impl Plugin for PickingPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<PressedAt>()
            .init_resource::<PickCount>()
            .add_message::<PickRequest>()
            .add_systems(Update, (clicks_to_requests, pick, clear_on_escape, outline_pick).chain());
    }
}

/// A pick at a position in the window, in logical pixels from its top-left corner.
#[derive(Message, Clone, Copy, Debug)]
pub struct PickRequest(pub Vec2);

#[derive(Resource, Default)]
struct PressedAt(Option<Vec2>);

/// How many picks have been made, so a script can tell a new pick from the same result twice.
#[derive(Resource, Default)]
pub struct PickCount(pub u64);

/// The colour of the pick's outline.
pub const PICK_COLOR: [f32; 3] = [1.0, 0.85, 0.1];

/// What was picked, for the panel and the control hook.
#[derive(Clone, Debug, PartialEq)]
pub struct PickInfo {
    pub heading: String,
    pub fields: Vec<(String, String)>,
    /// The file (index into the scene's files), the chunk (its id in the file's tree, and its path;
    /// for an M2 the header array's name alone) and the record's bytes there.
    pub file: usize,
    pub chunk: Option<crate::formats::ChunkId>,
    pub chunk_path: String,
    pub chunk_data: std::ops::Range<usize>,
    pub record: u32,
    pub bytes: std::ops::Range<usize>,
    /// A WMO doodad hit: its MODD entry, model and set.
    pub doodad: Option<(usize, String, u32)>,
    /// The outline of the picked record (a LightWave polygon's sides, a WMO or M2 triangle's) in world
    /// space.
    pub outline: Vec<[Vec3; 2]>,
}

impl PickInfo {
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "heading": self.heading,
            "file": self.file,
            "chunk": self.chunk_path,
            "record": self.record,
            "bytes": [self.bytes.start, self.bytes.end],
            "fields": self.fields.iter().map(|(k, v)| (k.clone(), serde_json::Value::from(v.clone()))).collect::<serde_json::Map<_, _>>(),
            "outline_edges": self.outline.len(),
            "doodad": self.doodad.as_ref().map(|(modd, model, set)| serde_json::json!({ "modd": modd, "model": model, "set": set })),
        })
    }
}

fn clicks_to_requests(
    buttons: Res<ButtonInput<MouseButton>>,
    wants: Res<EguiWantsInput>,
    window: Query<&Window, With<PrimaryWindow>>,
    cameras: Query<&Camera, With<super::camera::ViewCamera>>,
    mut pressed: ResMut<PressedAt>,
    mut requests: MessageWriter<PickRequest>,
) {
    let Ok(window) = window.single() else { return };
    let cursor = window.cursor_position();
    // Whether this frame's pointer is in the 3D view's rectangle (which the panel sets from its own
    // layout): egui's hover answer is about where the pointer was last frame, so a pointer that moves
    // onto the panel and presses at once (as fast input does) would pick behind it.
    let in_view = cursor.is_some_and(|c| {
        cameras.iter().any(|camera| camera.logical_viewport_rect().is_some_and(|view| view.contains(c)))
    });
    let over_panel = !in_view || wants.wants_pointer_input() || wants.is_pointer_over_area();
    if buttons.just_pressed(MouseButton::Left) {
        pressed.0 = cursor.filter(|_| !over_panel);
    }
    if buttons.just_released(MouseButton::Left)
        && let (Some(start), Some(end)) = (pressed.0.take(), cursor)
        && start.distance(end) <= CLICK_SLOP
    {
        requests.write(PickRequest(end));
    }
}

#[allow(clippy::too_many_arguments)]
fn pick(
    mut requests: MessageReader<PickRequest>,
    mut ray_cast: MeshRayCast,
    cameras: Query<(&Camera, &GlobalTransform), With<super::camera::ViewCamera>>,
    drawn: Query<&DrawnMesh>,
    (transforms, mesh3d, bevy_meshes): (Query<&GlobalTransform>, Query<&Mesh3d>, Res<Assets<Mesh>>),
    parents: Query<&ChildOf>,
    doodads: Query<&DoodadInstance>,
    viewer: Res<Viewer>,
    models: Res<Assets<ModelAsset>>,
    mut panel: ResMut<PanelState>,
    mut count: ResMut<PickCount>,
) {
    let Some(&PickRequest(at)) = requests.read().last() else { return };
    count.0 += 1;
    let Some(model) = viewer.current.as_ref().and_then(|h| models.get(h)) else { return };
    let Ok((camera, transform)) = cameras.single() else { return };
    // Bevy takes the position in the window and accounts for the 3D view's viewport beside the panels.
    let Ok(ray) = camera.viewport_to_world(transform, at) else { return };
    let only_drawn = |entity: Entity| drawn.contains(entity);
    let settings =
        MeshRayCastSettings::default().with_visibility(RayCastVisibility::VisibleInView).with_filter(&only_drawn);
    let Some((entity, hit)) = ray_cast.cast_ray(ray, &settings).first().cloned() else {
        panel.picked = None;
        return;
    };
    let (Ok(&DrawnMesh(mesh)), Some(triangle), Some([a, b, c])) = (drawn.get(entity), hit.triangle_index, hit.triangle)
    else {
        return;
    };
    // The hit's corners are in world space; the record's outline is in the mesh's, placed the way Bevy's
    // ray cast placed the hit (the entity's transform).
    let to_world = transforms.get(entity).map_or(bevy::math::Affine3A::IDENTITY, GlobalTransform::affine);
    let drawn_mesh = mesh3d.get(entity).ok().and_then(|m| bevy_meshes.get(&m.0));
    let mut outline: Vec<[Vec3; 2]> = drawn_mesh
        .map(|drawn| record_outline_of(drawn, &model.description.meshes[mesh].data.triangle_records, triangle))
        .unwrap_or_default()
        .into_iter()
        .map(|[p, q]| [to_world.transform_point3(p.into()), to_world.transform_point3(q.into())])
        .collect();
    if outline.is_empty() {
        outline = vec![[a, b], [b, c], [c, a]];
    }
    let doodad = parents.iter_ancestors(entity).find_map(|a| doodads.get(a).ok()).and_then(|&DoodadInstance(modd)| {
        let info = model.description.doodad_of_modd(modd)?;
        Some((modd, info.model.clone(), info.set))
    });
    let description = model.description.describe_triangle(mesh, triangle);
    panel.picked = Some(match description {
        Some(d) => PickInfo {
            heading: d.heading,
            fields: d.fields,
            file: d.origin.file,
            chunk: d.origin.chunk,
            chunk_path: d.origin.chunk_path,
            chunk_data: d.origin.chunk_data,
            record: d.origin.record,
            bytes: d.origin.bytes,
            doodad,
            outline: outline.clone(),
        },
        None => PickInfo {
            heading: format!("{} · triangle {triangle}", model.description.meshes[mesh].label),
            fields: vec![("source".into(), "made by the viewer, not read from a record".into())],
            file: 0,
            chunk: None,
            chunk_path: String::new(),
            chunk_data: 0..0,
            record: triangle as u32,
            bytes: 0..0,
            doodad,
            outline,
        },
    });
    // The chunk tree opens at the record's chunk with its bytes highlighted.
    if let Some(picked) = &panel.picked
        && !picked.chunk_path.is_empty()
    {
        let selection =
            picked.chunk.map_or_else(|| ChunkSelection::Array(picked.chunk_path.clone()), ChunkSelection::Chunk);
        let (file, data, focus) = (picked.file, picked.chunk_data.clone(), picked.bytes.start);
        panel.show_chunk(&model.description, file, selection, data, Some(focus), true);
    }
}

/// [`crate::scene::provenance::record_outline`] over the vertices the renderer's mesh holds (a loaded
/// model's vertex data moves there).
fn record_outline_of(mesh: &Mesh, triangle_records: &[u32], triangle: usize) -> Vec<[[f32; 3]; 2]> {
    let Some(positions) = mesh.attribute(Mesh::ATTRIBUTE_POSITION).and_then(|a| a.as_float3()) else {
        return Vec::new();
    };
    let indices: Vec<u32> = match mesh.indices() {
        Some(indices) => indices.iter().map(|i| i as u32).collect(),
        None => (0..positions.len() as u32).collect(),
    };
    crate::scene::provenance::record_outline(positions, &indices, triangle_records, triangle)
}

fn clear_on_escape(keys: Res<ButtonInput<KeyCode>>, mut panel: ResMut<PanelState>) {
    if keys.just_pressed(KeyCode::Escape) && panel.picked.is_some() {
        panel.picked = None;
    }
}

fn outline_pick(panel: Res<PanelState>, mut gizmos: Gizmos) {
    let Some(picked) = &panel.picked else { return };
    let color = Color::srgb_from_array(PICK_COLOR);
    for [a, b] in &picked.outline {
        gizmos.line(*a, *b, color);
    }
}
