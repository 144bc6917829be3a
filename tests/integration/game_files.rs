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

/// What moves in each doodad, as its header gives it: sequence durations (ms, in file order), bones,
/// texture transforms, colours, particle and ribbon emitters.
const WOTLK_ANIMATION: [(&str, &[u32], usize, usize, usize, u32, u32); 12] = [
    ("orcbonfire.m2", &[3333], 6, 0, 1, 3, 0),
    ("lavafallsblackrock01.m2", &[66667], 1, 15, 0, 0, 0),
    ("lamppost.m2", &[3000], 5, 0, 0, 0, 0),
    ("booksonfire.m2", &[3333], 10, 0, 4, 5, 0),
    ("westfalltree01.m2", &[1667, 3333, 1400, 966, 2667, 833, 1434], 1, 0, 0, 0, 0),
    ("nastyspideregg.m2", &[666, 667, 167, 666, 667, 667, 100, 666], 14, 0, 2, 3, 0),
    ("energytrail04.m2", &[31667], 11, 0, 0, 0, 10),
    ("monasteryfalls.m2", &[6667], 2, 2, 2, 0, 0),
    ("dr_banner01.m2", &[20667], 14, 0, 3, 1, 0),
    ("dalaranpostbox.m2", &[3333], 15, 0, 6, 2, 0),
    ("hologram_dreadlord.m2", &[2000, 4000, 3000], 79, 0, 2, 0, 0),
    ("howlingfjord_burningship.m2", &[30333], 107, 21, 5, 2, 0),
];

/// The animated blocks read as the headers count them, every track within its file (no warnings), and
/// every doodad poses to finite matrices at several times of its default sequence.
#[test]
fn real_wotlk_doodads_read_their_animation() {
    use lwo_wmo_viewer::animation::{Clock, pose};
    let Some(data) = wow_data() else { return };
    for ((path, _, _), (name, durations, bones, transforms, colors, particles, ribbons)) in
        WOTLK_DOODADS.iter().zip(WOTLK_ANIMATION)
    {
        assert!(path.ends_with(name), "{path} vs {name}");
        let bytes = std::fs::read(data.join(path)).unwrap();
        let document = parse_document(&bytes).unwrap();
        let Model::M2(model) = &document.model else { panic!("{path}: not an M2") };
        let a = &model.animation;
        let read: Vec<u32> = a.sequences.iter().map(|s| s.duration_ms).collect();
        assert_eq!(read, durations, "{path}: sequence durations");
        assert_eq!(
            (a.bones.len(), a.texture_transforms.len(), a.colors.len(), a.particle_emitters, a.ribbon_emitters),
            (bones, transforms, colors, particles, ribbons),
            "{path}"
        );
        assert!(model.warnings.is_empty(), "{path}: {:?}", model.warnings);
        assert!(a.sequences.iter().all(|s| !s.in_anim_file), "{path}: every sequence keeps its keys in the .m2");
        let sequence = a.default_sequence().unwrap();
        let mut matrices = Vec::new();
        for seconds in [0.0, 0.37, 1.5, 12.0] {
            pose(a, &Clock::looping(a, sequence, seconds), None, &mut matrices);
            assert!(matrices.iter().all(|m| m.is_finite()), "{path} at {seconds} s");
        }
    }
}

/// The spider egg's sequences are found by id as the client finds them, and named.
#[test]
fn real_sequence_lookup_finds_each_id() {
    let Some(data) = wow_data() else { return };
    let path = "world/azeroth/zulgurub/activedoodads/spiderarea/nastyspideregg.m2";
    let document = parse_document(&std::fs::read(data.join(path)).unwrap()).unwrap();
    let Model::M2(model) = &document.model else { panic!("not an M2") };
    let a = &model.animation;
    for (index, sequence) in a.sequences.iter().enumerate().filter(|(_, s)| s.variation == 0) {
        assert_eq!(a.find_sequence(sequence.id), Some(index), "id {}", sequence.id);
    }
    assert_eq!(a.default_sequence(), a.find_sequence(0));
    let names: Vec<_> = a.sequences.iter().map(|s| lwo_wmo_viewer::formats::m2::animation_name(s.id)).collect();
    assert_eq!(names[0], Some("Closed"));
    assert_eq!(names[2], Some("Stand"));
}

