//! Why a host cannot take a shard: one line each, naming the host and the step.

use std::fmt;
use std::time::Duration;

/// What the harness was doing with a host when it failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Copying this shootout binary to the host (`--push`).
    Push,
    /// Running `shootout --version` there.
    Version,
    /// Reading its clock, to set the start barrier in its time.
    Clock,
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Step::Push => "copying shootout there",
            Step::Version => "checking its shootout version",
            Step::Clock => "reading its clock",
        })
    }
}

/// Why SSH generators cannot run.
#[derive(Debug, thiserror::Error)]
pub enum SshError {
    /// The ssh options variable (`env`) is set but cannot be read or split.
    #[error("{env}: {why}")]
    Options { env: &'static str, why: String },
    /// The `ssh` client could not be started at all (not installed).
    #[error("ssh:{host}: {step}: cannot run ssh: {source}")]
    Client {
        host: String,
        step: Step,
        source: std::io::Error,
    },
    /// ssh or the remote command failed; `why` is the last line it wrote on stderr.
    #[error("ssh:{host}: {step}: {why}")]
    Step {
        host: String,
        step: Step,
        why: String,
    },
    #[error(
        "ssh:{host}: runs {theirs}, this is {ours}: every generator must be the same \
         version (--push copies this one there)"
    )]
    Version {
        host: String,
        theirs: String,
        ours: String,
    },
    #[error(
        "ssh:{host}: its clock is {offset_ms:+} ms from this machine's (measured within ±{} ms), \
         more than the start barrier tolerates ({} ms): synchronise its clock (NTP)",
        half_round_trip.as_millis(),
        tolerance.as_millis()
    )]
    Clock {
        host: String,
        offset_ms: i64,
        half_round_trip: Duration,
        tolerance: Duration,
    },
}
