//! WMO → scene. A root file brings its group files (found beside it, ignoring case; parsed and meshed
//! in parallel), its materials with their BLP textures, portals and doodads; a group file opened alone
//! shows that group with the root's materials when the root is beside it.

use crate::formats::Model;
use crate::formats::m2::model_file_name;
use crate::formats::wmo::{Material as WmoMaterialRecord, WmoGroup, WmoRoot, group_file_name, root_of_group_file};
use crate::mesh::wmo::{GroupMeshes, build_group, doodad_placement, portal_meshes};
use crate::mesh::{Bounds, MeshData, Topology};
use crate::scene::FileError;
use crate::source::FileSource;

use super::diagnostics::{Diagnostic, DiagnosticKind, TextureUser};
use super::m2::{BuiltModel, build_model, locate_in_data};
use super::material::{GamePass, Material, PassBlend};
use super::progress::Report;
use super::texture::{ImageFormat, Sampler, TextureSet};
use super::{
    DoodadInfo, Draw, MaterialInfo, MeshSource, ModelLabel, Node, NodeTransform, Overlay, PartInfo, RecordKind, Scene,
    SceneFile, file_name, find_sibling, read_file,
};

/// A group file that a root's group count calls for and that is not beside the root.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{name} is missing beside the root")]
pub struct MissingGroupFile {
    /// The name that was looked for (`Name_003.wmo`).
    pub name: String,
}

/// The group files of a root at `root_path` in `source`: `Name_000.wmo`, … beside it, found ignoring
/// case.
pub fn find_group_files(
    source: &dyn FileSource,
    root_path: &str,
    group_count: usize,
) -> Vec<Result<String, MissingGroupFile>> {
    (0..group_count)
        .map(|i| {
            let name = group_file_name(file_name(root_path), i);
            find_sibling(source, root_path, &name).ok_or(MissingGroupFile { name })
        })
        .collect()
}

pub(super) fn build(source: &dyn FileSource, file: SceneFile, lookup: super::Lookup<'_>, report: Report<'_>) -> Scene {
    let mut scene = Scene::default();
    let document = file.document.clone().expect("the caller matched the model");
    scene.warnings.extend(document.warnings().iter().map(|w| Diagnostic::from_format(&file.display_path, w)));
    let opened_path = file.path.clone();
    let owner = file.display_path.clone();
    // (group index, file index in the scene) of every group that parsed.
    let mut groups: Vec<(usize, usize)> = Vec::new();
    match &document.model {
        Model::WmoRoot(root) => {
            scene.files.push(file);
            let found = find_group_files(source, &opened_path, root.group_infos.len());
            let wanted: Vec<(usize, String)> = found
                .into_iter()
                .enumerate()
                .filter_map(|(i, found)| match found {
                    Ok(path) => Some((i, path)),
                    Err(missing) => {
                        scene.warnings.push(Diagnostic::new(
                            DiagnosticKind::MissingFile,
                            &owner,
                            format!("group {i}: {missing}; the group is not shown"),
                        ));
                        None
                    }
                })
                .collect();
            for (i, result) in read_in_parallel(source, wanted, report) {
                match result {
                    Ok(group) if matches!(group.document.as_ref().map(|d| &d.model), Some(Model::WmoGroup(_))) => {
                        let doc = group.document.as_ref().expect("matched");
                        scene
                            .warnings
                            .extend(doc.warnings().iter().map(|w| Diagnostic::from_format(&group.display_path, w)));
                        scene.files.push(group);
                        groups.push((i, scene.files.len() - 1));
                    }
                    Ok(group) => scene.warnings.push(Diagnostic::new(
                        DiagnosticKind::UnreadableFile,
                        &group.display_path,
                        format!("group {i}: not a WMO group file; the group is not shown"),
                    )),
                    Err(e) => scene.warnings.push(Diagnostic::new(
                        DiagnosticKind::UnreadableFile,
                        &owner,
                        format!("{e}; the group is not shown"),
                    )),
                }
            }
        }
        Model::WmoGroup(_) => {
            let index = root_of_group_file(&opened_path).map_or(0, |(_, i)| i);
            let root_path = root_of_group_file(&opened_path)
                .and_then(|(root_name, _)| find_sibling(source, &opened_path, &root_name));
            match root_path.map(|p| read_file(source, &p)) {
                Some(Ok(root)) if matches!(root.document.as_ref().map(|d| &d.model), Some(Model::WmoRoot(_))) => {
                    // The root comes first, as when the root is opened; the group file follows it.
                    scene.files.push(root);
                }
                Some(Ok(_)) => {}
                Some(Err(e)) => scene.warnings.push(Diagnostic::new(
                    DiagnosticKind::UnreadableFile,
                    &owner,
                    format!("root file: {e}; materials and portals are not shown"),
                )),
                None => scene.warnings.push(Diagnostic::new(
                    DiagnosticKind::MissingFile,
                    &owner,
                    "the root file is missing; default materials are used",
                )),
            }
            scene.files.push(file);
            groups.push((index, scene.files.len() - 1));
        }
        Model::Lwo(_) | Model::M2(_) | Model::Blp(_) => unreachable!("the caller matched the model"),
    }
    let files = std::mem::take(&mut scene.files);
    let root = files.first().and_then(|f| match f.document.as_deref().map(|d| &d.model) {
        Some(Model::WmoRoot(r)) => Some(r),
        _ => None,
    });
    let group_models: Vec<(usize, usize, &WmoGroup)> = groups
        .iter()
        .filter_map(|&(i, f)| match files[f].document.as_deref().map(|d| &d.model) {
            Some(Model::WmoGroup(g)) => Some((i, f, g)),
            _ => None,
        })
        .collect();
    if report.cancelled() {
        return scene;
    }
    let Some(built) = build_in_parallel(&group_models, root, report) else { return scene };
    scene.files = files.clone();
    assemble(&mut scene, &opened_path, &owner, root, &group_models, built, lookup, report);
    scene
}

