//! Per-loop measurements: outcome counts, latency histograms, and a per-second series.
//!
//! Each event loop owns one `LoopStats` and never shares it while running; the runner
//! merges them at the end, so the request path takes no lock.

use crate::h2::H2Books;
use crate::outcome::{Counts, Outcome};
use crate::tls::{Failure, Failures, Negotiated};
use crate::ws::WsBooks;
use hdrhistogram::Histogram;

/// Longest latency a histogram holds, in nanoseconds (one hour).
const MAX_NS: u64 = 3_600_000_000_000;

/// A latency histogram in nanoseconds, 3 significant digits.
pub fn latency_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, MAX_NS, 3).expect("constant histogram bounds are valid")
}

/// A smaller histogram for one second of one loop: 2 significant digits.
fn second_histogram() -> Histogram<u32> {
    Histogram::new_with_bounds(1, MAX_NS, 2).expect("constant histogram bounds are valid")
}

/// What one second of the measured load did.
#[derive(Debug, Clone)]
pub struct Second {
    /// Responses (ok or status) that finished in this second.
    pub requests: u64,
    /// Requests that ended in an error class in this second.
    pub errors: u64,
    /// Of those errors, timeouts.
    pub timeouts: u64,
    /// Of those errors, open-loop requests dropped unsent.
    pub dropped: u64,
    /// Requests started in this second.
    pub sent: u64,
    /// Connections established in this second.
    pub connects: u64,
    /// Devices active at the end of this second (device loads).
    pub devices: u64,
    /// Latency of the responses that finished in this second.
    pub latency: Histogram<u32>,
}

impl Default for Second {
    fn default() -> Self {
        Second::new()
    }
}

impl Second {
    /// An empty second.
    pub fn new() -> Second {
        Second {
            requests: 0,
            errors: 0,
            timeouts: 0,
            dropped: 0,
            sent: 0,
            connects: 0,
            devices: 0,
            latency: second_histogram(),
        }
    }

    /// Adds another loop's (or shard's) same second to this one.
    pub fn merge(&mut self, other: &Second) {
        self.requests += other.requests;
        self.errors += other.errors;
        self.timeouts += other.timeouts;
        self.dropped += other.dropped;
        self.sent += other.sent;
        self.connects += other.connects;
        self.devices += other.devices;
        // Same bounds on both sides, so adding cannot fail.
        let _ = self.latency.add(&other.latency);
    }
}

/// Everything one loop measured.
#[derive(Debug, Clone)]
pub struct LoopStats {
    pub counts: Counts,
    /// Latency of every response (ok or status) from its intended send time, in
    /// nanoseconds: corrected for coordinated omission (equal to raw in a closed loop).
    pub latency: Histogram<u64>,
    /// Latency from the actual send, in nanoseconds.
    pub latency_raw: Histogram<u64>,
    /// Time to establish each new connection, in nanoseconds.
    pub connect: Histogram<u64>,
    /// Responses by status code, indexed by code (100..=999).
    pub status_codes: Vec<u64>,
    pub bytes_read: u64,
    pub bytes_written: u64,
    pub connections_opened: u64,
    /// Connections the server closed (announced or not).
    pub closed_by_server: u64,
    /// Bytes that arrived when no request was pending (a response longer than its framing).
    pub unsolicited: u64,
    /// Connects that failed because no local address/port was free.
    pub port_exhaustion: u64,
    /// Open-loop requests that started more than a millisecond after they were due.
    pub late: u64,
    /// Open-loop requests that started late because every connection was busy.
    pub waited: u64,
    /// Open-loop requests due in the measured window that were neither sent nor dropped
    /// when the loop stopped (they waited for a connection).
    pub still_due: u64,
    /// One entry per second of measurement.
    pub seconds: Vec<Second>,
    /// A TLS load's handshakes and failures (None in clear text: no histogram to carry).
    pub tls: Option<Box<TlsStats>>,
    /// An HTTP/2 load's books beside its requests (None over HTTP/1.1).
    pub h2: Option<Box<H2Books>>,
    /// A WebSocket load's books beside its messages (None over HTTP).
    pub ws: Option<Box<WsBooks>>,
    /// CPU time of the loop's thread while measuring, in seconds.
    pub user_seconds: f64,
    pub sys_seconds: f64,
    /// Loop-clock nanosecond at which the loop stopped.
    pub ended_ns: u64,
}

impl Default for LoopStats {
    fn default() -> Self {
        LoopStats {
            counts: Counts::default(),
            latency: latency_histogram(),
            latency_raw: latency_histogram(),
            connect: latency_histogram(),
            status_codes: vec![0; 1000],
            bytes_read: 0,
            bytes_written: 0,
            connections_opened: 0,
            closed_by_server: 0,
            unsolicited: 0,
            port_exhaustion: 0,
            late: 0,
            waited: 0,
            still_due: 0,
            seconds: Vec::new(),
            tls: None,
            h2: None,
            ws: None,
            user_seconds: 0.0,
            sys_seconds: 0.0,
            ended_ns: 0,
        }
    }
}

impl LoopStats {
    /// Records a response that took `latency_ns` (corrected) and `raw_ns` (from the
    /// actual send; None in a closed loop, where it is the corrected one and the ledger
    /// copies the whole histogram at the end), finishing in second `second`.
    #[inline]
    pub fn record_response(
        &mut self,
        status: u16,
        latency_ns: u64,
        raw_ns: Option<u64>,
        second: usize,
    ) {
        if let Some(n) = self.status_codes.get_mut(status as usize) {
            *n += 1;
        }
        let outcome = match status < 400 {
            true => Outcome::Ok,
            false => Outcome::Status,
        };
        self.record_answer(outcome, latency_ns, raw_ns, second);
    }

