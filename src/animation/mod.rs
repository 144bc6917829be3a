//! M2 animation played: tracks sampled at a time, bones posed (parents, pivots, billboards), texture
//! transforms, colours and weights evaluated. Pure functions of the model and a [`Clock`]: no Bevy, so
//! the plugin, the glTF export and the tests share one evaluation (`m2-animation.md` §2, §4–6).

mod bones;
mod sample;
mod surface;

pub use bones::{BoneLocal, CameraInModel, joint_local, joint_offset, parents_first, pose};
pub use sample::{Interpolate, sample_keys};
pub use surface::{UnitAppearance, unit_appearance, uv_matrix};

/// Where an animation is: which sequence, how far into it, and the global clock that global-sequence
/// tracks loop on whatever the sequence.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Clock {
    /// The sequence's index in the model (an alias already followed).
    pub sequence: usize,
    /// Milliseconds into the sequence.
    pub time_ms: f64,
    /// Milliseconds on the global clock.
    pub global_ms: f64,
}

impl Clock {
    /// The clock `seconds` after `sequence` started, looping it; the global clock counts the same seconds.
    pub fn looping(animation: &crate::formats::m2::Animation, sequence: usize, seconds: f64) -> Self {
        let ms = (seconds * 1000.0).max(0.0);
        let duration = animation.sequences.get(sequence).map_or(0, |s| s.duration_ms);
        let time_ms = if duration == 0 { 0.0 } else { ms % f64::from(duration) };
        Self { sequence, time_ms, global_ms: ms }
    }
}

/// The sequence a user names: an AnimationData id (`4`), an id and variation (`4.1`), or a name
/// (`Walk`, any case); the main variation unless one is given. `Err` lists what the model has.
pub fn find_sequence(animation: &crate::formats::m2::Animation, spec: &str) -> Result<usize, String> {
    use crate::formats::m2::animation_name;
    let spec = spec.trim();
    let (id_part, variation) = match spec.split_once('.') {
        Some((id, v)) => (id, v.parse::<u16>().ok()),
        None => (spec, None),
    };
    let id = id_part.parse::<u16>().ok().or_else(|| {
        animation
            .sequences
            .iter()
            .map(|s| s.id)
            .find(|&id| animation_name(id).is_some_and(|n| n.eq_ignore_ascii_case(id_part)))
    });
    let variation = variation.unwrap_or(0);
    let found = id.and_then(|id| animation.sequences.iter().position(|s| s.id == id && s.variation == variation));
    found.ok_or_else(|| {
        let have: Vec<String> = animation
            .sequences
            .iter()
            .map(|s| match animation_name(s.id) {
                Some(name) => format!("{} {name}.{}", s.id, s.variation),
                None => format!("{}.{}", s.id, s.variation),
            })
            .collect();
        format!(
            "no sequence {spec:?}; the model has: {}",
            if have.is_empty() { "none".into() } else { have.join(", ") }
        )
    })
}

#[cfg(test)]
mod tests {
    use crate::formats::m2::{Animation, Sequence};

    fn sequence(id: u16, variation: u16) -> Sequence {
        Sequence {
            id,
            variation,
            duration_ms: 1000,
            start_ms: 0,
            move_speed: 0.0,
            flags: 0x20,
            frequency: 0,
            replay_ms: [0; 2],
            blend_time_ms: 0,
            bounds: [[0.0; 3]; 2],
            bounds_radius: 0.0,
            variation_next: -1,
            alias_next: 0,
            in_anim_file: false,
        }
    }

    #[test]
    fn sequences_are_found_by_id_variation_or_name() {
        let animation =
            Animation { sequences: vec![sequence(0, 0), sequence(4, 0), sequence(4, 1)], ..Default::default() };
        assert_eq!(super::find_sequence(&animation, "4"), Ok(1));
        assert_eq!(super::find_sequence(&animation, "4.1"), Ok(2));
        assert_eq!(super::find_sequence(&animation, "walk"), Ok(1));
        assert_eq!(super::find_sequence(&animation, "Stand"), Ok(0));
        let error = super::find_sequence(&animation, "Run").unwrap_err();
        assert!(error.contains("0 Stand.0, 4 Walk.0, 4 Walk.1"), "{error}");
    }
}
