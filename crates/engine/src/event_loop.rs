//! What every event loop is given, and what drives both the epoll and the io_uring one.

use crate::config::LoadConfig;
use crate::conn::{Conn, State};
use crate::ledger::{Clock, Ledger};
use crate::request::RequestBytes;
use crate::socket::Dialer;
use std::sync::atomic::{AtomicBool, Ordering};

/// How long a slot waits before reconnecting after a failed connect, so that a refusing
/// server is not hammered in a busy loop.
pub const CONNECT_BACKOFF_NS: u64 = 10_000_000;

/// Read buffer size per loop (shared by all its connections).
pub const READ_BUFFER: usize = 64 * 1024;

/// The part of a load one loop runs.
#[derive(Debug, Clone, Copy)]
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

/// The state both loop kinds share: connections, their start-time rings, the request
/// bytes, the dialer and the books.
pub struct Slots {
    pub conns: Vec<Conn>,
    /// `depth` start times per connection, connection `i` at `i * depth`.
    times: Vec<u64>,
    depth: usize,
    pub req: RequestBytes,
    pub dialer: Dialer,
    pub ledger: Ledger,
    pub keepalive: bool,
}

impl Slots {
    /// Slots for the loop `spec` describes; no socket is opened yet.
    pub fn new(spec: &LoopSpec) -> Slots {
        let c = spec.config;
        let depth = c.pipeline.max(1);
        let timeout = c.timeout.as_nanos() as u64;
        Slots {
            conns: (0..spec.connections).map(|_| Conn::default()).collect(),
            times: vec![0; spec.connections * depth],
            depth,
            req: RequestBytes::new(c),
            dialer: Dialer::new(c.target.addr, true, c.keepalive, spec.index),
            ledger: Ledger::new(spec.measure_start, spec.end, spec.budget, timeout),
            keepalive: c.keepalive,
        }
    }

    /// Connection `slot` with its start-time ring, the request bytes and the books.
    #[inline]
    pub fn parts(&mut self, slot: usize) -> (&mut Conn, &mut [u64], &RequestBytes, &mut Ledger) {
        let times = &mut self.times[slot * self.depth..(slot + 1) * self.depth];
        (&mut self.conns[slot], times, &self.req, &mut self.ledger)
    }

    /// True when no request is pending on any connection.
    pub fn idle(&self) -> bool {
        self.conns.iter().all(|c| c.pending() == 0)
    }

    /// True when the load is over: interrupted, past its end, or out of requests and idle.
    pub fn finished(&self, spec: &LoopSpec, now: u64) -> bool {
        if spec.interrupted() || spec.end.is_some_and(|end| now >= end) {
            return true;
        }
        self.ledger.exhausted(now) && self.idle()
    }

    /// Slots whose reconnect time has come.
    pub fn due_for_reconnect(&self, now: u64) -> impl Iterator<Item = usize> + '_ {
        self.conns
            .iter()
            .enumerate()
            .filter_map(move |(i, c)| match c.state {
                State::Closed { retry_at } if retry_at <= now => Some(i),
                _ => None,
            })
    }
}
