//! A running contestant: started in its own process group, pinned to its CPUs, polled
//! until it answers, stopped with TERM then KILL so that nothing it started survives.

use super::manifest::{Contestant, Placeholders};
use std::net::{SocketAddr, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long a stopping server gets between TERM and KILL.
const GRACE: Duration = Duration::from_secs(3);

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
    ) -> Result<Server, String> {
        let p = Placeholders { port, threads };
        // Servers inherit the open-file limit: give them the hard limit, as the generator has.
        let _ = engine::raise_nofile();
        let out = std::fs::File::create(log).map_err(|e| format!("log {}: {e}", log.display()))?;
        let err = out.try_clone().map_err(|e| e.to_string())?;
        let mut cmd = Command::new("/bin/sh");
        cmd.args(["-c", &c.fill(&c.manifest.start.command, p)])
            .current_dir(&c.dir)
            .envs(c.manifest.start.env.iter().map(|(k, v)| (k, c.fill(v, p))))
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .process_group(0);
        if let Some(cpus) = cpus {
            let cpus = cpus.to_vec();
            // SAFETY: only sched_setaffinity between fork and exec, which is
            // async-signal-safe; the set is built before the fork.
            unsafe {
                let mut set: libc::cpu_set_t = std::mem::zeroed();
                for &cpu in &cpus {
                    libc::CPU_SET(cpu, &mut set);
                }
                cmd.pre_exec(move || {
                    if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0
                    {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        }
        let child = cmd
            .spawn()
            .map_err(|e| format!("cannot run /bin/sh: {e}"))?;
        Ok(Server {
            child,
            port,
            log: log.to_path_buf(),
        })
    }

    /// Polls the port until it accepts; fails fast if the process exits first.
    pub fn wait_ready(&mut self, timeout: Duration) -> Result<Duration, String> {
        let started = Instant::now();
        let addr = SocketAddr::from(([127, 0, 0, 1], self.port));
        while started.elapsed() < timeout {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Err(format!(
                    "exited during start ({status}); log: {}",
                    self.log.display()
                ));
            }
            if TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok() {
                return Ok(started.elapsed());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Err(format!(
            "did not listen on 127.0.0.1:{} within {:?}; log: {}",
            self.port,
            timeout,
            self.log.display()
        ))
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
        let pgid = self.child.id() as libc::pid_t;
        // SAFETY: signalling our own child's process group.
        unsafe { libc::killpg(pgid, libc::SIGTERM) };
        let until = Instant::now() + GRACE;
        while Instant::now() < until && self.alive() {
            std::thread::sleep(Duration::from_millis(20));
        }
        // Also for the leader's children that outlived it (workers, forks).
        // SAFETY: as above; ESRCH when the group is already gone is fine.
        unsafe { libc::killpg(pgid, libc::SIGKILL) };
        let _ = self.child.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A free TCP port on 127.0.0.1 (the kernel's pick; free when returned).
pub fn free_port() -> Result<u16, String> {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| format!("no free port: {e}"))
}
