//! A loop's books: the clock, the measured window, the request budget, and the stats.

use crate::event_loop::Gather;
use crate::h2::{H2Books, PeerSettings};
use crate::outcome::{Counts, Outcome};
use crate::stats::LoopStats;
use crate::tls::{Failure, Negotiated};
use crate::ws::WsBooks;
use std::time::Instant;

/// When a request was meant to be sent and when it was; equal in a closed loop.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stamp {
    /// Nanosecond the schedule intended (latency corrected for coordinated omission).
    pub intended: u64,
    /// Nanosecond the request was put on its connection (raw latency).
    pub sent: u64,
}

/// Monotonic nanoseconds since a base instant shared by every loop of a load.
#[derive(Debug, Clone, Copy)]
pub struct Clock {
    base: Instant,
}

impl Clock {
    /// A clock counting from `base`.
    pub fn new(base: Instant) -> Clock {
        Clock { base }
    }

    /// Nanoseconds since the base.
    #[inline]
    pub fn now(&self) -> u64 {
        self.base.elapsed().as_nanos() as u64
    }
}

/// An open-loop request that starts more than this after its due time counts as late:
/// about the loops' timer resolution.
pub const LATE_NS: u64 = 1_000_000;

/// Decides which requests may start and records how each one ended.
///
/// Only requests started at or after `measure_start` are recorded: warm-up requests
/// neither count as started nor as finished, so the measured counts still add up.
/// Events of connections rather than requests (connects, bytes, closes by the server,
/// unsolicited bytes, exhausted ports) are recorded when they happen at or after
/// `measure_start`.
#[derive(Debug)]
pub struct Ledger {
    stats: LoopStats,
    /// Every response, warm-up included: what a progress display shows.
    responses_seen: u64,
    measure_start: u64,
    /// Nanosecond at which no request may start any more (duration loads).
    end: Option<u64>,
    /// Measured requests this loop may still start (request-count loads).
    budget: Option<u64>,
    timeout: u64,
    /// Requests started and not yet ended (warm-up included): what the loop waits on.
    in_flight: u64,
    /// A moving average of response times (raw, from the send), for how long the loop
    /// may let completions gather (event_loop/gather.rs).
    recent_ns: u64,
    /// A closed loop: every request goes when it is meant to, so its raw latency is its
    /// corrected one; the raw histogram is then made once from the corrected at the end
    /// instead of recording each answer twice.
    closed: bool,
}

/// Seconds of per-second series the books hold before the series grows: an hour, a few
/// hundred kB of address space per loop, touched only as seconds pass. Reserved up front
/// so that a new second costs exactly one allocation (its histogram) and never a copy of
/// the series mid-load: the request path's allocations can then be counted exactly
/// (tests/allocations.rs).
const SERIES_RESERVED: usize = 3600;

impl Ledger {
    /// Books for a loop that measures from `measure_start` until `end` or `budget` runs out.
    pub fn new(measure_start: u64, end: Option<u64>, budget: Option<u64>, timeout: u64) -> Ledger {
        let mut stats = LoopStats::default();
        stats.seconds.reserve_exact(SERIES_RESERVED);
        Ledger {
            stats,
            responses_seen: 0,
            measure_start,
            end,
            budget,
            timeout,
            in_flight: 0,
            recent_ns: 0,
            closed: false,
        }
    }

    /// Books for a closed loop, whose requests all go when they are meant to.
    pub fn closed(mut self) -> Ledger {
        self.closed = true;
        self
    }

    /// How long the loop may let completions gather now, on connections that each hold
    /// up to `depth` requests (pipelined, HTTP/2 streams, WebSocket messages in flight).
    /// A completion is a connection's, not a request's: a connection whose answers came
    /// together is one event and one receive, so the count to wait for is of connections
    /// with requests in flight, about `in_flight / depth` of them when each is full.
    #[inline]
    pub fn gather(&self, depth: usize) -> Gather {
        let connections = self.in_flight / (depth.max(1) as u64);
        Gather::of(connections, self.recent_ns)
    }

