//! Per-polygon storage columns that keep a large layer small: [`NarrowColumn`] (an index stored as
//! narrow as its values allow) and [`MostlyDefault`] (nothing stored while every value is the default).
//! Their own file, as they are general containers that know nothing of LightWave.

use std::ops::Range;

/// A per-polygon index that is usually small, such as a surface among a few: one byte a polygon while
/// every value fits in one, two while they fit in two, else four. A million-polygon layer with fewer
/// than 256 surfaces keeps 1 MB instead of 4. Values are read with [`NarrowColumn::get`].
#[derive(Clone, Debug, PartialEq)]
pub enum NarrowColumn {
    Bytes(Vec<u8>),
    Shorts(Vec<u16>),
    Words(Vec<u32>),
}

impl Default for NarrowColumn {
    fn default() -> Self {
        Self::Bytes(Vec::new())
    }
}

impl NarrowColumn {
    pub fn len(&self) -> usize {
        match self {
            Self::Bytes(v) => v.len(),
            Self::Shorts(v) => v.len(),
            Self::Words(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Value `index`; 0 past the end.
    #[inline]
    pub fn get(&self, index: usize) -> u32 {
        match self {
            Self::Bytes(v) => v.get(index).map_or(0, |&x| u32::from(x)),
            Self::Shorts(v) => v.get(index).map_or(0, |&x| u32::from(x)),
            Self::Words(v) => v.get(index).copied().unwrap_or(0),
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }

    /// `each(value, run)` for the runs of equal values within `range`, in order (0 past the end, as
    /// [`Self::get`]): a layer's surfaces come in runs of many polygons, read here without a match
    /// per polygon.
    pub fn for_each_run(&self, range: Range<usize>, mut each: impl FnMut(u32, Range<usize>)) {
        fn runs<T: Copy + PartialEq + Into<u32>>(
            values: &[T],
            range: Range<usize>,
            each: &mut impl FnMut(u32, Range<usize>),
        ) {
            let stored = values.get(range.start..range.end.min(values.len())).unwrap_or(&[]);
            let mut start = 0;
            while let Some(&value) = stored.get(start) {
                let end =
                    stored[start..].iter().position(|&x| x != value).map_or(stored.len(), |length| start + length);
                each(value.into(), range.start + start..range.start + end);
                start = end;
            }
            let past = range.start + stored.len();
            if past < range.end {
                each(0, past..range.end);
            }
        }
        match self {
            Self::Bytes(v) => runs(v, range, &mut each),
            Self::Shorts(v) => runs(v, range, &mut each),
            Self::Words(v) => runs(v, range, &mut each),
        }
    }

    /// The largest value; `None` when empty.
    pub fn max(&self) -> Option<u32> {
        match self {
            Self::Bytes(v) => v.iter().max().map(|&x| u32::from(x)),
            Self::Shorts(v) => v.iter().max().map(|&x| u32::from(x)),
            Self::Words(v) => v.iter().max().copied(),
        }
    }

    pub fn reserve(&mut self, additional: usize) {
        match self {
            Self::Bytes(v) => v.reserve(additional),
            Self::Shorts(v) => v.reserve(additional),
            Self::Words(v) => v.reserve(additional),
        }
    }

    /// Rewritten one size wider when `value` does not fit the present one.
    fn widen_for(&mut self, value: u32) {
        let wider = match self {
            Self::Bytes(v) if value > u32::from(u8::MAX) => match u16::try_from(value) {
                Ok(_) => Self::Shorts(v.iter().map(|&x| u16::from(x)).collect()),
                Err(_) => Self::Words(v.iter().map(|&x| u32::from(x)).collect()),
            },
            Self::Shorts(v) if value > u32::from(u16::MAX) => Self::Words(v.iter().map(|&x| u32::from(x)).collect()),
            _ => return,
        };
        *self = wider;
    }

    #[inline]
    pub fn push(&mut self, value: u32) {
        // The usual case, a value that fits, decided here; widening is the rare call.
        match self {
            Self::Bytes(v) if value <= u32::from(u8::MAX) => v.push(value as u8),
            Self::Shorts(v) if value <= u32::from(u16::MAX) => v.push(value as u16),
            Self::Words(v) => v.push(value),
            _ => self.widen_and_push(value),
        }
    }

    /// [`Self::push`] `count` times.
    pub fn push_many(&mut self, value: u32, count: usize) {
        if count == 0 {
            return;
        }
        self.widen_for(value);
        match self {
            Self::Bytes(v) => v.resize(v.len() + count, value as u8),
            Self::Shorts(v) => v.resize(v.len() + count, value as u16),
            Self::Words(v) => v.resize(v.len() + count, value),
        }
    }

    #[cold]
    fn widen_and_push(&mut self, value: u32) {
        self.widen_for(value);
        self.push(value);
    }

    /// [`Self::set`] of every index in `range`.
    pub fn set_many(&mut self, range: Range<usize>, value: u32) {
        if range.is_empty() {
            return;
        }
        self.widen_for(value);
        fn fill<T: Copy>(values: &mut [T], range: Range<usize>, value: T) {
            let end = range.end.min(values.len());
            if let Some(slots) = values.get_mut(range.start.min(end)..end) {
                slots.fill(value);
            }
        }
        match self {
            Self::Bytes(v) => fill(v, range, value as u8),
            Self::Shorts(v) => fill(v, range, value as u16),
            Self::Words(v) => fill(v, range, value),
        }
    }

    /// Sets value `index`, if there is one.
    pub fn set(&mut self, index: usize, value: u32) {
        // As in `push`: the fit decided here, widening the rare call.
        match self {
            Self::Bytes(v) if value <= u32::from(u8::MAX) => v.get_mut(index).map(|x| *x = value as u8),
            Self::Shorts(v) if value <= u32::from(u16::MAX) => v.get_mut(index).map(|x| *x = value as u16),
            Self::Words(v) => v.get_mut(index).map(|x| *x = value),
            _ => {
                self.widen_and_set(index, value);
                None
            }
        };
    }

    #[cold]
    fn widen_and_set(&mut self, index: usize, value: u32) {
        self.widen_for(value);
        self.set(index, value);
    }
}

/// A per-polygon value that most files leave at its default (no parts, no smoothing groups, no detail
/// polygons, no flags): nothing is stored until a polygon differs, then one value per polygon. A
/// million-polygon layer saves 4 MB per such column. Read by index like a slice.
#[derive(Clone, Debug, PartialEq)]
pub struct MostlyDefault<T> {
    /// Empty while every value is the default; else one per polygon.
    values: Vec<T>,
    default: T,
}

impl<T: Copy + PartialEq> MostlyDefault<T> {
    pub fn new(default: T) -> Self {
        Self { values: Vec::new(), default }
    }

    /// Sets polygon `index`'s value, of `len` polygons.
    pub fn set(&mut self, index: usize, len: usize, value: T) {
        if self.values.is_empty() && value == self.default {
            return;
        }
        // Polygons pushed after the column was filled have no values yet.
        if self.values.len() < len {
            self.values.resize(len, self.default);
        }
        if let Some(slot) = self.values.get_mut(index) {
            *slot = value;
        }
    }

    /// The value of every polygon, when no polygon has been given another (without reading them).
    pub fn uniform(&self) -> Option<T> {
        self.values.is_empty().then_some(self.default)
    }

    /// Whether every polygon has the default value.
    pub fn is_all_default(&self) -> bool {
        self.values.iter().all(|v| *v == self.default)
    }

    /// Appends the value of the next polygon, `len` being the count before it.
    #[inline]
    pub(super) fn push(&mut self, len: usize, value: T) {
        if !self.values.is_empty() || value != self.default {
            self.values.resize(len, self.default);
            self.values.push(value);
        }
    }

    /// [`Self::push`] of the next `count` polygons, all of `value`.
    pub(super) fn push_many(&mut self, len: usize, value: T, count: usize) {
        if !self.values.is_empty() || value != self.default {
            self.values.resize(len, self.default);
            self.values.resize(len + count, value);
        }
    }
}

impl<T> std::ops::Index<usize> for MostlyDefault<T> {
    type Output = T;

    fn index(&self, index: usize) -> &T {
        self.values.get(index).unwrap_or(&self.default)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::lwo::model::{NONE, PolygonKind, Polygons, Record};

    #[test]
    fn a_mostly_default_column_reads_as_one_value_per_polygon() {
        let mut polygons = Polygons::default();
        let push = |polygons: &mut Polygons, detail_of: u32| {
            polygons.push(PolygonKind::Face, 0, &[0, 1, 2], 0, detail_of, Record { offset: 0, index_in_chunk: 0 })
        };
        push(&mut polygons, NONE);
        push(&mut polygons, NONE);
        assert_eq!(
            (polygons.part[1], polygons.smoothing_group[1], polygons.detail_of[1], polygons.flags[1]),
            (NONE, 0, NONE, 0)
        );
        // Nothing stored while every value is the default.
        polygons.part.set(0, polygons.len(), NONE);
        assert!(polygons.part.values.is_empty() && polygons.detail_of.values.is_empty());
        // A value set, then more polygons pushed, then a value set on one of those.
        polygons.part.set(1, polygons.len(), 7);
        push(&mut polygons, 0);
        push(&mut polygons, NONE);
        polygons.part.set(3, polygons.len(), 9);
        assert_eq!((0..4).map(|p| polygons.part[p]).collect::<Vec<_>>(), [NONE, 7, NONE, 9]);
        assert_eq!((0..4).map(|p| polygons.detail_of[p]).collect::<Vec<_>>(), [NONE, NONE, 0, NONE]);
        assert_eq!((0..4).map(|p| polygons.smoothing_group[p]).collect::<Vec<_>>(), [0; 4]);
    }

    #[test]
    fn a_narrow_column_widens_only_as_far_as_its_values_need() {
        let mut column = NarrowColumn::default();
        column.push(3);
        column.push(255);
        assert!(matches!(column, NarrowColumn::Bytes(_)));
        column.set(0, 300);
        assert!(matches!(column, NarrowColumn::Shorts(_)));
        column.push(70_000);
        assert!(matches!(column, NarrowColumn::Words(_)));
        column.set(1, u32::MAX);
        assert_eq!(column.iter().collect::<Vec<_>>(), [300, u32::MAX, 70_000]);
        assert_eq!((column.len(), column.get(3)), (3, 0));
        let mut straight_to_words = NarrowColumn::default();
        straight_to_words.push(1);
        straight_to_words.push(1 << 20);
        assert_eq!(
            (matches!(straight_to_words, NarrowColumn::Words(_)), straight_to_words.get(0), straight_to_words.get(1)),
            (true, 1, 1 << 20)
        );
    }

    /// Runs read from a column are the runs of its values read one by one, in every width, for ranges
    /// that cut runs, are empty, or go past the column's end (read as 0); `push_many` is pushes and
    /// `set_many` sets, in the same width (none, for none).
    #[test]
    fn a_narrow_columns_runs_are_its_values_runs() {
        let values = [3, 3, 3, 7, 0, 0, 7, 7, 7, 7, 1];
        for widest in [255, 300, 70_000] {
            let mut column = NarrowColumn::default();
            values.iter().for_each(|&v| column.push(v));
            column.push_many(widest, 2);
            column.push_many(1 << 20, 0);
            let mut pushed = NarrowColumn::default();
            values.iter().chain(&[widest, widest]).for_each(|&v| pushed.push(v));
            assert_eq!(column, pushed, "the same values in the same width");
            // `set_many` is sets, past the end too.
            for (range, value) in [(2..5, 9), (11..16, widest), (4..4, 1 << 20), (20..22, 300)] {
                let (mut many, mut one_by_one) = (column.clone(), column.clone());
                many.set_many(range.clone(), value);
                range.for_each(|i| one_by_one.set(i, value));
                assert_eq!(many, one_by_one, "{value} set in a column up to {widest}");
            }
            for range in [0..13, 0..16, 2..8, 4..4, 5..6, 12..14, 12..15, 13..14, 14..16] {
                let mut runs = Vec::new();
                column.for_each_run(range.clone(), |value, run| runs.push((value, run)));
                let mut expected: Vec<(u32, Range<usize>)> = Vec::new();
                for i in range.clone() {
                    match expected.last_mut() {
                        Some((value, run)) if *value == column.get(i) => run.end = i + 1,
                        _ => expected.push((column.get(i), i..i + 1)),
                    }
                }
                assert_eq!(runs, expected, "{range:?} in a column up to {widest}");
            }
        }
    }
}
