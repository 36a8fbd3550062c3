//! The servers that harnesses on this machine have started and not yet stopped, in a
//! small state file next to the machine lock (`shootout.servers`, one JSON line each).
//! Every server carries a mark in its environment, which whatever it forks inherits. A
//! server whose harness died and that escaped both the parent-death signal and its group
//! guard (a fork that left its process group, say) is found by its mark at the next
//! `shootout run` and stopped; the mark, not the recorded ids alone, decides, so that a
//! process that merely reuses an old pid or group id is never touched.

use super::machine_lock;
use super::process::GRACE;
use super::process_identity::ProcessIdentity;
use nix::fcntl::{Flock, FlockArg};
use nix::sys::signal::{killpg, Signal};
use nix::unistd::{getpgrp, Pid};
use std::collections::{BTreeSet, HashSet};
use std::ffi::OsStr;
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The environment variable that carries a server's mark.
pub const MARK_ENV: &str = "SHOOTOUT_SERVER_MARK";

/// One started server, as recorded.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct StartedServer {
    /// The harness that started it.
    pub harness: ProcessIdentity,
    /// Its process group (the id of its first process).
    pub group: i32,
    /// Its mark: the value of [`MARK_ENV`] in its environment.
    pub mark: String,
}

/// What a dead harness left running, now stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Leftover {
    pub server: StartedServer,
    /// How many of its processes were still running.
    pub processes: usize,
}

/// The state file: next to the machine lock, so that it is as machine-wide as the lock.
pub fn path() -> PathBuf {
    machine_lock::path().with_extension("servers")
}

/// A mark that no other server of any harness has: this harness, and a counter.
pub fn new_mark() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let me = ProcessIdentity::me();
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    format!("{}.{}.{n}", me.pid, me.start_ticks)
}

/// Adds `server` to the state file at `path`.
pub fn record(path: &Path, server: &StartedServer) -> io::Result<()> {
    edit(path, |all| all.push(server.clone()))
}

/// Removes the server marked `mark` (stopped by its harness) from the state file.
pub fn forget(path: &Path, mark: &str) -> io::Result<()> {
    edit(path, |all| all.retain(|s| s.mark != mark))
}

/// Stops every process of a server recorded at `path` whose harness is gone (TERM to its
/// groups, then KILL after the grace period) and drops those servers from the file.
pub fn stop_leftovers(path: &Path) -> io::Result<Vec<Leftover>> {
    let mut orphans = Vec::new();
    edit(path, |all| {
        orphans = all.iter().filter(|s| !s.harness.alive()).cloned().collect();
        all.retain(|s| s.harness.alive());
    })?;
    if orphans.is_empty() {
        return Ok(Vec::new());
    }
    let marks: HashSet<&str> = orphans.iter().map(|s| s.mark.as_str()).collect();
    let found = marked_processes(&marks);
    stop(&found);
    let leftovers = orphans.iter().map(|server| Leftover {
        processes: found.iter().filter(|p| p.mark == server.mark).count(),
        server: server.clone(),
    });
    Ok(leftovers.filter(|l| l.processes > 0).collect())
}

/// A running process that carries a mark.
#[derive(Debug)]
struct Marked {
    pid: i32,
    group: i32,
    mark: String,
}

/// Every process of this machine (that we may read) whose mark is one of `marks`.
fn marked_processes(marks: &HashSet<&str>) -> Vec<Marked> {
    let Ok(all) = procfs::process::all_processes() else {
        return Vec::new();
    };
    all.filter_map(|p| {
        let p = p.ok()?;
        let mark = mark_of(&p)?;
        marks.contains(mark.as_str()).then_some(())?;
        let group = p.stat().ok()?.pgrp;
        Some(Marked {
            pid: p.pid,
            group,
            mark,
        })
    })
    .collect()
}

/// The mark in a process's environment (None for others' processes and zombies).
fn mark_of(p: &procfs::process::Process) -> Option<String> {
    let env = p.environ().ok()?;
    Some(env.get(OsStr::new(MARK_ENV))?.to_str()?.to_string())
}

/// TERM to the groups of `found`, then KILL to those of its processes still running
/// after the grace period.
fn stop(found: &[Marked]) {
    signal_groups(found.iter(), Signal::SIGTERM);
    let until = Instant::now() + GRACE;
    let running = |m: &&Marked| {
        procfs::process::Process::new(m.pid)
            .ok()
            .and_then(|p| mark_of(&p))
            .is_some_and(|mark| mark == m.mark)
    };
    // Bounded by GRACE.
    while Instant::now() < until && found.iter().any(|m| running(&m)) {
        std::thread::sleep(Duration::from_millis(50));
    }
    signal_groups(found.iter().filter(running), Signal::SIGKILL);
}

