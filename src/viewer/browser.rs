//! The game data browser: the files of the data root (`--data`) or of a dropped `.MPQ`, from their
//! listfiles (files no listfile names by their hash pair and size), filtered by a substring or `*`
//! wildcards and by type; a click opens a model from inside the archives, or shows a BLP with its mip
//! levels and encoding. The list draws only the rows in view, so 300,000 names stay interactive.

use std::sync::Arc;

use bevy::prelude::*;
use bevy::tasks::{AsyncComputeTaskPool, Task, block_on, futures_lite::future::poll_once};
use bevy_egui::{EguiContexts, egui};

use crate::formats::wmo::root_of_group_file;
use crate::source::{BrowseEntry, FileSource, SwitchableSource, matches_wildcard};

use super::scene::{Viewer, in_game_data};

/// Which files the browser lists.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum KindFilter {
    #[default]
    All,
    /// `.wmo` files that are not `_NNN.wmo` groups.
    WmoRoots,
    M2,
    Blp,
}

impl KindFilter {
    pub const ALL: [(Self, &'static str); 4] =
        [(Self::All, "all"), (Self::WmoRoots, "WMO roots"), (Self::M2, "M2"), (Self::Blp, "BLP")];

    fn admits(self, label: &str) -> bool {
        let lower = label.to_ascii_lowercase();
        match self {
            Self::All => true,
            Self::WmoRoots => lower.ends_with(".wmo") && root_of_group_file(&lower).is_none(),
            Self::M2 => lower.ends_with(".m2"),
            Self::Blp => lower.ends_with(".blp"),
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL
            .iter()
            .find(|(_, name)| name.eq_ignore_ascii_case(text) || (text == "wmo" && *name == "WMO roots"))
            .map(|(k, _)| *k)
    }
}

/// The entries that pass the filters, as indices into `entries`: `filter` is a case-insensitive
/// substring, or with `*` a wildcard over the whole path.
pub fn filter_entries(entries: &[BrowseEntry], filter: &str, kind: KindFilter) -> Vec<usize> {
    let filter = filter.trim();
    let needle = filter.to_ascii_lowercase().replace('\\', "/");
    let wildcard = filter.contains('*');
    entries
        .iter()
        .enumerate()
        .filter(|(_, e)| kind.admits(&e.label))
        .filter(|(_, e)| match (filter.is_empty(), wildcard) {
            (true, _) => true,
            (false, true) => matches_wildcard(filter, &e.label),
            (false, false) => e.label.to_ascii_lowercase().contains(&needle),
        })
        .map(|(i, _)| i)
        .collect()
}

#[derive(Resource, Default)]
pub struct ArchiveBrowser {
    pub open: bool,
    /// What is browsed: the data root's folder or the archive's path.
    pub source_name: String,
    pub entries: Vec<BrowseEntry>,
    pub filter: String,
    pub kind: KindFilter,
    /// Indices into `entries` that pass the filters.
    pub shown: Vec<usize>,
    /// The filters `shown` was made for.
    shown_for: Option<(String, KindFilter)>,
    /// The source's files being listed, off the main thread (a client's archives name some 300,000).
    listing: Option<Task<Vec<BrowseEntry>>>,
    /// The data root [`browse_source`] found above a model from disk, and the game data it made of it.
    found_root: Option<(std::path::PathBuf, Arc<dyn FileSource>)>,
    /// `--listfile`: its paths name the archive files no archive listfile names.
    pub listfile: Option<Arc<crate::source::Listfile>>,
}

impl ArchiveBrowser {
    /// A closed browser whose listings `listfile` names (`--listfile`).
    pub fn with_listfile(listfile: Option<Arc<crate::source::Listfile>>) -> Self {
        Self { listfile, ..Self::default() }
    }

    /// Opens the browser on `source` (the window's game data, or the archive just dropped); its files
    /// are listed on a task and appear when [`ArchiveBrowser::poll_listing`] finds them ready.
    pub fn show(&mut self, source: Arc<dyn FileSource>) {
        self.source_name = source.describe();
        self.entries.clear();
        let listfile = self.listfile.clone();
        self.listing = Some(AsyncComputeTaskPool::get().spawn(async move {
            let mut entries = source.browse();
            if let Some(listfile) = listfile {
                crate::source::name_from_listfile(&mut entries, &listfile);
            }
            entries
        }));
        self.shown_for = None;
        self.open = true;
        self.refilter();
    }

    /// Takes the listing once its task has finished.
    pub fn poll_listing(&mut self) {
        let Some(task) = self.listing.as_mut() else { return };
        if let Some(entries) = block_on(poll_once(task)) {
            self.listing = None;
            self.entries = entries;
            self.shown_for = None;
            self.refilter();
        }
    }

    /// Whether the files are still being listed.
    pub fn listing(&self) -> bool {
        self.listing.is_some()
    }

    /// Recomputes `shown` if the filters changed since.
    pub fn refilter(&mut self) {
        let wanted = (self.filter.clone(), self.kind);
        if self.shown_for.as_ref() != Some(&wanted) {
            self.shown = filter_entries(&self.entries, &self.filter, self.kind);
            self.shown_for = Some(wanted);
        }
    }
}

/// The window's `wow://` source, which the browser reads and a dropped archive replaces.
#[derive(Resource, Clone)]
pub struct GameDataSwitch(pub Arc<SwitchableSource>);

/// A recent file as File ▸ Recent keeps it: a file of the game data is `ROOT|wow://PATH`, so that
/// opening it again finds its data root (or archive) first.
pub fn recent_entry(shown: &std::path::Path, switch: Option<&GameDataSwitch>) -> std::path::PathBuf {
    match (super::scene::game_data_path(shown), switch.and_then(|s| s.0.get())) {
        (Some(_), Some(data)) => std::path::PathBuf::from(format!("{}|{}", data.describe(), shown.display())),
        _ => shown.to_path_buf(),
    }
}

fn split_recent(entry: &std::path::Path) -> Option<(&str, &str)> {
    entry.to_str()?.split_once("|wow://")
}

/// How File ▸ Recent names an entry: `PATH (in ROOT)` for a file of the game data.
pub fn recent_label(entry: &std::path::Path) -> String {
    match split_recent(entry) {
        Some((root, inside)) => format!("{inside} (in {root})"),
        None => entry.display().to_string(),
    }
}

/// Opens a File ▸ Recent entry: a file of the game data after opening its data root (or archive) again
/// if another is browsed now.
pub fn open_recent(
    viewer: &mut Viewer,
    asset_server: &AssetServer,
    switch: Option<&GameDataSwitch>,
    entry: &std::path::Path,
) {
    let Some((root, inside)) = split_recent(entry) else {
        viewer.open(asset_server, entry);
        return;
    };
    if let Some(switch) = switch
        && switch.0.get().is_none_or(|now| now.describe() != root)
    {
        switch.0.set(crate::source::open_data_root(std::path::Path::new(root)));
    }
    viewer.open(asset_server, &in_game_data(inside));
}

/// Opens row `row` of the filtered list in the viewer: a model, or a texture to look at.
pub fn open_row(
    browser: &mut ArchiveBrowser,
    row: usize,
    viewer: &mut Viewer,
    asset_server: &AssetServer,
) -> Result<(), String> {
    let entry = browser.shown.get(row).and_then(|&i| browser.entries.get(i)).ok_or_else(|| format!("no row {row}"))?;
    let path = entry
        .path
        .clone()
        .ok_or_else(|| format!("{}: no listfile names it, so it cannot be opened by its type", entry.label))?;
    viewer.open(asset_server, &in_game_data(&path));
    // A model is what the user came for: the browser steps out of its way (File ▸ Browse game data…
    // brings it back as it was). Textures are looked through one after another: it stays.
    if !path.to_ascii_lowercase().ends_with(".blp") {
        browser.open = false;
    }
    Ok(())
}

/// The game data to browse: the window's (`--data`, an archive dropped, Recent's) or, with none, the
/// data root the shown model was read with (the folder holding `World` above it) — found again for
/// each model from disk, as long as nothing else has set the game data since.
pub fn browse_source(
    switch: &GameDataSwitch,
    browser: &mut ArchiveBrowser,
    shown: Option<&std::path::Path>,
) -> Arc<dyn FileSource> {
    let now = switch.0.get();
    let ours = match (&now, &browser.found_root) {
        (None, _) => true,
        (Some(now), Some((_, found))) => Arc::ptr_eq(now, found),
        (Some(_), None) => false,
    };
    let from_disk = shown.filter(|p| super::scene::game_data_path(p).is_none());
    if ours
        && let Some(root) = from_disk.and_then(data_root_above)
        && browser.found_root.as_ref().is_none_or(|(found, _)| *found != root)
    {
        let data = crate::source::open_data_root(&root);
        switch.0.set(data.clone());
        browser.found_root = Some((root, data));
    }
    switch.0.clone()
}

/// The folder holding `World` above a model on disk, as the loader finds it for textures and doodads.
fn data_root_above(model: &std::path::Path) -> Option<std::path::PathBuf> {
    let absolute = std::path::absolute(model).ok()?;
    let text = absolute.to_str()?;
    let everything = crate::source::LooseFolder::new("/");
    let root = crate::scene::find_data_root(&everything, text.trim_start_matches('/'))?;
    Some(std::path::PathBuf::from(root.describe()))
}

/// The browser's window, while it is open.
pub fn draw_browser(
    mut contexts: EguiContexts,
    mut browser: ResMut<ArchiveBrowser>,
    mut viewer: ResMut<Viewer>,
    switch: Option<Res<GameDataSwitch>>,
    asset_server: Res<AssetServer>,
) -> Result {
    browser.poll_listing();
    if !browser.open {
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?.clone();
    let mut open = true;
    let mut clicked = None;
    let browser = &mut *browser;
    egui::Window::new(format!("Game data: {}", browser.source_name))
        .id(egui::Id::new("game data browser"))
        .open(&mut open)
        // Shown whole on its first frame: a fade-in lasts several frames on a slow (software) renderer.
        .fade_in(false)
        .default_pos([420.0, 40.0])
        .default_size([520.0, 560.0])
        .show(&ctx, |ui| {
            ui.horizontal(|ui| {
                ui.label("filter");
                ui.add(
                    egui::TextEdit::singleline(&mut browser.filter)
                        .hint_text("Stormwind  or  World\\wmo\\*.wmo")
                        .desired_width(260.0),
                );
            });
            ui.horizontal(|ui| {
                for (kind, name) in KindFilter::ALL {
                    ui.radio_value(&mut browser.kind, kind, name);
                }
            });
            browser.refilter();
            if browser.listing() {
                ui.horizontal(|ui| {
                    ui.spinner();
                    ui.label("listing the files…");
                });
            } else {
                ui.label(format!("{} of {} files", browser.shown.len(), browser.entries.len()));
            }
            let row_height = ui.text_style_height(&egui::TextStyle::Body) + 4.0;
            egui::ScrollArea::vertical().max_height(300.0).auto_shrink([false, false]).show_rows(
                ui,
                row_height,
                browser.shown.len(),
                |ui, rows| {
                    for row in rows {
                        let entry = &browser.entries[browser.shown[row]];
                        let text = format!("{}   {} KB", entry.label, entry.size.div_ceil(1024));
                        let response = ui.add_enabled(entry.path.is_some(), egui::Button::selectable(false, text));
                        if response.clicked() {
                            clicked = Some(row);
                        }
                    }
                },
            );
        });
    browser.open = open;
    if let (Some(row), Some(switch)) = (clicked, switch)
        && switch.0.get().is_some()
        && let Err(e) = open_row(browser, row, &mut viewer, &asset_server)
    {
        viewer.notice = Some(e);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_take_substrings_wildcards_and_types() {
        let entry =
            |label: &str| BrowseEntry { path: Some(label.into()), label: label.into(), size: 1, name_hashes: None };
        let entries: Vec<BrowseEntry> =
            ["World/wmo/Inn.wmo", "World/wmo/Inn_000.wmo", "World/Generic/Barrel.m2", "World/wmo/Stone.BLP"]
                .map(entry)
                .to_vec();
        assert_eq!(filter_entries(&entries, "", KindFilter::All), [0, 1, 2, 3]);
        assert_eq!(filter_entries(&entries, "inn", KindFilter::All), [0, 1]);
        assert_eq!(filter_entries(&entries, "", KindFilter::WmoRoots), [0]);
        assert_eq!(filter_entries(&entries, r"world\wmo\*.blp", KindFilter::All), [3]);
        assert_eq!(filter_entries(&entries, "*", KindFilter::M2), [2]);
    }

    /// A client's listfile holds some 300,000 names: filtering them all stays well inside a frame's
    /// budget for an interactive list (it runs once per change of the filter, not per frame). A timing
    /// check, so not in the default suite: the bench's `--timing` section runs it.
    #[test]
    #[ignore = "a timing check: run by the bench (--timing) or with `cargo test -- --ignored timing_`"]
    fn timing_filtering_300_000_names_is_interactive() {
        let entries: Vec<BrowseEntry> = (0..300_000)
            .map(|i| {
                let label = format!("World/wmo/Zone{}/Building{i}/Building{i}_{:03}.wmo", i % 97, i % 40);
                BrowseEntry { path: Some(label.clone()), label, size: 4096, name_hashes: None }
            })
            .collect();
        let started = std::time::Instant::now();
        let substring = filter_entries(&entries, "building12345", KindFilter::All);
        let wildcard = filter_entries(&entries, "*zone3/*_007.wmo", KindFilter::All);
        let elapsed = started.elapsed();
        assert!(!substring.is_empty() && !wildcard.is_empty());
        assert!(elapsed.as_millis() < 400, "two filters over 300,000 names took {elapsed:?}");
    }
}
