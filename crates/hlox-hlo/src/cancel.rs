//! Stopping a running execution: a [`CancelToken`] another thread cancels,
//! and a deadline, given to a run through [`ExecuteOptions`].
//!
//! Every engine checks one word per run, [`RunWatch::flag`], with a relaxed
//! load: the evaluator before each instruction, the Host backend's generated
//! code at every while loop's back-edge (the only way a run can take
//! unbounded time; everything else is straight-line code over finite
//! shapes). The word is per run, so cancelling one token stops every run
//! started with it and a deadline stops only its own run. XLA has no way to
//! stop a running execution.
//!
//! A run stops at its next check, not at once: a custom-call target or a
//! single huge operation runs to its end first.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Condvar, Mutex, Weak};
use std::time::{Duration, Instant};

/// The flag value of a run that may go on.
pub const RUN: u32 = 0;
/// The flag value of a run whose [`CancelToken`] was cancelled.
pub const CANCELLED: u32 = 1;
/// The flag value of a run whose deadline passed.
pub const DEADLINE: u32 = 2;

/// A handle that stops the runs it was given to, from any thread. Clones
/// share one state; once cancelled, a token stays cancelled (runs started
/// with it later stop at their first check).
#[derive(Clone, Debug, Default)]
pub struct CancelToken(Arc<TokenState>);

#[derive(Debug, Default)]
struct TokenState {
    cancelled: AtomicBool,
    /// The flags of the runs in progress with this token.
    runs: Mutex<Vec<Weak<AtomicU32>>>,
}

impl CancelToken {
    pub fn new() -> CancelToken {
        CancelToken::default()
    }

    /// Stops every run in progress with this token, and every later one.
    pub fn cancel(&self) {
        self.0.cancelled.store(true, Ordering::Relaxed);
        let runs = match self.0.runs.lock() {
            Ok(r) => r,
            Err(p) => p.into_inner(),
        };
        for f in runs.iter().filter_map(Weak::upgrade) {
            let _ = f.compare_exchange(RUN, CANCELLED, Ordering::Relaxed, Ordering::Relaxed);
        }
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.cancelled.load(Ordering::Relaxed)
    }

    fn attach(&self, flag: &Arc<AtomicU32>) {
        let mut runs = match self.0.runs.lock() {
            Ok(r) => r,
            Err(p) => p.into_inner(),
        };
        runs.retain(|w| w.strong_count() > 0);
        runs.push(Arc::downgrade(flag));
        // After registering, so a cancel() in between is not missed.
        if self.is_cancelled() {
            let _ = flag.compare_exchange(RUN, CANCELLED, Ordering::Relaxed, Ordering::Relaxed);
        }
    }
}

/// How a run may be stopped. The default stops nothing.
#[derive(Clone, Debug, Default)]
pub struct ExecuteOptions {
    /// Stops the run when cancelled (from any thread).
    pub cancel: Option<CancelToken>,
    /// Stops the run when this much time has passed since it started.
    pub timeout: Option<Duration>,
}

impl ExecuteOptions {
    /// Options that stop the run after `timeout`.
    pub fn with_timeout(timeout: Duration) -> ExecuteOptions {
        ExecuteOptions {
            cancel: None,
            timeout: Some(timeout),
        }
    }

    /// Options that stop the run when `token` is cancelled.
    pub fn with_cancel(token: CancelToken) -> ExecuteOptions {
        ExecuteOptions {
            cancel: Some(token),
            timeout: None,
        }
    }

    /// Starts watching one run: its flag, set by the token and (on a
    /// watchdog thread, only when there is a timeout) by the deadline.
    /// Dropping the watch ends it.
    pub fn start(&self) -> RunWatch {
        let flag = Arc::new(AtomicU32::new(RUN));
        if let Some(t) = &self.cancel {
            t.attach(&flag);
        }
        let watchdog = self.timeout.map(|timeout| {
            let done = Arc::new((Mutex::new(false), Condvar::new()));
            let (d, f) = (done.clone(), flag.clone());
            let deadline = Instant::now() + timeout;
            let thread = std::thread::Builder::new()
                .name("hlox-deadline".into())
                .spawn(move || {
                    let (lock, cv) = &*d;
                    let mut finished = match lock.lock() {
                        Ok(g) => g,
                        Err(p) => p.into_inner(),
                    };
                    while !*finished {
                        let now = Instant::now();
                        if now >= deadline {
                            let _ = f.compare_exchange(
                                RUN,
                                DEADLINE,
                                Ordering::Relaxed,
                                Ordering::Relaxed,
                            );
                            return;
                        }
                        finished = match cv.wait_timeout(finished, deadline - now) {
                            Ok((g, _)) => g,
                            Err(p) => p.into_inner().0,
                        };
                    }
                });
            Watchdog {
                done,
                thread: thread.ok(),
                timeout,
            }
        });
        RunWatch { flag, watchdog }
    }
}

struct Watchdog {
    done: Arc<(Mutex<bool>, Condvar)>,
    thread: Option<std::thread::JoinHandle<()>>,
    timeout: Duration,
}

/// One run's stop flag (see [`ExecuteOptions::start`]).
pub struct RunWatch {
    flag: Arc<AtomicU32>,
    watchdog: Option<Watchdog>,
}

/// Why a run stopped early.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// Its [`CancelToken`] was cancelled.
    Cancelled,
    /// Its timeout passed.
    Deadline(Duration),
}

impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stop::Cancelled => f.write_str("cancelled (its CancelToken was cancelled)"),
            Stop::Deadline(t) => {
                write!(f, "stopped: its timeout of {:.3} s passed", t.as_secs_f64())
            }
        }
    }
}

impl RunWatch {
    /// The word the engine checks: [`RUN`] while the run may go on.
    pub fn flag(&self) -> &AtomicU32 {
        &self.flag
    }

    /// Whether the run must stop, and why.
    pub fn stopped(&self) -> Option<Stop> {
        match self.flag.load(Ordering::Relaxed) {
            RUN => None,
            DEADLINE => Some(Stop::Deadline(
                self.watchdog.as_ref().map_or(Duration::ZERO, |w| w.timeout),
            )),
            _ => Some(Stop::Cancelled),
        }
    }
}

impl Drop for RunWatch {
    fn drop(&mut self) {
        if let Some(w) = self.watchdog.take() {
            let (lock, cv) = &*w.done;
            match lock.lock() {
                Ok(mut g) => *g = true,
                Err(p) => *p.into_inner() = true,
            }
            cv.notify_all();
            if let Some(t) = w.thread {
                let _ = t.join();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_stops_runs_in_progress_and_later_ones() {
        let t = CancelToken::new();
        let o = ExecuteOptions::with_cancel(t.clone());
        let w = o.start();
        assert_eq!(w.stopped(), None);
        t.cancel();
        assert_eq!(w.stopped(), Some(Stop::Cancelled));
        assert_eq!(o.start().stopped(), Some(Stop::Cancelled));
    }

    #[test]
    fn a_timeout_stops_only_its_run() {
        let w = ExecuteOptions::with_timeout(Duration::from_millis(20)).start();
        let other = ExecuteOptions::default().start();
        let t0 = Instant::now();
        while w.stopped().is_none() {
            assert!(t0.elapsed() < Duration::from_secs(10));
            std::thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(w.stopped(), Some(Stop::Deadline(Duration::from_millis(20))));
        assert_eq!(other.stopped(), None);
        // A run that ends first ends its watchdog at once.
        let t0 = Instant::now();
        drop(ExecuteOptions::with_timeout(Duration::from_secs(60)).start());
        assert!(t0.elapsed() < Duration::from_secs(5));
    }
}
