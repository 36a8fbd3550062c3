//! The result of a load. [`LoadResult`] is the result in memory, its histograms real;
//! [`WireResult`] is its JSON (schema [`SCHEMA`]), histograms encoded. The one conversion
//! each way is in [`wire`], and serde goes through it: a result read from JSON has its
//! histograms decoded, or it is an error.

mod figures;
mod h2;
mod second;
mod shard_figures;
mod summary;
mod tls;
mod wire;
mod ws;

pub use figures::{Bytes, ConfigEcho, Connections, Generator, RateSummary};
pub use h2::H2Summary;
pub use second::{per_second, SecondSummary};
pub use shard_figures::ShardFigures;
pub use summary::{Percentiles, Spread};
pub use tls::TlsSummary;
pub use wire::{EncodedHistograms, WireError, WireResult, SCHEMA};
pub use ws::WsSummary;

use crate::outcome::Counts;
use crate::stats::LoopStats;
use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Everything a load measured.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(into = "WireResult", try_from = "WireResult")]
pub struct LoadResult {
    pub url: String,
    /// Wall-clock start of the measurement, Unix milliseconds.
    pub started_unix_ms: u64,
    pub config: ConfigEcho,
    /// Measured seconds (from the end of the warm-up to the stop).
    pub duration_s: f64,
    pub requests: Counts,
    /// Responses (ok and status) per second.
    pub rps: f64,
    pub bytes: Bytes,
    /// Bytes read per second.
    pub transfer_per_s: f64,
    /// Latency from each request's intended send time (corrected for coordinated omission).
    pub latency_us: Percentiles,
    /// Latency from the actual send (equal to `latency_us` in a closed loop).
    pub latency_raw_us: Percentiles,
    /// Open loop only: target and achieved rates.
    pub rate: Option<RateSummary>,
    pub connect_us: Percentiles,
    /// A TLS load's handshakes and failures (None in clear text).
    pub tls: Option<TlsSummary>,
    /// An HTTP/2 load's streams, resets, GOAWAYs and errors (None over HTTP/1.1).
    pub h2: Option<H2Summary>,
    /// A WebSocket load's upgrades, refusals, closes and protocol errors (None over HTTP).
    /// Its messages are counted in `requests`, their round trips in `latency_us`.
    pub ws: Option<WsSummary>,
    /// Responses per second of each loop in each full second (wrk's Req/Sec).
    pub thread_rps: Spread,
    pub status_codes: BTreeMap<String, u64>,
    pub connections: Connections,
    pub per_second: Vec<SecondSummary>,
    pub generator: Generator,
    /// The load was stopped early (Ctrl-C).
    pub interrupted: bool,
    pub warnings: Vec<String>,
    pub histograms: Histograms,
    /// A merged result: each shard's own figures, in shard order (empty for one shard's
    /// or one process's result).
    pub shards: Vec<ShardFigures>,
}

/// The histograms of a load, in nanoseconds: exact to merge with other shards' results.
#[derive(Debug, Clone, PartialEq)]
pub struct Histograms {
    /// From each request's intended send time.
    pub latency: Histogram<u64>,
    /// From the actual send.
    pub latency_raw: Histogram<u64>,
    pub connect: Histogram<u64>,
    /// TLS handshakes, from the TCP connect's end (empty in clear text).
    pub handshake: Histogram<u64>,
    /// WebSocket upgrades, from the request to the 101 (empty over HTTP).
    pub upgrade: Histogram<u64>,
}

impl Default for Histograms {
    fn default() -> Self {
        let empty = crate::stats::latency_histogram;
        Histograms {
            latency: empty(),
            latency_raw: empty(),
            connect: empty(),
            handshake: empty(),
            upgrade: empty(),
        }
    }
}

/// Per-loop responses per second over the full seconds of the run.
pub fn thread_rps(loops: &[LoopStats], duration_s: f64) -> Spread {
    let full = duration_s.floor() as usize;
    let samples: Vec<f64> = if full == 0 {
        let d = duration_s.max(f64::EPSILON);
        loops
            .iter()
            .map(|l| (l.counts.ok + l.counts.status) as f64 / d)
            .collect()
    } else {
        loops
            .iter()
            .flat_map(|l| (0..full).map(move |i| l.seconds.get(i).map_or(0, |s| s.requests) as f64))
            .collect()
    };
    Spread::of(&samples)
}

/// Status codes that occurred, keyed by their decimal text.
pub fn status_codes(stats: &LoopStats) -> BTreeMap<String, u64> {
    stats
        .status_codes
        .iter()
        .enumerate()
        .filter(|(_, &n)| n > 0)
        .map(|(code, &n)| (code.to_string(), n))
        .collect()
}

#[cfg(test)]
pub(crate) mod wire_tests;
