//! How the process allocates large buffers. Loading a large file makes many blocks of megabytes: a
//! LightWave layer's meshes and the pieces its threads build, the parsed model's tables as they grow.
//! glibc serves a block by mmap only above a threshold that it raises to the largest block freed so
//! far; below it, blocks come from the heap, or from a per-thread arena for a worker thread, where a
//! freed one stays resident (after its thread has ended, too) and a grown one is copied. Fixed at
//! 128 KiB, glibc's own starting value, every such block is mapped: a freed one goes back to the system
//! at once, a growing one is remapped instead of copied, and its pages come zeroed from the kernel.
//! Measured on the 63 MB LightWave benchmark file: fixing it at 1 MiB took the peak resident set of
//! parse + the parallel mesh build from 338 to 272 MB; at 128 KiB, the blocks under 1 MiB that the
//! range threads free (8 MB, left resident in their arenas) go back too, and the peak of one load fell
//! from 156 to 152 MB, of three in one process from 165 to 153 MB. The setting is process-wide, so it
//! is made once, before such work. Large blocks are also offered transparent huge pages: all from
//! 16 MiB by the binaries' allocator ([`HugePageHints`]), smaller ones where the code knows they will be
//! written in full ([`offer_huge_pages`]).

/// Free memory glibc keeps at the top of a heap ([`map_large_blocks`]): more than a WMO group's blocks.
/// A worker thread builds groups one after another, and each group's temporary blocks (its batches'
/// vertex lists, its fixed colours; in the benchmark, which drops them, its file, parse and meshes
/// too: about 1.5 MB for a group of 14 k vertices) are freed before the next. Kept at the top, they
/// serve the next group; handed back, they are faulted in again. The benchmark's 300-group zone, a
/// child of five loads: with glibc's adaptive default 1.0 k page faults a load; with 1 MiB kept (what
/// a LightWave build set, process-wide) 25–33 k and 80–100 ms; once `mesh::wmo` gathered each batch's
/// columns to their size, 83 k a load with the default and 170 k (162–177 ms) with 1 MiB; with 4 MiB,
/// a few after the first load, and 48–57 ms. The 63 MB LightWave file's peak stays at 155 MB.
pub(crate) const KEPT_AT_HEAP_TOP: usize = 4 << 20;

/// Keeps blocks of 128 KiB and more mapped for the rest of the process, and up to
/// [`KEPT_AT_HEAP_TOP`] of free memory at the top of each heap (the main one and each thread's arena)
/// resident between loads (glibc on Linux; elsewhere nothing). glibc maps a block of that size only
/// where its free lists and the heap's top cannot serve it, so blocks up to a few MiB often come from
/// a kept top. The LightWave and WMO builders call it: the settings are process-wide, and a viewer that
/// has loaded one kind goes on to load the other with them.
///
/// The second because of the first: with the mmap threshold fixed, glibc's trim threshold stays at
/// 128 KiB, and a file whose load makes a few hundred KB of smaller blocks handed them back to the
/// system at its end and faulted them in again at the next load. CrazyEngine.lxo (60 KB) took 2.7–7.2
/// page faults and two `brk` calls a load, and 214–222 µs; with the top kept, no fault and 177–186 µs
/// (1001 loads, six alternations). The peak of the 63 MB benchmark file stays at 155–156 MB: what is
/// kept was in use just before. What stays resident after a load can be up to that much more per
/// heap; past that, glibc trims a heap's top back to its 128 KiB pad.
pub(crate) fn map_large_blocks() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        malloc_tuning::fix_mmap_threshold(128 << 10);
        malloc_tuning::fix_trim_threshold(KEPT_AT_HEAP_TOP);
    });
}

/// Offers huge pages to the room for `block`'s first `len` elements (at most its capacity), elements
/// about to be written (see [`HugePageHints`]): they then take one page fault per 2 MiB instead of one
/// per 4 KiB, and no more memory once all `len` are written. Less than one huge page is left as it is.
pub(crate) fn offer_huge_pages<T>(block: &Vec<T>, len: usize) {
    let bytes = len.min(block.capacity()) * std::mem::size_of::<T>();
    if bytes >= 2 << 20 {
        malloc_tuning::offer_huge_pages(block.as_ptr().cast(), bytes);
    }
}

