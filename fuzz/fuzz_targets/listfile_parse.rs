#![no_main]
use libfuzzer_sys::fuzz_target;

// `--listfile`'s reader on any text: every id it lists is found again.
fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(list) = lwo_wmo_viewer::source::Listfile::parse(&text, "fuzz") {
        for line in text.lines().take(64) {
            if let Some(id) = line.split_once([';', ',']).and_then(|(id, _)| id.trim().parse::<u32>().ok()) {
                assert!(list.path(id).is_some());
            }
        }
    }
});
