//! Names of the M2 material states, for the panel and `--info`.

use crate::formats::m2::Material;

/// The M2 blending modes by their client names (`m2.md` §4).
pub fn blend_name(mode: u16) -> &'static str {
    match mode {
        0 => "Opaque",
        1 => "AlphaKey",
        2 => "Alpha",
        3 => "NoAlphaAdd",
        4 => "Add",
        5 => "Mod",
        6 => "Mod2x",
        7 => "BlendAdd",
        _ => "unknown (drawn as Alpha)",
    }
}

/// The names of the set render flags.
pub fn flag_names(flags: u16) -> Vec<&'static str> {
    [(Material::UNLIT, "unlit"), (Material::UNFOGGED, "unfogged"), (Material::TWO_SIDED, "two-sided"), (Material::NO_DEPTH_TEST, "no depth test"), (Material::NO_DEPTH_WRITE, "no depth write")]
        .into_iter()
        .filter(|(bit, _)| flags & bit != 0)
        .map(|(_, name)| name)
        .collect()
}

