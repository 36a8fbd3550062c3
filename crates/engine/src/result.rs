//! The result of a load, in the shape of the `--json` output (schema `shootout.load/1`).

use crate::outcome::Counts;
use crate::stats::{LoopStats, Second};
use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The JSON schema name and version of [`LoadResult`].
pub const SCHEMA: &str = "shootout.load/1";

/// Latency summary in microseconds.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Percentiles {
    pub mean: f64,
    pub stdev: f64,
    pub min: f64,
    pub max: f64,
    pub p50: f64,
    pub p75: f64,
    pub p90: f64,
    pub p99: f64,
    pub p999: f64,
    pub p9999: f64,
}

impl Percentiles {
    /// Summarises a nanosecond histogram in microseconds (all zero when empty).
    pub fn of<T: hdrhistogram::Counter>(h: &Histogram<T>) -> Percentiles {
        if h.is_empty() {
            return Percentiles::default();
        }
        let us = |ns: u64| ns as f64 / 1000.0;
        let q = |p: f64| us(h.value_at_quantile(p));
        Percentiles {
            mean: h.mean() / 1000.0,
            stdev: h.stdev() / 1000.0,
            min: us(h.min()),
            max: us(h.max()),
            p50: q(0.50),
            p75: q(0.75),
            p90: q(0.90),
            p99: q(0.99),
            p999: q(0.999),
            p9999: q(0.9999),
        }
    }
}

/// Mean, standard deviation and maximum of a set of samples.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Spread {
    pub mean: f64,
    pub stdev: f64,
    pub max: f64,
    /// How many samples, so that spreads can be pooled exactly.
    #[serde(default)]
    pub samples: u64,
}

impl Spread {
    /// The spread of `samples` (population standard deviation, as wrk prints).
    pub fn of(samples: &[f64]) -> Spread {
        if samples.is_empty() {
            return Spread::default();
        }
        let n = samples.len() as f64;
        let mean = samples.iter().sum::<f64>() / n;
        let var = samples.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
        Spread {
            mean,
            stdev: var.sqrt(),
            max: samples.iter().cloned().fold(0.0, f64::max),
            samples: samples.len() as u64,
        }
    }
}

/// The load as configured, echoed in the result.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ConfigEcho {
    pub method: String,
    pub connections: usize,
    pub threads: usize,
    pub duration_s: Option<f64>,
    pub requests: Option<u64>,
    pub warmup_s: f64,
    pub timeout_s: f64,
    pub pipeline: usize,
    pub keepalive: bool,
    pub http_version: String,
    /// "I/N" for one shard of a split load, "merged N" after `shootout merge`.
    #[serde(default)]
    pub shard: String,
    /// The wall-clock instant (Unix milliseconds, in the generator's clock) the load was
    /// asked to start at (`--start-at`): a shard compares it with when it did start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_at: Option<u64>,
}

/// Bytes moved during measurement.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Bytes {
    pub read: u64,
    pub written: u64,
}

/// Connections opened during measurement, and those the server closed.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Connections {
    pub opened: u64,
    pub closed_by_server: u64,
}

/// One second of the measured load.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SecondSummary {
    /// 1-based second of measurement.
    pub second: usize,
    pub requests: u64,
    pub errors: u64,
    pub timeouts: u64,
    pub sent: u64,
    pub connects: u64,
    pub devices: u64,
    pub p50_us: f64,
    pub p90_us: f64,
    pub p99_us: f64,
    /// That second's latency histogram (see `histograms`), for exact merging.
    #[serde(default)]
    pub hist: String,
}

/// The merged histograms of a load, encoded (HdrHistogram V2, compressed, base64), in
/// nanoseconds: exact to merge again with other shards' results.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Histograms {
    pub latency: String,
    pub latency_raw: String,
    pub connect: String,
}

/// What the generator itself cost, and whether it limited the load.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Generator {
    pub cpu_seconds: f64,
    pub user_seconds: f64,
    pub sys_seconds: f64,
    /// CPU time over wall time, in percent of one core (200 = two cores busy).
    pub cpu_percent: f64,
    /// The generator's threads were busy more than 90% of the run.
    pub bound: bool,
    /// "uring" or "epoll".
    pub io: String,
    pub threads: usize,
}

