//! The `MD21` container of Legion and later (and of Cataclysm models ported back): little-endian chunks
//! whose ids are stored in reading order (unlike WMO's). `MD21` holds the MD20 model, whose offsets count
//! from the start of that chunk's data; the other chunks name the files the model uses by FileDataID.

use std::ops::Range;

use crate::formats::chunk::ChunkTree;
use crate::formats::error::{ErrorKind, ParseError, Result, Warning};
use crate::formats::fourcc::FourCc;

/// An `.anim` file of a sequence (AFID): the sequence's AnimationData id and variation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct AnimFileId {
    pub animation: u16,
    pub variation: u16,
    pub file: u32,
}

/// The files an MD21 model names by FileDataID (0 where a slot names none).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct FileIds {
    /// SFID: the views' `.skin` files first, then the level-of-detail ones.
    pub skins: Vec<u32>,
    /// TXID: one per texture, for textures whose name is empty.
    pub textures: Vec<u32>,
    /// AFID.
    pub anims: Vec<AnimFileId>,
    /// BFID: `.bone` files.
    pub bones: Vec<u32>,
    /// SKID: the `.skel` file holding the skeleton.
    pub skeleton: Option<u32>,
    /// PFID: the `.phys` file.
    pub physics: Option<u32>,
}

/// The chunks of an MD21 file: the tree (every chunk, known or not), where the MD20 data lies, and the
/// FileDataIDs.
pub struct Chunks {
    pub tree: ChunkTree,
    pub md20: Range<usize>,
    pub file_ids: FileIds,
    pub warnings: Vec<Warning>,
}

pub fn read(file: &[u8]) -> Result<Chunks> {
    let (tree, error) = crate::formats::chunk::read_in_order_chunks_partial(file);
    let mut warnings = Vec::new();
    let md21 = tree.root_chunks().find(|c| c.node().id == FourCc::new(b"MD21")).map(|c| c.node().data_range());
    let Some(md20) = md21 else {
        return Err(error.unwrap_or_else(|| ParseError::new(0, ErrorKind::MissingChunk(FourCc::new(b"MD21")))));
    };
    if let Some(error) = error {
        // The model is read; a damaged chunk after it loses only what it names.
        warnings.push(Warning::new(
            error.path.clone(),
            error.offset,
            format!("{}; the chunks from here on are skipped", error.kind),
        ));
    }
    let mut file_ids = FileIds::default();
    for chunk in tree.root_chunks() {
        let node = chunk.node();
        let data = node.data(file);
        let words = || data.chunks_exact(4).map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]));
        match &node.id.0 {
            b"SFID" => file_ids.skins = words().collect(),
            b"TXID" => file_ids.textures = words().collect(),
            b"BFID" => file_ids.bones = words().collect(),
            b"SKID" => file_ids.skeleton = words().next(),
            b"PFID" => file_ids.physics = words().next(),
            b"AFID" => {
                file_ids.anims = data
                    .chunks_exact(8)
                    .map(|e| AnimFileId {
                        animation: u16::from_le_bytes([e[0], e[1]]),
                        variation: u16::from_le_bytes([e[2], e[3]]),
                        file: u32::from_le_bytes([e[4], e[5], e[6], e[7]]),
                    })
                    .collect();
            }
            _ => continue,
        }
        let entry = if &node.id.0 == b"AFID" { 8 } else { 4 };
        if data.len() % entry != 0 {
            warnings.push(Warning::new(
                node.id.to_string(),
                node.offset,
                format!("{} bytes are not a whole number of {entry}-byte entries; the rest is left out", data.len()),
            ));
        }
    }
    Ok(Chunks { tree, md20, file_ids, warnings })
}

/// What the panel and `--info --json` show for an MD21 file's chunk `kind`, whose data is `data`:
/// the FileDataIDs the model keeps, and for the chunks nothing draws, what their data holds (read as
/// far as it goes).
pub fn chunk_fields(model: &super::M2Model, kind: &str, data: &[u8], out: &mut Vec<(String, String)>) {
    let list = |ids: &[u32]| ids.iter().map(u32::to_string).collect::<Vec<_>>().join(", ");
    let ids = &model.file_ids;
    let u16s = || data.chunks_exact(2).map(|w| u16::from_le_bytes([w[0], w[1]]));
    let u32_at = |at: usize| data.get(at..at + 4).map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]));
    let f32_at = |at: usize| u32_at(at).map(f32::from_bits);
    let mut field = |name: &str, value: String| out.push((name.to_owned(), value));
    match kind {
        "MD21" => {
            field("MD20 version", model.version.to_string());
            field("offsets count from byte", model.data_offset.to_string());
        }
        "SFID" => field("skin FileDataIDs", list(&ids.skins)),
        "TXID" => field("texture FileDataIDs", list(&ids.textures)),
        "BFID" => field("bone FileDataIDs", list(&ids.bones)),
        "SKID" => field("skeleton FileDataID", list(ids.skeleton.as_slice())),
        "PFID" => field("physics FileDataID", list(ids.physics.as_slice())),
        "AFID" => {
            let anims = ids.anims.iter().map(|a| format!("{}.{} → {}", a.animation, a.variation, a.file));
            field("anim FileDataIDs (id.variation → file)", anims.collect::<Vec<_>>().join(", "));
        }
        "RPID" | "GPID" => {
            let words: Vec<u32> = (0..data.len() / 4).filter_map(|i| u32_at(4 * i)).collect();
            field("particle model FileDataIDs", list(&words));
        }
        "LDV1" => {
            if let Some(lods) = data.get(2..4) {
                field("level-of-detail count", u16::from_le_bytes([lods[0], lods[1]]).to_string());
            }
            if let Some(bones) = data.get(8..12) {
                field("particle bone LOD", format!("{bones:?}"));
            }
        }
        // Two bytes per material, then per particle emitter.
        "TXAC" => field("entries (materials, then emitters)", (data.len() / 2).to_string()),
        "EXPT" => field("extended particle records (12 bytes)", (data.len() / 12).to_string()),
        // An array of the chunk's own, its offset counted from the chunk's data.
        "EXP2" | "PADC" | "PSBC" | "PEDC" | "PGD1" => {
            if let Some(count) = u32_at(0) {
                field("entries", count.to_string());
            }
        }
        "PABC" => {
            let ids: Vec<String> = u16s().map(|v| v.to_string()).collect();
            field("parent sequence ids", ids.join(", "));
        }
        "WFV1" | "WFV2" | "WFV3" => {
            if let Some(bump) = f32_at(0) {
                field("bump scale", format!("{bump}"));
            }
        }
        "EDGF" => field("edge fade records (32 bytes)", (data.len() / 32).to_string()),
        _ => {}
    }
}
