//! The real app in a window under Xvfb: open an LWO, drop a WMO on the window, then a corrupt file;
//! the WMO replaces the LWO, the corrupt file raises the error panel, the WMO stays, the app stays up.
//! Drops go through the app's control hook (`LWO_WMO_VIEWER_CONTROL`), which emits the very
//! `FileDragAndDrop` message winit sends for a real drop.

use std::path::Path;
use std::time::{Duration, Instant};

mod app;
mod browser;
mod navigation;
mod text_fields;
mod xserver;

use app::*;
use xserver::XServer;

use crate::support::{asset, scratch};

#[test]
fn drops_replace_the_model_and_a_corrupt_drop_keeps_it_with_an_error() {
    let dir = scratch("window");
    let corrupt = dir.join("corrupt.wmo");
    std::fs::write(&corrupt, b"REVM\x04\x00\x00\x00\x11\x00\x00\x00DHOM\x40\x00\x00\x00\x01\x02").unwrap();
    let lwo = asset("square-with-detail.lwo");
    let wmo = asset("courtyard.wmo");
    let child = start(&dir, &lwo);
    let minute = Duration::from_secs(90);
    let shown = |path: &Path| {
        let path = path.display().to_string();
        move |s: &serde_json::Value| s["shown"].as_str() == Some(path.as_str()) && s["loading"] == false
    };
    wait_for(&dir, "the LWO to show", minute, shown(&lwo));
    let m2 = asset("World/Generic/Barrel.m2");
    send(&dir, &format!("drop {}", m2.display()));
    wait_for(&dir, "the dropped M2 to replace the LWO", minute, shown(&m2));
    send(&dir, &format!("drop {}", wmo.display()));
    wait_for(&dir, "the dropped WMO to replace the M2", minute, shown(&wmo));
    send(&dir, &format!("drop {}", corrupt.display()));
    let s = wait_for(&dir, "the error panel", minute, |s| s["error"].is_string());
    let error = s["error"].as_str().unwrap();
    assert!(error.contains("corrupt.wmo") && error.contains("MOHD") && error.contains("byte 16"), "{error}");
    assert_eq!(s["shown"].as_str(), Some(wmo.display().to_string().as_str()), "the WMO is still shown");
    // A file that is no model at all: one line saying what it starts with.
    let passwd = dir.join("passwd.wmo");
    std::fs::write(&passwd, b"root:x:0:0:root:/root:/bin/bash\n").unwrap();
    send(&dir, &format!("drop {}", passwd.display()));
    let s = wait_for(&dir, "the error for the text file", minute, |s| {
        s["error"].as_str().is_some_and(|e| e.contains("passwd.wmo"))
    });
    let expected = format!("{}: is not a LightWave, WMO, M2 or BLP file: it starts with 'root'", passwd.display());
    assert_eq!(s["error"].as_str(), Some(expected.as_str()));
    // Pipelines compile in the background in the window; give the last materials a few frames.
    let frame = status(&dir)["frame"].as_u64().unwrap_or(0);
    wait_for(&dir, "a few more frames", minute, |s| s["frame"].as_u64().is_some_and(|f| f >= frame + 30));
    let shot = dir.join("window-after-corrupt-drop.png");
    send(&dir, &format!("screenshot {}", shot.display()));
    wait_for(&dir, "the screenshot", minute, |s| s["screenshots"].as_array().is_some_and(|a| !a.is_empty()));
    assert!(shot.exists());
    // Still running a moment later: the bad file did not take the app down.
    std::thread::sleep(Duration::from_millis(500));
    let mut child = child;
    assert!(child.try_wait().is_none(), "the app exited");
    let frame = status(&dir)["frame"].as_u64().unwrap();
    wait_for(&dir, "frames to keep coming", minute, |s| s["frame"].as_u64().is_some_and(|f| f > frame));
    quit(&dir, child);
}

