//! Real World of Warcraft files: Blizzard's, so never in the repository. They are read from the folder the
//! environment variable `LWO_WMO_VIEWER_WOW_DATA` names (laid out as the game's `World\…` tree), which
//! `.ci/run` sets. Without the variable these tests do nothing (a clone elsewhere has no such files);
//! with it, a folder that is not there is a failure, so CI cannot pass them silently.

use std::path::PathBuf;

use lwo_wmo_viewer::formats::{Model, parse_document};
use lwo_wmo_viewer::scene::{self, LoadOptions};
use lwo_wmo_viewer::source::LooseFolder;

const VARIABLE: &str = "LWO_WMO_VIEWER_WOW_DATA";

/// The game-file folder, or `None` (and a note on stderr) where the variable is not set.
fn wow_data() -> Option<PathBuf> {
    let Some(dir) = std::env::var_os(VARIABLE) else {
        eprintln!("{VARIABLE} is not set: the tests on real game files are skipped");
        return None;
    };
    let dir = PathBuf::from(dir);
    assert!(dir.join("world").is_dir(), "{VARIABLE}={}: no world folder there", dir.display());
    Some(dir)
}

/// WotLK-format doodads (MD20 version 264) with the vertex and texture counts their headers give.
const WOTLK_DOODADS: [(&str, usize, usize); 12] = [
    ("world/azeroth/burningsteppes/passivedoodads/bonfire/orcbonfire.m2", 454, 9),
    ("world/azeroth/burningsteppes/passivedoodads/lavafalls/lavafallsblackrock01.m2", 1448, 3),
    ("world/azeroth/elwynn/passivedoodads/lamppost/lamppost.m2", 1580, 3),
    ("world/azeroth/karazahn/passivedoodads/burningbooks/booksonfire.m2", 2083, 12),
    ("world/azeroth/westfall/passivedoodads/trees/westfalltree01.m2", 100, 3),
    ("world/azeroth/zulgurub/activedoodads/spiderarea/nastyspideregg.m2", 230, 6),
    ("world/dungeon/cavernsoftime/passivedoodads/energytrails/energytrail04.m2", 190, 2),
    ("world/dungeon/scarletmonastery/passivedoodads/fountains/monasteryfalls.m2", 160, 2),
    ("world/expansion01/doodads/generic/draenei/banner/dr_banner01.m2", 302, 2),
    ("world/expansion01/doodads/generic/draenei/mailbox/dalaranpostbox.m2", 519, 8),
    ("world/expansion01/doodads/generic/holograms/hologram_dreadlord.m2", 1208, 2),
    ("world/expansion02/doodads/daggercap/burningship/howlingfjord_burningship.m2", 6946, 23),
];

/// Each opens with its header's counts, and draws: its skin's triangles, its textures found beside it.
#[test]
fn real_wotlk_doodads_open_with_their_header_counts() {
    let Some(data) = wow_data() else { return };
    let source = LooseFolder::new(&data);
    for (path, vertices, textures) in WOTLK_DOODADS {
        let bytes = std::fs::read(data.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"));
        let document = parse_document(&bytes).unwrap_or_else(|e| panic!("{path}: {e}"));
        let Model::M2(model) = &document.model else { panic!("{path}: not an M2") };
        assert_eq!((model.version, model.vertices.len(), model.textures.len()), (264, vertices, textures), "{path}");
        let scene = scene::load(&source, path, Some(&source), &LoadOptions::default())
            .unwrap_or_else(|e| panic!("{path}: {e}"));
        assert!(scene.stats.triangles > 0, "{path}: nothing drawn");
        assert!(scene.files.iter().any(|f| f.path.ends_with("00.skin")), "{path}: its 00 skin is not read");
    }
}

/// The Cataclysm-and-later chunked models (MD21) are not read yet: each is refused with one line that
/// names the container and the offset, never a panic.
#[test]
fn real_md21_doodads_are_refused_with_one_clear_line() {
    let Some(data) = wow_data() else { return };
    let mut seen = 0;
    for entry in walk(&data.join("world/khazmodan")) {
        let bytes = std::fs::read(&entry).unwrap();
        if !bytes.starts_with(b"MD21") {
            continue;
        }
        seen += 1;
        let error = parse_document(&bytes).expect_err("MD21 is refused").to_string();
        assert!(error.contains("MD21") && error.contains("at byte 0") && !error.contains('\n'), "{error}");
    }
    assert_eq!(seen, 7, "the seven MD21 doodads");
}

/// The farm: its root and both group files, textured from the folder, and a warning for each doodad
/// model that is not there.
#[test]
fn the_real_farm_opens_with_its_groups() {
    let Some(data) = wow_data() else { return };
    let source = LooseFolder::new(&data);
    let path = "world/wmo/azeroth/buildings/human_farm/farm.wmo";
    let scene = scene::load(&source, path, Some(&source), &LoadOptions::default()).unwrap();
    let groups = scene.files.iter().filter(|f| f.path.contains("farm_00")).count();
    assert_eq!(groups, 2, "{:?}", scene.files.iter().map(|f| &f.path).collect::<Vec<_>>());
    assert!(scene.stats.triangles > 10_000, "{} triangles", scene.stats.triangles);
    let lines = scene::diagnostics::grouped_lines(&scene.warnings);
    assert!(lines.iter().any(|l| l.contains("doodad")), "the farm's doodads are not in the folder: {lines:?}");
}

/// Every file under `dir`, recursively.
fn walk(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() { pending.push(path) } else { files.push(path) }
        }
    }
    files
}
