//! View options of the window: wireframe and normals (line meshes made once per shown mesh), grid and
//! axes (gizmos), back-face culling and unlit (applied to the model's materials), background colour,
//! and the highlight of the selected layer or group (its bounding boxes).

use std::collections::HashMap;

use bevy::asset::{RenderAssetUsages, UntypedAssetId};
use bevy::gizmos::aabb::ShowAabbGizmo;
use bevy::mesh::{Indices, PrimitiveTopology, VertexAttributeValues};
use bevy::prelude::*;
use bevy::render::render_resource::Face;

use super::scene::{ModelShown, ShownScene, Viewer};
use crate::plugin::{ModelAsset, ModelPart, WmoMaterial};

#[derive(Resource, Clone, Debug, PartialEq)]
pub struct ViewOptions {
    pub wireframe: bool,
    pub normals: bool,
    pub grid: bool,
    pub axes: bool,
    pub backface_culling: bool,
    pub unlit: bool,
    pub background: [f32; 3],
    /// The layer or group picked in the panel, drawn with its bounding boxes.
    pub selected_part: Option<usize>,
    /// Reload the shown model when one of its files changes on disk (`--watch`).
    pub watch: bool,
}

impl Default for ViewOptions {
    fn default() -> Self {
        Self {
            wireframe: false,
            normals: false,
            grid: true,
            axes: true,
            backface_culling: true,
            unlit: false,
            background: [0.16, 0.17, 0.19],
            selected_part: None,
            watch: false,
        }
    }
}

pub struct ViewOptionsPlugin;

impl Plugin for ViewOptionsPlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(ViewOptions::default()).add_systems(
            Update,
            (apply_background, apply_material_options, derived_lines, draw_guides, highlight_selection),
        );
    }
}

/// A line mesh made from a model mesh: its triangle edges or its normals.
#[derive(Component, Clone, Copy, PartialEq, Eq)]
enum DerivedLines {
    Wireframe,
    Normals,
}

/// Colours of the viewer's own marks, named in the panel's legend.
pub const WIREFRAME_COLOR: [f32; 3] = [0.1, 0.9, 0.4];
pub const NORMALS_COLOR: [f32; 3] = [0.3, 0.6, 1.0];
pub const SELECTION_COLOR: [f32; 3] = [1.0, 0.85, 0.2];

fn apply_background(options: Res<ViewOptions>, mut clear: ResMut<ClearColor>) {
    if options.is_changed() {
        let [r, g, b] = options.background;
        clear.0 = Color::srgb(r, g, b);
    }
}

/// Culling and unlit applied over each material's own setting, which is remembered so that turning an
/// option off restores the file's choice.
fn apply_material_options(
    options: Res<ViewOptions>,
    mut shown: MessageReader<ModelShown>,
    viewer: Res<Viewer>,
    models: Res<Assets<ModelAsset>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
    mut wmo_materials: ResMut<Assets<WmoMaterial>>,
    mut original: Local<HashMap<UntypedAssetId, (Option<Face>, bool)>>,
) {
    let new_model = shown.read().count() > 0;
    if !options.is_changed() && !new_model {
        return;
    }
    let Some(model) = viewer.current.as_ref().and_then(|h| models.get(h)) else { return };
    let mut apply = |id: UntypedAssetId, material: &mut StandardMaterial| {
        let (cull, unlit) = *original.entry(id).or_insert((material.cull_mode, material.unlit));
        let want_cull = if options.backface_culling { cull } else { None };
        let want_unlit = unlit || options.unlit;
        if material.cull_mode != want_cull || material.unlit != want_unlit {
            material.cull_mode = want_cull;
            material.unlit = want_unlit;
        }
    };
    for handle in &model.standard_materials {
        if let Some(mut material) = materials.get_mut(handle) {
            apply(handle.id().untyped(), &mut material);
        }
    }
    for handle in &model.wmo_materials {
        if let Some(mut material) = wmo_materials.get_mut(handle) {
            apply(handle.id().untyped(), &mut material.base);
        }
    }
}

fn edges_and_normals(mesh: &Mesh, normal_length: f32) -> Option<(Vec<[f32; 3]>, Vec<[f32; 3]>)> {
    let Some(VertexAttributeValues::Float32x3(positions)) = mesh.attribute(Mesh::ATTRIBUTE_POSITION) else {
        return None;
    };
    let indices: Vec<u32> = match mesh.indices() {
        Some(Indices::U32(i)) => i.clone(),
        Some(Indices::U16(i)) => i.iter().map(|&v| u32::from(v)).collect(),
        None => (0..positions.len() as u32).collect(),
    };
    let mut edges = Vec::new();
    if mesh.primitive_topology() == PrimitiveTopology::TriangleList {
        for t in indices.chunks_exact(3) {
            for (a, b) in [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])] {
                if let (Some(pa), Some(pb)) = (positions.get(a as usize), positions.get(b as usize)) {
                    edges.push(*pa);
                    edges.push(*pb);
                }
            }
        }
    }
    let mut normals = Vec::new();
    if let Some(VertexAttributeValues::Float32x3(n)) = mesh.attribute(Mesh::ATTRIBUTE_NORMAL) {
        for (p, n) in positions.iter().zip(n) {
            normals.push(*p);
            normals.push([p[0] + n[0] * normal_length, p[1] + n[1] * normal_length, p[2] + n[2] * normal_length]);
        }
    }
    Some((edges, normals))
}

