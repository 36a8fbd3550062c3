//! Every default of a load, in one place: `LoadSpec::new`, serde (JSON and TOML) and
//! the CLI's flags read them from here.

use http::Method;
use std::time::Duration;

/// Connections kept open (wrk's default).
pub fn connections() -> usize {
    10
}

/// Measured time of a load that names no stop and no stages.
pub fn duration() -> Duration {
    Duration::from_secs(10)
}

/// A request unanswered for this long is a timeout.
pub fn timeout() -> Duration {
    Duration::from_secs(5)
}

/// No warm-up.
pub fn warmup() -> Duration {
    Duration::ZERO
}

/// One request at a time on a connection: no pipelining.
pub fn pipeline() -> usize {
    1
}

pub fn method() -> Method {
    Method::GET
}

/// Keep-alive, as HTTP/1.1 and wrk do.
pub fn keepalive() -> bool {
    true
}

/// Requests each device sends before it leaves (the 2019 Stressgrid script).
pub fn device_requests() -> u32 {
    100
}

/// Mean time between a device's response and its next request.
pub fn think() -> Duration {
    Duration::from_millis(900)
}

/// Uniform jitter of the think time (±5%).
pub fn jitter() -> f64 {
    0.05
}