/// Reads and parses group files on every core: large WMOs have hundreds.
fn read_in_parallel(
    source: &dyn FileSource,
    wanted: Vec<(usize, String)>,
    report: Report<'_>,
) -> Vec<(usize, Result<SceneFile, FileError>)> {
    report.begin("group files", wanted.len());
    let read = crate::parallel::parallel_map(&wanted, |(_, path)| {
        if report.cancelled() {
            return Err(FileError::Cancelled { file: path.into() });
        }
        let file = read_file(source, path);
        report.step();
        file
    });
    wanted.into_iter().map(|(i, _)| i).zip(read).collect()
}

/// Every group's meshes, or `None` when the load was cancelled (the groups left are skipped).
fn build_in_parallel(
    groups: &[(usize, usize, &WmoGroup)],
    root: Option<&WmoRoot>,
    report: Report<'_>,
) -> Option<Vec<GroupMeshes>> {
    report.begin("group meshes", groups.len());
    let built = crate::parallel::parallel_map(groups, |&(_, _, group)| {
        let meshes = (!report.cancelled()).then(|| build_group(group, root));
        report.step();
        meshes
    });
    built.into_iter().collect()
}

#[allow(clippy::too_many_arguments)]
fn assemble(
    scene: &mut Scene,
    opened_path: &str,
    owner: &str,
    root: Option<&WmoRoot>,
    groups: &[(usize, usize, &WmoGroup)],
    built: Vec<GroupMeshes>,
    lookup: super::Lookup<'_>,
    report: Report<'_>,
) {
    let mut textures = TextureSet::default();
    let materials = build_materials(scene, root, lookup, &mut textures, owner);
    let default_material = scene.add_material(Material {
        base_color: [0.75, 0.75, 0.75, 1.0],
        game_pass: Some(GamePass {
            blend: PassBlend::Opaque,
            vertex_color_scale: 2.0,
            no_depth_write: false,
            no_depth_test: false,
        }),
        ..Material::new(ModelLabel::OverlayMaterial("Default").to_string())
    });
    let collision_material = scene.add_material(Material::overlay(
        ModelLabel::OverlayMaterial("Collision").to_string(),
        with_alpha(super::COLLISION_COLOR),
    ));
    let portal_material = scene.add_material(Material::overlay(
        ModelLabel::OverlayMaterial("Portal").to_string(),
        with_alpha(super::PORTAL_COLOR),
    ));
    let marker_material = scene.add_material(Material::flat(
        ModelLabel::OverlayMaterial("DoodadMarker").to_string(),
        super::DOODAD_MARKER_COLOR,
    ));

    let root_node = scene.add_node(Node::group(file_name(opened_path), None, NodeTransform::IDENTITY));
    let mut bounds = Bounds::EMPTY;
    let group_count =
        root.map_or(0, |r| r.group_infos.len()).max(groups.iter().map(|(i, _, _)| i + 1).max().unwrap_or(0));
    scene.parts = (0..group_count)
        .map(|i| PartInfo {
            name: group_name(root, None, i),
            description: "missing".into(),
            parent: None,
            visible: false,
        })
        .collect();
    let material_of = |m: u16| materials.get(usize::from(m)).copied().unwrap_or(default_material);
    if let Some(root) = root {
        let read: Vec<(usize, &WmoGroup, Bounds)> =
            groups.iter().zip(&built).map(|(&(i, _, g), meshes)| (i, g, meshes.bounds)).collect();
        scene.portal_graph = Some(super::portals::PortalGraph::from_wmo(root, &read));
    }
    for (&(i, file, group), meshes) in groups.iter().zip(built) {
        scene.parts[i] = PartInfo {
            name: group_name(root, Some(group), i),
            description: if group.header.is_exterior() { "exterior".into() } else { "interior".into() },
            parent: None,
            visible: true,
        };
        let group_node = scene.add_node(Node {
            part: Some(i),
            ..Node::group(scene.parts[i].name.clone(), Some(root_node), NodeTransform::IDENTITY)
        });
        bounds.union(&meshes.bounds);
        for batch in meshes.batches {
            let source_of_triangles =
                Some(MeshSource { file, kind: RecordKind::WmoTriangle { group: i, batch: Some(batch.batch) } });
            let mesh = scene.add_mesh(
                ModelLabel::GroupBatch { group: i, batch: batch.batch },
                batch.mesh,
                source_of_triangles,
            );
            scene.count_draw(mesh, true);
            scene.add_node(Node {
                part: Some(i),
                ..Node::drawing(group_node, Draw { mesh, material: material_of(u16::from(batch.material)) })
            });
        }
        if let Some(collision) = meshes.collision {
            let source_of_triangles =
                Some(MeshSource { file, kind: RecordKind::WmoTriangle { group: i, batch: None } });
            let mesh = scene.add_mesh(ModelLabel::GroupCollision(i), collision, source_of_triangles);
            let draw = Draw { mesh, material: collision_material };
            scene.add_node(Node {
                part: Some(i),
                overlay: Some(Overlay::Collision),
                hidden: true,
                ..Node::drawing(group_node, draw)
            });
        }
        if let Some((material, liquid)) = meshes.liquid {
            let mesh = scene.add_mesh(ModelLabel::GroupLiquid(i), liquid, None);
            scene.stats.draw_calls += 1;
            let draw = Draw { mesh, material: material_of(material) };
            scene.add_node(Node { part: Some(i), overlay: Some(Overlay::Liquid), ..Node::drawing(group_node, draw) });
        }
    }
    if let Some(root) = root {
        for (p, mesh) in portal_meshes(root).into_iter().enumerate() {
            let Some(mesh) = mesh else { continue };
            scene.portal_count += 1;
            let mesh = scene.add_mesh(ModelLabel::Portal(p), mesh, None);
            let draw = Draw { mesh, material: portal_material };
            scene.add_node(Node { overlay: Some(Overlay::Portals), hidden: true, ..Node::drawing(root_node, draw) });
        }
        place_doodads(scene, root, root_node, marker_material, lookup, &mut textures, report);
    }
    scene.textures = textures.textures;
    scene.bounds = bounds;
}

