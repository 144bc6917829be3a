#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // The header alone (what `--info` reads), then the pixels.
    let _ = lwo_wmo_viewer::formats::blp::read_info(data);
    let _ = lwo_wmo_viewer::formats::blp::decode(data);
});
