//! lwo-wmo-viewer: a viewer and inspector for LightWave objects and World of Warcraft WMO files.
//!
//! The modules follow the pipeline: [`source`] (where files come from) → [`formats`] (bytes → typed
//! model and chunk tree) → [`mesh`] (triangulation, normals, axes) → [`scene`] (the neutral description
//! every consumer reads: nodes, meshes with their source records, materials, textures) → [`plugin`]
//! (its translation into Bevy assets) → [`viewer`] (the application). [`export`] writes a scene out as glTF; [`fixtures`]
//! writes files back out, for samples, tests and benchmarks.

#![forbid(unsafe_code)]

pub mod export;
pub mod fixtures;
pub mod formats;
pub mod memory;
pub mod mesh;
pub mod parallel;
#[cfg(feature = "viewer")]
pub mod plugin;
pub mod scene;
pub mod source;
#[cfg(feature = "viewer")]
pub mod viewer;

#[cfg(feature = "viewer")]
pub use plugin::LwoWmoPlugin;
