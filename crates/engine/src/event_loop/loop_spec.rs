//! The part of a load one loop runs: its share of the connections, the clock, and when
//! to stop.

use crate::config::LoadConfig;
use crate::ledger::Clock;
use crate::live::Live;
use crate::schedule::Pacer;
use std::sync::atomic::{AtomicBool, Ordering};

/// The part of a load one loop runs.
#[derive(Debug, Clone)]
pub struct LoopSpec<'a> {
    pub config: &'a LoadConfig,
    /// This loop's number, 0-based.
    pub index: usize,
    /// Connections this loop holds.
    pub connections: usize,
    pub clock: Clock,
    /// Loop-clock nanosecond at which measuring starts (the warm-up ends).
    pub measure_start: u64,
    /// Loop-clock nanosecond at which no request may start (duration loads).
    pub end: Option<u64>,
    /// Measured requests this loop starts (request-count loads).
    pub budget: Option<u64>,
    /// Set from outside (Ctrl-C) to stop the load early.
    pub interrupt: &'a AtomicBool,
    /// Where the loop publishes its response count at each tick.
    pub live: &'a Live,
    /// Open loop: this loop's share of the rate schedule.
    pub pacer: Option<Pacer>,
    /// Device load: this loop's devices are `offset + k * stride`.
    pub devices: Option<(u64, u64)>,
}

impl LoopSpec<'_> {
    /// How often timeouts, reconnects and the stop conditions are checked.
    pub fn tick_ns(&self) -> u64 {
        let timeout = self.config.timeout.as_nanos() as u64;
        (timeout / 10).clamp(1_000_000, 50_000_000)
    }

    /// True when the user asked the load to stop.
    pub fn interrupted(&self) -> bool {
        self.interrupt.load(Ordering::Relaxed)
    }
}
