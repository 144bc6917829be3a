#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = lwo_wmo_viewer::formats::wmo::parse_root(data);
});
