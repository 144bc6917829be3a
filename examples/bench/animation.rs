//! The animation section: a WMO of many doodads of one model, moving against still (the same flag
//! without its animation), in main-world CPU per frame; and what reading a model's animated blocks adds
//! to its parse, on the real WotLK doodads when `LWO_WMO_VIEWER_WOW_DATA` names them, else the flag.

use std::path::{Path, PathBuf};
use std::time::Instant;

use lwo_wmo_viewer::fixtures::m2::write_skin;
use lwo_wmo_viewer::fixtures::m2_animation::{AnimationParts, animated_flag, write_animated_model};
use lwo_wmo_viewer::{fixtures, formats};

use crate::children::verdict;
use crate::sections::{main_cpu, viewer_frames};

/// The field of `count` flags under `dir`, moving or still; its root .wmo.
fn flag_field(dir: &Path, count: usize, moving: bool) -> std::io::Result<PathBuf> {
    let folder = dir.join(format!("flags-{}-{count}", if moving { "moving" } else { "still" }));
    let root = folder.join("field.wmo");
    if root.exists() {
        return Ok(root);
    }
    fixtures::wmo::doodad_field("World\\Generic\\Flag.m2", count).write_to(&folder, "field")?;
    let (parts, animation) = animated_flag();
    let animation = if moving { animation } else { AnimationParts::default() };
    let generic = folder.join("World/Generic");
    std::fs::create_dir_all(&generic)?;
    std::fs::write(generic.join("Flag.m2"), write_animated_model(&parts, &animation))?;
    std::fs::write(generic.join("Flag00.skin"), write_skin(&parts))?;
    for (name, bytes) in fixtures::wmo::sample_textures() {
        let path = folder.join(name.replace('\\', "/"));
        std::fs::create_dir_all(path.parent().unwrap_or(&folder))?;
        std::fs::write(path, bytes)?;
    }
    Ok(root)
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(f64::NAN)
}

pub(crate) fn animation_rows(dir: &Path, quick: bool) -> Vec<String> {
    let count = if quick { 200 } else { 1000 };
    println!("\nanimation ({count} doodads of a flag with 3 bones, a colour track and a scrolling texture):");
    let mut targets = Vec::new();
    let fields = match (flag_field(dir, count, false), flag_field(dir, count, true)) {
        (Ok(still), Ok(moving)) => Some((still, moving)),
        (Err(e), _) | (_, Err(e)) => {
            println!("- the doodad fields: {e}");
            None
        }
    };
    if let Some((still, moving)) = fields {
        // Alternated, since the machine's speed drifts: still, moving, still, moving, …
        let (mut still_ms, mut moving_ms) = (Vec::new(), Vec::new());
        for _ in 0..3 {
            for (field, out) in [(&still, &mut still_ms), (&moving, &mut moving_ms)] {
                match viewer_frames(field, 60, &[]) {
                    Ok((_, t)) => {
                        if let Some(ms) = t["main_cpu_ms"].as_f64().or(t["main_wall_ms"].as_f64()) {
                            out.push(ms);
                        }
                        println!("  - {}: main world CPU {}", field.display(), main_cpu(&t));
                    }
                    Err(e) => println!("  - {}: {e}", field.display()),
                }
            }
        }
        if !still_ms.is_empty() && !moving_ms.is_empty() {
            let (s, m) = (median(still_ms), median(moving_ms));
            let line = format!(
                "- {count} moving doodads: main-world CPU per frame {m:.2} ms against {s:.2} ms still ({:.2}×; target ≤ 1.5× and < 3 ms): {}",
                m / s,
                verdict(m <= 1.5 * s && m < 3.0)
            );
            println!("{line}");
            targets.push(line);
        }
    }
    parse_share();
    if let Some(line) = load_share(dir) {
        targets.push(line);
    }
    targets
}