#[test]
fn picks_name_the_mopy_entry_material_and_doodad_they_came_from() {
    use lwo_wmo_viewer::formats::{Model, parse_document};
    let dir = scratch("window-pick-wmo");
    let wmo = asset("courtyard.wmo");
    let child = start(&dir, &wmo);
    let shown = wmo.display().to_string();
    wait_for(&dir, "the WMO to show", Duration::from_secs(90), |s| {
        s["shown"].as_str() == Some(shown.as_str()) && s["loading"] == false
    });
    let frame = status(&dir)["frame"].as_u64().unwrap_or(0);
    wait_for(&dir, "a few frames", Duration::from_secs(60), |s| s["frame"].as_u64().is_some_and(|f| f >= frame + 10));
    let hits = pick_grid(&dir, 8, 5);
    // Each doodad of set 0, picked where the camera draws a point just below its top (the low wall
    // of the courtyard hides their lower parts from this view).
    let (source, relative) = lwo_wmo_viewer::source::LooseFolder::containing(&wmo);
    let scene = lwo_wmo_viewer::scene::load(&source, &relative, None, &Default::default()).unwrap();
    let mut doodad_hits = Vec::new();
    let mut skipped = Vec::new();
    assert!(scene.doodads.iter().any(|d| d.set == 0), "the fixture places no doodad in set 0");
    for doodad in scene.doodads.iter().filter(|d| d.set == 0) {
        // Models are built in the order their first doodad appears: `M2Model{that order}/…`.
        let mut distinct: Vec<&str> = Vec::new();
        for d in &scene.doodads {
            if !distinct.contains(&d.model.as_str()) {
                distinct.push(&d.model);
            }
        }
        let model = distinct.iter().position(|m| *m == doodad.model).unwrap();
        let height = scene
            .meshes
            .iter()
            .filter(|m| m.label.starts_with(&format!("M2Model{model}/")))
            .flat_map(|m| m.data.positions.iter().map(|p| p[1]))
            .fold(0.0f32, f32::max);
        let [x, y, z] = doodad.position;
        let point = [x, y + 0.9 * height * doodad.scale, z];
        // The camera is in every status the app writes; wait for one rather than read a status between two.
        let camera = wait_for(&dir, "the camera", Duration::from_secs(30), |s| s["camera"]["viewport"].is_array());
        let Some((px, py)) = window_pixel(&camera, point) else {
            skipped.push(format!("{} at {point:?} is behind the camera {}", doodad.model, camera["camera"]));
            continue;
        };
        let before = status(&dir)["picks"].as_u64().unwrap_or(0);
        send(&dir, &format!("pick {px} {py}"));
        let s = wait_for(&dir, "the doodad pick", Duration::from_secs(30), |s| {
            s["picks"].as_u64().is_some_and(|n| n > before)
        });
        doodad_hits.push((doodad.model.clone(), s["pick"].clone()));
    }
    let shot = dir.join("window-pick.png");
    send(&dir, &format!("screenshot {}", shot.display()));
    wait_for(&dir, "the screenshot", Duration::from_secs(60), |s| {
        s["screenshots"].as_array().is_some_and(|a| !a.is_empty())
    });
    quit(&dir, child);
    let Model::WmoRoot(root) = parse_document(&std::fs::read(&wmo).unwrap()).unwrap().model else {
        panic!("not a root")
    };
    // A batch triangle: its MOPY entry, read independently from the group file, is the one named.
    let batch_hits: Vec<_> = hits
        .iter()
        .filter(|h| h["chunk"].as_str().is_some_and(|c| c.ends_with("MOPY")) && h["doodad"].is_null())
        .collect();
    assert!(!batch_hits.is_empty(), "no WMO batch was hit: {hits:?}");
    for hit in &batch_hits {
        let group_field = hit["fields"]["group"].as_str().unwrap();
        let group_file = group_field.split_once('(').unwrap().1.trim_end_matches(')');
        let bytes = std::fs::read(asset(group_file)).unwrap();
        let Model::WmoGroup(group) = parse_document(&bytes).unwrap().model else {
            panic!("{group_file} is not a group")
        };
        let record = hit["record"].as_u64().unwrap() as usize;
        let [start, end] = [0, 1].map(|k| hit["bytes"][k].as_u64().unwrap() as usize);
        assert_eq!(end - start, 2);
        assert_eq!(
            (bytes[start], bytes[start + 1]),
            (group.triangle_flags[record], group.triangle_materials[record]),
            "{hit}"
        );
        let material = hit["fields"]["material"].as_str().unwrap();
        assert!(material.starts_with(&format!("MOMT {}:", group.triangle_materials[record])), "{hit}");
        let blend = root.materials[usize::from(group.triangle_materials[record])].blend();
        assert!(material.contains(&format!("blend {}", blend.code())), "{hit}");
    }
    // A doodad: the MODD entry it names places the model it names.
    assert!(
        doodad_hits.iter().any(|(_, hit)| !hit["doodad"].is_null()),
        "no doodad was hit: {doodad_hits:?}; not picked: {skipped:?}"
    );
    for (_, hit) in doodad_hits.iter().filter(|(_, hit)| !hit["doodad"].is_null()) {
        let modd = hit["doodad"]["modd"].as_u64().unwrap() as usize;
        let name = root.doodad_names.get(root.doodads[modd].name_offset).unwrap();
        assert_eq!(hit["doodad"]["model"].as_str(), Some(name.as_str()), "{hit}");
        assert!(hit["heading"].as_str().unwrap().to_ascii_lowercase().contains(".m2"), "{hit}");
    }
}

