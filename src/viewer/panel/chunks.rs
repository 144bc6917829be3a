//! The panel's chunk tree: each file's chunks (an M2's header arrays in their place) with their decoded
//! fields and a hex view of the selected one, and the partial tree of a file that could not be read.

use bevy_egui::egui;

use super::{ChunkSelection, PanelAction, PanelState, RejectedFile};
use crate::formats::{ChunkId, ChunkRef, ChunkTree, Document, Model};
use crate::plugin::ModelAsset;

pub(super) fn rejected_tree(ui: &mut egui::Ui, rejected: &RejectedFile) {
    fn node(ui: &mut egui::Ui, n: ChunkRef<'_>, error_at: Option<usize>) {
        // The deepest chunk holding the error's offset is where reading broke.
        let holds = |c: &ChunkRef<'_>| {
            error_at.is_some_and(|at| (c.offset..c.data_range().end.max(c.offset + 8)).contains(&at))
        };
        let broke_here = holds(&n) && !n.children().any(|c| holds(&c));
        let text = format!(
            "{:<9} @0x{:X}  {} B{}",
            n.label(),
            n.offset,
            n.length,
            if broke_here { "   ← reading broke here" } else { "" }
        );
        let color = if broke_here { egui::Color32::from_rgb(255, 120, 100) } else { egui::Color32::GRAY };
        ui.label(egui::RichText::new(text).monospace().color(color));
        ui.indent(("rejected", n.chunk), |ui| {
            for child in n.children() {
                node(ui, child, error_at);
            }
        });
    }
    ui.separator();
    ui.label(format!("{}: the chunks up to where reading broke", rejected.name));
    egui::ScrollArea::vertical().max_height(300.0).show(ui, |ui| {
        for root in rejected.tree.root_chunks() {
            node(ui, root, rejected.error.as_ref().map(|e| e.offset));
        }
    });
}

pub(super) fn chunks_section(
    ui: &mut egui::Ui,
    model: &ModelAsset,
    state: &PanelState,
    actions: &mut Vec<PanelAction>,
) {
    egui::CollapsingHeader::new("Chunks").default_open(true).show(ui, |ui| {
        for (f, file) in model.description.files.iter().enumerate() {
            // A skin has no document of its own: its arrays are listed under its model.
            let Some(document) = &file.document else { continue };
            let name = crate::scene::file_name(&file.path).to_owned();
            let reveal = state.reveal && state.selected.as_ref().is_some_and(|(file, _)| *file == f);
            egui::CollapsingHeader::new(name)
                .id_salt(("file", f))
                .default_open(f == 0)
                .open(reveal.then_some(true))
                .show(ui, |ui| {
                    if let Model::M2(m2) = &document.model {
                        m2_arrays(ui, f, m2, state, actions);
                        super::animation::m2_animation(ui, f, m2);
                    }
                    for node in document.tree.root_chunks() {
                        chunk_node(ui, f, document, &file.bytes, node, state, actions);
                    }
                });
        }
    });
}

/// An M2 has no chunks: its header arrays (name, count, offset) stand in for them, each selectable to
/// show its bytes.
fn m2_arrays(
    ui: &mut egui::Ui,
    file: usize,
    model: &crate::formats::m2::M2Model,
    state: &PanelState,
    actions: &mut Vec<PanelAction>,
) {
    if model.data_offset == 0 {
        ui.label(format!("MD20 version {}, header arrays:", model.version));
    } else {
        ui.label(format!(
            "MD20 version {} in MD21, header arrays (offsets from byte 0x{:X}):",
            model.version, model.data_offset
        ));
    }
    for array in &model.arrays {
        let selected = state
            .selected
            .as_ref()
            .is_some_and(|(f, s)| *f == file && matches!(s, ChunkSelection::Array(name) if name == array.name));
        let length = array.count as usize * array.entry_size;
        let text = format!("{:<22} {:>6} × {:<3} @0x{:X}", array.name, array.count, array.entry_size, array.offset);
        if ui
            .add(
                egui::Button::selectable(selected, egui::RichText::new(text).monospace())
                    .wrap_mode(egui::TextWrapMode::Extend),
            )
            .clicked()
        {
            let selection = ChunkSelection::Array(array.name.to_owned());
            let data_offset = model.data_offset + array.offset as usize;
            actions.push(PanelAction::SelectChunk { file, selection, data_offset, length });
        }
        if selected {
            egui::Frame::group(ui.style()).show(ui, |ui| {
                ui.label(format!(
                    "header field at 0x{:X}: count {}, offset 0x{:X}",
                    array.header_offset, array.count, array.offset
                ));
                let dump = egui::RichText::new(hex_dump(&state.hex, state.hex_base)).monospace().small();
                // A hex row is one line however narrow the panel: the panel scrolls sideways instead.
                ui.add(egui::Label::new(dump).wrap_mode(egui::TextWrapMode::Extend));
            });
        }
    }
}

