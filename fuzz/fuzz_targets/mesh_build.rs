#![no_main]
use libfuzzer_sys::fuzz_target;
use lwo_wmo_viewer::{formats, mesh};

fuzz_target!(|data: &[u8]| {
    if let Ok(document) = formats::parse_document(data) {
        let options = mesh::lwo::BuildOptions { smoothing: true, subdivision_level: 1 };
        let _ = mesh::StandaloneMeshes::build(&document.model, options);
    }
});