/// File ▸ Export through the control hook: the shown WMO is written as a glTF binary while the window
/// keeps drawing, and the menu bar's status (kept in status.json) says where and how much.
#[test]
fn the_window_exports_what_it_shows() {
    let dir = scratch("window-export");
    let wmo = asset("courtyard.wmo");
    let child = start(&dir, &wmo);
    let shown = wmo.display().to_string();
    wait_for(&dir, "the WMO to show", Duration::from_secs(90), |s| {
        s["shown"].as_str() == Some(shown.as_str()) && s["loading"] == false
    });
    let out = dir.join("courtyard.glb");
    send(&dir, &format!("export {}", out.display()));
    let s = wait_for(&dir, "the export", Duration::from_secs(90), |s| {
        s["export"].as_str().is_some_and(|e| e.starts_with("exported") || e.contains("failed"))
    });
    quit(&dir, child);
    let status = s["export"].as_str().unwrap();
    assert!(status.starts_with(&format!("exported {}", out.display())) && status.contains("nodes"), "{status}");
    let bytes = std::fs::read(&out).unwrap();
    assert_eq!(&bytes[..4], b"glTF");
}

/// A pick and the chunk it selected belong to their file: opening another one leaves nothing picked and
/// no bytes of the last file in the hex view.
#[test]
fn another_file_starts_with_no_pick_and_an_empty_hex_view() {
    let dir = scratch("window-new-file-state");
    let (m2, lwo) = (asset("World/Generic/Barrel.m2"), asset("square-with-detail.lwo"));
    let child = start(&dir, &m2);
    let minute = Duration::from_secs(90);
    let shown = |path: &Path| {
        let path = path.display().to_string();
        move |s: &serde_json::Value| s["shown"].as_str() == Some(path.as_str()) && s["loading"] == false
    };
    wait_for(&dir, "the M2 to show", minute, shown(&m2));
    let frame = status(&dir)["frame"].as_u64().unwrap_or(0);
    wait_for(&dir, "a few frames", minute, |s| s["frame"].as_u64().is_some_and(|f| f >= frame + 10));
    // The barrel stands in the middle of the 3D view, right of the panel: the first point that hits it.
    let mut picked = None;
    for (x, y) in [(840, 420), (840, 380), (840, 460), (800, 420), (880, 420), (840, 340), (840, 500)] {
        let before = status(&dir)["picks"].as_u64().unwrap_or(0);
        send(&dir, &format!("pick {x} {y}"));
        let s = wait_for(&dir, "the pick", minute, |s| s["picks"].as_u64().is_some_and(|n| n > before));
        if !s["pick"].is_null() {
            picked = Some(s);
            break;
        }
    }
    let s = picked.expect("a point in the middle of the view hits the barrel");
    assert!(s["hex"]["bytes"].as_u64().unwrap_or(0) > 0, "the pick shows its bytes: {}", s["hex"]);
    send(&dir, &format!("drop {}", lwo.display()));
    let s = wait_for(&dir, "the LWO to replace the M2", minute, shown(&lwo));
    quit(&dir, child);
    assert!(s["pick"].is_null(), "{}", s["pick"]);
    assert_eq!(s["hex"]["bytes"], 0, "{}", s["hex"]);
}

#[test]
fn a_lightwave_pick_names_its_pols_record_and_surface() {
    use lwo_wmo_viewer::formats::{Model, parse_document};
    let dir = scratch("window-pick-lwo");
    let lwo = asset("square-with-detail.lwo");
    let child = start(&dir, &lwo);
    let shown = lwo.display().to_string();
    wait_for(&dir, "the LWO to show", Duration::from_secs(90), |s| {
        s["shown"].as_str() == Some(shown.as_str()) && s["loading"] == false
    });
    let frame = status(&dir)["frame"].as_u64().unwrap_or(0);
    wait_for(&dir, "a few frames", Duration::from_secs(60), |s| s["frame"].as_u64().is_some_and(|f| f >= frame + 10));
    let hits = pick_grid(&dir, 6, 4);
    quit(&dir, child);
    let Model::Lwo(object) = parse_document(&std::fs::read(&lwo).unwrap()).unwrap().model else {
        panic!("not LightWave")
    };
    let polygons = &object.layers[0].polygons;
    assert!(!hits.is_empty(), "nothing was hit");
    for hit in &hits {
        assert!(hit["chunk"].as_str().is_some_and(|c| c.ends_with("POLS")), "{hit}");
        // The POLS index named is a polygon whose record starts at the bytes named, on the surface named.
        let index = hit["record"].as_u64().unwrap() as u32;
        let start = hit["bytes"][0].as_u64().unwrap() as u32;
        let p = (0..polygons.len())
            .find(|&p| {
                polygons.record(p)
                    == Some(lwo_wmo_viewer::formats::lwo::Record { offset: start, index_in_chunk: index })
            })
            .unwrap_or_else(|| panic!("no POLS record {index} at {start}: {hit}"));
        let surface = &object.surfaces[polygons.surface().get(p) as usize].name;
        assert!(hit["fields"]["surface"].as_str().unwrap().starts_with(surface.as_str()), "{hit}");
        // The outline is the polygon's own sides, not the triangle that was hit.
        assert_eq!(hit["outline_edges"].as_u64(), Some(polygons.vertices(p).len() as u64), "{hit}");
    }
    // The seed's square is POLS record 0 on "Square" (a quad: outlined by its four sides), and it fills
    // most of the view.
    assert!(
        hits.iter().any(|h| h["record"] == 0
            && h["fields"]["surface"].as_str().unwrap().starts_with("Square")
            && h["outline_edges"] == 4),
        "{hits:?}"
    );
}

