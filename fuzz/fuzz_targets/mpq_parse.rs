#![no_main]
use libfuzzer_sys::fuzz_target;
use lwo_wmo_viewer::formats::mpq::Archive;

// One input is a whole archive: it is opened from memory and every block the hash table points at is
// read (by name where the listfile names it, else by block with the key recovered), and (attributes).
fuzz_target!(|data: &[u8]| {
    if let Ok(archive) = Archive::from_bytes("fuzz.mpq", data.to_vec()) {
        let _ = archive.attributes();
        for entry in archive.entries() {
            let _ = archive.read_block(entry.block_index);
        }
    }
});
