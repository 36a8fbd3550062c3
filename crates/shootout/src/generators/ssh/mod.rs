//! `ssh:user@host[:port],...`: one shard per host, through the system's OpenSSH client.
//! Before any load each host is checked: the same shootout version as this one (or this
//! binary pushed there first), and a clock close enough to this one's for the start
//! barrier; a host that fails either takes no shard, and the error names it and the step.

mod client;
mod clock;
mod error;
mod push;
mod remote_shard;
mod version;

pub use client::{SshClient, OPTIONS_ENV};
pub use clock::ClockOffset;
pub use error::{SshError, Step};

use super::{Launcher, ShardCommand, SshHost};
use std::collections::HashMap;
use std::io::{self, Write};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::Mutex;
use std::time::Duration;

/// How far a host's clock may be from this one's, measurement error included. Each host
/// is told the start barrier in its own clock, so an offset is corrected; a larger one
/// means a clock nobody keeps (no NTP), which may step or drift during the run, and
/// whose times in the shard's result (`started_unix_ms`) would mislead the merged series.
pub const CLOCK_TOLERANCE: Duration = Duration::from_secs(1);

/// What the harness does before it trusts the hosts.
#[derive(Debug, Clone, Default)]
pub struct SshSettings {
    /// How `ssh` is run (options from [`OPTIONS_ENV`]).
    pub client: SshClient,
    /// `--push`: copy this binary to each host first and run that copy; else each host
    /// runs the `shootout` on its PATH.
    pub push: Option<PathBuf>,
}

/// SSH hosts checked and measured, ready to start shards.
#[derive(Debug)]
pub struct SshLauncher {
    client: SshClient,
    hosts: Vec<ReadyHost>,
    lead: Duration,
    /// The input of every shard's session by shard, held for as long as the launcher
    /// lives or until the shard is interrupted: when it closes, the shard stops and
    /// reports what it measured (see `remote_shard`).
    sessions: Mutex<HashMap<usize, ChildStdin>>,
}

/// One host that passed every check.
#[derive(Debug)]
struct ReadyHost {
    host: SshHost,
    /// The shootout it runs: `shootout` on its PATH, or the pushed copy.
    remote: String,
    clock: ClockOffset,
    /// How long one SSH command there took (connection, login, process start).
    start_cost: Duration,
}

impl SshLauncher {
    /// Pushes (if asked), checks the version of and measures the clock of every host, all
    /// at once; the first host (in the given order) that fails is the error.
    pub fn connect(hosts: &[SshHost], settings: &SshSettings) -> Result<Self, SshError> {
        let ready: Vec<Result<ReadyHost, SshError>> = std::thread::scope(|s| {
            let checks: Vec<_> = hosts
                .iter()
                .map(|host| s.spawn(|| ready(host, settings)))
                .collect();
            checks
                .into_iter()
                .map(|c| c.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect()
        });
        let hosts = ready.into_iter().collect::<Result<Vec<_>, _>>()?;
        // Twice the slowest start seen, and a second for the shard's own start (its
        // engine check, raising limits) and for ssh processes started one after another.
        let slowest = hosts.iter().map(|h| h.start_cost).max().unwrap_or_default();
        Ok(SshLauncher {
            client: settings.client.clone(),
            lead: Duration::from_secs(1) + 2 * slowest,
            hosts,
            sessions: Mutex::new(HashMap::new()),
        })
    }

    fn sessions(&self) -> std::sync::MutexGuard<'_, HashMap<usize, ChildStdin>> {
        (self.sessions.lock()).unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The clock measured on shard `index`'s host.
    pub fn clock(&self, index: usize) -> ClockOffset {
        self.hosts[index].clock
    }

    /// The `ssh` command that runs `shootout ARGS` as shard `index`.
    fn shard_command(&self, index: usize, args: &[String]) -> Command {
        let host = &self.hosts[index];
        let line = remote_shard::command_line(&host.remote, args);
        let mut cmd = self.client.command(&host.host, &line);
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Out of the terminal's process group: Ctrl-C would kill the ssh client and
            // lose the shard's result; the fleet stops the shard through `interrupt`.
            .process_group(0);
        crate::process::die_with_harness(&mut cmd);
        cmd
    }
}

/// One host through every check: push, version, clock.
fn ready(host: &SshHost, settings: &SshSettings) -> Result<ReadyHost, SshError> {
    let client = &settings.client;
    let remote = match &settings.push {
        Some(binary) => push::push(client, host, binary)?,
        None => "shootout".to_string(),
    };
    let start_cost = version::check(client, host, &remote)?;
    let clock = clock::measure(client, host)?;
    if clock.worst_case() > CLOCK_TOLERANCE {
        return Err(SshError::Clock {
            host: host.to_string(),
            offset_ms: clock.offset_ms,
            half_round_trip: clock.round_trip / 2,
            tolerance: CLOCK_TOLERANCE,
        });
    }
    Ok(ReadyHost {
        host: host.clone(),
        remote,
        clock,
        start_cost,
    })
}

impl Launcher for SshLauncher {
    fn shards(&self) -> usize {
        self.hosts.len()
    }

    fn place(&self, index: usize) -> String {
        format!("ssh:{}", self.hosts[index].host)
    }

    fn clock_offset_ms(&self, index: usize) -> i64 {
        self.hosts[index].clock.offset_ms
    }

    fn lead(&self) -> Duration {
        self.lead
    }

    /// The `ssh` client running the shard; its stderr is piped too, and carries ssh's
    /// reason when the session fails (`Connection refused`) or the shard's error line.
    /// The spec goes first on the session's input, as one line; the input then stays
    /// open as the shard's lifeline (see `remote_shard`).
    fn start(&self, index: usize, shard: &ShardCommand) -> io::Result<Child> {
        let mut child = self.shard_command(index, &shard.args).spawn()?;
        if let Some(mut input) = child.stdin.take() {
            // A session that failed already says why on stderr, which the fleet reports.
            let _ = writeln!(input, "{}", shard.spec);
            self.sessions().insert(index, input);
        }
        Ok(child)
    }

    /// Closes the shard's session input: its host's watcher sends it SIGTERM, which stops
    /// a load as Ctrl-C does, and its result still comes back over the session.
    fn interrupt(&self, index: usize, _child: &Child) {
        self.sessions().remove(&index);
    }
}