/// The control hook's `morph NAME WEIGHT` moves the real Cube10's points on screen, the status says
/// so, and File ▸ Export writes the weights the window shows.
#[test]
fn a_morph_weight_set_in_the_window_changes_the_view_and_the_export() {
    let dir = scratch("window-morph");
    let cube = crate::lwo3::content_root().join("Objects/Cube10-Morphs.lwo");
    let child = start(&dir, &cube);
    let shown = cube.display().to_string();
    let minute = Duration::from_secs(90);
    wait_for(&dir, "the cube to show", minute, |s| {
        s["shown"].as_str() == Some(shown.as_str()) && s["loading"] == false
    });
    let settle = |dir: &Path| {
        let frame = status(dir)["frame"].as_u64().unwrap_or(0);
        wait_for(dir, "a few frames", minute, |s| s["frame"].as_u64().is_some_and(|f| f >= frame + 20));
    };
    let shoot = |dir: &Path, name: &str, count: usize| {
        let shot = dir.join(name);
        send(dir, &format!("screenshot {}", shot.display()));
        wait_for(dir, "the screenshot", minute, |s| s["screenshots"].as_array().is_some_and(|a| a.len() >= count));
        // The file is written just after the status names it.
        let start = Instant::now();
        while image::open(&shot).is_err() && start.elapsed() < minute {
            std::thread::sleep(Duration::from_millis(100));
        }
        image::open(&shot).unwrap().to_rgb8()
    };
    settle(&dir);
    let rest = shoot(&dir, "rest.png", 1);
    send(&dir, "morph Tall & Skinny 1");
    wait_for(&dir, "the weight in the status", minute, |s| s["morphs"]["Tall & Skinny"] == 1.0);
    settle(&dir);
    let tall = shoot(&dir, "tall.png", 2);
    let out = dir.join("tall.glb");
    send(&dir, &format!("export {}", out.display()));
    let s = wait_for(&dir, "the export", minute, |s| {
        s["export"].as_str().is_some_and(|e| e.starts_with("exported") || e.contains("failed"))
    });
    quit(&dir, child);
    assert!(s["export"].as_str().unwrap().starts_with("exported"), "{s}");
    let differ = rest.pixels().zip(tall.pixels()).filter(|(p, q)| (0..3).any(|c| p[c].abs_diff(q[c]) > 40)).count();
    assert!(differ > 2000, "only {differ} pixels changed when the morph was applied");
    let json = crate::export::glb_json(&out);
    for mesh in json["meshes"].as_array().unwrap() {
        assert_eq!(mesh["weights"], serde_json::json!([0.0, 1.0, 0.0]), "{mesh}");
    }
}

/// The barrel's cap (a replaceable creature skin) drawn with the first BLP beside the model; the
/// control hook's `texture-choice`, as the panel's list, swaps in the other and the view changes.
#[test]
fn a_replaceable_texture_chosen_in_the_window_is_drawn() {
    let dir = scratch("window-texture-choice");
    let folder = crate::m2::barrel_folder(
        "window-texture-choice-model",
        &crate::m2::barrel_parts(),
        &["Barrel00.skin"],
        &[("SkinA.blp", "Glass.blp"), ("SkinB.blp", "Stone.blp")],
    );
    let model = folder.join("Barrel.m2");
    let child = start_with(&dir, &model, &["--view", "front"]);
    let minute = Duration::from_secs(90);
    let shown = model.display().to_string();
    let s = wait_for(&dir, "the barrel to show", minute, |s| {
        s["shown"].as_str() == Some(shown.as_str()) && s["loading"] == false
    });
    assert_eq!(
        s["replaceable_textures"],
        serde_json::json!([{ "texture": 2, "type": 11, "choices": ["SkinA.blp", "SkinB.blp"], "chosen": 0 }])
    );
    let shoot = |name: &str| {
        let frame = status(&dir)["frame"].as_u64().unwrap_or(0);
        wait_for(&dir, "a few frames", minute, |s| s["frame"].as_u64().is_some_and(|f| f >= frame + 20));
        let shot = dir.join(name);
        send(&dir, &format!("screenshot-view {}", shot.display()));
        wait_for(&dir, "the screenshot", minute, |s| {
            s["notice"].as_str().is_some_and(|n| n.contains(&shot.display().to_string()))
        });
        image::open(&shot).unwrap().to_rgb8()
    };
    let first = shoot("skin-a.png");
    send(&dir, "texture-choice 0 1");
    wait_for(&dir, "the choice in the status", minute, |s| s["replaceable_textures"][0]["chosen"] == 1);
    let second = shoot("skin-b.png");
    quit(&dir, child);
    let differ = first.pixels().zip(second.pixels()).filter(|(p, q)| (0..3).any(|c| p[c].abs_diff(q[c]) > 30)).count();
    assert!(differ > 300, "only {differ} pixels changed with the other skin");
}