    /// Books for a TLS load: handshakes and TLS failures are kept too.
    pub fn with_tls(mut self) -> Ledger {
        self.stats.tls = Some(Box::default());
        self
    }

    /// Books for an HTTP/2 load: streams, resets, GOAWAYs and errors are kept too.
    pub fn with_h2(mut self) -> Ledger {
        self.stats.h2 = Some(Box::default());
        self
    }

    /// Books for a WebSocket load: upgrades, refusals, closes and protocol errors too.
    pub fn with_ws(mut self) -> Ledger {
        self.stats.ws = Some(Box::default());
        self
    }

    /// The WebSocket books, for an event at `now` while measuring (None otherwise).
    #[inline]
    pub fn ws(&mut self, now: u64) -> Option<&mut WsBooks> {
        match self.measuring(now) {
            true => self.stats.ws.as_deref_mut(),
            false => None,
        }
    }

    /// An answer with `status` that is not a request's own arrived at `now` (a refused
    /// WebSocket upgrade): its status is counted.
    pub fn status_seen(&mut self, status: u16, now: u64) {
        if let Some(n) = (self.measuring(now))
            .then(|| self.stats.status_codes.get_mut(status as usize))
            .flatten()
        {
            *n += 1;
        }
    }

    /// The HTTP/2 books, for an event at `now` while measuring (None otherwise).
    #[inline]
    pub fn h2(&mut self, now: u64) -> Option<&mut H2Books> {
        match self.measuring(now) {
            true => self.stats.h2.as_deref_mut(),
            false => None,
        }
    }

    /// What the server's SETTINGS said, kept from the loop's first (warm-up included).
    pub fn h2_settings(&mut self, settings: PeerSettings) {
        if let Some(books) = self.stats.h2.as_mut() {
            books.settings.get_or_insert(settings);
        }
    }

    /// The per-request timeout in nanoseconds.
    #[inline]
    pub fn timeout(&self) -> u64 {
        self.timeout
    }

    /// True once the warm-up is over.
    #[inline]
    pub fn measuring(&self, t: u64) -> bool {
        t >= self.measure_start
    }

    /// Every response so far, warm-up included.
    #[inline]
    pub fn responses_seen(&self) -> u64 {
        self.responses_seen
    }

    /// The measured requests' outcomes so far.
    #[inline]
    pub fn counts(&self) -> &Counts {
        &self.stats.counts
    }

    /// Hands over what was measured, leaving empty books.
    pub fn take_stats(&mut self) -> LoopStats {
        let mut stats = std::mem::take(&mut self.stats);
        if self.closed {
            stats.latency_raw = stats.latency.clone();
        }
        stats
    }

    /// How many of `wanted` requests may start at `now`, taking them from the budget.
    #[inline]
    pub fn take(&mut self, wanted: u32, now: u64) -> u32 {
        self.take_due(wanted, now, now)
    }

    /// How many of `wanted` requests meant for `due` (an open loop's due time; `now` in a
    /// closed loop) may start at `now`, taking them from the budget. A request is measured
    /// by when it was meant to go (as its latency is), so only those due after the warm-up
    /// count against the budget: with `-n N` exactly N are measured.
    #[inline]
    pub fn take_due(&mut self, wanted: u32, due: u64, now: u64) -> u32 {
        let n = self.budgeted(wanted as u64, due, now) as u32;
        self.in_flight += n as u64;
        if n > 0 && due >= self.measure_start {
            let second = self.second(now);
            self.stats.second(second).sent += n as u64;
        }
        n
    }

    /// How many of `wanted` requests due at `due` the load still allows at `now`, taken
    /// from the budget.
    #[inline]
    fn budgeted(&mut self, wanted: u64, due: u64, now: u64) -> u64 {
        if self.end.is_some_and(|end| now >= end) {
            return 0;
        }
        match &mut self.budget {
            Some(left) if due >= self.measure_start => {
                let n = (*left).min(wanted);
                *left -= n;
                n
            }
            _ => wanted,
        }
    }