/// The whole load of each real doodad (the .m2, its skin, its textures decoded, its meshes built), with
/// and without its animated blocks, alternated: what reading the animation adds to opening a model.
fn load_share(dir: &Path) -> Option<String> {
    use lwo_wmo_viewer::scene::{self, LoadOptions};
    use lwo_wmo_viewer::source::LooseFolder;
    let data = PathBuf::from(std::env::var_os("LWO_WMO_VIEWER_WOW_DATA")?);
    // Each model with its skins, as it is and stripped, in two folders laid out as the game's tree;
    // textures come from the real data root in both.
    let (whole, stripped) = (dir.join("m2-whole"), dir.join("m2-stripped"));
    let mut models = Vec::new();
    let mut stack = vec![data.clone()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let Ok(relative) = path.strip_prefix(&data) else { continue };
            let name = path.file_name().unwrap_or_default().to_string_lossy().to_ascii_lowercase();
            let Ok(bytes) = std::fs::read(&path) else { continue };
            let is_model = name.ends_with(".m2") && bytes.starts_with(b"MD20");
            if !is_model && !name.ends_with(".skin") {
                continue;
            }
            for (root, contents) in
                [(&whole, bytes.clone()), (&stripped, if is_model { without_animation(&bytes) } else { bytes.clone() })]
            {
                let target = root.join(relative);
                std::fs::create_dir_all(target.parent()?).ok()?;
                std::fs::write(&target, contents).ok()?;
            }
            if is_model {
                models.push(relative.to_string_lossy().into_owned());
            }
        }
    }
    let data_source = LooseFolder::new(&data);
    let time = |root: &Path| {
        let source = LooseFolder::new(root);
        let started = Instant::now();
        for model in &models {
            std::hint::black_box(scene::load(&source, model, Some(&data_source), &LoadOptions::default()).ok());
        }
        started.elapsed().as_secs_f64()
    };
    let (mut with, mut without) = (Vec::new(), Vec::new());
    for _ in 0..5 {
        with.push(time(&whole));
        without.push(time(&stripped));
    }
    let (w, wo) = (median(with), median(without));
    let line = format!(
        "- reading the animation in the whole load of the real WotLK doodads ({} models, skins, textures, meshes): {:.0} ms against {:.0} ms without it, {:+.1} % (target ≤ +20 %): {}",
        models.len(),
        w * 1000.0,
        wo * 1000.0,
        100.0 * (w / wo - 1.0),
        verdict(w <= 1.2 * wo)
    );
    println!("{line}");
    Some(line)
}

/// The header offsets of the 264 layout's animated arrays: zeroed, the parse reads none of them.
const ANIMATED_ARRAYS: [usize; 18] =
    [0x14, 0x1C, 0x24, 0x2C, 0x34, 0x48, 0x58, 0x60, 0x78, 0x98, 0xF0, 0xF8, 0x100, 0x108, 0x110, 0x118, 0x120, 0x128];

fn without_animation(bytes: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    for at in ANIMATED_ARRAYS {
        if out.len() >= at + 8 {
            out[at..at + 8].fill(0);
        }
    }
    out
}

/// The parse of each model with and without its animated blocks, alternated; the total time of each.
fn parse_share() {
    let mut models: Vec<(String, Vec<u8>)> = Vec::new();
    if let Some(dir) = std::env::var_os("LWO_WMO_VIEWER_WOW_DATA") {
        let mut stack = vec![PathBuf::from(dir)];
        while let Some(d) = stack.pop() {
            for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "m2")
                    && let Ok(bytes) = std::fs::read(&path)
                    && bytes.starts_with(b"MD20")
                {
                    models.push((path.file_name().unwrap_or_default().to_string_lossy().into_owned(), bytes));
                }
            }
        }
    }
    let source = if models.is_empty() { "the flag" } else { "the real WotLK doodads" };
    if models.is_empty() {
        let (parts, animation) = animated_flag();
        models.push(("Flag.m2".into(), write_animated_model(&parts, &animation)));
    }
    let stripped: Vec<Vec<u8>> = models.iter().map(|(_, b)| without_animation(b)).collect();
    let time = |bytes: &[u8]| {
        let started = Instant::now();
        for _ in 0..20 {
            std::hint::black_box(formats::m2::parse(std::hint::black_box(bytes)).ok());
        }
        started.elapsed().as_secs_f64()
    };
    let (mut with, mut without) = (Vec::new(), Vec::new());
    for _ in 0..7 {
        with.push(models.iter().map(|(_, b)| time(b)).sum::<f64>());
        without.push(stripped.iter().map(|b| time(b)).sum::<f64>());
    }
    let (w, wo) = (median(with), median(without));
    // No target: a bare parse is a small part of opening a model; the target is on the whole load.
    println!(
        "- reading sequences, bones and tracks in the parse of {source} ({} models): {:.2}× the parse without them",
        models.len(),
        w / wo
    );
}
