//! glibc's mmap and trim thresholds, fixed, huge pages offered for large blocks, pages populated ahead
//! of writes, and zeroed memory taken as bytes without a pass over it. The viewer's crate forbids
//! `unsafe`; these are the foreign calls and the one assumption it needs, kept here so that the
//! guarantee holds for every line of the parsers.
//!
//! Why the threshold: glibc serves a block by mmap only above a threshold it raises to the largest
//! block freed so far, and past that serves large blocks from the heap, where a freed one stays
//! resident and a grown one is copied. A large LightWave object's meshes are such blocks; the viewer's
//! `src/memory.rs` says when the viewer fixes the threshold, and what it measured.

/// Serves allocations of at least `bytes` by mmap from now on, for the whole process, and stops glibc
/// from moving the threshold. Returns whether it was set (only glibc on Linux has the tunable).
pub fn fix_mmap_threshold(bytes: usize) -> bool {
    set_tunable(Tunable::MmapThreshold, bytes)
}

/// Keeps up to `bytes` of free memory at the top of each heap (the main one and every thread's arena)
/// from now on, for the whole process, instead of handing it back to the system at each free (past
/// `bytes`, glibc trims the top back to its pad, 128 KiB). Returns whether it was set (only glibc on
/// Linux has the tunable).
///
/// Why: glibc hands back a heap's free top once it passes this threshold, 128 KiB unless set. Left to
/// itself glibc raises it with the mmap threshold (to twice that); once [`fix_mmap_threshold`] has
/// fixed that one, it stays at 128 KiB, and a load that makes and frees a few hundred KB of small
/// blocks gives them back at its end and takes them again, page fault by page fault, at the next.
pub fn fix_trim_threshold(bytes: usize) -> bool {
    set_tunable(Tunable::TrimThreshold, bytes)
}

/// The allocator's tunables this crate sets.
#[derive(Clone, Copy)]
enum Tunable {
    MmapThreshold,
    TrimThreshold,
}

/// `mallopt` of `tunable` to `bytes`, where glibc has it.
fn set_tunable(tunable: Tunable, bytes: usize) -> bool {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let Ok(bytes) = libc::c_int::try_from(bytes) else { return false };
        let parameter = match tunable {
            Tunable::MmapThreshold => libc::M_MMAP_THRESHOLD,
            Tunable::TrimThreshold => libc::M_TRIM_THRESHOLD,
        };
        // SAFETY: `mallopt` only changes a tunable of the allocator; glibc allows it at any time, from
        // any thread.
        unsafe { libc::mallopt(parameter, bytes) == 1 }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        let _ = (tunable, bytes);
        false
    }
}

/// Blocks from this size on are offered transparent huge pages by [`HugePageHints`].
pub const HUGE_PAGE_HINT_FROM: usize = 16 << 20;

/// The system allocator, asking the kernel to back every block of [`HUGE_PAGE_HINT_FROM`] or more with
/// transparent huge pages (`madvise(MADV_HUGEPAGE)`, which matters where the system's policy is
/// "madvise", as Debian's and Ubuntu's is). A large file's bytes and the tables parsed from it are
/// blocks of tens of megabytes written once from start to end: in 4 KiB pages each page costs a fault,
/// in 2 MiB pages one fault in 512 does. Smaller blocks are left as they are: a block's last huge page
/// is resident as a whole once touched, and a block reserved for more than it gets (a vector grown by
/// doubling) would hold up to 2 MiB more than in small pages. The viewer's `src/memory.rs` gives the
/// measurements. Elsewhere than glibc on Linux it is the system allocator unchanged.
pub struct HugePageHints;

/// Asks the kernel to back the memory from `block` to `block + bytes` with transparent huge pages
/// where it can: the aligned 2 MiB ranges that lie wholly inside it. Only a hint: the memory's
/// contents and bounds stay as they are, and memory the process has not mapped, or a kernel without
/// transparent huge pages, leaves it without effect. For memory about to be written in full: a huge
/// page is resident as a whole once any of it is touched.
pub fn offer_huge_pages(block: *const u8, bytes: usize) {
    advise_pages_inside(block, bytes, Advice::HugePages);
}

