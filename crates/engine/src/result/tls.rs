//! What a TLS load adds to its result: the handshakes, what they settled on, and why TLS
//! connections failed.

use super::Percentiles;
use crate::stats::TlsStats;
use crate::tls::Negotiated;
use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A TLS load's handshakes and failures (absent from a clear-text load's result).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct TlsSummary {
    /// What the first handshake of each loop settled on; merged, a field the loops or
    /// shards disagree on reads `mixed`. Absent when no handshake finished.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub negotiated: Option<Negotiated>,
    /// Handshakes finished while measuring that did the full key exchange.
    pub full: u64,
    /// Handshakes finished while measuring that resumed an earlier session.
    pub resumed: u64,
    /// Time from the end of the TCP connect to the end of the handshake.
    pub handshake_us: Percentiles,
    /// Failed TLS connections by reason: `alert:NAME` (an alert the server sent),
    /// `certificate:PROBLEM`, `bad_record`, `decrypt_error`, `unexpected_message`,
    /// `incompatible`, `peer_misbehaved`, `record_overflow`, `truncated`,
    /// `closed_in_handshake`, `handshake_timeout` (its requests are timeouts), `other`.
    #[serde(default)]
    pub failures: BTreeMap<String, u64>,
}

impl TlsSummary {
    /// The summary of a loop's (or merged loops') TLS books.
    pub fn of(stats: &TlsStats) -> TlsSummary {
        TlsSummary {
            negotiated: stats.negotiated.clone(),
            full: stats.full,
            resumed: stats.resumed,
            handshake_us: Percentiles::of(&stats.handshake),
            failures: stats.failures.named(),
        }
    }

    /// Every handshake finished while measuring.
    pub fn handshakes(&self) -> u64 {
        self.full + self.resumed
    }

    /// The summaries of shards merged: counts add, `handshake` is their merged histogram.
    pub fn merged<'a>(
        parts: impl IntoIterator<Item = &'a TlsSummary>,
        handshake: &Histogram<u64>,
    ) -> TlsSummary {
        let parts: Vec<&TlsSummary> = parts.into_iter().collect();
        let mut failures = BTreeMap::new();
        for (reason, n) in parts.iter().flat_map(|p| &p.failures) {
            *failures.entry(reason.clone()).or_default() += n;
        }
        TlsSummary {
            negotiated: Negotiated::merged(parts.iter().filter_map(|p| p.negotiated.as_ref())),
            full: parts.iter().map(|p| p.full).sum(),
            resumed: parts.iter().map(|p| p.resumed).sum(),
            handshake_us: Percentiles::of(handshake),
            failures,
        }
    }
}
