//! Typing into the window's text fields with real keys (XTest), the pointer left where it was: the
//! Open-path field has the keyboard as it opens, and the archive browser's filter takes what is typed.

use std::time::Duration;

use super::app::*;
use super::xserver::XServer;
use crate::support::{asset, scratch};

/// File ▸ Open path… then the path typed at once and Return: the model opens (the field had the
/// keyboard from its first frame; it used to lose the first keys). Then an archive dropped, a click in
/// its filter box and a word typed: the list narrows to it.
#[test]
fn the_path_field_and_the_browser_filter_take_the_keys_typed_at_once() {
    let dir = scratch("window-text-fields");
    let x = XServer::start();
    let lwo = asset("square-with-detail.lwo");
    let child = start_on(&x, &dir, &lwo);
    let minute = Duration::from_secs(90);
    wait_for(&dir, "the LWO to show", minute, |s| {
        s["shown"].as_str().is_some_and(|p| p.ends_with("square-with-detail.lwo")) && s["loading"] == false
    });
    let wmo = asset("courtyard.wmo");
    let typed = format!("type:{}", wmo.display());
    // The menu bar's File, its second item (Open path…), then the path and Return, with no click in
    // the field.
    x.act(&["focus", "move:19:11", "click:1", "sleep:1.5", "move:53:57", "click:1", "sleep:1.5", &typed, "key:Return"]);
    let path = wmo.display().to_string();
    wait_for(&dir, "the WMO typed in", minute, |s| s["shown"].as_str() == Some(path.as_str()) && s["loading"] == false);

    let archive = crate::batch::sample_game_data().join("common.MPQ");
    send(&dir, &format!("drop {}", archive.display()));
    wait_for(&dir, "the archive listed", minute, |s| s["browser"]["listing"] == false);
    // The filter box sits at the top of the browser window (placed at 420, 40).
    x.act(&["move:590:90", "click:1", "sleep:1.0", "type:lamp"]);
    let s = wait_for(&dir, "the list narrowed to the word typed", minute, |s| {
        s["browser"]["filter"] == "lamp" && s["browser"]["shown_count"] == 2
    });
    assert_eq!(s["browser"]["shown"], serde_json::json!(["World/Generic/Lamp.m2", "World/Generic/Lamp00.skin"]));
    quit(&dir, child);
}
