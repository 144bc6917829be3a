//! One way to spread independent work over the cores: WMO group files, their meshes, ranges of a
//! large LightWave layer's polygons, exported textures. Items are taken one at a time, so a few large
//! ones do not hold up the rest (except in [`parallel_in_order`], where a thread done with an item
//! waits for the items before it to be committed).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};

/// `work` on every item, on as many threads as the machine has, results in the items' order.
pub fn parallel_map<T: Sync, R: Send>(items: &[T], work: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let workers = if items.len() > 1 { cores().min(items.len()) } else { 1 };
    if workers == 1 {
        // No thread for one item (or one core): a small file pays nothing for the machinery.
        return items.iter().map(work).collect();
    }
    let results: Vec<Mutex<Option<R>>> = items.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(k) else { break };
                    let result = work(item);
                    *results[k].lock().unwrap_or_else(|e| e.into_inner()) = Some(result);
                }
            });
        }
    });
    results
        .into_iter()
        .map(|r| r.into_inner().unwrap_or_else(|e| e.into_inner()).expect("every item was worked on"))
        .collect()
}

/// `work` on every item, on as many threads as the machine has, each thread with a state of its own;
/// each result is then handed to `commit` with `into` (and the state of the thread that made it, which
/// can take back what the result no longer needs), one at a time and in the items' order. A thread
/// commits its item once the items before it are committed, then takes the next: the results are
/// gathered in one place as they come instead of all held and joined at the end, at the price of a
/// thread waiting when the item before its own is slow (items of like size, such as polygon ranges,
/// suit it). A thread that will take no more items drops its state as soon as its last result is
/// made, before waiting to commit it (the last commits, where the results are largest, then do not
/// also hold the states): that commit gets `None`.
pub fn parallel_in_order<T: Sync, S, R, A: Send>(
    items: &[T],
    make_state: impl Fn() -> S + Sync,
    into: A,
    work: impl Fn(&mut S, &T) -> R + Sync,
    commit: impl Fn(&mut A, R, Option<&mut S>) + Sync,
) -> A {
    let workers = if items.len() > 1 { cores().min(items.len()) } else { 1 };
    if workers == 1 {
        let (mut state, mut into) = (Some(make_state()), into);
        for (k, item) in items.iter().enumerate() {
            let Some(s) = state.as_mut() else { break };
            let result = work(s, item);
            if k + 1 == items.len() {
                state = None;
            }
            commit(&mut into, result, state.as_mut());
        }
        return into;
    }
    // The next item to commit, and where results go.
    let turn = Mutex::new((0usize, into));
    let turn_changed = Condvar::new();
    let next = AtomicUsize::new(0);
    // Set when a worker panics, so the others stop waiting for a turn that will not come (the scope
    // then passes the panic on).
    let abandoned = AtomicBool::new(false);
    struct OnPanic<'a, A>(&'a AtomicBool, &'a Condvar, &'a Mutex<(usize, A)>);
    impl<A> Drop for OnPanic<'_, A> {
        fn drop(&mut self) {
            if std::thread::panicking() {
                // Under the lock, so that no worker is between looking at the flag and waiting.
                let _turn = self.2.lock().unwrap_or_else(|e| e.into_inner());
                self.0.store(true, Ordering::SeqCst);
                self.1.notify_all();
            }
        }
    }
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                let _on_panic = OnPanic(&abandoned, &turn_changed, &turn);
                let mut state = Some(make_state());
                loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    let (Some(item), Some(s)) = (items.get(k), state.as_mut()) else { break };
                    let result = work(s, item);
                    // `next` only grows: once past the end, no thread takes another item.
                    if next.load(Ordering::Relaxed) >= items.len() {
                        state = None;
                    }
                    let mut guard = turn.lock().unwrap_or_else(|e| e.into_inner());
                    while guard.0 != k {
                        if abandoned.load(Ordering::SeqCst) {
                            return;
                        }
                        guard = turn_changed.wait(guard).unwrap_or_else(|e| e.into_inner());
                    }
                    commit(&mut guard.1, result, state.as_mut());
                    guard.0 += 1;
                    drop(guard);
                    turn_changed.notify_all();
                }
            });
        }
    });
    turn.into_inner().unwrap_or_else(|e| e.into_inner()).1
}