/// Page Down on the only model of its folder says so in the menu bar instead of doing nothing.
#[test]
fn page_down_on_the_only_model_of_a_folder_says_there_is_no_next_one() {
    let dir = scratch("window-page-down-alone");
    let alone = dir.join("alone");
    std::fs::create_dir_all(&alone).unwrap();
    for name in ["Barrel.m2", "Barrel00.skin"] {
        std::fs::copy(asset(&format!("World/Generic/{name}")), alone.join(name)).unwrap();
    }
    let m2 = alone.join("Barrel.m2");
    let x = XServer::start();
    let child = start_on(&x, &dir, &m2);
    let minute = Duration::from_secs(90);
    let path = m2.display().to_string();
    wait_for(&dir, "the M2 to show", minute, |s| s["shown"].as_str() == Some(path.as_str()) && s["loading"] == false);
    x.press_key("Page_Down");
    let s = wait_for(&dir, "the notice", minute, |s| s["notice"].as_str().is_some_and(|n| n.contains("no next")));
    quit(&dir, child);
    assert_eq!(s["shown"].as_str(), Some(path.as_str()));
    assert_eq!(s["notice"], "no next model file in this folder");
}

/// Real clicks (XTest) on the side panel pick nothing in the 3D view behind it, even when the pointer
/// arrives and presses in one frame; a click in the 3D view still picks.
#[test]
fn clicks_on_the_panel_do_not_pick_behind_it() {
    let dir = scratch("window-panel-clicks");
    let x = XServer::start();
    let wmo = asset("courtyard.wmo");
    let child = start_on(&x, &dir, &wmo);
    let minute = Duration::from_secs(90);
    let path = wmo.display().to_string();
    wait_for(&dir, "the WMO to show", minute, |s| s["shown"].as_str() == Some(path.as_str()) && s["loading"] == false);
    let frames = |n: u64| {
        let frame = status(&dir)["frame"].as_u64().unwrap_or(0);
        wait_for(&dir, "a few frames", minute, |s| s["frame"].as_u64().is_some_and(|f| f >= frame + n));
    };
    frames(10);
    let picks = status(&dir)["picks"].as_u64().unwrap_or(0);
    // Over the panel's rows (its chunk tree, its sections) at several heights.
    for y in [200, 350, 500, 650] {
        x.click(120, y);
        frames(5);
    }
    assert_eq!(status(&dir)["picks"].as_u64(), Some(picks), "a click on the panel picked");
    x.click(900, 420);
    let s = wait_for(&dir, "the click in the view to pick", minute, |s| s["picks"].as_u64() > Some(picks));
    quit(&dir, child);
    assert_eq!(s["picks"].as_u64(), Some(picks + 1));
}

