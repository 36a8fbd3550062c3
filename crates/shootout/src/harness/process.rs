//! A running contestant: started in its own process group, pinned to its CPUs, polled
//! until it answers, stopped with TERM then KILL so that nothing it started survives.

use super::layout::{PinError, Pinned};
use super::manifest::{Contestant, Placeholders};
use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use std::io;
use std::net::{SocketAddr, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// How long a stopping server gets between TERM and KILL.
const GRACE: Duration = Duration::from_secs(3);

/// Why a server did not start or did not come up.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error("log {}: {source}", path.display())]
    Log { path: PathBuf, source: io::Error },
    #[error(transparent)]
    Pin(#[from] PinError),
    #[error("cannot run /bin/sh: {0}")]
    Spawn(io::Error),
    #[error("exited during start ({status}); log: {}", log.display())]
    Exited { status: ExitStatus, log: PathBuf },
    #[error("did not listen on 127.0.0.1:{port} within {timeout:?}; log: {}", log.display())]
    NotListening {
        port: u16,
        timeout: Duration,
        log: PathBuf,
    },
    #[error("no free port: {0}")]
    NoFreePort(io::Error),
}

/// A contestant's server process (and its process group).
#[derive(Debug)]
pub struct Server {
    child: Child,
    pub port: u16,
    pub log: PathBuf,
}

impl Server {
    /// Starts `c` on `port` with `threads`, pinned to `cpus` if given; output goes to `log`.
    pub fn start(
        c: &Contestant,
        port: u16,
        threads: usize,
        cpus: Option<&[usize]>,
        log: &Path,
    ) -> Result<Server, ServerError> {
        let p = Placeholders { port, threads };
        // Servers inherit the open-file limit: give them the hard limit, as the generator has.
        let _ = engine::raise_nofile();
        let log_error = |source| ServerError::Log {
            path: log.to_path_buf(),
            source,
        };
        let out = std::fs::File::create(log).map_err(log_error)?;
        let err = out.try_clone().map_err(log_error)?;
        let mut cmd = Command::new("/bin/sh");
        cmd.args(["-c", &c.fill(&c.manifest.start.command, p)])
            .current_dir(&c.dir)
            .envs(c.manifest.start.env.iter().map(|(k, v)| (k, c.fill(v, p))))
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .process_group(0);
        // The child inherits the CPUs of the thread that spawns it: pin this thread for
        // the spawn, so the server is pinned from its first instruction, forks included.
        let pinned = cpus.map(Pinned::thread).transpose()?;
        let child = cmd.spawn().map_err(ServerError::Spawn)?;
        drop(pinned);
        Ok(Server {
            child,
            port,
            log: log.to_path_buf(),
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
