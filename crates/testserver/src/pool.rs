//! `Behavior::Workers`'s workers: a counting semaphore shared by every connection, so the
//! server's capacity is known in closed form (W workers / service time requests a second).

use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

/// How long a request waiting for a worker sleeps before it looks at the stop flag again.
const POLL: Duration = Duration::from_millis(10);

/// The workers in service, and the most there ever were at once.
#[derive(Default)]
pub(crate) struct Pool {
    /// Requests holding a worker now.
    busy: Mutex<u32>,
    /// Signalled each time a worker frees.
    freed: Condvar,
    /// The highest `busy` reached.
    peak: AtomicU64,
}

/// One worker held; dropping it frees the worker for the next waiting request.
pub(crate) struct Worker<'a> {
    pool: &'a Pool,
}

impl Pool {
    /// Waits for one of `workers` workers to be free and takes it; None if `stopped` says
    /// so first, so that a stop need not wait for a queue of requests to be served.
    pub(crate) fn take(&self, workers: u32, stopped: impl Fn() -> bool) -> Option<Worker<'_>> {
        let mut busy = self.busy();
        while *busy >= workers {
            if stopped() {
                return None;
            }
            // Timed, not woken by the stop: it is a flag, so the wait polls it.
            busy = self
                .freed
                .wait_timeout(busy, POLL)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        *busy += 1;
        self.peak.fetch_max(u64::from(*busy), Relaxed);
        Some(Worker { pool: self })
    }

    /// The most requests that held a worker at once.
    pub(crate) fn peak(&self) -> u64 {
        self.peak.load(Relaxed)
    }

    /// The count, even if a thread panicked while holding it (it is only ever a number).
    fn busy(&self) -> MutexGuard<'_, u32> {
        self.busy.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for Worker<'_> {
    fn drop(&mut self) {
        *self.pool.busy() -= 1;
        // Any waiter will do: the order requests get workers in is not promised.
        self.pool.freed.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn takes_up_to_the_limit_then_waits_until_one_frees() {
        let pool = Pool::default();
        let first = pool.take(2, || false).unwrap();
        let _second = pool.take(2, || false).unwrap();
        // Full: a waiter told the server stopped gives up instead of waiting.
        assert!(pool.take(2, || true).is_none());
        drop(first);
        assert!(pool.take(2, || true).is_some());
        assert_eq!(pool.peak(), 2);
    }
}