/// Real drag-and-drop through X's XDND protocol, from another X client, into winit: an LWO, a WMO root
/// and an M2 each replace the model; a path with spaces and non-ASCII characters opens; several files
/// at once open the first and list the others in File ▸ Recent; a folder is refused with a message and
/// the model stays.
#[test]
fn real_xdnd_drops_open_files_list_the_rest_and_refuse_a_folder() {
    let dir = scratch("window-xdnd");
    let x = XServer::start();
    let (lwo, wmo, m2) = (asset("square-with-detail.lwo"), asset("courtyard.wmo"), asset("World/Generic/Barrel.m2"));
    let odd = dir.join("with space/ünïcødé ✓/square copy.lwo");
    std::fs::create_dir_all(odd.parent().unwrap()).unwrap();
    std::fs::copy(&lwo, &odd).unwrap();
    let child = start_on(&x, &dir, &wmo);
    let minute = Duration::from_secs(90);
    let shown = |path: &Path| {
        let path = path.display().to_string();
        move |s: &serde_json::Value| s["shown"].as_str() == Some(path.as_str()) && s["loading"] == false
    };
    wait_for(&dir, "the WMO to show", minute, shown(&wmo));
    for file in [&lwo, &m2, &wmo, &odd] {
        x.drop_files(&[file]);
        wait_for(&dir, &format!("the dropped {} to show", file.display()), minute, shown(file));
    }
    // F12, pressed on the keyboard (XTest): the 3D view beside the model, then the next free name.
    let frame = status(&dir)["frame"].as_u64().unwrap_or(0);
    wait_for(&dir, "a few frames", minute, |s| s["frame"].as_u64().is_some_and(|f| f >= frame + 10));
    let folder_of_odd = odd.parent().unwrap();
    for (n, name) in ["square copy-screenshot.png", "square copy-screenshot-2.png"].iter().enumerate() {
        x.press_key("F12");
        let expected = folder_of_odd.join(name);
        let s = wait_for(&dir, &format!("screenshot {}", n + 1), minute, |s| {
            s["notice"].as_str().is_some_and(|t| t.starts_with(&format!("screenshot saved to {}", expected.display())))
        });
        let viewport = &s["camera"]["viewport"];
        let (w, h) = image::image_dimensions(&expected).unwrap();
        assert_eq!(
            (w, h),
            (viewport[2].as_f64().unwrap() as u32, viewport[3].as_f64().unwrap() as u32),
            "the 3D view's size: {s}"
        );
    }
    // A chosen size (File ▸ Screenshot size): the same view drawn into an image of that size.
    send(&dir, "screenshot-size 1000x700");
    x.press_key("F12");
    let expected = folder_of_odd.join("square copy-screenshot-3.png");
    wait_for(&dir, "the screenshot at a chosen size", minute, |s| {
        s["notice"].as_str().is_some_and(|t| t == format!("screenshot saved to {} (1000×700)", expected.display()))
    });
    let sized = image::open(&expected).unwrap().to_rgb8();
    assert_eq!(sized.dimensions(), (1000, 700));
    let background = *sized.get_pixel(0, 0);
    let drawn = sized.pixels().filter(|p| **p != background).count();
    assert!(drawn > 1000, "the model is in the picture: {drawn} pixels differ from the background");
    send(&dir, "screenshot-size view");
    x.drop_files(&[&lwo, &m2, &wmo]);
    let first_shown = shown(&lwo);
    let lwo_text = lwo.display().to_string();
    // The opened file joins File ▸ Recent once it is on screen, a frame after the status says shown.
    let s = wait_for(&dir, "the first of three dropped files to show", minute, |s| {
        first_shown(s) && s["recent"][0].as_str() == Some(lwo_text.as_str())
    });
    let recent: Vec<&str> = s["recent"].as_array().unwrap().iter().filter_map(|r| r.as_str()).collect();
    let expected = [lwo.display().to_string(), m2.display().to_string(), wmo.display().to_string()];
    assert_eq!(recent[..3], expected, "the opened file, then the others in the order dropped");
    assert!(s["notice"].as_str().is_some_and(|n| n.contains("the other 2")), "{s}");
    let folder = dir.join("with space");
    x.drop_files(&[&folder]);
    let s = wait_for(&dir, "the folder's message", minute, |s| {
        s["error"].as_str().is_some_and(|e| e.contains("is a folder"))
    });
    assert!(s["error"].as_str().unwrap().contains(&folder.display().to_string()), "{s}");
    assert_eq!(s["shown"].as_str(), Some(lwo.display().to_string().as_str()), "the model stays");
    // Esc, pressed on the keyboard (XTest), stops a load under way — a WMO of 1200 group files — and
    // the model shown before stays.
    let huge = lwo_wmo_viewer::fixtures::wmo::large_scene(1200, 1500).write_to(&dir.join("huge"), "huge").unwrap();
    send(&dir, &format!("drop {}", huge.display()));
    let started = Instant::now();
    while status(&dir)["progress"].is_null() {
        assert!(started.elapsed() < minute, "the load did not start");
        std::thread::sleep(Duration::from_millis(5));
    }
    x.press_key("Escape");
    let s = wait_for(&dir, "Esc to cancel the load", minute, |s| {
        s["notice"].as_str().is_some_and(|n| n.starts_with("cancelled loading huge.wmo"))
    });
    assert_eq!(s["shown"].as_str(), Some(lwo_text.as_str()), "the model stays: {s}");
    quit(&dir, child);
}

