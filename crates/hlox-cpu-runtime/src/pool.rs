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
//! Inside the pool a second wake-up remained: a worker with nothing to do
//! falls asleep within microseconds, so the other half of a loop waited
//! for it to wake (20-100 us). While runs come, every worker spins instead
//! ([`keep_workers_awake`]), and stops once the pool has been idle for
//! [`SPIN_IDLE`] (1 ms): the price is up to 1 ms of every core's time
//! after the last run, as XLA's Eigen pool spins before it sleeps.
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

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

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
            keep_workers_awake(p);
            p.install(f)
        }
        _ => f(),
    }
}

/// How long the pool's workers spin after the pool's last activity (a
/// run starting, a job done).
pub const SPIN_IDLE: Duration = Duration::from_millis(1);

/// Workers now spinning.
static SPINNERS: AtomicUsize = AtomicUsize::new(0);

/// Spinner jobs broadcast but not yet started (a worker busy with a long
/// run starts its own late): no new broadcast while any is pending, so a
/// busy worker's queue does not grow by one job per run started elsewhere.
static PENDING: AtomicUsize = AtomicUsize::new(0);

/// Spinner broadcasts made (read by the tests).
#[cfg(test)]
static BROADCASTS: AtomicUsize = AtomicUsize::new(0);

/// The pool's last activity, in nanoseconds since [`epoch`].
static LAST_ACTIVITY: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// Whether this worker is spinning (a spinner already on its stack).
    static SPINNING: Cell<bool> = const { Cell::new(false) };
}

fn epoch() -> Instant {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

fn touch() {
    LAST_ACTIVITY.store(epoch().elapsed().as_nanos() as u64, Ordering::Relaxed);
}

fn idle_for() -> Duration {
    let now = epoch().elapsed().as_nanos() as u64;
    Duration::from_nanos(now.saturating_sub(LAST_ACTIVITY.load(Ordering::Relaxed)))
}

/// Makes every worker of the pool spin, looking for work, until the pool
/// has been idle for [`SPIN_IDLE`]: the run goes to one of them, and each
/// of its parallel loops starts on every half at once. Left to rayon, an
/// idle worker falls asleep within microseconds, and waking it costs
/// 20-100 us on a virtual machine (a futex wake through the hypervisor):
/// traced in the transformer block's gradient, the second half of a
/// `[128,256] x [256,256]` product started 55-90 us after the first, or
/// never (the first worker took it back after its own half, doubling the
/// time); its products of 0.1-0.6 ms ran 1.4x, not 1.9x, faster on two
/// threads than on one. Spinners live across runs, so back-to-back runs
/// pay no wake-up either.
fn keep_workers_awake(p: &'static rayon::ThreadPool) {
    touch();
    let threads = p.current_num_threads();
    if SPINNERS.load(Ordering::Acquire) < threads
        && PENDING
            .compare_exchange(0, threads, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    {
        // One spinner per worker (a worker already spinning returns at
        // once): two spinners taken by one worker would leave another
        // asleep.
        #[cfg(test)]
        BROADCASTS.fetch_add(1, Ordering::Relaxed);
        p.spawn_broadcast(move |_| {
            PENDING.fetch_sub(1, Ordering::AcqRel);
            spin(p)
        });
    }
}

/// One worker's spinning: runs whatever work the pool has (a run, other
/// workers' halves) until the pool has been idle for [`SPIN_IDLE`].
fn spin(p: &rayon::ThreadPool) {
    if SPINNING.with(|s| s.replace(true)) {
        return;
    }
    struct Alive;
    impl Drop for Alive {
        fn drop(&mut self) {
            SPINNING.with(|s| s.set(false));
            SPINNERS.fetch_sub(1, Ordering::AcqRel);
        }
    }
    SPINNERS.fetch_add(1, Ordering::AcqRel);
    let _alive = Alive;
    let mut polls = 0u32;
    loop {
        match p.yield_now() {
            Some(rayon::Yield::Executed) => touch(),
            Some(rayon::Yield::Idle) => {
                polls = polls.wrapping_add(1);
                if polls.is_multiple_of(64) && idle_for() >= SPIN_IDLE {
                    return;
                }
                std::hint::spin_loop();
            }
            None => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// After a run every worker spins, and once the pool has been idle for
    /// [`SPIN_IDLE`] every one of them stops (nothing burns a core for
    /// good); a later run starts them again.
    #[test]
    fn workers_spin_while_runs_come_and_stop_when_idle() {
        let threads = pool().map_or(1, |p| p.current_num_threads());
        if threads < 2 {
            return;
        }
        let wait_until = |cond: &dyn Fn() -> bool| {
            let start = Instant::now();
            while !cond() {
                assert!(
                    start.elapsed() < Duration::from_secs(20),
                    "spinners: {} of {threads}",
                    SPINNERS.load(Ordering::Acquire)
                );
                std::thread::sleep(Duration::from_micros(100));
            }
        };
        for _ in 0..2 {
            on_run_pool(|| ());
            wait_until(&|| SPINNERS.load(Ordering::Acquire) == 0);
        }
        // A worker held by a long job (taken while no worker spun, so not
        // inside a spinner): the runs started meanwhile broadcast once, not
        // once each (the held worker's spinner job stays pending), and the
        // pending job starts once the worker is free.
        if let Some(p) = pool() {
            wait_until(&|| {
                PENDING.load(Ordering::Acquire) == 0 && SPINNERS.load(Ordering::Acquire) == 0
            });
            let (held_tx, held_rx) = std::sync::mpsc::channel::<()>();
            let (tx, rx) = std::sync::mpsc::channel::<()>();
            p.spawn(move || {
                let _ = held_tx.send(());
                let _ = rx.recv_timeout(Duration::from_secs(20));
            });
            let _ = held_rx.recv_timeout(Duration::from_secs(20));
            let before = BROADCASTS.load(Ordering::Relaxed);
            for _ in 0..100 {
                on_run_pool(|| ());
            }
            let made = BROADCASTS.load(Ordering::Relaxed) - before;
            let _ = tx.send(());
            assert!(made <= 1, "{made} broadcasts for 100 runs");
            wait_until(&|| PENDING.load(Ordering::Acquire) == 0);
        }
        wait_until(&|| SPINNERS.load(Ordering::Acquire) == 0);
        // Many runs back to back: some run sees spinning workers, none
        // more spinners than workers.
        let mut most = 0;
        for _ in 0..200 {
            let n = on_run_pool(|| SPINNERS.load(Ordering::Acquire));
            assert!(n <= threads, "{n} spinners, {threads} workers");
            most = most.max(n);
        }
        assert!(most >= 1, "no run saw a spinning worker");
        wait_until(&|| SPINNERS.load(Ordering::Acquire) == 0);
    }

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