fn chunk_node(
    ui: &mut egui::Ui,
    file: usize,
    document: &Document,
    bytes: &[u8],
    node: ChunkRef<'_>,
    state: &PanelState,
    actions: &mut Vec<PanelAction>,
) {
    let selected_chunk = match &state.selected {
        Some((f, ChunkSelection::Chunk(chunk))) if *f == file => Some(*chunk),
        _ => None,
    };
    let selected = selected_chunk == Some(node.chunk);
    let text = format!("{:<9} @0x{:X}  {} B", node.label(), node.offset, node.length);
    let select = PanelAction::SelectChunk {
        file,
        selection: ChunkSelection::Chunk(node.chunk),
        data_offset: node.data_offset(),
        length: node.length,
    };
    if !node.has_children() {
        if ui
            .add(
                egui::Button::selectable(selected, egui::RichText::new(text).monospace())
                    .wrap_mode(egui::TextWrapMode::Extend),
            )
            .clicked()
        {
            actions.push(select);
        }
    } else {
        let holds_selection = selected_chunk.is_some_and(|chunk| is_below(&document.tree, chunk, node.chunk));
        let header = egui::CollapsingHeader::new(egui::RichText::new(text).monospace())
            .id_salt(("chunk", file, node.chunk))
            .default_open(document.tree.parent(node.chunk).is_none())
            .open((state.reveal && holds_selection).then_some(true));
        let response = header.show(ui, |ui| {
            for child in node.children() {
                chunk_node(ui, file, document, bytes, child, state, actions);
            }
        });
        if response.header_response.secondary_clicked() || response.header_response.double_clicked() {
            actions.push(select);
        }
    }
    if selected {
        egui::Frame::group(ui.style()).show(ui, |ui| {
            for (k, v) in chunk_fields(document, node.chunk, bytes) {
                ui.label(format!("{k}: {v}"));
            }
            let dump = hex_job(&state.hex, state.hex_base, state.picked.as_ref().map(|p| p.bytes.clone()));
            ui.add(egui::Label::new(dump).wrap_mode(egui::TextWrapMode::Extend));
        });
    }
}

/// Whether `chunk` lies inside `container`, at any depth.
fn is_below(tree: &ChunkTree, chunk: ChunkId, container: ChunkId) -> bool {
    std::iter::successors(tree.parent(chunk), |&c| tree.parent(c)).any(|c| c == container)
}

/// The hex dump with a picked record's bytes in a colour of their own.
fn hex_job(bytes: &[u8], base: usize, highlight: Option<std::ops::Range<usize>>) -> egui::text::LayoutJob {
    let mut job = egui::text::LayoutJob::default();
    let plain =
        egui::TextFormat { font_id: egui::FontId::monospace(10.0), color: egui::Color32::GRAY, ..Default::default() };
    let marked = egui::TextFormat {
        color: egui::Color32::from_rgb(255, 215, 40),
        background: egui::Color32::from_rgb(70, 60, 10),
        ..plain.clone()
    };
    for (i, row) in bytes.chunks(16).enumerate() {
        let row_start = base + i * 16;
        job.append(&format!("{row_start:08X}  "), 0.0, plain.clone());
        for k in 0..16 {
            match row.get(k) {
                Some(b) => {
                    let at = row_start + k;
                    let format = if highlight.as_ref().is_some_and(|h| h.contains(&at)) {
                        marked.clone()
                    } else {
                        plain.clone()
                    };
                    job.append(&format!("{b:02X}"), 0.0, format);
                    job.append(" ", 0.0, plain.clone());
                }
                None => job.append("   ", 0.0, plain.clone()),
            }
        }
        let text: String = row.iter().map(|&b| if (0x20..0x7F).contains(&b) { b as char } else { '.' }).collect();
        job.append(&format!("{text}\n"), 0.0, plain.clone());
    }
    job
}

pub fn hex_dump(bytes: &[u8], base: usize) -> String {
    bytes
        .chunks(16)
        .enumerate()
        .map(|(i, row)| {
            let hex: Vec<String> = row.iter().map(|b| format!("{b:02X}")).collect();
            let text: String = row.iter().map(|&b| if (0x20..0x7F).contains(&b) { b as char } else { '.' }).collect();
            format!("{:08X}  {:<48} {text}", base + i * 16, hex.join(" "))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The chunk's place in the file, then its fields decoded for people (as `--info --json` shows them).
pub fn chunk_fields(document: &Document, chunk: ChunkId, bytes: &[u8]) -> Vec<(String, String)> {
    let node = document.tree.node(chunk);
    let mut out = vec![
        ("offset".to_owned(), format!("0x{:X} ({})", node.offset, node.offset)),
        ("length".to_owned(), node.length.to_string()),
    ];
    out.extend(document.chunk_fields(chunk, bytes));
    out
}