    /// An open-loop request due at `due` found no connection to take it, and at `now` its
    /// timeout has passed: it is dropped, never sent. False when the load allows no more
    /// requests (the budget is spent, or the duration is over): there was none to drop.
    #[inline]
    pub fn dropped(&mut self, due: u64, now: u64) -> bool {
        if self.budgeted(1, due, now) == 0 {
            return false;
        }
        if due >= self.measure_start {
            let second = self.second(now);
            self.stats.record_error(Outcome::Dropped, second);
        }
        true
    }

    /// At the stop, an open-loop request came due at `due` and was neither sent nor
    /// dropped: counted as still due if it is one of the measured window's (after the
    /// warm-up, before the end) and the budget had room for it. False once the budget or
    /// the window holds no more: no later request can be either.
    pub fn still_due(&mut self, due: u64) -> bool {
        if self.end.is_some_and(|end| due >= end) {
            return false;
        }
        if due < self.measure_start {
            return true;
        }
        match &mut self.budget {
            Some(0) => return false,
            Some(left) => *left -= 1,
            None => {}
        }
        self.stats.still_due += 1;
        true
    }

    /// True when no more requests will ever start.
    pub fn exhausted(&self, now: u64) -> bool {
        self.end.is_some_and(|end| now >= end) || self.budget == Some(0)
    }

    /// The second of measurement that `t` falls in.
    #[inline]
    fn second(&self, t: u64) -> usize {
        (t.saturating_sub(self.measure_start) / 1_000_000_000) as usize
    }

    /// A response to the request stamped `started` arrived at `now`.
    #[inline]
    pub fn response(&mut self, started: Stamp, now: u64, status: u16) {
        if let Some((second, corrected, raw)) = self.answered(started, now) {
            self.stats.record_response(status, corrected, raw, second);
        }
    }

    /// The echo of the WebSocket message stamped `started` arrived at `now`, right.
    #[inline]
    pub fn echoed(&mut self, started: Stamp, now: u64) {
        if let Some((second, corrected, raw)) = self.answered(started, now) {
            self.stats
                .record_answer(Outcome::Ok, corrected, raw, second);
        }
    }

    /// An answer to what was stamped `started` arrived at `now`: the second and latencies
    /// (corrected, and raw unless the loop is closed) to record, if it was measured.
    #[inline]
    fn answered(&mut self, started: Stamp, now: u64) -> Option<(usize, u64, Option<u64>)> {
        self.responses_seen += 1;
        self.ended();
        let raw_ns = now.saturating_sub(started.sent);
        self.recent_ns = self.recent_ns - self.recent_ns / 16 + raw_ns / 16;
        (started.intended >= self.measure_start).then(|| {
            let corrected = now.saturating_sub(started.intended);
            let raw = (!self.closed).then_some(raw_ns);
            (self.second(now), corrected, raw)
        })
    }

    /// The request stamped `started` ended at `now` with an error.
    #[inline]
    pub fn error(&mut self, started: Stamp, now: u64, outcome: Outcome) {
        self.ended();
        if started.intended >= self.measure_start {
            let second = self.second(now);
            self.stats.record_error(outcome, second);
        }
    }

    /// The request stamped `started` was still pending when the load stopped.
    pub fn in_flight(&mut self, started: Stamp) {
        self.ended();
        if started.intended >= self.measure_start {
            self.stats.counts.in_flight += 1;
        }
    }

    /// A request ended (answered, failed, or left in flight at the stop).
    #[inline]
    fn ended(&mut self) {
        self.in_flight = self.in_flight.saturating_sub(1);
    }

