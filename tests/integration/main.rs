//! One test binary (Bevy is linked once) with a module per area.

mod assets;
mod batch;
mod chunks;
mod cli;
mod culling;
mod export;
mod fuzz_regressions;
mod lwo;
mod lwo3;
mod m2;
mod morphs;
mod mpq;
mod mutation;
mod panel;
mod plugin_example;
mod render;
mod scene;
mod support;
mod window;
mod wmo;

/// The viewer's allocator (see `memory::HugePageHints`): the tests run on what the viewer runs on.
#[global_allocator]
static ALLOCATOR: lwo_wmo_viewer::memory::HugePageHints = lwo_wmo_viewer::memory::HugePageHints;

/// A block of 16 MiB or more is offered huge pages, as the kernel records for its mapping in
/// `/proc/self/smaps` ("hg" among its flags). Only glibc on Linux has the hint; skipped where the
/// kernel has no transparent huge pages.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn large_blocks_are_offered_huge_pages() {
    if !std::path::Path::new("/sys/kernel/mm/transparent_hugepage/enabled").exists() {
        return;
    }
    // 64 MiB: above glibc's largest mmap threshold, so the block is a mapping of its own.
    let block: Vec<u8> = Vec::with_capacity(64 << 20);
    // Its middle: the hint starts at the first page boundary inside the block.
    let at = block.as_ptr() as usize + block.capacity() / 2;
    let smaps = std::fs::read_to_string("/proc/self/smaps").expect("Linux has /proc/self/smaps");
    let mut inside = false;
    let mut flags = None;
    for line in smaps.lines() {
        let range = line.split_whitespace().next().and_then(|r| r.split_once('-'));
        if let Some((Ok(start), Ok(end))) =
            range.map(|(s, e)| (usize::from_str_radix(s, 16), usize::from_str_radix(e, 16)))
        {
            inside = (start..end).contains(&at);
        } else if let Some(vm_flags) = line.strip_prefix("VmFlags:").filter(|_| inside) {
            flags = Some(vm_flags.split_whitespace().map(str::to_string).collect::<Vec<_>>());
        }
    }
    let flags = flags.expect("the block's mapping is listed");
    assert!(flags.iter().any(|f| f == "hg"), "the block's middle is mapped with flags {flags:?}, without hg");
}
