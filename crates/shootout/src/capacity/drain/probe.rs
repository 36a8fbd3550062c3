//! The signal every search has, knowing only where the load goes: one request of the
//! load's own kind (its URL, method, protocol and TLS), on one connection, timed from
//! its send. The unloaded latency is measured before the first step, while the server is
//! at rest; between steps the server is idle again when three probes in a row are
//! answered within twice that (and 1 ms more, so that a machine's timer noise on a fast
//! server is not read as a queue). Three, because a server that serves its queue in no
//! order (a pool of workers that any waiting request may take) can answer a probe ahead
//! of a queue it still holds: with two in a row, the closed-form test server was let go
//! once in three with 9 of its 50 requests still queued.

use super::Signal;
use crate::units::micros;
use engine::{LoadConfig, Pace, Shard, Stop};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// Probes timed at rest, whose median is the unloaded latency.
const AT_REST: usize = 5;

/// A probe not answered within this is a busy server's (or a failed one's).
const TIMEOUT: Duration = Duration::from_secs(2);

/// Probes in a row that must be fast.
const IN_A_ROW: usize = 3;

/// Probes of a load's server, and the latency they had at rest.
pub struct Probe {
    config: LoadConfig,
    unloaded_us: f64,
}

impl Probe {
    /// A probe of the server `step` loads, its unloaded latency measured now (the server
    /// must be at rest); why not, when a probe at rest fails (the server is not reachable
    /// from here, or refuses a lone request).
    pub fn new(step: &LoadConfig) -> Result<Probe, String> {
        let mut probe = Probe {
            config: one_request(step),
            unloaded_us: 0.0,
        };
        let mut at_rest = (0..AT_REST)
            .map(|_| probe.latency_us())
            .collect::<Result<Vec<f64>, String>>()?;
        at_rest.sort_by(f64::total_cmp);
        probe.unloaded_us = at_rest[AT_REST / 2];
        Ok(probe)
    }

    /// The median latency of the probes at rest, µs.
    pub fn unloaded_us(&self) -> f64 {
        self.unloaded_us
    }

    /// The latency of one probe from its send, µs; why it got no answer.
    fn latency_us(&self) -> Result<f64, String> {
        let result = engine::run(&self.config, &AtomicBool::new(false))
            .map_err(|e| format!("a probe could not run: {e}"))?;
        let r = &result.requests;
        match r.ok + r.status {
            0 if r.timeout > 0 => Err(format!(
                "a probe got no answer in {}",
                engine::format_duration(TIMEOUT)
            )),
            0 => Err("a probe failed (its connection broke or was refused)".into()),
            _ => Ok(result.latency_raw_us.max),
        }
    }

    /// At most twice the unloaded latency, and 1 ms more.
    fn fast(&self, us: f64) -> bool {
        us <= 2.0 * self.unloaded_us + 1000.0
    }
}

impl Signal for Probe {
    fn busy(&mut self) -> Option<String> {
        for _ in 0..IN_A_ROW {
            match self.latency_us() {
                Ok(us) if self.fast(us) => {}
                Ok(us) => {
                    let (took, unloaded) = (micros(us), micros(self.unloaded_us));
                    return Some(format!("a probe took {took}, {unloaded} unloaded"));
                }
                Err(why) => return Some(why),
            }
        }
        None
    }
}

/// `step` as one request on one connection, closed loop, from the first request, with
/// the probe's timeout.
fn one_request(step: &LoadConfig) -> LoadConfig {
    LoadConfig {
        connections: 1,
        threads: 1,
        stop: Stop::Requests(1),
        warmup: Duration::ZERO,
        timeout: TIMEOUT.min(step.timeout),
        pipeline: 1,
        streams: 1,
        pace: Pace::Closed,
        shard: Shard::default(),
        start_at: None,
        ..step.clone()
    }
}
