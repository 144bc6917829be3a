//! glibc's mmap threshold, fixed. The viewer's crate forbids `unsafe`; this is the one foreign call it
//! needs, kept here so that the guarantee holds for every line of the parsers.
//!
//! Why: a bzip2 stream's decoder (libbz2-rs-sys) allocates its 3.6 MB table zeroed, once per MPQ
//! sector. Once glibc has seen a block that large freed, it raises its mmap threshold past it and
//! serves the next one from the heap, where `calloc` must clear all 3.6 MB; blocks that stay mmapped
//! come from the kernel already zeroed.

/// Serves allocations of at least `bytes` by mmap from now on, for the whole process, and stops glibc
/// from moving the threshold. Returns whether it was set (only glibc on Linux has the tunable).
pub fn fix_mmap_threshold(bytes: usize) -> bool {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let Ok(bytes) = libc::c_int::try_from(bytes) else { return false };
        // SAFETY: `mallopt` only changes a tunable of the allocator; glibc allows it at any time, from
        // any thread.
        unsafe { libc::mallopt(libc::M_MMAP_THRESHOLD, bytes) == 1 }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        let _ = bytes;
        false
    }
}