/// Open loop: the schedule against what ran.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RateSummary {
    /// Requests/s the schedule asked for over the measured window.
    pub target_rps: f64,
    /// Requests/s actually started.
    pub achieved_rps: f64,
    /// Requests the schedule asked for in the window.
    pub scheduled: u64,
    /// Requests started in the window.
    pub started: u64,
    /// Requests started more than 1 ms after they were due while a connection was free:
    /// the generator did not keep the schedule.
    pub late: u64,
    /// Requests started more than 1 ms after they were due because every connection was
    /// busy: the server (or too few connections) held them back.
    #[serde(default)]
    pub waited: u64,
}

/// One shard's own figures, kept in a merged result: what it sent and what it cost, so
/// that a shard that fell behind or saturated its generator stays visible after the merge.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ShardFigures {
    /// "I/N".
    pub shard: String,
    /// Where it ran (`local 1 (cpus 0)`, `ssh:root@198.18.0.2`), when the merger knew.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub place: Option<String>,
    /// Wall-clock start of its measurement, Unix milliseconds in its own clock.
    pub started_unix_ms: u64,
    /// The start it was asked for (`--start-at`), in its own clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_at: Option<u64>,
    pub duration_s: f64,
    pub requests: Counts,
    /// Responses (ok and status) per second.
    pub rps: f64,
    pub connections: Connections,
    pub generator: Generator,
    /// Its generator's CPU over its threads' wall time (0..1; over 0.9 is `bound`).
    pub busy: f64,
}

impl ShardFigures {
    /// The figures of one shard's result.
    pub fn of(part: &LoadResult) -> ShardFigures {
        let g = &part.generator;
        let threads = g.threads.max(1) as f64;
        ShardFigures {
            shard: part.config.shard.clone(),
            place: None,
            started_unix_ms: part.started_unix_ms,
            start_at: part.config.start_at,
            duration_s: part.duration_s,
            requests: part.requests,
            rps: part.rps,
            connections: part.connections.clone(),
            generator: g.clone(),
            busy: g.cpu_seconds / (part.duration_s * threads).max(f64::MIN_POSITIVE),
        }
    }
}

/// Everything a load measured.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LoadResult {
    pub schema: String,
    pub url: String,
    /// Wall-clock start of the measurement, Unix milliseconds.
    #[serde(default)]
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
    /// A merged result: each shard's own figures, in shard order (absent from one
    /// shard's or one process's result).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shards: Vec<ShardFigures>,
    /// The latency histogram in nanoseconds (decoded `histograms.latency`).
    #[serde(skip, default = "crate::stats::latency_histogram")]
    pub latency: Histogram<u64>,
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

/// The per-second series of merged stats.
pub fn per_second(stats: &LoopStats) -> Vec<SecondSummary> {
    stats
        .seconds
        .iter()
        .enumerate()
        .map(|(i, s)| SecondSummary::of(i, s))
        .collect()
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
            hist: crate::histcodec::encode_histogram(&s.latency),
            second: i + 1,
            requests: s.requests,
            errors: s.errors,
            timeouts: s.timeouts,
            sent: s.sent,
            connects: s.connects,
            devices: s.devices,
            p50_us: p(0.5),
            p90_us: p(0.9),
            p99_us: p(0.99),
        }
    }

    /// The second this summary was made of, histogram decoded (for exact merging).
    pub fn to_second(&self) -> Result<Second, crate::histcodec::HistogramError> {
        let mut s = Second::new();
        if !self.hist.is_empty() {
            s.latency = crate::histcodec::decode_histogram(&self.hist)?;
        }
        s.requests = self.requests;
        s.errors = self.errors;
        s.timeouts = self.timeouts;
        s.sent = self.sent;
        s.connects = self.connects;
        s.devices = self.devices;
        Ok(s)
    }
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
mod tests {
    use super::*;

    #[test]
    fn spread_of_samples() {
        let s = Spread::of(&[1.0, 3.0]);
        assert_eq!((s.mean, s.stdev, s.max), (2.0, 1.0, 3.0));
        assert_eq!(Spread::of(&[]).mean, 0.0);
    }

    #[test]
    fn percentiles_are_in_microseconds() {
        let mut h = crate::stats::latency_histogram();
        h.record(2_000).unwrap();
        h.record(4_000).unwrap();
        let p = Percentiles::of(&h);
        assert!((p.mean - 3.0).abs() < 0.01, "{p:?}");
        assert!((p.max - 4.0).abs() < 0.01);
        assert!((p.p50 - 2.0).abs() < 0.01);
    }
}
