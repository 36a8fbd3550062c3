//! A running load's response count, readable from another thread while it runs (for a
//! progress display). Loops publish at each tick, not per response, so watching costs
//! the loops one atomic add every few milliseconds.

use std::sync::atomic::{AtomicU64, Ordering};

/// Responses received so far by every loop of the loads that share it, warm-up included.
#[derive(Debug, Default)]
pub struct Live {
    responses: AtomicU64,
}

impl Live {
    /// A counter at zero.
    pub fn new() -> Live {
        Live::default()
    }

    /// Responses published so far (monotonic; lags the loops by at most one tick).
    pub fn responses(&self) -> u64 {
        self.responses.load(Ordering::Relaxed)
    }

    /// Adds a loop's responses since its last publication.
    pub(crate) fn add(&self, n: u64) {
        if n > 0 {
            self.responses.fetch_add(n, Ordering::Relaxed);
        }
    }
}
