//! One way to spread independent work over the cores: WMO group files, their meshes, ranges of a
//! large LightWave layer's polygons, exported textures. Items are taken one at a time, so a few large
//! ones do not hold up the rest.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// `work` on every item, on as many threads as the machine has, results in the items' order.
pub fn parallel_map<T: Sync, R: Send>(items: &[T], work: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let results: Vec<Mutex<Option<R>>> = items.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    let workers = if items.len() > 1 { cores().min(items.len()) } else { 1 };
    if workers == 1 {
        // No thread for one item (or one core): a small file pays nothing for the machinery.
        return items.iter().map(work).collect();
    }
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                let Some(item) = items.get(k) else { break };
                let result = work(item);
                *results[k].lock().unwrap_or_else(|e| e.into_inner()) = Some(result);
            });
        }
    });
    results.into_iter().map(|r| r.into_inner().unwrap_or_else(|e| e.into_inner()).expect("every item was worked on")).collect()
}

/// The cores this process may use, asked once: the standard library reads the cgroup files on every
/// call, which took half the time of loading a one-polygon LightWave object.
pub fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}
