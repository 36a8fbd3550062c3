//! What a WebSocket load counts besides its messages' outcomes: the upgrades (and their
//! time), upgrades refused by reason, protocol errors the client found by kind, close
//! frames the server sent by code, pings answered, and the client's close handshakes.
//! A loop counts into fixed slots; names are given in its result.

use super::handshake::Refusal;
use super::violation::Violation;
use crate::stats::latency_histogram;
use hdrhistogram::Histogram;
use std::collections::BTreeMap;

/// Distinct close codes kept; any further code counts as `other`.
const CODES: usize = 8;

/// Close frames by code, in fixed slots.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CloseCodes {
    /// (code, count) pairs; a count of 0 is a free slot.
    slots: [(u16, u64); CODES],
    other: u64,
}

impl CloseCodes {
    /// Counts one close with `code` (None: a close without one, RFC 6455's 1005).
    pub fn add(&mut self, code: Option<u16>) {
        self.add_n(code.unwrap_or(1005), 1);
    }

    /// Counts `n` closes with `code`. Slots fill in order and are never freed, so a
    /// code's own slot comes before any free one.
    fn add_n(&mut self, code: u16, n: u64) {
        let slot = (self.slots.iter_mut()).find(|(c, count)| *c == code || *count == 0);
        match slot {
            Some(slot) => *slot = (code, slot.1 + n),
            None => self.other += n,
        }
    }

    pub fn merge(&mut self, other: &CloseCodes) {
        for &(code, n) in other.slots.iter().filter(|(_, n)| *n > 0) {
            self.add_n(code, n);
        }
        self.other += other.other;
    }

    /// The counts by code's number (`other` for codes past the slots).
    pub fn named(&self) -> BTreeMap<String, u64> {
        let codes = self.slots.iter().filter(|(_, n)| *n > 0);
        let mut named: BTreeMap<String, u64> = codes.map(|(c, n)| (c.to_string(), *n)).collect();
        if self.other > 0 {
            named.insert("other".into(), self.other);
        }
        named
    }
}

/// Counts by a fixed list of reasons (`N` of them, named by `name`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ByReason<const N: usize>([u64; N]);

impl<const N: usize> Default for ByReason<N> {
    fn default() -> Self {
        ByReason([0; N])
    }
}

impl<const N: usize> ByReason<N> {
    pub fn add(&mut self, index: usize) {
        self.0[index] += 1;
    }

    pub fn merge(&mut self, other: &ByReason<N>) {
        for (mine, theirs) in self.0.iter_mut().zip(other.0) {
            *mine += theirs;
        }
    }

    /// The non-zero counts by name.
    pub fn named(&self, name: impl Fn(usize) -> &'static str) -> BTreeMap<String, u64> {
        (0..N)
            .filter(|&i| self.0[i] > 0)
            .map(|i| (name(i).to_string(), self.0[i]))
            .collect()
    }
}

/// One loop's WebSocket books (measured connections only, as every count).
#[derive(Debug, Clone)]
pub struct WsBooks {
    /// From the upgrade request queued (the connection, or TLS, up) to the 101 read.
    pub upgrade: Histogram<u64>,
    /// Upgrades refused (each connection's pending messages are `ws`).
    pub refusals: ByReason<{ Refusal::ALL.len() }>,
    /// Connections the client failed because the server broke the protocol.
    pub errors: ByReason<{ Violation::ALL.len() }>,
    /// Close frames the server sent while messages were going (not answers to the
    /// client's close at the end).
    pub closes: CloseCodes,
    /// Pings the server sent, each answered with a pong.
    pub pings: u64,
    /// Messages that came when none was awaited.
    pub unsolicited: u64,
    /// Close handshakes the client began (at the end, after a connection's messages, when
    /// a device left), and those the server answered.
    pub goodbyes: u64,
    pub goodbyes_answered: u64,
}

impl Default for WsBooks {
    fn default() -> Self {
        WsBooks {
            upgrade: latency_histogram(),
            refusals: ByReason::default(),
            errors: ByReason::default(),
            closes: CloseCodes::default(),
            pings: 0,
            unsolicited: 0,
            goodbyes: 0,
            goodbyes_answered: 0,
        }
    }
}

impl WsBooks {
    /// An upgrade answered with 101 after `ns`.
    pub fn record_upgrade(&mut self, ns: u64) {
        self.upgrade.saturating_record(ns.max(1));
    }

    pub fn refused(&mut self, refusal: Refusal) {
        self.refusals.add(refusal as usize);
    }

    pub fn violated(&mut self, violation: Violation) {
        self.errors.add(violation as usize);
    }

    pub fn merge(&mut self, other: &WsBooks) {
        let _ = self.upgrade.add(&other.upgrade);
        self.refusals.merge(&other.refusals);
        self.errors.merge(&other.errors);
        self.closes.merge(&other.closes);
        self.pings += other.pings;
        self.unsolicited += other.unsolicited;
        self.goodbyes += other.goodbyes;
        self.goodbyes_answered += other.goodbyes_answered;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_codes_merge_by_code_and_overflow_into_other() {
        let mut a = CloseCodes::default();
        for code in [1000, 1000, 1011] {
            a.add(Some(code));
        }
        let mut b = CloseCodes::default();
        b.add(None);
        b.add(Some(1011));
        for code in 4000..4008 {
            b.add(Some(code));
        }
        a.merge(&b);
        let named = a.named();
        assert_eq!(named["1000"], 2);
        assert_eq!(named["1011"], 2);
        assert_eq!(named["1005"], 1);
        assert_eq!(named.values().sum::<u64>(), 13);
        assert_eq!(named["other"], 13 - 2 - 2 - 1 - 5);
    }
}
