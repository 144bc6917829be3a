//! The bundled samples are exactly what the fixture builders write; `UPDATE_ASSETS=1` rewrites them.

use lwo_wmo_viewer::fixtures;

use crate::support::{asset, read};

fn check_or_update(name: &str, bytes: &[u8]) {
    let path = asset(name);
    if std::env::var_os("UPDATE_ASSETS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, bytes).unwrap();
        return;
    }
    assert!(
        read(&path) == bytes,
        "{name} differs from what the builder writes; run with UPDATE_ASSETS=1 to refresh it"
    );
}

#[test]
fn seed_lwob_sample_matches_the_builder() {
    let bytes = fixtures::lwo::seed_square_with_detail();
    assert_eq!(bytes.len(), 420);
    check_or_update("square-with-detail.lwo", &bytes);
}

#[test]
fn wmo_sample_matches_the_builder() {
    for (name, bytes) in fixtures::wmo::sample_scene().files("courtyard") {
        check_or_update(&name, &bytes);
    }
    for (name, bytes) in fixtures::m2::sample_doodad_files() {
        check_or_update(&name, &bytes);
    }
}
