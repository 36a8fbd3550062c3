//! Between two steps of a search: the wait until the server has drained what the step
//! before left. A step ends by closing its connections with requests still in flight
//! (one per connection on HTTP/1.1, up to the streams on HTTP/2); the server still holds
//! them, queued for its workers or in its sockets, and serves them to closed connections.
//! A step far past capacity leaves that queue full, and the next step inherits it: near
//! capacity a queue drains at only the rate's distance from it, so the inherited queue
//! can outlast the warm-up and the whole step (issue 32: against a server of about
//! 700/s, 707/s met after a step that met and missed after one that missed, with a 0.5 s
//! and a 3 s warm-up alike; here, with 0.5 s, after a step at 1,400/s it started with
//! 37-50 of that step's requests still queued and met 2 times in 18; after the wait, with
//! none, 11 in 12).
//!
//! So before each step but the first, the search asks its [`Signal`]s whether the server
//! is idle again (its CPU back at rest when the harness watches it, a probe answered at
//! the unloaded latency), and waits until they all say so, within [`BOUND`]; the step
//! keeps the wait ([`DrainWait`]) when there was one.

mod probe;

pub use probe::Probe;

use crate::model::capacity::DrainWait;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The longest wait before one step: past it the step runs anyway and says so. A queue
/// of a few thousand requests (HTTP/2 streams on every connection) at a server of a few
/// hundred a second drains in about this long.
pub const BOUND: Duration = Duration::from_secs(10);

/// Between two readings that said busy: a probe refused at once must not spin.
const PAUSE: Duration = Duration::from_millis(20);

/// One way to tell that the server is still busy.
pub trait Signal {
    /// What says the server is still busy (`a probe took 82.10ms, 5.20ms unloaded`), or
    /// None when it is idle.
    fn busy(&mut self) -> Option<String>;
}

/// The wait between steps: every signal must say idle, within the bound.
pub struct Drain<'a> {
    signals: Vec<Box<dyn Signal + 'a>>,
    bound: Duration,
    interrupt: &'a AtomicBool,
}

impl<'a> Drain<'a> {
    /// A wait on `signals` (read in order: the first that says busy is the reason), cut
    /// short by `interrupt`; no signal, no wait.
    pub fn new(signals: Vec<Box<dyn Signal + 'a>>, interrupt: &'a AtomicBool) -> Drain<'a> {
        Drain {
            signals,
            bound: BOUND,
            interrupt,
        }
    }

    /// This wait with another bound.
    pub fn bounded(self, bound: Duration) -> Drain<'a> {
        Drain { bound, ..self }
    }

    /// Waits until every signal says the server is idle, at most the bound; the wait,
    /// when the first reading said busy.
    pub fn wait(&mut self) -> Option<DrainWait> {
        let t0 = Instant::now();
        let first = self.busy()?;
        let mut last = first.clone();
        // Bounded in time; each reading is bounded too (a probe has its timeout).
        while t0.elapsed() < self.bound && !self.interrupt.load(Ordering::Relaxed) {
            std::thread::sleep(PAUSE);
            match self.busy() {
                None => return Some(waited(t0, first, false)),
                Some(why) => last = why,
            }
        }
        Some(waited(t0, last, true))
    }

    /// The first signal's word that the server is busy, or None when all say idle.
    fn busy(&mut self) -> Option<String> {
        self.signals.iter_mut().find_map(|s| s.busy())
    }
}

fn waited(t0: Instant, busy: String, gave_up: bool) -> DrainWait {
    DrainWait {
        waited_s: t0.elapsed().as_secs_f64(),
        busy,
        gave_up,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Busy for its first `readings`, idle after.
    struct BusyFor {
        readings: usize,
    }

    impl Signal for BusyFor {
        fn busy(&mut self) -> Option<String> {
            let left = self.readings;
            self.readings = left.saturating_sub(1);
            (left > 0).then(|| format!("{left} readings to go"))
        }
    }

    fn drain(readings: usize, bound: Duration) -> Option<DrainWait> {
        static NOT: AtomicBool = AtomicBool::new(false);
        let signals: Vec<Box<dyn Signal>> = vec![Box::new(BusyFor { readings })];
        Drain::new(signals, &NOT).bounded(bound).wait()
    }

    #[test]
    fn an_idle_server_is_not_waited_for() {
        assert_eq!(drain(0, BOUND), None);
        static NOT: AtomicBool = AtomicBool::new(false);
        assert_eq!(Drain::new(Vec::new(), &NOT).wait(), None);
    }

    #[test]
    fn a_busy_server_is_waited_for_and_the_wait_says_what_was_busy_first() {
        let wait = drain(3, BOUND).unwrap();
        assert_eq!(wait.busy, "3 readings to go");
        assert!(!wait.gave_up);
        assert!(wait.waited_s > 0.0);
        assert!(wait.text().starts_with("waited "), "{}", wait.text());
    }

    #[test]
    fn a_server_that_stays_busy_is_given_up_on_at_the_bound_with_its_last_word() {
        let wait = drain(usize::MAX, Duration::from_millis(50)).unwrap();
        assert!(wait.gave_up);
        assert!(wait.waited_s >= 0.05, "{wait:?}");
        assert_ne!(wait.busy, format!("{} readings to go", usize::MAX));
        let text = wait.text();
        assert!(
            text.starts_with("the server had not drained after ") && text.ends_with(": ran anyway"),
            "{text}"
        );
    }
}