/// Has the kernel make the pages wholly inside `block .. block + bytes` present and writable now, in one
/// call, instead of one page fault per page as they are first written (`MADV_POPULATE_WRITE`, Linux 5.14;
/// elsewhere, or on an older kernel, nothing). For memory from the allocator about to be written in
/// full: it takes the memory those writes would take, no more, and leaves the contents of pages
/// already present as they are. (On a file mapping it would, as a write does, dirty a shared page or
/// part a private one from its file: not for such memory.)
pub fn populate_for_writing(block: *const u8, bytes: usize) {
    advise_pages_inside(block, bytes, Advice::PopulateWrite);
}

/// `len` zero bytes, shared, from the allocator's zeroed memory: for a block the allocator maps, pages
/// the kernel supplies zeroed as they are first touched, with no pass over them here (`Arc<[u8]>`'s own
/// ways write every byte first, or copy from a vector). Aborts, as any allocation does, when the
/// system has no memory for it: a caller that must not, asks first.
pub fn zeroed_shared_bytes(len: usize) -> std::sync::Arc<[u8]> {
    let zeros = std::sync::Arc::<[u8]>::new_zeroed_slice(len);
    // SAFETY: the slice was allocated zeroed, and zero is a valid `u8`.
    unsafe { zeros.assume_init() }
}

/// The `madvise` advice this crate gives.
#[derive(Clone, Copy)]
enum Advice {
    HugePages,
    PopulateWrite,
}

/// `madvise(advice)` over the pages that lie wholly inside `block .. block + bytes`, so that the advice
/// never reaches memory outside it; nothing where there are none, or elsewhere than glibc on Linux.
/// (For huge pages that leaves out a 2 MiB range that would end in a block's last partial 4 KiB page,
/// about one block in 512: such a huge page would reach past the block.)
fn advise_pages_inside(block: *const u8, bytes: usize, advice: Advice) {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: sysconf only reads a constant of the system.
        let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).ok().filter(|p| p.is_power_of_two()).unwrap_or(4096);
        let (Some(start), Some(end)) = ((block as usize).checked_next_multiple_of(page), (block as usize).checked_add(bytes)) else { return };
        let end = end & !(page - 1);
        if block.is_null() || end <= start {
            return;
        }
        /// Not in every libc crate version's constants.
        const MADV_POPULATE_WRITE: libc::c_int = 23;
        let advice = match advice {
            Advice::HugePages => libc::MADV_HUGEPAGE,
            Advice::PopulateWrite => MADV_POPULATE_WRITE,
        };
        // SAFETY: both advices change only how the kernel backs the range's pages, never what they hold
        // or whether they are mapped (for the allocator's anonymous memory the callers give):
        // MADV_HUGEPAGE marks the range for huge pages, MADV_POPULATE_WRITE faults its pages in as a
        // write to each would, without writing. Where part of the range is not mapped the call fails
        // with ENOMEM, and a kernel without the advice fails with EINVAL.
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, advice);
        }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        let _ = (block, bytes, advice);
    }
}

fn offer_if_large(block: *mut u8, size: usize) {
    if size >= HUGE_PAGE_HINT_FROM {
        offer_huge_pages(block, size);
    }
}

// SAFETY: every block comes from, and goes back to, `System` with the caller's layout; the hint does
// not touch the block's memory.
unsafe impl std::alloc::GlobalAlloc for HugePageHints {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc`, passed on.
        let block = unsafe { std::alloc::System.alloc(layout) };
        offer_if_large(block, layout.size());
        block
    }

    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc_zeroed`, passed on.
        let block = unsafe { std::alloc::System.alloc_zeroed(layout) };
        offer_if_large(block, layout.size());
        block
    }

    unsafe fn dealloc(&self, block: *mut u8, layout: std::alloc::Layout) {
        // SAFETY: the caller's contract for `dealloc`; the block came from `System`.
        unsafe { std::alloc::System.dealloc(block, layout) }
    }

    unsafe fn realloc(&self, block: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract for `realloc`; the block came from `System`.
        let moved = unsafe { std::alloc::System.realloc(block, layout, new_size) };
        offer_if_large(moved, new_size);
        moved
    }
}
