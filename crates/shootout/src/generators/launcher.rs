//! Starting one shard somewhere: the one thing local processes and SSH hosts do
//! differently. The fleet driver (start barrier, collection, merge) is the same for both.

use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use std::io;
use std::process::Child;

/// Starts the shards of one load, each as a child process of this one whose standard
/// output carries the shard's `shootout load --json` result. A local shard is that
/// process itself; an SSH shard is the `ssh` client running it on its host.
pub trait Launcher {
    /// How many shards this launcher runs: one per process or per host.
    fn shards(&self) -> usize;

    /// Where shard `index` (0-based) runs, for messages: `local 2 (cpu 0)`,
    /// `ssh:root@198.18.0.2`.
    fn place(&self, index: usize) -> String;

    /// Milliseconds to add to this machine's clock to read shard `index`'s clock,
    /// measured before the start barrier is set (0 on this machine).
    fn clock_offset_ms(&self, index: usize) -> i64;

    /// How far ahead of now the start barrier must be for every shard to be running by
    /// then (a process start locally, an SSH handshake remotely).
    fn lead(&self) -> std::time::Duration;

    /// True when the shards run on this machine, under its open-file limit and with its
    /// view of the target: the fleet then checks one shard's load here before starting
    /// any (a load over the limit, a target that refuses), so that nothing starts.
    fn checks_here(&self) -> bool {
        false
    }

    /// Asks shard `index`, still running as `child`, to stop and report what it has
    /// measured (Ctrl-C): SIGINT, as a terminal would send a local `shootout load`.
    fn interrupt(&self, index: usize, child: &Child) {
        let _ = index;
        let _ = kill(Pid::from_raw(child.id() as i32), Signal::SIGINT);
    }

    /// Starts shard `index` as `shootout ARGS` with its spec on standard input and stdout
    /// piped; the arguments already name the shard (`--shard I/N`), its start
    /// (`--start-at T`, in its host's clock) and `--json`.
    fn start(&self, index: usize, shard: &ShardCommand) -> io::Result<Child>;
}

/// What one shard runs: `shootout load --spec - ...`, and the spec it reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardCommand {
    /// `load --spec - --shard I/N --start-at T --json`.
    pub args: Vec<String>,
    /// The load as one line of JSON (`engine::LoadSpec`), its threads this shard's.
    pub spec: String,
}
