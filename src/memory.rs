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
//! is made once, before such work.

/// Keeps blocks of 128 KiB and more mapped for the rest of the process (glibc on Linux; elsewhere
/// nothing).
pub fn map_large_blocks() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        malloc_tuning::fix_mmap_threshold(128 << 10);
    });
}