/// The see-through overlays' colour: their RGB at the alpha that lets the model show through.
fn with_alpha([r, g, b]: [f32; 3]) -> [f32; 4] {
    [r, g, b, 0.35]
}

/// Each MODD entry of every set, placed by its transform. Each distinct MODN model is read and built
/// once and its instances draw the same meshes; a model that is missing or fails keeps the marker.
fn place_doodads(
    scene: &mut Scene,
    root: &WmoRoot,
    root_node: usize,
    marker_material: usize,
    lookup: super::Lookup<'_>,
    textures: &mut TextureSet,
    report: Report<'_>,
) {
    let marker = scene.add_mesh(ModelLabel::DoodadMarkerMesh, doodad_marker_mesh(), None);
    let mut models: Vec<(u32, Option<BuiltModel>)> = Vec::new();
    let distinct: std::collections::BTreeSet<u32> = root.doodads.iter().map(|d| d.name_offset).collect();
    report.begin("doodad models", distinct.len());
    for (s, set) in root.doodad_sets.iter().enumerate() {
        scene.doodad_sets.push(set.name.clone());
        let start = set.first_doodad as usize;
        let end = (start + set.doodad_count as usize).min(root.doodads.len());
        for d in start.min(end)..end {
            let doodad = &root.doodads[d];
            let placement = doodad_placement(doodad);
            let name = root.doodad_names.get(doodad.name_offset).unwrap_or_else(|| format!("doodad {d}"));
            let slot = match models.iter().position(|(offset, _)| *offset == doodad.name_offset) {
                Some(slot) => slot,
                None => {
                    if report.cancelled() {
                        return;
                    }
                    let built = load_doodad_model(scene, models.len(), &name, lookup, textures);
                    report.step();
                    models.push((doodad.name_offset, built));
                    models.len() - 1
                }
            };
            let transform = NodeTransform {
                translation: placement.translation,
                rotation: placement.rotation,
                scale: [placement.scale; 3],
            };
            scene.doodads.push(DoodadInfo {
                set: s as u32,
                model: name.clone(),
                position: placement.translation,
                scale: placement.scale,
            });
            let overlay = Overlay::Doodad(s as u32);
            let node = scene.add_node(Node {
                overlay: Some(overlay),
                hidden: !overlay.shown_by_default(),
                doodad: Some(d),
                ..Node::group(name, Some(root_node), transform)
            });
            match &models[slot].1 {
                Some(model) => {
                    let draws = model.units.iter().map(|u| u.draw);
                    super::animation::place_instance(scene, node, model.skeleton, draws, |_, drawing| drawing);
                }
                None => scene.nodes[node].draw = Some(Draw { mesh: marker, material: marker_material }),
            }
        }
    }
}