/// `make(i)` for every i below `len`, in order, the range cut into one run per core; below `alone`
/// items, on this thread.
pub fn parallel_collect<T: Send + Default + Clone>(
    len: usize,
    alone: usize,
    make: impl Fn(usize) -> T + Sync,
) -> Vec<T> {
    if len < alone || cores() == 1 {
        return (0..len).map(make).collect();
    }
    // Zeroed, for the common zero-valued default, comes from the kernel as it is: nothing is written twice.
    let mut out = vec![T::default(); len];
    let run = run_per_core(len, 0);
    parallel_each(out.chunks_mut(run).enumerate().collect(), |(k, part)| {
        part.iter_mut().enumerate().for_each(|(i, slot)| *slot = make(k * run + i))
    });
    out
}

/// How many of `len` items make one run per core ([`cores`]); all of them below `alone`.
pub fn run_per_core(len: usize, alone: usize) -> usize {
    if len >= alone { len.div_ceil(cores()) } else { len }.max(1)
}

/// `work` on each item, each on a thread of its own: the caller cuts its work into about one item per
/// core ([`cores`]). One item is worked on this thread.
pub fn parallel_each<I: Send>(items: Vec<I>, work: impl Fn(I) + Sync) {
    if items.len() <= 1 {
        return items.into_iter().for_each(work);
    }
    std::thread::scope(|scope| {
        for item in items {
            let work = &work;
            scope.spawn(move || work(item));
        }
    });
}

/// The cores this process may use, asked once: the standard library reads the cgroup files on every
/// call, which took half the time of loading a one-polygon LightWave object.
pub fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_are_committed_in_the_items_order_while_each_thread_keeps_its_state() {
        let items: Vec<u64> = (0..300).collect();
        // Uneven work, so that threads finish items out of order.
        let spin = |n: u64| (0..(n % 7) * 2000).fold(n, |a, b| a.wrapping_mul(31).wrapping_add(b));
        let committed = parallel_in_order(
            &items,
            || 0usize,
            (Vec::new(), Vec::new(), 0),
            |seen, &n| {
                *seen += 1;
                (n, spin(n), *seen)
            },
            |(order, seen, stateless): &mut (Vec<u64>, Vec<usize>, usize), (n, _, count), state| {
                order.push(n);
                seen.push(count);
                *stateless += usize::from(state.is_none());
            },
        );
        let (committed, per_thread_counts, stateless) = committed;
        assert_eq!(committed, items);
        // Only a thread's last commit comes without its state, and the very last one always does.
        assert!((1..=cores()).contains(&stateless), "{stateless} commits without a state");
        // Each thread's state counted up from 1 through the items it took: one first item per thread.
        let threads = per_thread_counts.iter().filter(|&&c| c == 1).count();
        assert!((1..=cores()).contains(&threads), "{threads} threads");
    }

    #[test]
    fn a_panicking_item_fails_the_call_instead_of_stalling_it() {
        let items: Vec<u32> = (0..50).collect();
        let outcome = std::panic::catch_unwind(|| {
            parallel_in_order(
                &items,
                || (),
                0u32,
                |_, &n| if n == 3 { panic!("item 3 fails") } else { n },
                |sum, n, _| *sum += n,
            )
        });
        assert!(outcome.is_err());
    }

    #[test]
    fn collecting_on_every_core_gives_what_one_thread_gives() {
        let square = |i: usize| (i * i) as u64;
        let len = 100_003;
        assert_eq!(parallel_collect(len, 1, square), (0..len).map(square).collect::<Vec<_>>());
        assert_eq!(parallel_collect(len, usize::MAX, square), (0..len).map(square).collect::<Vec<_>>());
        assert!(parallel_collect(0, 1, square).is_empty());
    }
}
