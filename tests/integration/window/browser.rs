//! The game data browser in the window: on an archive dropped on it, and on the data root the open
//! model was read from.

use std::time::Duration;

use super::app::*;
use crate::support::{asset, copy_folder, scratch};

/// A dropped `.MPQ` opens the game data browser on that archive alone: the filters narrow its list, a
/// row opens the WMO from inside the archive (groups, textures and doodads with it), a BLP row opens
/// the texture (a level's alpha channel shown alone is grey), and File ▸ Recent reopens the WMO from
/// the archive after a restart.
#[test]
fn a_dropped_archive_is_browsed_and_its_files_open_from_inside_it() {
    let dir = scratch("window-browser");
    let archive = crate::batch::sample_game_data().join("common.MPQ");
    let child = start(&dir, &asset("square-with-detail.lwo"));
    let minute = Duration::from_secs(90);
    wait_for(&dir, "the LWO to show", minute, |s| {
        s["shown"].as_str().is_some_and(|p| p.ends_with("square-with-detail.lwo")) && s["loading"] == false
    });
    send(&dir, &format!("drop {}", archive.display()));
    let s = wait_for(&dir, "the browser with its files listed", minute, |s| {
        s["browser"].is_object() && s["browser"]["listing"] == false
    });
    assert_eq!(s["browser"]["source"].as_str(), Some(archive.display().to_string().as_str()));
    assert!(s["browser"]["entries"].as_u64().unwrap() >= 11, "{s}");
    assert!(s["shown"].as_str().unwrap().ends_with("square-with-detail.lwo"), "the model stays until a file is opened");
    send(&dir, "browser-filter *.WMO");
    wait_for(&dir, "four WMO files", minute, |s| s["browser"]["shown_count"] == 4);
    send(&dir, "browser-kind wmo");
    let s = wait_for(&dir, "the root alone", minute, |s| s["browser"]["shown_count"] == 1);
    assert_eq!(s["browser"]["shown"], serde_json::json!(["courtyard.wmo"]));
    send(&dir, "browser-open 0");
    let s = wait_for(&dir, "the WMO from the archive", minute, |s| {
        s["shown"] == "wow://courtyard.wmo" && s["loading"] == false
    });
    assert_eq!(s["triangles"], 36, "its groups came from the archive: {s}");
    assert!(s["browser"].is_null(), "the browser steps aside for the model it opened: {s}");
    // Brought back, it has its filters, and the list read again.
    send(&dir, "browse");
    let s = wait_for(&dir, "the browser back", minute, |s| s["browser"]["listing"] == false);
    assert_eq!(
        (&s["browser"]["filter"], &s["browser"]["shown_count"]),
        (&serde_json::json!("*.WMO"), &serde_json::json!(1))
    );
    let recent = format!("{}|wow://courtyard.wmo", archive.display());
    wait_for(&dir, "the archive path in Recent", minute, |s| s["recent"][0].as_str() == Some(recent.as_str()));
    send(&dir, "browser-kind blp");
    send(&dir, "browser-filter stone");
    wait_for(&dir, "the stone texture", minute, |s| s["browser"]["shown_count"] == 1);
    send(&dir, "browser-open 0");
    let s = wait_for(&dir, "the texture shown", minute, |s| {
        s["texture"].is_object() && s["loading"] == false || s["error"].is_string()
    });
    assert!(s["shown"].as_str().is_some_and(|p| p.ends_with("Stone.blp")), "{s}");
    assert_eq!((&s["texture"]["format"], &s["texture"]["level"]), (&serde_json::json!("BLP2"), &serde_json::json!(0)));
    let levels = s["texture"]["mip_levels"].as_u64().unwrap();
    assert!(levels > 1, "{s}");
    assert!(s["browser"].is_object(), "the browser stays up for the next texture: {s}");
    // Its last level's alpha channel alone: grey, as its Texture section shows it.
    send(&dir, &format!("texture {} alpha", levels - 1));
    let s = wait_for(&dir, "the last level's alpha", minute, |s| s["texture"]["alpha_only"] == true);
    assert_eq!(s["texture"]["level"].as_u64(), Some(levels - 1));
    let shot = dir.join("alpha.png");
    send(&dir, &format!("screenshot {}", shot.display()));
    wait_for(&dir, "the screenshot", minute, |s| s["screenshots"].as_array().is_some_and(|a| !a.is_empty()));
    let image = image::open(&shot).unwrap().to_rgb8();
    let view = s["camera"]["viewport"]
        .as_array()
        .map(|v| v.iter().map(|x| x.as_f64().unwrap_or(0.0) as u32).collect::<Vec<_>>());
    let (x, y) = view.map_or((image.width() / 2, image.height() / 2), |v| (v[0] + v[2] / 2, v[1] + v[3] / 2));
    let centre = image.get_pixel(x, y).0;
    assert!(centre[0].abs_diff(centre[1]) <= 2 && centre[1].abs_diff(centre[2]) <= 2, "grey: {centre:?}");
    quit(&dir, child);

    // A new start without --data: Recent's entry opens the archive again, then the WMO inside it.
    let again = dir.join("again");
    std::fs::create_dir_all(&again).unwrap();
    std::fs::create_dir_all(again.join("config")).unwrap();
    copy_folder(&dir.join("config"), &again.join("config"));
    let child = start(&again, &asset("square-with-detail.lwo"));
    wait_for(&again, "the LWO to show", minute, |s| {
        s["shown"].as_str().is_some_and(|p| p.ends_with("square-with-detail.lwo")) && s["loading"] == false
    });
    let s = status(&again);
    let entries = s["recent"].as_array().cloned().unwrap_or_default();
    let at = entries.iter().position(|e| e.as_str() == Some(recent.as_str()));
    let at = at.unwrap_or_else(|| panic!("{recent} in Recent: {s}"));
    send(&again, &format!("open-recent {at}"));
    let s = wait_for(&again, "the WMO from Recent", minute, |s| {
        s["shown"] == "wow://courtyard.wmo" && s["loading"] == false
    });
    assert_eq!(s["triangles"], 36);
    quit(&again, child);
}