/// A doodad's M2 under the data root (MODN's `.mdx` names end in `.m2` on disk), or `None` with a
/// warning: the doodad then keeps its marker.
fn load_doodad_model(
    scene: &mut Scene,
    index: usize,
    name: &str,
    lookup: super::Lookup<'_>,
    textures: &mut TextureSet,
) -> Option<BuiltModel> {
    let result = locate_in_data(lookup.data, &model_file_name(name))
        .map_err(|reason| (DiagnosticKind::MissingFile, reason.to_string()))
        .and_then(|at| {
            let unreadable = |reason: String| (DiagnosticKind::UnreadableFile, reason);
            let file = read_file(at.source, &at.path).map_err(|e| unreadable(e.to_string()))?;
            let Some(Model::M2(model)) = file.document.as_deref().map(|d| &d.model) else {
                return Err(unreadable(format!("{}: not an M2 model", file.display_path)));
            };
            let model = model.clone();
            scene.warnings.extend(model.warnings.iter().map(|w| Diagnostic::from_format(&file.display_path, w)));
            scene.files.push(file);
            let file_index = scene.files.len() - 1;
            build_model(scene, index, at.source, file_index, &model, lookup, textures)
                .map_err(|d| (d.kind, d.to_string()))
        });
    match result {
        Ok(model) => Some(model),
        Err((kind, reason)) => {
            let owner = scene.files.first().map(|f| f.display_path.clone()).unwrap_or_default();
            scene.warnings.push(Diagnostic::new(kind, owner, format!("doodad {name}: {reason}; a marker is shown")));
            None
        }
    }
}

fn group_name(root: Option<&WmoRoot>, group: Option<&WmoGroup>, index: usize) -> String {
    let from_root = |offset: u32| root.and_then(|r| r.group_names.get(offset)).filter(|n| !n.is_empty());
    group
        .and_then(|g| from_root(g.header.name_offset))
        .or_else(|| {
            root.and_then(|r| r.group_infos.get(index))
                .and_then(|gi| u32::try_from(gi.name_offset).ok())
                .and_then(from_root)
        })
        .unwrap_or_else(|| format!("Group {index:03}"))
}