/// The chunked models (MD21, MD20 version 272 inside) with what their headers and skins count: vertices,
/// bones, skin triangles, and the FileDataIDs of their skin (SFID) and textures (TXID).
const MD21_DOODADS: [(&str, usize, usize, usize, u32, &[u32]); 7] = [
    ("badlands/passivedoodads/trees/badlandspalmtree01.m2", 186, 13, 222, 508094, &[466255, 394818]),
    (
        "blackrock/passivedoodads/blackrocklavaflow/blackrockstatuelavaflow.m2",
        170,
        5,
        256,
        508138,
        &[372901, 355557, 145515],
    ),
    (
        "ironforge/passivedoodads/greatforge/thegreatanvil.m2",
        995,
        4,
        850,
        508226,
        &[1088038, 1088039, 1088040, 1088041, 1088042, 1088043, 1088044, 1088045],
    ),
    ("ironforge/passivedoodads/throneroom/ironforgecrystalroof.m2", 1032, 31, 753, 508264, &[165860, 377285, 370406]),
    (
        "uldaman/passivedoodads/titanstatues/titanfemalestatue.m2",
        1261,
        5,
        1566,
        508415,
        &[329124, 329125, 329126, 198784],
    ),
    ("wetlands/passivedoodads/dragonmawgates/dragonmawwall.m2", 239, 1, 233, 508454, &[203516, 203520, 203519, 127077]),
    ("wetlands/passivedoodads/trees/wetlandtree06.m2", 136, 1, 157, 508468, &[203542, 203538]),
];