/// Without `--data`, File ▸ Browse game data… lists the data root the open model was read from (the
/// folder holding `World` above it), not an empty list; opening a model from it puts the browser away,
/// and it comes back with its filter.
#[test]
fn the_browser_lists_the_data_root_of_the_open_model_and_steps_aside_for_a_model() {
    let dir = scratch("window-browser-root");
    let root = dir.join("Data");
    let sample = root.join("World/wmo/Sample");
    std::fs::create_dir_all(&sample).unwrap();
    copy_folder(&asset("World"), &root.join("World"));
    for name in ["courtyard.wmo", "courtyard_000.wmo", "courtyard_001.wmo", "courtyard_002.wmo"] {
        std::fs::copy(asset(name), sample.join(name)).unwrap();
    }
    let wmo = sample.join("courtyard.wmo");
    let child = start(&dir, &wmo);
    let minute = Duration::from_secs(90);
    let path = wmo.display().to_string();
    wait_for(&dir, "the WMO to show", minute, |s| s["shown"].as_str() == Some(path.as_str()) && s["loading"] == false);
    send(&dir, "browse");
    let s = wait_for(&dir, "the data root listed", minute, |s| s["browser"]["listing"] == false);
    assert_eq!(s["browser"]["source"].as_str(), Some(root.display().to_string().as_str()), "{s}");
    assert!(s["browser"]["entries"].as_u64().unwrap() >= 8, "the root's files: {s}");
    send(&dir, "browser-filter Lamp.m2");
    wait_for(&dir, "the lamp alone", minute, |s| s["browser"]["shown_count"] == 1);
    send(&dir, "browser-open 0");
    let s = wait_for(&dir, "the lamp from the data root", minute, |s| {
        s["shown"].as_str().is_some_and(|p| p.starts_with("wow://") && p.ends_with("Lamp.m2")) && s["loading"] == false
    });
    assert!(s["browser"].is_null(), "the browser steps aside: {s}");
    assert!(s["error"].is_null(), "{s}");
    send(&dir, "browse");
    let s = wait_for(&dir, "the browser back", minute, |s| s["browser"]["listing"] == false);
    assert_eq!(
        (&s["browser"]["filter"], &s["browser"]["shown_count"]),
        (&serde_json::json!("Lamp.m2"), &serde_json::json!(1)),
        "{s}"
    );
    quit(&dir, child);
}