    /// Records an answer (a response, or a WebSocket message's echo) that ended as
    /// `outcome` (ok or status) after `latency_ns` (corrected) and `raw_ns` (as
    /// [`LoopStats::record_response`] takes it), in `second`.
    #[inline]
    pub fn record_answer(
        &mut self,
        outcome: Outcome,
        latency_ns: u64,
        raw_ns: Option<u64>,
        second: usize,
    ) {
        self.counts.add(outcome);
        let latency_ns = latency_ns.clamp(1, MAX_NS);
        self.latency.saturating_record(latency_ns);
        if let Some(raw_ns) = raw_ns {
            self.latency_raw.saturating_record(raw_ns.clamp(1, MAX_NS));
        }
        let s = self.second(second);
        s.requests += 1;
        s.latency.saturating_record(latency_ns);
    }

    /// Records a request that ended with an error class, in second `second`.
    #[inline]
    pub fn record_error(&mut self, outcome: Outcome, second: usize) {
        self.counts.add(outcome);
        let s = self.second(second);
        s.errors += 1;
        s.timeouts += u64::from(outcome == Outcome::Timeout);
        s.dropped += u64::from(outcome == Outcome::Dropped);
    }

    /// Records how long a connect took.
    #[inline]
    pub fn record_connect(&mut self, ns: u64) {
        self.connect.saturating_record(ns.clamp(1, MAX_NS));
    }

    /// The entry for second `i`, creating the missing ones (once a second, not per request).
    #[inline]
    pub fn second(&mut self, i: usize) -> &mut Second {
        while self.seconds.len() <= i {
            self.seconds.push(Second::new());
        }
        &mut self.seconds[i]
    }

    /// Adds another loop's measurements to these.
    pub fn merge(&mut self, other: &LoopStats) {
        self.counts.merge(&other.counts);
        // Same bounds everywhere, so adding cannot fail.
        let _ = self.latency.add(&other.latency);
        let _ = self.latency_raw.add(&other.latency_raw);
        let _ = self.connect.add(&other.connect);
        for (a, b) in self.status_codes.iter_mut().zip(&other.status_codes) {
            *a += b;
        }
        self.bytes_read += other.bytes_read;
        self.bytes_written += other.bytes_written;
        self.connections_opened += other.connections_opened;
        self.closed_by_server += other.closed_by_server;
        self.unsolicited += other.unsolicited;
        self.port_exhaustion += other.port_exhaustion;
        self.late += other.late;
        self.waited += other.waited;
        self.still_due += other.still_due;
        for (i, s) in other.seconds.iter().enumerate() {
            self.second(i).merge(s);
        }
        if let Some(theirs) = &other.tls {
            self.tls.get_or_insert_with(Default::default).merge(theirs);
        }
        if let Some(theirs) = &other.h2 {
            self.h2.get_or_insert_with(Default::default).merge(theirs);
        }
        if let Some(theirs) = &other.ws {
            self.ws.get_or_insert_with(Default::default).merge(theirs);
        }
        self.user_seconds += other.user_seconds;
        self.sys_seconds += other.sys_seconds;
        self.ended_ns = self.ended_ns.max(other.ended_ns);
    }
}

/// What a TLS loop measured beside its requests.
#[derive(Debug, Clone)]
pub struct TlsStats {
    /// Time from the TCP connect's end to the handshake's, in nanoseconds.
    pub handshake: Histogram<u64>,
    /// Handshakes that did the full key exchange and certificate check.
    pub full: u64,
    /// Handshakes that resumed an earlier session.
    pub resumed: u64,
    pub failures: Failures,
    /// What the first handshake settled on (merged: see [`Negotiated::merged`]).
    pub negotiated: Option<Negotiated>,
}

impl Default for TlsStats {
    fn default() -> Self {
        TlsStats {
            handshake: latency_histogram(),
            full: 0,
            resumed: 0,
            failures: Failures::default(),
            negotiated: None,
        }
    }
}

impl TlsStats {
    /// Records a handshake that took `ns`.
    pub fn record_handshake(&mut self, ns: u64, resumed: bool) {
        self.handshake.saturating_record(ns.clamp(1, MAX_NS));
        match resumed {
            true => self.resumed += 1,
            false => self.full += 1,
        }
    }

    /// Records a failed TLS connection.
    pub fn record_failure(&mut self, failure: Failure) {
        self.failures.add(failure);
    }

    /// Adds another loop's.
    pub fn merge(&mut self, other: &TlsStats) {
        let _ = self.handshake.add(&other.handshake);
        self.full += other.full;
        self.resumed += other.resumed;
        self.failures.merge(&other.failures);
        self.negotiated = Negotiated::merged(self.negotiated.iter().chain(&other.negotiated));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_adds_counts_histograms_and_seconds() {
        let mut a = LoopStats::default();
        a.record_response(200, 1_000, Some(1_000), 0);
        a.record_error(Outcome::Timeout, 2);
        let mut b = LoopStats::default();
        b.record_response(503, 3_000, Some(2_000), 1);
        a.merge(&b);
        assert_eq!(a.counts.ok, 1);
        assert_eq!(a.counts.status, 1);
        assert_eq!(a.counts.timeout, 1);
        assert_eq!(a.latency.len(), 2);
        assert_eq!(a.status_codes[503], 1);
        assert_eq!(a.seconds.len(), 3);
        assert_eq!(a.seconds[1].requests, 1);
        assert_eq!(a.seconds[2].errors, 1);
    }
}
