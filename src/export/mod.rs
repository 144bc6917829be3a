//! Writing a [`Scene`](crate::scene::Scene) out for other programs. It owns the translation of the
//! neutral scene description into interchange formats — today glTF 2.0 (`gltf/`: `.glb`, or `.gltf`
//! with its buffer beside it) — and nothing of Bevy: what it writes is what the viewer shows, read from
//! the same description the Bevy plugin translates.

pub mod gltf;

pub use self::gltf::{Container, ExportError, ExportOptions, ExportReport, write, write_file};