fn line_mesh(points: Vec<[f32; 3]>) -> Mesh {
    let count = points.len() as u32;
    Mesh::new(PrimitiveTopology::LineList, RenderAssetUsages::default())
        .with_inserted_attribute(Mesh::ATTRIBUTE_POSITION, points)
        .with_inserted_indices(Indices::U32((0..count).collect()))
}

fn shown(options: &ViewOptions, kind: DerivedLines) -> bool {
    match kind {
        DerivedLines::Wireframe => options.wireframe,
        DerivedLines::Normals => options.normals,
    }
}

/// Makes the line meshes the first time an option asks for them, then only shows or hides them.
#[allow(clippy::too_many_arguments)]
fn derived_lines(
    mut commands: Commands,
    options: Res<ViewOptions>,
    viewer: Res<Viewer>,
    models: Res<Assets<ModelAsset>>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
    sources: Query<(Entity, &Mesh3d), (Without<DerivedLines>, With<ModelPart>)>,
    scene: Query<&Children, With<ShownScene>>,
    children: Query<&Children>,
    mut lines: Query<(&DerivedLines, &mut Visibility)>,
    mut made: Local<Option<Entity>>,
    mut line_materials: Local<Option<(Handle<StandardMaterial>, Handle<StandardMaterial>)>>,
) {
    let wanted = options.wireframe || options.normals;
    let scene_entity = viewer.scene_entity;
    if wanted && *made != scene_entity && !scene.is_empty() {
        let Some(model) = viewer.current.as_ref().and_then(|h| models.get(h)) else { return };
        let size = Vec3::from_array(model.description.bounds.extent()).length().max(1e-3);
        let (wire_material, normal_material) = line_materials
            .get_or_insert_with(|| {
                let unlit = |c: Color| StandardMaterial { base_color: c, unlit: true, ..default() };
                (
                    materials.add(unlit(Color::srgb_from_array(WIREFRAME_COLOR))),
                    materials.add(unlit(Color::srgb_from_array(NORMALS_COLOR))),
                )
            })
            .clone();
        let Some(root) = scene_entity else { return };
        let mut stack = vec![root];
        let mut found = Vec::new();
        while let Some(e) = stack.pop() {
            if let Ok((entity, mesh)) = sources.get(e) {
                found.push((entity, mesh.0.clone()));
            }
            if let Ok(kids) = children.get(e) {
                stack.extend(kids.iter());
            }
        }
        for (entity, handle) in found {
            let Some((edges, normals)) = meshes.get(&handle).and_then(|m| edges_and_normals(m, size * 0.01)) else {
                continue;
            };
            for (kind, points, material) in
                [(DerivedLines::Wireframe, edges, &wire_material), (DerivedLines::Normals, normals, &normal_material)]
            {
                if points.is_empty() {
                    continue;
                }
                let line = meshes.add(line_mesh(points));
                let visibility = if shown(&options, kind) { Visibility::Inherited } else { Visibility::Hidden };
                commands.spawn((
                    Mesh3d(line),
                    MeshMaterial3d(material.clone()),
                    Transform::default(),
                    visibility,
                    kind,
                    ChildOf(entity),
                ));
            }
        }
        *made = scene_entity;
        return;
    }
    if options.is_changed() {
        for (kind, mut visibility) in &mut lines {
            visibility.set_if_neq(if shown(&options, *kind) { Visibility::Inherited } else { Visibility::Hidden });
        }
    }
}

/// A ground grid under the model and axes at the origin, sized to the model; none over a texture,
/// which is looked at flat.
fn draw_guides(mut gizmos: Gizmos, options: Res<ViewOptions>, viewer: Res<Viewer>, models: Res<Assets<ModelAsset>>) {
    let Some(model) = viewer.current.as_ref().and_then(|h| models.get(h)) else { return };
    if model.description.bounds.is_empty() || super::texture_view::shown_texture(&viewer, &models).is_some() {
        return;
    }
    let extent = Vec3::from_array(model.description.bounds.extent());
    let size = extent.max_element().max(1e-3);
    if options.grid {
        let spacing = 10f32.powf((size / 10.0).log10().floor());
        let cells = ((size * 1.5 / spacing).ceil() as u32).clamp(2, 200);
        let center = Vec3::from_array(model.description.bounds.center());
        let at = Vec3::new(
            (center.x / spacing).round() * spacing,
            model.description.bounds.min[1],
            (center.z / spacing).round() * spacing,
        );
        gizmos.grid(
            Isometry3d::new(at, Quat::from_rotation_x(std::f32::consts::FRAC_PI_2)),
            UVec2::splat(cells),
            Vec2::splat(spacing),
            Color::srgba(0.6, 0.6, 0.6, 0.35),
        );
    }
    if options.axes {
        gizmos.axes(Transform::IDENTITY, size * 0.25);
    }
}

fn highlight_selection(
    mut commands: Commands,
    options: Res<ViewOptions>,
    parts: Query<(Entity, &ModelPart, Has<ShowAabbGizmo>), With<Mesh3d>>,
    added: Query<(), Added<ModelPart>>,
) {
    if !options.is_changed() && added.is_empty() {
        return;
    }
    for (entity, part, shown) in &parts {
        let want = options.selected_part == Some(part.0);
        if want && !shown {
            commands.entity(entity).insert(ShowAabbGizmo { color: Some(Color::srgb_from_array(SELECTION_COLOR)) });
        } else if !want && shown {
            commands.entity(entity).remove::<ShowAabbGizmo>();
        }
    }
}