/// Each MD21 doodad opens: its chunks listed, its model read from inside MD21 with the header's counts,
/// drawn from `Name00.skin` beside it with the skin's triangles, and each texture, named only by a
/// FileDataID no listfile resolves here, the placeholder with a warning naming that number.
#[test]
fn real_md21_doodads_open_with_their_skins_counts() {
    let Some(data) = wow_data() else { return };
    let source = LooseFolder::new(&data);
    for (path, vertices, bones, triangles, skin, textures) in MD21_DOODADS {
        let path = format!("world/khazmodan/{path}");
        let bytes = std::fs::read(data.join(&path)).unwrap_or_else(|e| panic!("{path}: {e}"));
        let document = parse_document(&bytes).unwrap_or_else(|e| panic!("{path}: {e}"));
        let Model::M2(model) = &document.model else { panic!("{path}: not an M2") };
        let chunks: Vec<String> = document.tree.root_chunks().map(|c| c.node().id.to_string()).collect();
        assert_eq!(chunks, ["MD21", "SFID", "TXID"], "{path}");
        assert_eq!((model.version, model.data_offset), (272, 8), "{path}");
        assert_eq!((model.vertices.len(), model.animation.bones.len()), (vertices, bones), "{path}");
        assert_eq!(
            (model.file_ids.skins.as_slice(), model.file_ids.textures.as_slice()),
            (&[skin][..], textures),
            "{path}"
        );
        assert!(model.warnings.is_empty(), "{path}: {:?}", model.warnings);
        let scene = scene::load(&source, &path, Some(&source), &LoadOptions::default())
            .unwrap_or_else(|e| panic!("{path}: {e}"));
        assert_eq!(scene.stats.triangles, triangles, "{path}");
        assert!(scene.files.iter().any(|f| f.path.ends_with("00.skin")), "{path}: its 00 skin is not read");
        // The textures the skin's units draw: each a placeholder, its warning naming its FileDataID.
        let warnings = lwo_wmo_viewer::scene::diagnostics::grouped_lines(&scene.warnings);
        let named: Vec<&String> = warnings.iter().filter(|w| w.contains("named only by FileDataID")).collect();
        assert!(!named.is_empty(), "{path}: {warnings:?}");
        for warning in named {
            assert!(textures.iter().any(|id| warning.contains(&format!("FileDataID {id}"))), "{path}: {warning}");
        }
    }
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

/// Every real texture opens on its own: its header's size and level count, pixels that decode to that
/// size, and a scene of one quad drawing it.
#[test]
fn real_textures_open_on_their_own() {
    use lwo_wmo_viewer::formats::blp;
    let Some(data) = wow_data() else { return };
    let textures: Vec<PathBuf> =
        walk(&data).into_iter().filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("blp"))).collect();
    assert!(textures.len() >= 30, "{} textures", textures.len());
    let source = LooseFolder::new(&data);
    let mut encodings = std::collections::BTreeSet::new();
    for path in &textures {
        let bytes = std::fs::read(path).unwrap();
        let document = parse_document(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let Model::Blp(info) = &document.model else { panic!("{}: not a texture", path.display()) };
        let decoded = blp::decode(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!((decoded.width, decoded.height), (info.width, info.height), "{}", path.display());
        assert_eq!(decoded.levels.len(), info.mip_levels, "{}: every level decodes", path.display());
        let relative = path.strip_prefix(&data).unwrap().to_string_lossy().into_owned();
        let scene = scene::load(&source, &relative, None, &LoadOptions::default()).unwrap();
        assert_eq!((scene.stats.triangles, scene.textures.len()), (2, 1), "{}", path.display());
        encodings.insert(format!("{} {}", info.format_name(), info.encoding));
    }
    assert!(encodings.len() >= 2, "the real textures use more than one encoding: {encodings:?}");
}

/// With a listfile, an MD21 model's FileDataIDs become paths in the game data: a tree moved away from
/// its skin still draws (SFID → its `.skin`), and its textures are found (TXID → BLPs; any BLP of the
/// folder stands in for the ones the retro-port does not ship). `--info` and `--output` take
/// `--listfile` too; a listfile that cannot be read is one line.
#[test]
fn a_listfile_resolves_md21_skins_and_textures_by_file_data_id() {
    use lwo_wmo_viewer::source::Listfile;
    let Some(data) = wow_data() else { return };
    let dir = crate::support::scratch("listfile-md21");
    let tree = "world/khazmodan/wetlands/passivedoodads/trees/wetlandtree06.m2";
    std::fs::copy(data.join(tree), dir.join("wetlandtree06.m2")).unwrap();
    let list = dir.join("listfile.csv");
    std::fs::write(
        &list,
        "508468;World/Khazmodan/Wetlands/PassiveDoodads/Trees/WetlandTree0600.skin\n\
         203542;dungeons/textures/6hu_garrison/6hu_garrison_barn_wood_01.blp\n\
         203538;spells/fire_bright_mod2x_a.blp\n",
    )
    .unwrap();
    let listfile = std::sync::Arc::new(Listfile::read(&list).unwrap());
    let moved = LooseFolder::new(&dir);
    let game = LooseFolder::new(&data);
    // Without the listfile the moved model has no skin to draw.
    assert!(scene::load(&moved, "wetlandtree06.m2", Some(&game), &LoadOptions::default()).is_err());
    let options = LoadOptions { listfile: Some(listfile), ..LoadOptions::default() };
    let scene = scene::load(&moved, "wetlandtree06.m2", Some(&game), &options).unwrap();
    assert_eq!(scene.stats.triangles, 157);
    assert!(scene.files.iter().any(|f| f.path.to_ascii_lowercase().ends_with("wetlandtree0600.skin")));
    assert_eq!(scene.textures.iter().filter(|t| t.found).count(), 2, "{:?}", scene.warnings);
    let warnings = lwo_wmo_viewer::scene::diagnostics::grouped_lines(&scene.warnings);
    assert!(warnings.iter().all(|w| !w.contains("FileDataID")), "{warnings:?}");

    let model = dir.join("wetlandtree06.m2");
    let run =
        |args: &[&std::ffi::OsStr]| std::process::Command::new(crate::support::bin()).args(args).output().unwrap();
    let info = run(&[
        model.as_os_str(),
        "--info".as_ref(),
        "--json".as_ref(),
        "--listfile".as_ref(),
        list.as_os_str(),
        "--data".as_ref(),
        data.as_os_str(),
    ]);
    assert!(info.status.success(), "{}", String::from_utf8_lossy(&info.stderr));
    let json: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    assert_eq!(
        (json["triangles"].as_u64(), &json["file_ids"]["textures"]),
        (Some(157), &serde_json::json!([203542, 203538]))
    );
    let png = dir.join("tree.png");
    let output = run(&[
        model.as_os_str(),
        "--output".as_ref(),
        png.as_os_str(),
        "--listfile".as_ref(),
        list.as_os_str(),
        "--data".as_ref(),
        data.as_os_str(),
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success() && png.is_file(), "{stderr}");
    assert!(!stderr.contains("FileDataID"), "{stderr}");
    std::fs::write(dir.join("bad.csv"), "1;a.m2\nnot a line\n").unwrap();
    let bad = run(&[model.as_os_str(), "--info".as_ref(), "--listfile".as_ref(), dir.join("bad.csv").as_os_str()]);
    let stderr = String::from_utf8_lossy(&bad.stderr);
    assert!(!bad.status.success() && stderr.lines().count() == 1 && stderr.contains("bad.csv: line 2"), "{stderr}");
}