    /// An open-loop request due at `due` started at `now`; counts it if it is late, as
    /// waiting for a free connection when `backlogged` (the server's doing) or else as
    /// late (the generator's).
    #[inline]
    pub fn started_due(&mut self, due: u64, now: u64, backlogged: bool) {
        if due >= self.measure_start && now.saturating_sub(due) > LATE_NS {
            match backlogged {
                true => self.stats.waited += 1,
                false => self.stats.late += 1,
            }
        }
    }

    /// `n` devices are active at `now` (device loads).
    #[inline]
    pub fn devices(&mut self, n: usize, now: u64) {
        // Past the end nothing is measured; a sample there would open an empty second.
        if now >= self.measure_start && self.end.is_none_or(|end| now < end) {
            let second = self.second(now);
            self.stats.second(second).devices = n as u64;
        }
    }

    /// A connect begun at `started` completed at `now`.
    #[inline]
    pub fn connected(&mut self, started: u64, now: u64) {
        if self.measuring(now) {
            self.stats.connections_opened += 1;
            self.stats.record_connect(now.saturating_sub(started));
            let second = self.second(now);
            self.stats.second(second).connects += 1;
        }
    }

    /// A TLS handshake begun at `started` completed at `now`, `resumed` or full.
    pub fn handshake(&mut self, started: u64, now: u64, resumed: bool) {
        if let Some(tls) = self
            .measuring(now)
            .then_some(self.stats.tls.as_mut())
            .flatten()
        {
            tls.record_handshake(now.saturating_sub(started), resumed);
        }
    }

    /// True until a handshake has said what it settled on (warm-up included): only the
    /// loop's first is kept.
    pub fn wants_negotiated(&self) -> bool {
        self.stats
            .tls
            .as_ref()
            .is_some_and(|t| t.negotiated.is_none())
    }

    /// What the loop's first handshake settled on.
    pub fn negotiated(&mut self, negotiated: Negotiated) {
        if let Some(tls) = self.stats.tls.as_mut() {
            tls.negotiated.get_or_insert(negotiated);
        }
    }

    /// A TLS connection failed at `now` for `failure`.
    pub fn tls_failed(&mut self, failure: Failure, now: u64) {
        if let Some(tls) = self
            .measuring(now)
            .then_some(self.stats.tls.as_mut())
            .flatten()
        {
            tls.record_failure(failure);
        }
    }

    /// `n` bytes arrived at `now`.
    #[inline]
    pub fn read(&mut self, n: usize, now: u64) {
        if self.measuring(now) {
            self.stats.bytes_read += n as u64;
        }
    }

    /// `n` bytes were written at `now`.
    #[inline]
    pub fn wrote(&mut self, n: usize, now: u64) {
        if self.measuring(now) {
            self.stats.bytes_written += n as u64;
        }
    }

    /// The server closed a connection at `now`, announced or not.
    #[inline]
    pub fn closed_by_server(&mut self, now: u64) {
        if self.measuring(now) {
            self.stats.closed_by_server += 1;
        }
    }

    /// Bytes beyond a response's framing arrived at `now`.
    #[inline]
    pub fn unsolicited(&mut self, now: u64) {
        if self.measuring(now) {
            self.stats.unsolicited += 1;
        }
    }

