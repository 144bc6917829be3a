//! Image clips (CLIP) and animation envelopes (ENVL): the object's shared resources that surfaces
//! name by index. Their own file, as neither is part of a layer or a surface.

use crate::formats::fourcc::FourCc;

#[derive(Clone, Debug, PartialEq)]
pub struct Clip {
    pub index: u32,
    pub source: ClipSource,
    /// TIME: start, duration, frame rate.
    pub time: Option<[f32; 3]>,
    /// CONT, BRIT, SATR, HUE: adjustments (0 = none).
    pub contrast: f32,
    pub brightness: f32,
    pub saturation: f32,
    pub hue: f32,
    /// GAMM (1 = none).
    pub gamma: f32,
    pub negative: bool,
    /// IFLT and PFLT plug-in server names.
    pub filters: Vec<String>,
    /// CLRS / CLRA colour spaces of RGB and alpha, with their file names.
    pub color_space: Option<(u16, String)>,
    pub alpha_color_space: Option<(u16, String)>,
    /// FILT and DITH indices.
    pub filtering: Option<u16>,
    pub dithering: Option<u16>,
}

impl Clip {
    pub fn new(index: u32, source: ClipSource) -> Self {
        Self {
            index,
            source,
            time: None,
            contrast: 0.0,
            brightness: 0.0,
            saturation: 0.0,
            hue: 0.0,
            gamma: 1.0,
            negative: false,
            filters: Vec::new(),
            color_space: None,
            alpha_color_space: None,
            filtering: None,
            dithering: None,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum ClipSource {
    Still(String),
    Sequence { prefix: String, suffix: String, digits: u8, flags: u8, offset: i16, start: i16, end: i16 },
    Reference { index: u32, name: String },
    ColorCycle { low: i16, high: i16, name: String },
    Animation { name: String, server: String },
    Unknown(FourCc),
}

impl ClipSource {
    /// The image file to show for this clip: the still, or the first frame of a sequence.
    pub fn file_name(&self) -> Option<String> {
        match self {
            Self::Still(name) | Self::ColorCycle { name, .. } | Self::Animation { name, .. } => Some(name.clone()),
            Self::Sequence { prefix, suffix, digits, offset, start, .. } => {
                let frame = i32::from(*start) + i32::from(*offset);
                Some(format!("{prefix}{frame:0width$}{suffix}", width = usize::from(*digits)))
            }
            Self::Reference { .. } | Self::Unknown(_) => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Envelope {
    pub index: u32,
    pub kind: u16,
    pub pre_behavior: u16,
    pub post_behavior: u16,
    pub keys: Vec<EnvelopeKey>,
    pub name: Option<String>,
    /// CHAN channel-modifier plug-ins: server name and flags (bit 0: disabled).
    pub modifiers: Vec<(String, u16)>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct EnvelopeKey {
    pub time: f32,
    pub value: f32,
    /// The SPAN shape of the interval ending at this key (`TCB `, `LINE`, …) and its parameters.
    pub span: Option<(FourCc, Vec<f32>)>,
}
