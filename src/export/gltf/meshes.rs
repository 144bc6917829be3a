//! Meshes and their accessors: each scene mesh's vertices and valid elements written once into the
//! buffer, and a glTF mesh with a primitive per draw for each set of draws a node carries.

use std::collections::BTreeMap;

use gltf::json;
use json::validation::{Checked, USize64};
use serde_json::json as value;

use super::document::{Builder, finite_or, raw};
use crate::mesh::{MeshData, Topology};
use crate::scene::Draw;

/// The accessors of one scene mesh, written once however many primitives draw it.
#[derive(Clone)]
pub(super) struct MeshAccessors {
    attributes: BTreeMap<Checked<json::mesh::Semantic>, json::Index<json::Accessor>>,
    indices: json::Index<json::Accessor>,
    mode: json::mesh::Mode,
    has_uv: bool,
    triangles: usize,
    /// Morph targets (position and normal displacements) and their names, in target order.
    targets: Vec<json::mesh::MorphTarget>,
    target_names: Vec<String>,
}

pub(super) fn has_uv(mesh: &MeshData) -> bool {
    mesh.uv_sets.first().is_some_and(|uv| uv.len() == mesh.positions.len())
}

impl Builder<'_> {
    /// Appends `bytes` as a buffer view, 4-byte aligned (every accessor's component size divides 4).
    pub(super) fn add_view(
        &mut self,
        bytes: &[u8],
        target: Option<json::buffer::Target>,
    ) -> json::Index<json::buffer::View> {
        let offset = self.buffer.len();
        self.buffer.extend_from_slice(bytes);
        self.buffer.resize(self.buffer.len().next_multiple_of(4), 0);
        self.root.push(json::buffer::View {
            buffer: json::Index::new(0),
            byte_length: USize64::from(bytes.len()),
            byte_offset: (offset > 0).then(|| USize64::from(offset)),
            byte_stride: None,
            name: None,
            target: target.map(Checked::Valid),
            extensions: None,
            extras: None,
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn add_accessor(
        &mut self,
        bytes: &[u8],
        target: json::buffer::Target,
        count: usize,
        component: json::accessor::ComponentType,
        kind: json::accessor::Type,
        normalized: bool,
        bounds: Option<([f32; 3], [f32; 3])>,
    ) -> json::Index<json::Accessor> {
        let view = self.add_view(bytes, Some(target));
        self.root.push(json::Accessor {
            buffer_view: Some(view),
            byte_offset: None,
            count: USize64::from(count),
            component_type: Checked::Valid(json::accessor::GenericComponentType(component)),
            extensions: None,
            extras: None,
            type_: Checked::Valid(kind),
            min: bounds.map(|(min, _)| value!(min)),
            max: bounds.map(|(_, max)| value!(max)),
            name: None,
            normalized,
            sparse: None,
        })
    }

    /// Writes a scene mesh's vertices and its valid elements; `None` when nothing drawable is left.
    /// Elements that index past the vertices or touch a non-finite position are dropped, and the
    /// attributes that do not have one value per vertex are left out, each with a note.
    pub(super) fn write_mesh(&mut self, m: usize) -> Option<MeshAccessors> {
        use json::accessor::{ComponentType, Type};
        use json::buffer::Target;
        use json::mesh::Semantic;
        let scene_mesh = &self.scene.meshes[m];
        let mesh = &scene_mesh.data;
        let label = &scene_mesh.label;
        let vertex_count = mesh.positions.len();
        let (corners, mode) = match mesh.topology {
            Topology::Triangles => (3, json::mesh::Mode::Triangles),
            Topology::Lines => (2, json::mesh::Mode::Lines),
            Topology::Points => (1, json::mesh::Mode::Points),
        };
        if vertex_count == 0 || mesh.indices.is_empty() {
            return None;
        }
        let finite = |p: &[f32; 3]| p.iter().all(|c| c.is_finite());
        let mut indices: Vec<u32> = Vec::with_capacity(mesh.indices.len());
        let mut dropped = 0;
        for element in mesh.indices.chunks(corners) {
            let valid =
                element.len() == corners && element.iter().all(|&i| mesh.positions.get(i as usize).is_some_and(finite));
            if valid { indices.extend_from_slice(element) } else { dropped += 1 }
        }
        if dropped > 0 {
            self.notes.push(format!(
                "{label}: {dropped} elements index past the vertices or touch a non-finite position and were dropped"
            ));
        }
        if indices.is_empty() {
            return None;
        }
        let mut attributes = BTreeMap::new();
        // Non-finite positions (no element uses them any more) take the first finite one's place, so
        // the written values stay finite and inside the bounds.
        let stand_in = mesh.positions.iter().find(|p| finite(p)).copied().unwrap_or([0.0; 3]);
        let mut min = [f32::INFINITY; 3];
        let mut max = [f32::NEG_INFINITY; 3];
        let mut bytes = Vec::with_capacity(vertex_count * 12);
        for p in &mesh.positions {
            let p = if finite(p) { *p } else { stand_in };
            for k in 0..3 {
                min[k] = min[k].min(p[k]);
                max[k] = max[k].max(p[k]);
                bytes.extend_from_slice(&p[k].to_le_bytes());
            }
        }
        let positions = self.add_accessor(
            &bytes,
            Target::ArrayBuffer,
            vertex_count,
            ComponentType::F32,
            Type::Vec3,
            false,
            Some((min, max)),
        );
        attributes.insert(Checked::Valid(Semantic::Positions), positions);

        if mesh.normals.len() == vertex_count {
            bytes.clear();
            for n in &mesh.normals {
                let unit = crate::mesh::normalize(*n).unwrap_or([0.0, 1.0, 0.0]);
                unit.iter().for_each(|c| bytes.extend_from_slice(&c.to_le_bytes()));
            }
            let normals = self.add_accessor(
                &bytes,
                Target::ArrayBuffer,
                vertex_count,
                ComponentType::F32,
                Type::Vec3,
                false,
                None,
            );
            attributes.insert(Checked::Valid(Semantic::Normals), normals);
        } else if !mesh.normals.is_empty() {
            self.notes
                .push(format!("{label}: {} normals for {vertex_count} vertices; NORMAL left out", mesh.normals.len()));
        }
        let mut set = 0;
        for uv in &mesh.uv_sets {
            if uv.len() != vertex_count {
                self.notes
                    .push(format!("{label}: a UV set of {} values for {vertex_count} vertices was left out", uv.len()));
                continue;
            }
            bytes.clear();
            for t in uv {
                finite_or(*t, 0.0).iter().for_each(|c| bytes.extend_from_slice(&c.to_le_bytes()));
            }
            let accessor = self.add_accessor(
                &bytes,
                Target::ArrayBuffer,
                vertex_count,
                ComponentType::F32,
                Type::Vec2,
                false,
                None,
            );
            attributes.insert(Checked::Valid(Semantic::TexCoords(set)), accessor);
            set += 1;
        }
        match &mesh.colors {
            Some(colors) if colors.len() == vertex_count => {
                bytes.clear();
                for c in colors {
                    bytes.extend(c.map(|v| if v.is_finite() { (v.clamp(0.0, 1.0) * 255.0).round() as u8 } else { 0 }));
                }
                let accessor = self.add_accessor(
                    &bytes,
                    Target::ArrayBuffer,
                    vertex_count,
                    ComponentType::U8,
                    Type::Vec4,
                    true,
                    None,
                );
                attributes.insert(Checked::Valid(Semantic::Colors(0)), accessor);
            }
            Some(colors) => self
                .notes
                .push(format!("{label}: {} colours for {vertex_count} vertices; COLOR_0 left out", colors.len())),
            None => {}
        }
        // Joints and weights of a skinned M2 mesh (the node that draws it gets the skin).
        let skin = mesh.skin.as_ref().filter(|s| s.joints.len() == vertex_count && s.weights.len() == vertex_count);
        if let Some(skin) = skin {
            bytes.clear();
            skin.joints.iter().flatten().for_each(|j| bytes.extend_from_slice(&j.to_le_bytes()));
            let joints = self.add_accessor(
                &bytes,
                Target::ArrayBuffer,
                vertex_count,
                ComponentType::U16,
                Type::Vec4,
                false,
                None,
            );
            attributes.insert(Checked::Valid(Semantic::Joints(0)), joints);
            bytes.clear();
            skin.weights.iter().flatten().for_each(|w| bytes.extend_from_slice(&w.to_le_bytes()));
            let weights = self.add_accessor(
                &bytes,
                Target::ArrayBuffer,
                vertex_count,
                ComponentType::F32,
                Type::Vec4,
                false,
                None,
            );
            attributes.insert(Checked::Valid(Semantic::Weights(0)), weights);
        }
        // Morph targets (LightWave endomorphs): displacements, POSITION with its bounds as glTF asks.
        let mut targets = Vec::new();
        let mut target_names = Vec::new();
        for target in &mesh.morph_targets {
            if target.positions.len() != vertex_count || target.normals.len() != vertex_count {
                self.notes.push(format!(
                    "{label}: morph {} has {} values for {vertex_count} vertices; left out",
                    target.name,
                    target.positions.len()
                ));
                continue;
            }
            let mut write = |values: &[[f32; 3]], bounded: bool| {
                bytes.clear();
                let mut min = [f32::INFINITY; 3];
                let mut max = [f32::NEG_INFINITY; 3];
                for v in values {
                    let v = finite_or(*v, 0.0);
                    for k in 0..3 {
                        min[k] = min[k].min(v[k]);
                        max[k] = max[k].max(v[k]);
                        bytes.extend_from_slice(&v[k].to_le_bytes());
                    }
                }
                self.add_accessor(
                    &bytes,
                    Target::ArrayBuffer,
                    vertex_count,
                    ComponentType::F32,
                    Type::Vec3,
                    false,
                    bounded.then_some((min, max)),
                )
            };
            let positions = write(&target.positions, true);
            let normals = (mesh.normals.len() == vertex_count).then(|| write(&target.normals, false));
            targets.push(json::mesh::MorphTarget { positions: Some(positions), normals, tangents: None });
            target_names.push(target.name.clone());
        }
        bytes.clear();
        let component = if vertex_count <= usize::from(u16::MAX) {
            indices.iter().for_each(|&i| bytes.extend_from_slice(&(i as u16).to_le_bytes()));
            ComponentType::U16
        } else {
            indices.iter().for_each(|&i| bytes.extend_from_slice(&i.to_le_bytes()));
            ComponentType::U32
        };
        let index_accessor =
            self.add_accessor(&bytes, Target::ElementArrayBuffer, indices.len(), component, Type::Scalar, false, None);
        Some(MeshAccessors {
            attributes,
            indices: index_accessor,
            mode,
            has_uv: has_uv(mesh),
            triangles: if mode == json::mesh::Mode::Triangles { indices.len() / 3 } else { 0 },
            targets,
            target_names,
        })
    }

    /// One glTF mesh with a primitive per draw; `None` when no draw has anything to show.
    pub(super) fn add_mesh(
        &mut self,
        draws: &[Draw],
        node_name: Option<&str>,
    ) -> Option<(json::Index<json::Mesh>, usize)> {
        let mut primitives = Vec::new();
        let mut triangles = 0;
        let mut target_names: Option<Vec<String>> = None;
        let mut targets_agree = true;
        for draw in draws {
            let Some(accessors) = self.accessors.get(&draw.mesh).cloned().flatten() else { continue };
            // glTF gives one mesh one set of weights: every primitive needs the same targets.
            match &target_names {
                None => target_names = Some(accessors.target_names.clone()),
                Some(names) => targets_agree &= *names == accessors.target_names,
            }
            let material = self.material(draw.material, accessors.has_uv);
            triangles += accessors.triangles;
            primitives.push(json::mesh::Primitive {
                attributes: accessors.attributes,
                extensions: None,
                extras: None,
                indices: Some(accessors.indices),
                material: Some(material),
                mode: Checked::Valid(accessors.mode),
                targets: (!accessors.targets.is_empty()).then_some(accessors.targets),
            });
        }
        if primitives.is_empty() {
            return None;
        }
        let mut target_names = target_names.unwrap_or_default();
        if !targets_agree {
            self.notes.push(format!(
                "{}: its parts have different morph targets; written without them",
                node_name.unwrap_or("a mesh")
            ));
            primitives.iter_mut().for_each(|p| p.targets = None);
            target_names.clear();
        }
        let name = match draws {
            [one] => Some(self.scene.meshes[one.mesh].label.clone()),
            _ => node_name.map(str::to_owned),
        };
        // `targetNames` in the mesh's extras is where Blender and three.js look for the targets' names.
        let (weights, extras) = if target_names.is_empty() {
            (None, None)
        } else {
            let weight = |name: &String| {
                self.morph_weights
                    .iter()
                    .rev()
                    .find(|(n, _)| n == name)
                    .map_or(0.0, |&(_, w)| if w.is_finite() { w } else { 0.0 })
            };
            (Some(target_names.iter().map(weight).collect()), Some(raw(&value!({ "targetNames": target_names }))))
        };
        let mesh = self.root.push(json::Mesh { extensions: None, extras, name, primitives, weights });
        Some((mesh, triangles))
    }
}