/// `--watch`: rewriting the open LightWave file reloads it with the camera where it was; a broken write
/// shows the error and keeps the last good model; the next good write clears it. A WMO dropped next is
/// followed through its group files: rewriting one reloads the model.
#[test]
fn watch_reloads_changes_keeps_the_last_good_model_and_follows_group_files() {
    use lwo_wmo_viewer::fixtures::wmo::{sample_scene, write_group};
    let dir = scratch("window-watch");
    let model = dir.join("model.lwo");
    std::fs::copy(asset("square-with-detail.lwo"), &model).unwrap();
    let child = start_with(&dir, &model, &["--watch"]);
    let minute = Duration::from_secs(90);
    let model_text = model.display().to_string();
    let s0 = wait_for(&dir, "the model to show and be followed", minute, |s| {
        s["shown"].as_str() == Some(model_text.as_str())
            && s["watching"].as_array().is_some_and(|w| w.iter().any(|p| p.as_str() == Some(model_text.as_str())))
    });
    let count = |s: &serde_json::Value| s["shown_count"].as_u64().unwrap();
    // The orbit camera glides to its framing: wait until it holds still.
    let mut s0 = s0;
    loop {
        let frame = s0["frame"].as_u64().unwrap_or(0);
        let later = wait_for(&dir, "frames", minute, |s| s["frame"].as_u64().is_some_and(|f| f >= frame + 15));
        if later["camera"] == s0["camera"] {
            break;
        }
        s0 = later;
    }
    std::fs::copy("/usr/share/assimp/models/LWO/LWO2/hierarchy.lwo", &model).unwrap();
    let s1 = wait_for(&dir, "the rewritten model", minute, |s| {
        s["shown_count"].as_u64() > Some(count(&s0)) && s["loading"] == false
    });
    assert_ne!(s1["triangles"], s0["triangles"], "the new object is shown");
    let frame = s1["frame"].as_u64().unwrap_or(0);
    let later =
        wait_for(&dir, "frames after the reload", minute, |s| s["frame"].as_u64().is_some_and(|f| f >= frame + 15));
    assert_eq!(later["camera"], s0["camera"], "a reload keeps the camera");
    std::fs::write(&model, b"FORM\x00\x00\x00\x10LWO2PNTS\xff\xff\xff\xff").unwrap();
    let s2 = wait_for(&dir, "the broken write's error", minute, |s| s["error"].is_string());
    assert!(s2["error"].as_str().unwrap().contains("model.lwo"), "{s2}");
    assert_eq!(
        (s2["shown"].clone(), s2["triangles"].clone()),
        (s1["shown"].clone(), s1["triangles"].clone()),
        "the last good model stays"
    );
    std::fs::copy(asset("square-with-detail.lwo"), &model).unwrap();
    wait_for(&dir, "the good write after the broken one", minute, |s| {
        s["error"].is_null() && s["triangles"] == s0["triangles"] && s["shown_count"].as_u64() > Some(count(&s1))
    });
    // What the user set in the panel — view options, the selected part, a part unticked — stays
    // through a reload of the same object.
    for command in ["view wireframe on", "view grid off", "select 0", "part 0 off"] {
        send(&dir, command);
    }
    let set = wait_for(&dir, "the panel settings", minute, |s| {
        s["view"]["wireframe"] == true && s["parts"][0] == false && s["view"]["selected_part"] == 0
    });
    std::fs::copy(asset("square-with-detail.lwo"), &model).unwrap();
    let s3 = wait_for(&dir, "the reload of the same object", minute, |s| {
        s["shown_count"].as_u64() > Some(count(&set)) && s["loading"] == false
    });
    assert_eq!(
        (&s3["view"], &s3["parts"]),
        (&set["view"], &set["parts"]),
        "a reload keeps the view options, selection and part toggles"
    );
    // A WMO: its group files are followed too.
    let scene = sample_scene();
    let root = scene.write_to(&dir.join("wmo"), "yard").unwrap();
    send(&dir, &format!("drop {}", root.display()));
    let group = dir.join("wmo/yard_000.wmo");
    let group_text = group.display().to_string();
    let s4 = wait_for(&dir, "the WMO and its groups followed", minute, |s| {
        s["shown_count"].as_u64() > Some(count(&s3))
            && s["watching"].as_array().is_some_and(|w| w.iter().any(|p| p.as_str() == Some(group_text.as_str())))
    });
    let other = scene.groups.iter().position(|g| g.triangle_count() != scene.groups[0].triangle_count()).unwrap();
    std::fs::write(&group, write_group(&scene.groups[other])).unwrap();
    let s5 = wait_for(&dir, "the reload after a group file changed", minute, |s| {
        s["shown_count"].as_u64() > Some(count(&s4)) && s["loading"] == false
    });
    assert_ne!(s5["triangles"], s4["triangles"]);
    quit(&dir, child);
}