    /// A connect failed at `now` for lack of a free local port.
    pub fn port_exhausted(&mut self, now: u64) {
        if self.measuring(now) {
            self.stats.port_exhaustion += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warmup_requests_are_not_recorded() {
        let at = |t| Stamp {
            intended: t,
            sent: t,
        };
        let mut l = Ledger::new(100, None, None, 10);
        l.response(at(50), 150, 200);
        l.error(at(60), 150, Outcome::Read);
        l.in_flight(at(99));
        assert_eq!(l.stats.counts.total(), 0);
        l.response(at(100), 150, 200);
        l.in_flight(at(120));
        assert_eq!(l.stats.counts.ok, 1);
        assert_eq!(l.stats.counts.total(), 2);
    }

    #[test]
    fn a_closed_loops_raw_latency_is_its_corrected_one() {
        let at = |t| Stamp {
            intended: t,
            sent: t,
        };
        let mut l = Ledger::new(0, None, None, 10).closed();
        l.response(at(10), 2_010, 200);
        l.response(at(20), 5_020, 200);
        let s = l.take_stats();
        assert_eq!(s.latency.len(), 2);
        assert_eq!(s.latency_raw, s.latency);
    }

    #[test]
    fn the_gather_counts_connections_not_the_requests_they_hold() {
        let mut l = Ledger::new(0, None, None, 10);
        assert_eq!(l.take(800, 0), 800);
        l.recent_ns = 5_000_000;
        // 800 requests on 800 connections: wait for a hundred of them.
        assert_eq!(l.gather(1).completions, 100);
        // The same 800 as 16 in flight on each of 50 connections: 50 events at most
        // come, so waiting for a hundred would sleep the whole wait every pass.
        assert_eq!(l.gather(16).completions, 6);
        // 800 over 800 connections of 2 cannot be told from 400 full ones: the fewer.
        assert_eq!(l.gather(2).completions, 50);
    }

    #[test]
    fn connection_events_count_from_the_end_of_the_warmup() {
        let mut l = Ledger::new(100, None, None, 10);
        let events = |l: &mut Ledger, now| {
            l.connected(now - 5, now);
            l.read(7, now);
            l.wrote(3, now);
            l.closed_by_server(now);
            l.unsolicited(now);
            l.port_exhausted(now);
        };
        events(&mut l, 99);
        let s = l.take_stats();
        let counted = |s: &LoopStats| {
            [
                s.connections_opened,
                s.bytes_read,
                s.bytes_written,
                s.closed_by_server,
                s.unsolicited,
                s.port_exhaustion,
            ]
        };
        assert_eq!(counted(&s), [0; 6]);
        events(&mut l, 100);
        assert_eq!(counted(&l.take_stats()), [1, 7, 3, 1, 1, 1]);
    }

    #[test]
    fn budget_applies_only_after_warmup_and_end_stops_everything() {
        let mut l = Ledger::new(100, None, Some(3), 10);
        assert_eq!(l.take(5, 10), 5);
        assert_eq!(l.take(2, 100), 2);
        assert_eq!(l.take(2, 101), 1);
        assert_eq!(l.take(2, 102), 0);
        assert!(l.exhausted(102));
        let mut d = Ledger::new(0, Some(50), None, 10);
        assert_eq!(d.take(1, 49), 1);
        assert_eq!(d.take(1, 50), 0);
        assert!(d.exhausted(50));
    }

    #[test]
    fn an_open_loops_requests_count_by_their_due_time_sent_dropped_or_still_due() {
        let mut l = Ledger::new(100, None, Some(3), 10);
        // Due in the warm-up: neither measured nor taken from the budget, when they go
        // and when they are dropped.
        assert_eq!(l.take_due(1, 50, 120), 1);
        assert!(l.dropped(90, 130));
        // Due after it: each takes one of the 3 of the budget.
        assert!(l.dropped(100, 130));
        assert_eq!(l.take_due(1, 105, 130), 1);
        assert!(l.still_due(99), "the warm-up's is passed over");
        assert!(l.still_due(110));
        // The budget is spent: nothing more to drop or wait for.
        assert!(!l.dropped(111, 131));
        assert!(!l.still_due(112));
        assert!(l.exhausted(131));
        let s = l.take_stats();
        assert_eq!((s.counts.dropped, s.still_due), (1, 1));
        assert_eq!((s.seconds[0].sent, s.seconds[0].dropped), (1, 1));
        // A duration's window ends at its end: a request due then is in none.
        let mut d = Ledger::new(0, Some(50), None, 10);
        assert!(d.still_due(49) && !d.still_due(50));
        assert!(!d.dropped(10, 50), "nothing is dropped past the end");
        assert_eq!(d.take_stats().still_due, 1);
    }
}
