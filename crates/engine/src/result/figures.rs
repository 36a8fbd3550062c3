//! The figures of a result beside its latency: the load as configured, bytes and
//! connections, the generator's own cost, and an open loop's schedule against what ran.

use crate::spec::WebSocketSpec;
use serde::{Deserialize, Serialize};

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
    /// "1.0", "1.1", or "2" (h2c over http://, h2 over https://).
    pub http_version: String,
    /// HTTP/2: streams in flight per connection (`-m`); absent over HTTP/1.1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub streams: Option<usize>,
    /// WebSocket: the message size and kind, and messages in flight per connection;
    /// absent over HTTP.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub websocket: Option<WebSocketSpec>,
    /// "I/N" for one shard of a split load, "merged N" after `shootout merge`.
    #[serde(default)]
    pub shard: String,
    /// The wall-clock instant (Unix milliseconds, in the generator's clock) the load was
    /// asked to start at (`--start-at`): a shard compares it with when it did start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_at: Option<u64>,
    /// Requests that vary: the seed their random values were drawn with (`--seed`, or the
    /// one the clock gave), so that a load can be sent again the same. Merged: the
    /// shards' seed when they share it (a spec's `--seed`), else absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vary_seed: Option<u64>,
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
    /// Requests the schedule asked for in the window: those of the loops' shares that came
    /// due after the warm-up and by the stop (at most `-n`).
    pub scheduled: u64,
    /// Requests sent in the window: `requests.total` less `requests.dropped`.
    pub started: u64,
    /// Requests that came due in the window and were neither sent nor dropped when the
    /// load stopped: they waited for a connection. `started + requests.dropped +
    /// still_due = scheduled`, exactly. Absent before it was counted.
    #[serde(default)]
    pub still_due: u64,
    /// Requests started more than 1 ms after they were due while a connection was free:
    /// the generator did not keep the schedule.
    pub late: u64,
    /// Requests started more than 1 ms after they were due because every connection was
    /// busy: the server (or too few connections) held them back.
    #[serde(default)]
    pub waited: u64,
}
