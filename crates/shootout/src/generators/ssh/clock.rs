//! A host's clock against this machine's, measured over SSH before the start barrier is
//! set: the barrier is a wall-clock time, so each host is told it in its own clock.

use super::client::{why_failed, SshClient};
use super::error::{SshError, Step};
use crate::generators::SshHost;
use nix::sys::signal::{pthread_sigmask, SigSet, SigmaskHow, Signal};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Round trips asked for; the one with the least round trip is kept (the first carries
/// the SSH handshake, later ones whatever the network adds).
const SAMPLES: usize = 8;

/// The remote side: one line with its clock (Unix nanoseconds) per line read. `date` is
/// on every host shootout runs on, and a new process per sample costs well under a
/// millisecond, which lands inside the measured round trip.
const REMOTE: &str = "while read -r _; do date +%s%N || exit 1; done";

/// What one measurement found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClockOffset {
    /// The host's clock minus this machine's, at the midpoint of the best round trip.
    pub offset_ms: i64,
    /// That round trip: the offset is known within half of it.
    pub round_trip: Duration,
}

impl ClockOffset {
    /// How far the host's clock may be from this one's at most: |offset| + round trip / 2.
    pub fn worst_case(&self) -> Duration {
        Duration::from_millis(self.offset_ms.unsigned_abs()) + self.round_trip / 2
    }
}

/// Measures `host`'s clock over one SSH session.
pub fn measure(client: &SshClient, host: &SshHost) -> Result<ClockOffset, SshError> {
    let fail = |why: String| SshError::Step {
        host: host.to_string(),
        step: Step::Clock,
        why,
    };
    let mut child = client
        .command(host, REMOTE)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|source| SshError::Client {
            host: host.to_string(),
            step: Step::Clock,
            source,
        })?;
    // On a thread of its own with SIGPIPE blocked: the shootout binary lets SIGPIPE end
    // the process (main.rs), and a session that ends early must be an error naming the
    // host, not a silent exit. The signal stays pending on that thread and goes with it.
    let sampled = std::thread::scope(|s| {
        s.spawn(|| {
            let pipe = SigSet::from(Signal::SIGPIPE);
            pthread_sigmask(SigmaskHow::SIG_BLOCK, Some(&pipe), None)
                .map_err(|e| format!("blocking SIGPIPE: {e}"))?;
            samples(&mut child)
        })
        .join()
        .unwrap_or_else(|p| std::panic::resume_unwind(p))
    });
    // Closing its input ends the remote loop, and with it the session.
    drop(child.stdin.take());
    let output = child.wait_with_output().map_err(|e| fail(e.to_string()))?;
    match sampled {
        Ok(Some(best)) => Ok(best),
        Ok(None) => Err(fail(why_failed(output.status, &output.stderr))),
        Err(why) => Err(fail(why)),
    }
}

/// The sample with the least round trip; None when the session ended before answering
/// (ssh's reason is then on its stderr).
fn samples(child: &mut Child) -> Result<Option<ClockOffset>, String> {
    let (Some(stdin), Some(stdout)) = (child.stdin.as_mut(), child.stdout.take()) else {
        return Err("ssh's input and output were not piped".into());
    };
    let mut lines = BufReader::new(stdout);
    let mut best: Option<ClockOffset> = None;
    for _ in 0..SAMPLES {
        let (sent, started) = (unix_ns(), Instant::now());
        if stdin.write_all(b"\n").and_then(|_| stdin.flush()).is_err() {
            return Ok(None);
        }
        let mut line = String::new();
        match lines.read_line(&mut line) {
            Ok(0) | Err(_) => return Ok(None),
            Ok(_) => {}
        }
        let round_trip = started.elapsed();
        let remote: i128 = line
            .trim()
            .parse()
            .map_err(|_| format!("date +%s%N printed {:?}, not nanoseconds", line.trim()))?;
        let midpoint = sent + round_trip.as_nanos() as i128 / 2;
        let sample = ClockOffset {
            offset_ms: ((remote - midpoint) / 1_000_000) as i64,
            round_trip,
        };
        if best.is_none_or(|b| sample.round_trip < b.round_trip) {
            best = Some(sample);
        }
    }
    Ok(best)
}

/// This machine's clock, in Unix nanoseconds.
fn unix_ns() -> i128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as i128)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_worst_case_adds_half_the_round_trip_to_the_offset() {
        let c = ClockOffset {
            offset_ms: -1500,
            round_trip: Duration::from_millis(40),
        };
        assert_eq!(c.worst_case(), Duration::from_millis(1520));
    }
}
