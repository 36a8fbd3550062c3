//! `local:N`: N `shootout load` processes on this machine, each pinned to its share of
//! the generator cores, each with its own open-file limit.

use super::{Launcher, ShardCommand};
use crate::process::{die_with_harness, Pinned};
use nix::sched::{sched_getaffinity, CpuSet};
use nix::unistd::Pid;
use std::io::{self, Write};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// Local shard processes: this very binary, started once per shard.
#[derive(Debug, Clone)]
pub struct LocalLauncher {
    exe: PathBuf,
    /// Each shard's CPUs.
    cpus: Vec<Vec<usize>>,
}

impl LocalLauncher {
    /// `shards` processes over `cpus` (the generator's cores; None: every core this
    /// process may run on), split as evenly as they go, a core shared round-robin when
    /// there are more shards than cores.
    pub fn new(shards: usize, cpus: Option<&[usize]>) -> io::Result<LocalLauncher> {
        let cpus = match cpus {
            Some(c) if !c.is_empty() => c.to_vec(),
            _ => allowed_cpu_list()?,
        };
        Ok(LocalLauncher {
            exe: std::env::current_exe()?,
            cpus: split(&cpus, shards.max(1)),
        })
    }
}

/// Consecutive runs of cores, as many to shard `i` as its share of the threads (the
/// fleet gives shard `i` `Shard::share` of them), or core `i mod len` when the cores are
/// fewer than the shards.
fn split(cpus: &[usize], n: usize) -> Vec<Vec<usize>> {
    let len = cpus.len();
    if len < n {
        return (0..n).map(|i| vec![cpus[i % len]]).collect();
    }
    let mut rest = cpus;
    (0..n)
        .map(|i| {
            let share = engine::Shard {
                index: i as u64,
                count: n as u64,
            }
            .share(len as u64);
            let (mine, after) = rest.split_at(share as usize);
            rest = after;
            mine.to_vec()
        })
        .collect()
}

/// The CPUs this process may run on.
fn allowed_cpu_list() -> io::Result<Vec<usize>> {
    let set = sched_getaffinity(Pid::from_raw(0)).map_err(io::Error::from)?;
    let cpus: Vec<usize> = (0..CpuSet::count())
        .filter(|&c| set.is_set(c) == Ok(true))
        .collect();
    match cpus.is_empty() {
        true => Err(io::Error::other("no CPU is allowed")),
        false => Ok(cpus),
    }
}

impl Launcher for LocalLauncher {
    fn shards(&self) -> usize {
        self.cpus.len()
    }

    fn place(&self, index: usize) -> String {
        let cpus: Vec<String> = self.cpus[index].iter().map(usize::to_string).collect();
        format!("local {} (cpus {})", index + 1, cpus.join(","))
    }

    fn clock_offset_ms(&self, _index: usize) -> i64 {
        0
    }

    /// A process start and its check (one connect to the target) take milliseconds;
    /// half a second leaves room on a loaded machine.
    fn lead(&self) -> Duration {
        Duration::from_millis(500)
    }

    fn checks_here(&self) -> bool {
        true
    }

    fn start(&self, index: usize, shard: &ShardCommand) -> io::Result<Child> {
        let mut cmd = Command::new(&self.exe);
        cmd.args(&shard.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Its own group: a terminal's Ctrl-C reaches the harness alone, which passes
            // it on once (a second SIGINT would kill the shard before it reports).
            .process_group(0);
        // Like a contestant, a shard must not outlive the harness (even `kill -9`).
        die_with_harness(&mut cmd);
        // The child inherits the CPUs of the thread that spawns it.
        let pinned = Pinned::thread(&self.cpus[index]).map_err(io::Error::other)?;
        let child = cmd.spawn();
        drop(pinned);
        let mut child = child?;
        if let Some(mut input) = child.stdin.take() {
            // The shard reads its spec first thing. One that dies before has its own
            // reason on stderr, which the fleet reports: a broken pipe here would hide it.
            let _ = input.write_all(shard.spec.as_bytes());
        }
        Ok(child)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_share_the_cores() {
        assert_eq!(split(&[0, 1, 2, 3], 2), [vec![0, 1], vec![2, 3]]);
        assert_eq!(split(&[0, 1, 2], 2), [vec![0, 1], vec![2]]);
        assert_eq!(split(&[5], 3), [vec![5], vec![5], vec![5]]);
        assert_eq!(split(&[0, 1], 3), [vec![0], vec![1], vec![0]]);
    }
}
