//! glibc's mmap threshold, fixed. The viewer's crate forbids `unsafe`; this is the one foreign call it
//! needs, kept here so that the guarantee holds for every line of the parsers.
//!
//! Why: glibc serves a block by mmap only above a threshold it raises to the largest block freed so
//! far, and past that serves large blocks from the heap, where a freed one stays resident and a grown
//! one is copied. A large LightWave object's meshes are such blocks; the viewer's `src/memory.rs` says
//! when the viewer fixes the threshold, and what it measured.

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