/// Has the kernel put in place, in one call, the pages of `block`'s room from its end up to element
/// `upto` (at most its capacity), elements about to be written there (see
/// `malloc_tuning::populate_for_writing`), where each page would otherwise take a fault as it is first
/// written: 2.85 µs a page on this project's VM, 1.8 µs populated. Below 256 KiB a system call is not
/// worth it. Measured on the 63 MB LightWave benchmark file, one cold load a child: with a layer's
/// vertex columns populated as each range is appended, 28.8 k → 19.9 k page faults; with a vertex
/// map's values too, 17.7 k. Twenty alternations: a median 327.5 → 313 ms (the faults' share; this
/// host's load moves single runs by more), the peak unchanged at 154–156 MB. Later (session 36), with
/// each range's and the layer's index and triangle-record columns and the shared normals' tables
/// populated too: 16.6 k → 8.6 k page faults in a child of one load (of which the process's own start
/// is about 1.25 k; five children of each build), the peak the same.
pub(crate) fn populate_room<T>(block: &mut Vec<T>, upto: usize) {
    let elements = upto.saturating_sub(block.len());
    let room = block.spare_capacity_mut();
    let about_to_be_written = elements.min(room.len());
    populate_elements(&mut room[..about_to_be_written]);
}

/// As [`populate_room`], for elements about to be written (a file's bytes, read into them; the shared
/// normals' tables, which every point a polygon uses fills).
pub(crate) fn populate_elements<T>(elements: &mut [T]) {
    let bytes = std::mem::size_of_val(elements);
    if bytes >= 256 << 10 {
        malloc_tuning::populate_for_writing(elements.as_ptr().cast(), bytes);
    }
}

/// The allocator the viewer, its benchmark and its tests run on: the system's, with blocks of 16 MiB and
/// more offered transparent huge pages. Where the kernel's policy is "madvise" (Debian's, Ubuntu's),
/// a block otherwise takes a page fault per 4 KiB as it is first written. Measured on this project's
/// 2-core virtual machine with the 63 MB LightWave benchmark file, one cold load each, alternated:
/// 69.7 k page faults and a median 0.20 s of system time besides 0.35 s of user time without the
/// hint, 45.1 k and 0.16 s with it; the load's median went from 401 to 368 ms over fifteen (in a
/// quieter hour, 328 to 284 over nine), at a peak resident set of 152–154 MB against 152. Hinting
/// from 8 MiB took the faults to 31 k but the peak to 155–159 MB, from 4 MiB to 26 k and 157–163 MB:
/// a block's last huge page is resident in full once touched, up to 2 MiB more in each block reserved
/// for more than it gets (the meshes, grown by doubling). So smaller blocks are offered huge pages
/// only where the code knows they will be written ([`offer_huge_pages`]: the points, the normal
/// tables, a layer's index columns), which took the faults to 30.4 k at the same peak. A
/// library user chooses its own allocator; this is one line in a binary:
///
/// ```ignore
/// #[global_allocator]
/// static ALLOCATOR: lwo_wmo_viewer::memory::HugePageHints = lwo_wmo_viewer::memory::HugePageHints;
/// ```
pub use malloc_tuning::HugePageHints;

#[cfg(all(test, target_os = "linux", target_env = "gnu"))]
mod tests {
    /// Minor page faults this thread has taken: field 10 of `/proc/thread-self/stat` (after the
    /// command name, which is in parentheses and may hold spaces).
    fn thread_minor_faults() -> u64 {
        let stat = std::fs::read_to_string("/proc/thread-self/stat").expect("procfs");
        let after_name = &stat[stat.rfind(')').expect("a command name") + 2..];
        after_name.split(' ').nth(7).and_then(|field| field.parse().ok()).expect("a fault count")
    }

    /// A small file is read and built on the calling thread, so the faults it takes are this thread's.
    fn load(path: &str) {
        let bytes = std::fs::read(path).expect("the assimp corpus (apt-get install assimp-testmodels)");
        let document = crate::formats::parse_document(&bytes).expect("a corpus object");
        drop(bytes);
        let meshes = crate::mesh::StandaloneMeshes::build(&document.model, crate::mesh::lwo::BuildOptions::default());
        assert!(meshes.rendered_triangles() > 0);
    }

    #[test]
    #[cfg_attr(miri, ignore = "reads /proc and counts the kernel's page faults")]
    fn a_mid_sized_files_next_load_takes_no_page_fault() {
        // Its load makes and frees a few hundred KB of small blocks: with glibc's trim threshold left
        // at 128 KiB (see `map_large_blocks`) each load gave them back and faulted them in again.
        // An allocator put in glibc's place (a preload, a sanitizer's) has no such tunable.
        if !malloc_tuning::fix_trim_threshold(super::KEPT_AT_HEAP_TOP) {
            eprintln!("glibc's trim threshold cannot be set here: nothing to test");
            return;
        }
        let path = "/usr/share/assimp/models/LWO/LXOB_Modo/CrazyEngine.lxo";
        load(path);
        // The least of a few loads: another test's thread may share this one's heap for a while.
        let least = (0..5)
            .map(|_| {
                let before = thread_minor_faults();
                load(path);
                thread_minor_faults() - before
            })
            .min();
        assert_eq!(least, Some(0), "page faults in a load of CrazyEngine.lxo after the first");
    }
}
