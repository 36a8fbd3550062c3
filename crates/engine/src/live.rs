//! A running load's counts, readable from another thread while it runs (for a progress
//! display). Loops publish at each tick, not per response, so watching costs the loops
//! a few atomic adds every few milliseconds.

use crate::outcome::Counts;
use std::sync::atomic::{AtomicU64, Ordering};

/// What every loop of the loads that share it has seen so far.
#[derive(Debug, Default)]
pub struct Live {
    responses: AtomicU64,
    finished: AtomicU64,
    failed: AtomicU64,
}

/// A loop's counts as of one publication: what [`Live`] adds the difference of.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Published {
    pub responses: u64,
    pub finished: u64,
    pub failed: u64,
}

impl Published {
    /// A loop's counts now: every response (warm-up included) and the measured `counts`.
    pub fn of(responses: u64, counts: &Counts) -> Published {
        Published {
            responses,
            finished: counts.finished(),
            failed: counts.finished() - counts.ok,
        }
    }
}

impl Live {
    /// Counters at zero.
    pub fn new() -> Live {
        Live::default()
    }

    /// Responses received so far, warm-up included (monotonic; lags the loops by at
    /// most one tick).
    pub fn responses(&self) -> u64 {
        self.responses.load(Ordering::Relaxed)
    }

    /// Measured requests that ended so far, well or badly (warm-up excluded: what a
    /// request-count load counts down).
    pub fn finished(&self) -> u64 {
        self.finished.load(Ordering::Relaxed)
    }

    /// Measured requests that ended other than ok so far: a 4xx/5xx status, or no
    /// well-framed response (timeout, connect, read, write, parse).
    pub fn failed(&self) -> u64 {
        self.failed.load(Ordering::Relaxed)
    }

    /// Adds a loop's counts `now` beyond those it published `before`.
    pub(crate) fn add(&self, before: &Published, now: &Published) {
        let add = |counter: &AtomicU64, from: u64, to: u64| {
            if to > from {
                counter.fetch_add(to - from, Ordering::Relaxed);
            }
        };
        add(&self.responses, before.responses, now.responses);
        add(&self.finished, before.finished, now.finished);
        add(&self.failed, before.failed, now.failed);
    }
}
