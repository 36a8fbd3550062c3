//! A running contestant: started in its own process group, pinned to its CPUs, polled
//! until it answers, stopped with TERM then KILL so that nothing it started survives.
//! Nothing survives the harness either, even `kill -9` of it: the server's first process
//! gets the parent-death signal, a guard stops the rest of its group, and a server that
//! escaped both is recorded (`started_servers`) for the next `shootout run` to stop.

use crate::contestant::manifest::{Contestant, Placeholders};
use crate::machine::process_identity::ProcessIdentity;
use crate::process::group_guard::GroupGuard;
use crate::process::started_servers::{self, StartedServer, GRACE, MARK_ENV};
use crate::process::{die_with_harness, PinError, Pinned};
use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use std::io;
use std::net::{SocketAddr, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// Why a server did not start or did not come up.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error("log {}: {source}", path.display())]
    Log { path: PathBuf, source: io::Error },
    #[error(transparent)]
    Pin(#[from] PinError),
    #[error("cannot start: {0}")]
    Spawn(io::Error),
    /// `last` holds the log's last lines, which usually say why.
    #[error("exited during start ({status}): {last}; log: {}", log.display())]
    Exited {
        status: ExitStatus,
        last: String,
        log: PathBuf,
    },
    #[error("did not listen on 127.0.0.1:{port} within {timeout:?}; log: {}", log.display())]
    NotListening {
        port: u16,
        timeout: Duration,
        log: PathBuf,
    },
    /// Asked to serve as a table of its manifest says (`tls`, `h2c`) that it has not.
    #[error("it does not serve {table}: its manifest has no [{table}]")]
    NotServed { table: &'static str },
    #[error("no free port: {0}")]
    NoFreePort(io::Error),
}

/// A contestant's server process (and its process group).
#[derive(Debug)]
pub struct Server {
    child: Child,
    pub port: u16,
    pub log: PathBuf,
    /// Stops the group if the harness dies; None once stopped (or if it could not start).
    guard: Option<GroupGuard>,
    /// Its entry in the state file of started servers; None once forgotten.
    recorded: Option<StartedServer>,
}

impl Server {
    /// Starts `c` on `p.port` with `p.threads`, with the command of `p.serving` (over TLS:
    /// serving its certificate), pinned to `cpus` if given, with `environment` added to
    /// its manifest's; output goes to `log`.
    ///
    /// Call it from a thread that lives as long as the server: the parent-death signal
    /// fires when the thread that forked the server ends, not the process. shootout
    /// starts every server from its main thread (`run`, `verify`, `start`).
    pub fn start(
        c: &Contestant,
        p: Placeholders,
        cpus: Option<&[usize]>,
        log: &Path,
        environment: &[(&str, String)],
    ) -> Result<Server, ServerError> {
        let table = p.serving.table();
        let (command, env) = (c.command(p.serving)).ok_or(ServerError::NotServed { table })?;
        let mut cmd = Command::new("/bin/sh");
        cmd.args(["-c", &c.fill(command, p)])
            .current_dir(&c.dir)
            .envs(env.iter().map(|(k, v)| (k, c.fill(v, p))))
            .envs(environment.iter().map(|(k, v)| (k, v)));
        Server::spawn(cmd, &c.dir, p.port, cpus, log)
    }

    /// Starts `cmd` (its program, arguments, folder and environment set) as a server that
    /// will listen on 127.0.0.1:`port`: in its own process group, pinned to `cpus` if
    /// given, dying with the harness, recorded with `dir` as its folder; output goes to
    /// `log`. As [`Server::start`], from a thread that lives as long as the server.
    pub fn spawn(
        mut cmd: Command,
        dir: &Path,
        port: u16,
        cpus: Option<&[usize]>,
        log: &Path,
    ) -> Result<Server, ServerError> {
        // Servers inherit the open-file limit: give them the hard limit, as the generator has.
        let _ = engine::raise_nofile();
        let log_error = |source| ServerError::Log {
            path: log.to_path_buf(),
            source,
        };
        // The log's folder is the build folder, which a contestant with nothing to build
        // may not have yet.
        if let Some(folder) = log.parent() {
            std::fs::create_dir_all(folder).map_err(log_error)?;
        }
        let out = std::fs::File::create(log).map_err(log_error)?;
        let err = out.try_clone().map_err(log_error)?;
        let mark = started_servers::new_mark();
        cmd.stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .env(MARK_ENV, &mark)
            .process_group(0);
        die_with_harness(&mut cmd);
        // The child inherits the CPUs of the thread that spawns it: pin this thread for
        // the spawn, so the server is pinned from its first instruction, forks included.
        let pinned = cpus.map(Pinned::thread).transpose()?;
        let child = cmd.spawn().map_err(ServerError::Spawn)?;
        drop(pinned);
        // Best effort: without a guard or a record, the parent-death signal still stops
        // the server's first process, and `stop` the whole group.
        let guard = GroupGuard::start(child.id()).ok();
        let recorded = StartedServer {
            harness: ProcessIdentity::me(),
            group: child.id() as i32,
            mark,
            dir: dir.to_path_buf(),
        };
        let recorded = started_servers::record(&started_servers::path(), &recorded)
            .ok()
            .map(|()| recorded);
        Ok(Server {
            child,
            port,
            log: log.to_path_buf(),
            guard,
            recorded,
        })
    }

    /// Polls the port until it accepts; fails fast if the process exits first.
    pub fn wait_ready(&mut self, timeout: Duration) -> Result<Duration, ServerError> {
        let started = Instant::now();
        let addr = SocketAddr::from(([127, 0, 0, 1], self.port));
        while started.elapsed() < timeout {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Err(ServerError::Exited {
                    status,
                    last: last_lines(&self.log),
                    log: self.log.clone(),
                });
            }
            if TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok() {
                return Ok(started.elapsed());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Err(ServerError::NotListening {
            port: self.port,
            timeout,
            log: self.log.clone(),
        })
    }

    /// The process id of the server's group leader.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// True while the group leader runs.
    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Stops the whole process group: TERM, then KILL after the grace period.
    pub fn stop(&mut self) {
        // Dropping the guard dismisses it: this stop is the orderly one.
        self.guard = None;
        // The leader's pid is the group's id (process_group(0) at start).
        let group = Pid::from_raw(self.child.id() as i32);
        let _ = killpg(group, Signal::SIGTERM);
        let until = Instant::now() + GRACE;
        while Instant::now() < until && self.alive() {
            std::thread::sleep(Duration::from_millis(20));
        }
        // Also for the leader's children that outlived it (workers, forks).
        // ESRCH when the group is already gone is fine.
        let _ = killpg(group, Signal::SIGKILL);
        let _ = self.child.wait();
        if let Some(server) = self.recorded.take() {
            // A line left behind is harmless: its harness is alive until it exits, and
            // then its mark is found on no process.
            let _ = started_servers::forget(&started_servers::path(), &server.mark);
        }
    }
}

/// The last few non-empty lines of `log`, joined with ` | ` into one line (bounded), or
/// `no output` when it has none.
fn last_lines(log: &Path) -> String {
    const LINES: usize = 5;
    const MAX_CHARS: usize = 400;
    let text = std::fs::read(log).unwrap_or_default();
    let text = String::from_utf8_lossy(&text);
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let last = lines[lines.len().saturating_sub(LINES)..].join(" | ");
    match last.chars().count() {
        0 => "no output".into(),
        n if n > MAX_CHARS => {
            let tail: String = last.chars().skip(n - MAX_CHARS).collect();
            format!("...{tail}")
        }
        _ => last,
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A free TCP port on 127.0.0.1 (the kernel's pick; free when returned).
pub fn free_port() -> Result<u16, ServerError> {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(ServerError::NoFreePort)
}
