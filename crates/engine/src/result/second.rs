//! One second of a measured load, as results carry it in their per-second series.

use crate::histcodec::{EncodedHistogram, HistogramError};
use crate::stats::{LoopStats, Second};
use serde::{Deserialize, Serialize};

/// One second of the measured load.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SecondSummary {
    /// 1-based second of measurement.
    pub second: usize,
    pub requests: u64,
    pub errors: u64,
    pub timeouts: u64,
    /// Of the errors, open-loop requests dropped unsent (absent before they were counted).
    #[serde(default)]
    pub dropped: u64,
    pub sent: u64,
    pub connects: u64,
    pub devices: u64,
    pub p50_us: f64,
    pub p90_us: f64,
    pub p99_us: f64,
    /// That second's latency histogram, for exact merging. Kept encoded even in memory:
    /// decoded, each second costs 18 KiB, and only a merge or an interval log reads it.
    #[serde(default)]
    pub hist: EncodedHistogram,
}

impl SecondSummary {
    /// The summary of second `i` (0-based) of a run.
    pub fn of(i: usize, s: &Second) -> SecondSummary {
        let p = |q: f64| {
            if s.latency.is_empty() {
                0.0
            } else {
                s.latency.value_at_quantile(q) as f64 / 1000.0
            }
        };
        SecondSummary {
            hist: EncodedHistogram::encode(&s.latency),
            second: i + 1,
            requests: s.requests,
            errors: s.errors,
            timeouts: s.timeouts,
            dropped: s.dropped,
            sent: s.sent,
            connects: s.connects,
            devices: s.devices,
            p50_us: p(0.5),
            p90_us: p(0.9),
            p99_us: p(0.99),
        }
    }

    /// The second this summary was made of, histogram decoded (for exact merging).
    pub fn to_second(&self) -> Result<Second, HistogramError> {
        let mut s = Second::new();
        if let Some(h) = self.hist.decode()? {
            s.latency = h;
        }
        s.requests = self.requests;
        s.errors = self.errors;
        s.timeouts = self.timeouts;
        s.dropped = self.dropped;
        s.sent = self.sent;
        s.connects = self.connects;
        s.devices = self.devices;
        Ok(s)
    }
}

/// The per-second series of merged stats.
pub fn per_second(stats: &LoopStats) -> Vec<SecondSummary> {
    stats
        .seconds
        .iter()
        .enumerate()
        .map(|(i, s)| SecondSummary::of(i, s))
        .collect()
}
