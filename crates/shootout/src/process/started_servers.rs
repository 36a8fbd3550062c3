//! The servers that harnesses on this machine have started and not yet stopped, in a
//! small state file next to the machine lock (`shootout.servers`, one JSON line each).
//! Every server carries a mark in its environment, which whatever it forks inherits. A
//! server whose harness died and that escaped both the parent-death signal and its group
//! guard (a fork that left its process group, say, or a guard that was killed too) is
//! found at the next `shootout run` and stopped: by its mark, or by its recorded group
//! together with its working folder (for programs that write their title over their
//! environment); never by a recorded id alone, so that a process that merely reuses an
//! old pid or group id is not touched.

use crate::machine::machine_lock;
use crate::machine::process_identity::ProcessIdentity;
use nix::fcntl::{Flock, FlockArg};
use nix::sys::signal::{killpg, Signal};
use nix::unistd::{getpgrp, Pid};
use procfs::process::Process;
use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::fs::File;
use std::io::{self, Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// How long a stopping server gets between TERM and KILL: here for the leftovers of an
/// earlier harness, and for the servers this one started (`process`).
pub const GRACE: Duration = Duration::from_secs(3);

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
    /// Its working folder (the contestant's).
    pub dir: PathBuf,
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
        // One look at each harness: a harness that died between two looks would have its
        // server dropped from the file without being stopped.
        let (dead, live) = std::mem::take(all)
            .into_iter()
            .partition(|s| !s.harness.alive());
        orphans = dead;
        *all = live;
    })?;
    if orphans.is_empty() {
        return Ok(Vec::new());
    }
    let found = leftover_processes(&orphans);
    stop(&found, &orphans);
    let leftovers = orphans.iter().enumerate().map(|(i, server)| Leftover {
        processes: found.iter().filter(|p| p.server == i).count(),
        server: server.clone(),
    });
    Ok(leftovers.filter(|l| l.processes > 0).collect())
}

/// A running process that one of the orphaned servers started.
#[derive(Debug)]
struct Found {
    pid: i32,
    group: i32,
    /// Which server (its index among the orphans).
    server: usize,
}

/// Every process of this machine (that we may read) that one of `orphans` started.
fn leftover_processes(orphans: &[StartedServer]) -> Vec<Found> {
    let Ok(all) = procfs::process::all_processes() else {
        return Vec::new();
    };
    all.filter_map(|p| {
        let p = p.ok()?;
        let group = p.stat().ok()?.pgrp;
        let server = orphans.iter().position(|s| started_by(&p, group, s))?;
        Some(Found {
            pid: p.pid,
            group,
            server,
        })
    })
    .collect()
}

/// True when process `p` (of process group `group`) was started by server `s`: it
/// carries its mark, or, as a program that writes its title over its environment does
/// (nginx), it is in the server's group and works in the server's folder. Zombies and
/// other users' processes show neither.
fn started_by(p: &Process, group: i32, s: &StartedServer) -> bool {
    let env = p.environ().ok();
    let mark = env.as_ref().and_then(|e| e.get(OsStr::new(MARK_ENV)));
    if mark.is_some_and(|m| m.as_encoded_bytes() == s.mark.as_bytes()) {
        return true;
    }
    group == s.group && p.cwd().is_ok_and(|cwd| cwd == s.dir)
}

/// True while process `f` still runs as what it was found to be.
fn still_running(f: &Found, orphans: &[StartedServer]) -> bool {
    let Ok(p) = Process::new(f.pid) else {
        return false;
    };
    p.stat()
        .is_ok_and(|st| started_by(&p, st.pgrp, &orphans[f.server]))
}

/// TERM to the groups of `found`, then KILL to those of its processes still running
/// after the grace period.
fn stop(found: &[Found], orphans: &[StartedServer]) {
    signal_groups(found.iter(), Signal::SIGTERM);
    let until = Instant::now() + GRACE;
    let running = |f: &&Found| still_running(f, orphans);
    // Bounded by GRACE.
    while Instant::now() < until && found.iter().any(|f| running(&f)) {
        std::thread::sleep(Duration::from_millis(50));
    }
    signal_groups(found.iter().filter(running), Signal::SIGKILL);
}

fn signal_groups<'a>(processes: impl Iterator<Item = &'a Found>, signal: Signal) {
    let groups: BTreeSet<i32> = processes.map(|f| f.group).collect();
    // Never our own group (or init's): a server there would be a mistake.
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
    let file = crate::machine::machine_lock::open_shared(path)?;
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
            dir: "/".into(),
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

    /// Waits (a minute at most) until `child` runs `sleep`: /proc then shows what it was
    /// given (environment, folder), not what it had from this process before its exec.
    fn wait_until_exec(child: &std::process::Child) {
        let cmdline = format!("/proc/{}/cmdline", child.id());
        let until = std::time::Instant::now() + Duration::from_secs(60);
        while !std::fs::read(&cmdline).is_ok_and(|c| c.starts_with(b"sleep\0")) {
            assert!(std::time::Instant::now() < until, "sleep never ran");
            // Between polls only.
            std::thread::sleep(Duration::from_millis(10));
        }
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
        wait_until_exec(&orphan);
        let stopped = stop_leftovers(&path).unwrap();
        assert_eq!(stopped.len(), 1, "{stopped:?}");
        assert_eq!(stopped[0].processes, 1);
        let status = orphan.wait().unwrap();
        assert!(!status.success(), "{status}");
        assert_eq!(read(&path), [server(me, 1, "still-running")]);
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn without_its_mark_a_process_is_known_by_group_and_folder_together() {
        let path = temp_state("folder");
        let dir = std::env::temp_dir().join(format!("shootout-folder-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let sleep = |dir: &Path, group: u32| {
            Command::new("sleep")
                .arg("30")
                .current_dir(dir)
                .stdin(Stdio::null())
                .process_group(group as i32)
                .spawn()
                .unwrap()
        };
        // As nginx: no readable mark, in the server's group and folder.
        let mut titled = sleep(&dir, 0);
        // The same group, another folder: not known to be the server's.
        let mut stranger = sleep(Path::new("/"), titled.id());
        let me = ProcessIdentity::me();
        let dead = ProcessIdentity {
            start_ticks: me.start_ticks + 1,
            ..me
        };
        let recorded = StartedServer {
            dir: dir.clone(),
            ..server(dead, titled.id() as i32, &new_mark())
        };
        record(&path, &recorded).unwrap();
        wait_until_exec(&titled);
        wait_until_exec(&stranger);
        let stopped = stop_leftovers(&path).unwrap();
        assert_eq!(stopped.len(), 1, "{stopped:?}");
        assert_eq!(stopped[0].processes, 1);
        // TERM went to the group: the stranger got it too (it shares the group), but it
        // was neither counted nor waited for.
        assert!(!titled.wait().unwrap().success());
        let _ = stranger.kill();
        let _ = stranger.wait();
        let _ = std::fs::remove_dir_all(&dir);
        let _ = std::fs::remove_file(&path);
    }
}
