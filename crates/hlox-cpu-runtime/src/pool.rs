//! The thread pool a Host run executes on.
//!
//! Why a run hops onto a pool instead of running on the caller's thread:
//! every parallel loop of a run (a dot's blocks, a fusion's rows) is a rayon
//! job. Started from a thread outside the pool, each such loop hands its
//! work to the pool and puts the caller to sleep until it is done, and the
//! caller's wake-up costs about 20 us on a virtual machine (a futex wake
//! through the hypervisor). A transformer block's gradient has 45 such
//! loops per run: `perf stat` counted 7.7 context switches per run of a
//! single batched dot, and two threads ran it slower than one (0.104
//! against 0.090 ms). Running the whole entry function on a worker of the
//! pool pays that wake-up once per run; inside, each loop starts on the
//! worker that reaches it, and rayon's joins let that worker take back a
//! half no sleeping thread picked up. Measured on the block (2 cores,
//! quiet machine, minimum / median of 100 runs): forward 1.27-1.40 /
//! 1.42-2.00 -> 1.17-1.18 / 1.23-1.25 ms, gradient 4.20-4.28 / 4.68-4.73
//! -> 3.84-3.89 / 3.99-4.00 ms.
//!
//! The pool is hlox's own (not rayon's global one): its workers have 8 MiB
//! stacks like the caller's main thread (the generated entry function's
//! frames live on them), and its size follows `RAYON_NUM_THREADS` or the
//! machine's cores, as rayon's global pool does.
//!
//! Architecture invariant: a run that is one device of a multi-device run
//! (a [`crate::collectives`] device context on the calling thread) stays
//! on its own thread. Its collectives wait for the other devices, which
//! would deadlock if all of them queued for fewer pool workers.

use std::sync::OnceLock;

/// Stack size of the pool's workers (as the device threads').
pub const STACK_BYTES: usize = 8 << 20;

fn pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .stack_size(STACK_BYTES)
            .thread_name(|i| format!("hlox-run-{i}"))
            .build()
            .ok()
    })
    .as_ref()
}

/// Runs `f` (one run's entry function) on a worker of the run pool, or on
/// the calling thread where that is already such a worker, where the pool
/// has one thread (or could not be started), or where the thread is one
/// device of a multi-device run (see the module's invariant).
pub fn on_run_pool<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    match pool() {
        Some(p)
            if p.current_num_threads() > 1
                && p.current_thread_index().is_none()
                && crate::collectives::current_device().is_none() =>
        {
            p.install(f)
        }
        _ => f(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the calling thread is a worker of the run pool.
    fn on_pool_worker() -> bool {
        pool().is_some_and(|p| p.current_thread_index().is_some())
    }

    #[test]
    fn a_run_hops_onto_the_pool_unless_it_is_a_device() {
        let threads = pool().map_or(1, |p| p.current_num_threads());
        let on_worker = on_run_pool(on_pool_worker);
        assert_eq!(on_worker, threads > 1);
        // Nested: already on a worker, the run stays there.
        assert_eq!(on_run_pool(|| on_run_pool(on_pool_worker)), threads > 1);
        // The loops inside a run use the run pool's threads.
        assert_eq!(
            on_run_pool(rayon::current_num_threads),
            if threads > 1 {
                threads
            } else {
                rayon::current_num_threads()
            }
        );
        // One device of a multi-device run stays on its own thread.
        let ctx = crate::collectives::DeviceContext {
            rank: 0,
            topology: hlox_hlo::sharding::Topology {
                replicas: 1,
                partitions: 1,
            },
            comm: std::sync::Arc::new(crate::collectives::InProcess::new(
                1,
                std::time::Duration::from_secs(1),
            )),
        };
        assert!(!crate::collectives::with_device(ctx, || on_run_pool(
            on_pool_worker
        )));
    }
}
