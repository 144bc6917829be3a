//! A track's value at a time: the last key at or before it, held (step) or interpolated toward the next
//! (linear; slerp for rotations); the first key before the first time, the last after the last.

use crate::formats::m2::track::{Keys, STEP, SplineKey, Track};

use super::Clock;

/// Values a track can blend between two keys.
pub trait Interpolate: Copy {
    /// The value a fraction `f` (0..1) of the way from `a` to `b`.
    fn interpolate(a: Self, b: Self, f: f32) -> Self;
}

impl Interpolate for f32 {
    fn interpolate(a: Self, b: Self, f: f32) -> Self {
        a + (b - a) * f
    }
}

impl Interpolate for [f32; 3] {
    fn interpolate(a: Self, b: Self, f: f32) -> Self {
        std::array::from_fn(|k| a[k] + (b[k] - a[k]) * f)
    }
}

/// Rotations (x, y, z, w): spherical interpolation along the shorter arc.
impl Interpolate for [f32; 4] {
    fn interpolate(a: Self, b: Self, f: f32) -> Self {
        glam::Quat::from_array(a).slerp(glam::Quat::from_array(b), f).to_array()
    }
}

/// Flags (attachment and light visibility) switch; they never blend.
impl Interpolate for u8 {
    fn interpolate(a: Self, _: Self, _: f32) -> Self {
        a
    }
}

impl Interpolate for () {
    fn interpolate(_: Self, _: Self, _: f32) -> Self {}
}

/// Camera splines: the values blended linearly (cameras are read and shown, not flown).
impl<T: Interpolate> Interpolate for SplineKey<T> {
    fn interpolate(a: Self, b: Self, f: f32) -> Self {
        SplineKey {
            value: T::interpolate(a.value, b.value, f),
            in_tangent: T::interpolate(a.in_tangent, b.in_tangent, f),
            out_tangent: T::interpolate(a.out_tangent, b.out_tangent, f),
        }
    }
}

/// The value of `keys` at `time_ms`; `None` when there are no keys.
pub fn sample_keys<T: Interpolate>(keys: &Keys<T>, interpolation: u16, time_ms: f64) -> Option<T> {
    let n = keys.times.len().min(keys.values.len());
    let times = &keys.times[..n];
    // How many keys lie at or before the time: the one in force is the last of them.
    let after = times.partition_point(|&k| f64::from(k) <= time_ms);
    if after == 0 {
        return keys.values.first().copied();
    }
    let (i, value) = (after - 1, keys.values[after - 1]);
    if after == n || interpolation == STEP {
        return Some(value);
    }
    let (t0, t1) = (f64::from(times[i]), f64::from(times[after]));
    if t1 <= t0 {
        return Some(value);
    }
    Some(T::interpolate(value, keys.values[after], ((time_ms - t0) / (t1 - t0)) as f32))
}

impl<T: Interpolate> Track<T> {
    /// The track's value at `clock`: a global-sequence track on its own loop of the global clock (a loop
    /// of length 0 stays at time 0), any other at the sequence's time. `None` when it has no keys then,
    /// so the caller's default applies.
    pub fn sample(&self, clock: &Clock, global_loops: &[u32]) -> Option<T> {
        let time_ms = match self.global_sequence {
            Some(g) => match global_loops.get(usize::from(g)).copied().unwrap_or(0) {
                0 => 0.0,
                length => clock.global_ms.rem_euclid(f64::from(length)),
            },
            None => clock.time_ms,
        };
        sample_keys(self.keys(clock.sequence)?, self.interpolation, time_ms)
    }

    /// [`Track::sample`], or `default` where the track has no keys.
    pub fn sample_or(&self, clock: &Clock, global_loops: &[u32], default: T) -> T {
        self.sample(clock, global_loops).unwrap_or(default)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::m2::track::{LINEAR, SequenceKeys};

    fn keys(times: &[u32], values: &[f32]) -> Keys<f32> {
        Keys { times: times.to_vec(), values: values.to_vec() }
    }

    #[test]
    fn linear_keys_blend_and_clamp_at_both_ends() {
        let k = keys(&[100, 300], &[1.0, 3.0]);
        assert_eq!(sample_keys(&k, LINEAR, 0.0), Some(1.0));
        assert_eq!(sample_keys(&k, LINEAR, 100.0), Some(1.0));
        assert_eq!(sample_keys(&k, LINEAR, 150.0), Some(1.5));
        assert_eq!(sample_keys(&k, LINEAR, 300.0), Some(3.0));
        assert_eq!(sample_keys(&k, LINEAR, 1000.0), Some(3.0));
        assert_eq!(sample_keys(&keys(&[], &[]), LINEAR, 5.0), None);
    }

    #[test]
    fn step_keys_hold_until_the_next() {
        let k = keys(&[0, 100, 200], &[1.0, 2.0, 3.0]);
        assert_eq!(sample_keys(&k, STEP, 99.9), Some(1.0));
        assert_eq!(sample_keys(&k, STEP, 100.0), Some(2.0));
        assert_eq!(sample_keys(&k, STEP, 250.0), Some(3.0));
    }

    #[test]
    fn rotations_slerp_along_the_short_arc() {
        let half = std::f32::consts::FRAC_PI_2;
        let a = glam::Quat::IDENTITY.to_array();
        let b = glam::Quat::from_rotation_z(half).to_array();
        let k = Keys { times: vec![0, 1000], values: vec![a, b] };
        let mid = glam::Quat::from_array(sample_keys(&k, LINEAR, 500.0).unwrap());
        assert!(mid.angle_between(glam::Quat::from_rotation_z(half / 2.0)) < 1e-5);
    }

    #[test]
    fn global_sequence_tracks_loop_on_their_own_clock() {
        let track = Track {
            interpolation: LINEAR,
            global_sequence: Some(1),
            sequences: vec![SequenceKeys::Read(keys(&[0, 1000], &[0.0, 10.0]))],
        };
        let loops = [5000, 1000];
        // Sequence 3 and its time do not matter; 2.25 s on the global clock is 250 ms into the 1 s loop.
        let clock = Clock { sequence: 3, time_ms: 40.0, global_ms: 2250.0 };
        assert_eq!(track.sample(&clock, &loops), Some(2.5));
        // A loop of length 0 holds time 0.
        assert_eq!(track.sample(&clock, &[5000, 0]), Some(0.0));
    }

    #[test]
    fn a_sequence_without_keys_takes_the_default() {
        let track = Track::constant_keys(LINEAR, 1, keys(&[0], &[7.0]));
        let clock = |sequence| Clock { sequence, time_ms: 0.0, global_ms: 0.0 };
        assert_eq!(track.sample_or(&clock(0), &[], 1.0), 7.0);
        assert_eq!(track.sample_or(&clock(1), &[], 1.0), 1.0);
    }
}
