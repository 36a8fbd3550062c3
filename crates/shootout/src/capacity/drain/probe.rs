//! The signal every search has, knowing only where the load goes: one request of the
//! load's own kind (its URL, method, protocol and TLS), on one connection, timed from
//! its send. The unloaded latency is the fastest of a few probes before the first step,
//! while the server is at rest (the fastest, because a machine's noise only adds, and a
//! figure it inflated would let a queue through). Between steps the server is idle again
//! when three probes in a row are answered within twice that and 1 ms more (the
//! millisecond, so that timer noise on a fast server is not read as a queue). Three,
//! because a server that serves its queue in no order (a pool of workers that any
//! waiting request may take) can answer a probe ahead of a queue it still holds: with
//! two in a row and the median as the unloaded latency, the closed-form test server was
//! let go with up to 12 of its 50 requests still queued.

use super::Signal;
use crate::units::micros;
use engine::{IoChoice, LoadConfig, Pace, Shard, Stop};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// Probes timed at rest, the fastest of which is the unloaded latency.
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
        let at_rest = (0..AT_REST)
            .map(|_| probe.latency_us())
            .collect::<Result<Vec<f64>, String>>()?;
        probe.unloaded_us = at_rest.into_iter().fold(f64::INFINITY, f64::min);
        Ok(probe)
    }

    /// The latency of the fastest probe at rest, µs.
    pub fn unloaded_us(&self) -> f64 {
        self.unloaded_us
    }

    /// The latency of one probe from its send, µs; why it got no answer.
    fn latency_us(&self) -> Result<f64, String> {
        let result = engine::run(&self.config, &AtomicBool::new(false))
            .map_err(|e| format!("a probe failed: {e}"))?;
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
/// the probe's timeout, over epoll: a lone request over io_uring took 1-3.6 ms more here
/// (against the hello test server, a new connection each: p50 2.3 ms over io_uring, 54 µs
/// over epoll), which would hide a queue shorter than that.
fn one_request(step: &LoadConfig) -> LoadConfig {
    LoadConfig {
        io: IoChoice::Epoll,
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

#[cfg(test)]
mod tests {
    use super::*;

    fn config(url: &str) -> LoadConfig {
        let mut spec = engine::LoadSpec::new(url.parse().unwrap());
        spec.connections = 50;
        spec.pace = Pace::Open(engine::RateSchedule::constant(1000.0));
        spec.resolve().unwrap()
    }

    #[test]
    fn a_probe_is_one_request_on_one_connection_of_the_loads_kind() {
        let probe = one_request(&config("http://127.0.0.1:9/x"));
        assert_eq!((probe.connections, probe.threads), (1, 1));
        assert_eq!((probe.stop, probe.pace), (Stop::Requests(1), Pace::Closed));
        assert_eq!((probe.timeout, probe.io), (TIMEOUT, IoChoice::Epoll));
    }

    #[test]
    fn a_server_no_probe_reaches_has_no_probe_and_says_why() {
        // A port nothing listens on: bound, then let go.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .unwrap()
            .port();
        let refused = Probe::new(&config(&format!("http://127.0.0.1:{port}/")));
        let why = refused.err().expect("no probe of a closed port");
        let said = format!("a probe failed: cannot connect to 127.0.0.1:{port}");
        assert!(why.starts_with(&said), "{why}");
    }
}
