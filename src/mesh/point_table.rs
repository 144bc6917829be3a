//! A table by point of a layer that one thread fills for one polygon range at a time.

/// Points per page: 4 KB of four-byte entries, 8 KB of eight-byte ones (a point's last vertex).
const PAGE: usize = 1024;

/// Up to this many points, a table is one flat page (256 KB of four-byte entries, 512 KB of eight-byte ones).
const FLAT_POINTS: usize = 1 << 16;

/// Values by point, for the points one range touches. A page of `PAGE` points is made when the
/// range first touches one of them, so a thread's table costs the pages of its range's points, not an
/// entry for every point of the layer: a range of a grid touches a band of rows and the points added
/// at the end of the layer, a few hundred KB, where a full table cost 4 MB a million points on every
/// thread. Entries never set read as `T::default()`; [`Self::clear`] sets the touched pages back.
pub struct PagedPointTable<T> {
    point_count: usize,
    /// A layer of at most [`FLAT_POINTS`] points has one plain table instead (empty otherwise): its
    /// pages would cost more in look-ups than they save.
    flat: Vec<T>,
    /// Per page of points: 1 + the slot in `pages` holding it, or 0 while no point of it is set.
    slot_of_page: Vec<u32>,
    /// Page storage, kept from range to range; the first `used` slots hold touched pages. Arrays of a
    /// known length, so that an entry is reached without a bounds check.
    pages: Vec<Box<[T; PAGE]>>,
    used: usize,
    /// The numbers of the touched pages, in the order they were touched.
    touched: Vec<u32>,
}

impl<T: Copy + Default> PagedPointTable<T> {
    pub fn new(point_count: usize) -> Self {
        if point_count <= FLAT_POINTS {
            return Self {
                point_count,
                flat: vec![T::default(); point_count],
                slot_of_page: Vec::new(),
                pages: Vec::new(),
                used: 0,
                touched: Vec::new(),
            };
        }
        Self {
            point_count,
            flat: Vec::new(),
            slot_of_page: vec![0; point_count.div_ceil(PAGE)],
            pages: Vec::new(),
            used: 0,
            touched: Vec::new(),
        }
    }

    /// Point `point`'s entry; the default when it was never set or is past the layer's points.
    #[inline]
    pub fn get(&self, point: u32) -> T {
        let point = point as usize;
        if !self.flat.is_empty() {
            return self.flat.get(point).copied().unwrap_or_default();
        }
        match self.slot_of_page.get(point / PAGE) {
            Some(&slot) if slot != 0 => self.pages[slot as usize - 1][point % PAGE],
            _ => T::default(),
        }
    }

    /// Point `point`'s entry to set, its page made if it has none; `None` past the layer's points.
    #[inline]
    pub fn get_mut(&mut self, point: u32) -> Option<&mut T> {
        let point = point as usize;
        if !self.flat.is_empty() {
            return self.flat.get_mut(point);
        }
        if point >= self.point_count {
            return None;
        }
        let page = point / PAGE;
        let slot = match self.slot_of_page[page] {
            0 => self.make_page(page),
            slot => slot as usize - 1,
        };
        self.pages.get_mut(slot).map(|page| &mut page[point % PAGE])
    }

    #[cold]
    fn make_page(&mut self, page: usize) -> usize {
        let slot = self.used;
        if slot == self.pages.len() {
            self.pages.push(Box::new([T::default(); PAGE]));
        }
        self.used += 1;
        self.slot_of_page[page] = slot as u32 + 1;
        self.touched.push(page as u32);
        slot
    }

    /// Every entry back to the default; the pages stay, for the next range.
    pub fn clear(&mut self) {
        self.flat.fill(T::default());
        for &page in &self.touched {
            self.slot_of_page[page as usize] = 0;
        }
        for page in &mut self.pages[..self.used] {
            page.fill(T::default());
        }
        self.touched.clear();
        self.used = 0;
    }

    /// How many pages the table holds (for tests of its memory).
    pub fn page_count(&self) -> usize {
        self.pages.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_layers_table_is_flat_and_reads_the_same() {
        let mut table = PagedPointTable::<u32>::new(100);
        *table.get_mut(99).unwrap() = 5;
        assert_eq!(table.get_mut(100), None, "past the layer's points");
        assert_eq!((table.get(99), table.get(0), table.get(100), table.page_count()), (5, 0, 0, 0));
        table.clear();
        assert_eq!(table.get(99), 0);
    }

    #[test]
    fn a_paged_table_reads_what_was_set_and_forgets_it_on_clear() {
        let mut table = PagedPointTable::<u32>::new(FLAT_POINTS + 10 * PAGE + 5);
        let end = (FLAT_POINTS + 10 * PAGE + 4) as u32;
        for point in [0u32, 1, 1023, 1024, end] {
            *table.get_mut(point).unwrap() = point + 7;
        }
        assert_eq!(table.get_mut(end + 1), None, "past the layer's points");
        assert_eq!([0, 1, 2, 1023, 1024, 5000, end].map(|p| table.get(p)), [7, 8, 0, 1030, 1031, 0, end + 7]);
        assert_eq!(table.page_count(), 3, "only the pages touched are made");
        table.clear();
        assert_eq!([0, 1024, end].map(|p| table.get(p)), [0; 3]);
        // The next range reuses the pages, whichever points it touches.
        *table.get_mut(7000).unwrap() = 1;
        assert_eq!((table.get(7000), table.get(7001), table.get(0), table.page_count()), (1, 0, 0, 3));
    }
}