/// `cancel` (Esc) stops a load under way — a WMO of 1200 group files — and the model shown before
/// stays, with no error; then the same WMO under another name reports its load by stage with
/// increasing counts ("group files 120 / 1200") until it shows.
#[test]
fn a_cancelled_load_keeps_the_model_and_a_large_wmo_reports_progress_by_stage() {
    use lwo_wmo_viewer::fixtures::wmo::large_scene;
    let dir = scratch("window-progress");
    let groups = 1200;
    let scene = large_scene(groups, 1500);
    let huge = scene.write_to(&dir.join("huge"), "huge").unwrap();
    let big = scene.write_to(&dir.join("big"), "big").unwrap();
    let lwo = asset("square-with-detail.lwo");
    let child = start(&dir, &lwo);
    let minute = Duration::from_secs(90);
    let lwo_text = lwo.display().to_string();
    wait_for(&dir, "the LWO to show", minute, |s| {
        s["shown"].as_str() == Some(lwo_text.as_str()) && s["loading"] == false
    });
    // Cancelled once under way, polled closely: with the small LWO on screen frames are short, and
    // the huge WMO takes many of them to load.
    send(&dir, &format!("drop {}", huge.display()));
    let start = Instant::now();
    while status(&dir)["progress"].is_null() {
        assert!(start.elapsed() < minute, "the load did not start");
        std::thread::sleep(Duration::from_millis(5));
    }
    send(&dir, "cancel");
    let s = wait_for(&dir, "the cancel", minute, |s| {
        s["notice"].as_str().is_some_and(|n| n.starts_with("cancelled loading huge.wmo"))
    });
    assert_eq!(s["shown"].as_str(), Some(lwo_text.as_str()));
    std::thread::sleep(Duration::from_secs(3));
    let s = status(&dir);
    assert_eq!(
        (s["shown"].as_str(), s["loading"].as_bool(), s["error"].is_null()),
        (Some(lwo_text.as_str()), Some(false), true),
        "{s}"
    );

    send(&dir, &format!("drop {}", big.display()));
    let big_text = big.display().to_string();
    let mut seen: Vec<(String, u64, u64)> = Vec::new();
    let start = Instant::now();
    loop {
        let s = status(&dir);
        if let Some(p) = s["progress"].as_object() {
            let entry = (
                p["stage"].as_str().unwrap_or_default().to_owned(),
                p["done"].as_u64().unwrap_or(0),
                p["total"].as_u64().unwrap_or(0),
            );
            if seen.last() != Some(&entry) {
                seen.push(entry);
            }
        }
        if s["shown"].as_str() == Some(big_text.as_str()) && s["loading"] == false {
            break;
        }
        assert!(start.elapsed() < minute, "the big WMO did not show; progress seen {seen:?}");
        std::thread::sleep(Duration::from_millis(5));
    }
    let counted: Vec<&(String, u64, u64)> =
        seen.iter().filter(|(stage, _, total)| stage.starts_with("group") && *total == groups as u64).collect();
    assert!(!counted.is_empty(), "no group stage with {groups} items among {seen:?}");
    for pair in seen.windows(2) {
        if pair[0].0 == pair[1].0 {
            assert!(pair[1].1 >= pair[0].1, "counts go up within a stage: {seen:?}");
        }
    }
    quit(&dir, child);
}

/// Portal culling in the window (the scene of `culling.rs`): placed in room A looking east, the status
/// says A, B and the yard are drawn and C's barrel is hidden; in room B looking north, C is drawn; from
/// the yard with the yard unticked, the rooms are drawn whole; with culling turned off nothing is culled.
#[test]
fn the_window_draws_only_the_groups_the_camera_sees_until_culling_is_turned_off() {
    use lwo_wmo_viewer::fixtures::wmo::{portal_rooms, portal_rooms_groups::*};
    let dir = scratch("window-culling");
    let root = portal_rooms().write_to(&dir.join("rooms"), "rooms").unwrap();
    let child = start(&dir, &root);
    let minute = Duration::from_secs(90);
    let root_text = root.display().to_string();
    wait_for(&dir, "the rooms to show", minute, |s| {
        s["shown"].as_str() == Some(root_text.as_str()) && s["loading"] == false
    });
    // Where the orbit camera has come to rest: the same camera in two statuses half a second apart.
    let settled = |what: &str, inside: usize| {
        let mut last = serde_json::Value::Null;
        wait_for(&dir, what, minute, |s| {
            let still =
                s["camera"] == last["camera"] && s["portal_culling"]["camera_in"] == serde_json::json!([inside]);
            last = s.clone();
            std::thread::sleep(Duration::from_millis(500));
            still
        })
    };
    // The eyes and targets in the view's frame: a WMO's (x, y, z) is (x, z, −y).
    send(&dir, "camera 4,3,-10:40,3,-10");
    let s = settled("the view from room A", A);
    assert_eq!(s["portal_culling"]["drawn"], serde_json::json!([A, B, YARD]), "{s}");
    assert_eq!(s["portal_culling"]["hidden_doodads"], serde_json::json!([1]), "{s}");
    send(&dir, "camera 30,3,-5:30,3,-40");
    let s = settled("the view from room B", B);
    assert_eq!(s["portal_culling"]["drawn"], serde_json::json!([B, C, YARD]), "{s}");
    // Outside, facing away from the building: the yard alone. With the yard unticked, culling from
    // outside would leave nothing: the rooms ticked are drawn whole, and the status (the panel) says why.
    send(&dir, "camera -20,3,-10:-40,3,-10");
    wait_for(&dir, "the view from the yard", minute, |s| s["portal_culling"]["drawn"] == serde_json::json!([YARD]));
    send(&dir, &format!("part {YARD} off"));
    let s = wait_for(&dir, "the rooms drawn from outside", minute, |s| {
        s["portal_culling"]["interiors_from_outside"] == true
    });
    assert!(s["portal_culling"]["drawn"].is_null(), "{s}");
    send(&dir, &format!("part {YARD} on"));
    wait_for(&dir, "the yard back", minute, |s| s["portal_culling"]["drawn"] == serde_json::json!([YARD]));
    send(&dir, "view portal-culling off");
    // Nothing is culled once the option is off.
    wait_for(&dir, "culling off", minute, |s| {
        s["portal_culling"]["enabled"] == false && s["portal_culling"]["drawn"].is_null()
    });
    quit(&dir, child);
}
