//! One shard's own figures, kept in a merged result.

use super::{Connections, Generator, LoadResult};
use crate::outcome::Counts;
use serde::{Deserialize, Serialize};

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
