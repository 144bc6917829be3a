#![no_main]
use libfuzzer_sys::fuzz_target;
use lwo_wmo_viewer::formats::m2;
use lwo_wmo_viewer::mesh::m2::{build, Geosets};

// One input is an .m2 or a .skin (by its magic); a parsed model is also built from its embedded view,
// and a parsed skin against the bundled barrel, so the two index arrays are exercised with hostile values.
fuzz_target!(|data: &[u8]| {
    if data.starts_with(b"SKIN") {
        if let Ok(skin) = m2::parse_skin(data) {
            static BARREL: &[u8] = include_bytes!("../../assets/World/Generic/Barrel.m2");
            if let Ok(model) = m2::parse(BARREL) {
                let _ = build(&model, &skin, Geosets::All, false);
            }
        }
    } else if let Ok(model) = m2::parse(data) {
        if let Some(view) = model.view(None) {
            let _ = build(&model, view, Geosets::DefaultVariants, false);
        }
    }
});