fn signal_groups<'a>(processes: impl Iterator<Item = &'a Marked>, signal: Signal) {
    let groups: BTreeSet<i32> = processes.map(|m| m.group).collect();
    // Never our own group (or init's): a mark there would be a mistake, not a server.
    let ours = getpgrp().as_raw();
    for group in groups.into_iter().filter(|&g| g > 1 && g != ours) {
        // ESRCH when the group has just ended is fine.
        let _ = killpg(Pid::from_raw(group), signal);
    }
}

/// Reads the state file at `path`, lets `change` edit its servers, and writes it back,
/// all under an exclusive flock of the file (harnesses and `verify` start servers at the
/// same time). Lines that do not parse (a file from another version) are dropped.
fn edit(path: &Path, change: impl FnOnce(&mut Vec<StartedServer>)) -> io::Result<()> {
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o666)
        .open(path)?;
    // Every user's harness writes it; the umask may have narrowed the mode (best effort:
    // only the owner may widen it).
    let _ = file.set_permissions(std::fs::Permissions::from_mode(0o666));
    let mut file =
        Flock::lock(file, FlockArg::LockExclusive).map_err(|(_, e)| io::Error::from(e))?;
    let mut text = String::new();
    file.read_to_string(&mut text)?;
    let mut servers: Vec<StartedServer> = text
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect();
    change(&mut servers);
    write_all(&mut file, &servers)
}

fn write_all(file: &mut File, servers: &[StartedServer]) -> io::Result<()> {
    let mut text = String::new();
    for s in servers {
        text.push_str(&serde_json::to_string(s)?);
        text.push('\n');
    }
    file.set_len(0)?;
    file.rewind()?;
    file.write_all(text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::CommandExt;
    use std::process::{Command, Stdio};

    fn temp_state(name: &str) -> PathBuf {
        let path = std::env::temp_dir().join(format!(
            "shootout-servers-{name}-{}.servers",
            std::process::id()
        ));
        let _ = std::fs::remove_file(&path);
        path
    }

    fn server(harness: ProcessIdentity, group: i32, mark: &str) -> StartedServer {
        StartedServer {
            harness,
            group,
            mark: mark.into(),
        }
    }

    fn read(path: &Path) -> Vec<StartedServer> {
        let mut all = Vec::new();
        edit(path, |s| all = s.clone()).unwrap();
        all
    }

    #[test]
    fn recorded_servers_are_forgotten_by_mark() {
        let path = temp_state("forget");
        let me = ProcessIdentity::me();
        let (a, b) = (new_mark(), new_mark());
        assert_ne!(a, b);
        record(&path, &server(me, 10, &a)).unwrap();
        record(&path, &server(me, 11, &b)).unwrap();
        forget(&path, &a).unwrap();
        assert_eq!(read(&path), [server(me, 11, &b)]);
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn a_dead_harness_s_marked_process_is_stopped_and_a_live_one_s_is_kept() {
        let path = temp_state("leftover");
        let mark = new_mark();
        // Its own group, as a server has; it ignores nothing, so TERM ends it.
        let mut orphan = Command::new("sleep")
            .arg("30")
            .env(MARK_ENV, &mark)
            .stdin(Stdio::null())
            .process_group(0)
            .spawn()
            .unwrap();
        let me = ProcessIdentity::me();
        let dead = ProcessIdentity {
            start_ticks: me.start_ticks + 1,
            ..me
        };
        record(&path, &server(dead, orphan.id() as i32, &mark)).unwrap();
        record(&path, &server(me, 1, "still-running")).unwrap();
        // /proc shows the new environment once sleep has been exec'd.
        std::thread::sleep(Duration::from_millis(200));
        let stopped = stop_leftovers(&path).unwrap();
        assert_eq!(stopped.len(), 1, "{stopped:?}");
        assert_eq!(stopped[0].processes, 1);
        let status = orphan.wait().unwrap();
        assert!(!status.success(), "{status}");
        assert_eq!(read(&path), [server(me, 1, "still-running")]);
        let _ = std::fs::remove_file(&path);
    }
}
