//! lwo-wmo-viewer: a viewer and inspector for LightWave objects and World of Warcraft WMO and M2 files.
//!
//! The modules follow the pipeline: [`source`] (where files come from) → [`formats`] (bytes → typed
//! model and chunk tree) → [`mesh`] (triangulation, normals, axes) → [`scene`] (the neutral description
//! every consumer reads: nodes, meshes with their source records, materials, textures) → `plugin` (its
//! translation into Bevy assets; the `plugin` feature) → `viewer` (the application; the `viewer`
//! feature). [`animation`] plays M2 animation (sampling, bone poses, texture motion) for all of them
//! without Bevy. [`export`] writes a scene out as glTF. With the `fixtures` feature, `fixtures` writes files
//! back out, for samples, tests and benchmarks.

#![forbid(unsafe_code)]

pub mod animation;
pub mod export;
#[cfg(any(test, feature = "fixtures"))]
pub mod fixtures;
pub mod formats;
pub mod mesh;
pub mod parallel;
pub mod scene;
pub mod source;

#[cfg(feature = "plugin")]
pub mod plugin;
#[cfg(feature = "viewer")]
pub mod viewer;

#[cfg(feature = "plugin")]
pub use plugin::LwoWmoPlugin;