/// One material per MOMT entry: the blend mode picks the game pass; the alpha mode the render phase.
fn build_materials(
    scene: &mut Scene,
    root: Option<&WmoRoot>,
    lookup: super::Lookup<'_>,
    textures: &mut TextureSet,
    owner: &str,
) -> Vec<usize> {
    let Some(root) = root else { return Vec::new() };
    let mut out = Vec::with_capacity(root.materials.len());
    for (i, m) in root.materials.iter().enumerate() {
        let texture_name = root.textures.get(m.texture1).filter(|n| !n.is_empty());
        let texture = texture_name.as_ref().map(|name| {
            let sampler = Sampler {
                repeat: [!m.has(WmoMaterialRecord::CLAMP_S), !m.has(WmoMaterialRecord::CLAMP_T)],
                nearest: false,
            };
            // One texture per image and sampler: two materials may clamp the same image differently.
            let clamp = match sampler.repeat {
                [true, true] => "",
                [false, true] => "/ClampS",
                [true, false] => "/ClampT",
                [false, false] => "/ClampST",
            };
            textures.get(
                &format!("motx {}{clamp}", m.texture1),
                format!("{}{clamp}", ModelLabel::Texture(m.texture1 as usize)),
                name,
                locate_in_data(lookup.data, name),
                ImageFormat::Blp,
                sampler,
                (owner, TextureUser::WmoMaterial),
                &mut scene.warnings,
            )
        });
        let blend = m.blend();
        let pass = PassBlend::from_wmo(blend);
        let [r, g, b, a] = m.diffuse.rgba_f32();
        let found = texture.is_some_and(|(_, found)| found);
        // Without its texture the diffuse colour is the only hint of what the material looks like.
        let base_color = if found { [1.0; 4] } else { [r, g, b, if blend.writes_depth() { 1.0 } else { a }] };
        let emissive = if m.has(WmoMaterialRecord::EMISSIVE_AT_NIGHT) {
            let [er, eg, eb, _] = m.emissive.rgba_f32();
            crate::formats::lwo::shading::srgb_to_linear([er, eg, eb])
        } else {
            [0.0; 3]
        };
        out.push(scene.add_material(Material {
            base_color,
            base_color_texture: texture.map(|(t, _)| t),
            emissive,
            unlit: m.has(WmoMaterialRecord::UNLIT),
            alpha_mode: pass.alpha_mode(),
            double_sided: m.two_sided(),
            perceptual_roughness: 0.8,
            reflectance: 0.2,
            game_pass: Some(GamePass {
                blend: pass,
                vertex_color_scale: 2.0,
                no_depth_write: false,
                no_depth_test: false,
            }),
            ..Material::new(ModelLabel::Material(i).to_string())
        }));
        let mut parameters = vec![
            ("blend mode".to_owned(), format!("{} ({})", blend.code(), blend.name())),
            ("shader".to_owned(), m.shader.to_string()),
            ("flags".to_owned(), format!("0x{:X} {}", m.flags, m.flag_names().join(", "))),
            ("diffuse".to_owned(), format!("{:?}", m.diffuse.rgba())),
        ];
        if m.has(WmoMaterialRecord::EMISSIVE_AT_NIGHT) {
            parameters.push(("emissive".to_owned(), format!("{:?}", m.emissive.rgba())));
        }
        // Named by the texture a person recognises it by, as WoW editors list them.
        let name = match &texture_name {
            Some(texture) => format!("Material {i} · {}", super::file_name(texture)),
            None => format!("Material {i}"),
        };
        scene.material_infos.push(MaterialInfo { name, parameters, texture: texture_name.map(|n| (n, found)) });
    }
    out
}

/// A unit box with three axis bars (+X long), so a doodad marker shows where its model points.
fn doodad_marker_mesh() -> MeshData {
    let mut mesh = MeshData::new(Topology::Triangles);
    let mut cuboid = |center: [f32; 3], half: [f32; 3]| {
        let faces: [([f32; 3], [usize; 2]); 3] =
            [([1.0, 0.0, 0.0], [1, 2]), ([0.0, 1.0, 0.0], [2, 0]), ([0.0, 0.0, 1.0], [0, 1])];
        for (axis, [a, b]) in faces {
            for sign in [1.0f32, -1.0] {
                let normal = axis.map(|c| c * sign);
                let base = mesh.positions.len() as u32;
                let k = normal.iter().position(|c| *c != 0.0).unwrap_or(0);
                for (su, sv) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
                    let mut p = center;
                    p[k] += half[k] * sign;
                    p[a] += half[a] * su * sign;
                    p[b] += half[b] * sv;
                    mesh.positions.push(p);
                    mesh.normals.push(normal);
                }
                mesh.indices.extend_from_slice(&[base, base + 1, base + 2, base, base + 2, base + 3]);
            }
        }
    };
    cuboid([0.0, 0.5, 0.0], [0.5, 0.5, 0.5]);
    cuboid([1.0, 0.5, 0.0], [0.5, 0.06, 0.06]);
    cuboid([0.0, 1.25, 0.0], [0.06, 0.25, 0.06]);
    cuboid([0.0, 0.5, -0.75], [0.06, 0.06, 0.25]);
    mesh
}
