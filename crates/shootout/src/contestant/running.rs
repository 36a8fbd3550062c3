//! A contestant that is already running, given by its URL: reached at the URL's address,
//! never started, stopped or pinned by shootout. Its CPU and memory are counted over the
//! process tree of its process when the experiment names it (`pid = N` or
//! `process = "NAME"`); otherwise they cannot be told from the machine's other work.

use std::collections::HashSet;
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

/// How long the first connection to a running server may take.
const PATIENCE: Duration = Duration::from_secs(3);

/// How the experiment names a running server's process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Process {
    Pid(u32),
    /// Exactly one process tree of processes called this.
    Named(String),
    /// Not named: its CPU cannot be attributed to it.
    Unknown,
}

/// A server already running, found: where it answers and the root of its process tree.
#[derive(Debug, Clone)]
pub struct RunningServer {
    /// The URL as the experiment wrote it.
    pub url: String,
    pub addr: SocketAddr,
    /// The URL's `host[:port]`, sent as the Host header.
    pub host: String,
    /// The process whose tree is the server; None when the experiment named none.
    pub pid: Option<u32>,
}

/// Why a running server cannot be used; the message starts with the field at fault.
#[derive(Debug, thiserror::Error)]
pub enum RunningError {
    #[error("url: nothing answers at {url} ({source})")]
    Unreachable { url: String, source: std::io::Error },
    #[error("pid: no process {0} is running")]
    NoPid(u32),
    #[error("process: no running process is called {0:?}")]
    NoProcess(String),
    #[error(
        "process: {} processes are called {name:?} (pids {}): give pid = N instead",
        pids.len(),
        pids.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
    )]
    Several { name: String, pids: Vec<u32> },
}

impl RunningServer {
    /// The server answering at `addr` (`url` as written, `host` its name there), with
    /// its process found.
    pub fn find(
        url: &str,
        addr: SocketAddr,
        host: &str,
        process: &Process,
    ) -> Result<RunningServer, RunningError> {
        TcpStream::connect_timeout(&addr, PATIENCE).map_err(|source| {
            RunningError::Unreachable {
                url: url.to_string(),
                source,
            }
        })?;
        let pid = match process {
            Process::Pid(pid) if alive(*pid) => Some(*pid),
            Process::Pid(pid) => return Err(RunningError::NoPid(*pid)),
            Process::Named(name) => Some(named(name)?),
            Process::Unknown => None,
        };
        Ok(RunningServer {
            url: url.to_string(),
            addr,
            host: host.to_string(),
            pid,
        })
    }

    /// Why its CPU cannot be attributed to it now, or None when it can.
    pub fn unattributed(&self) -> Option<String> {
        match self.pid {
            None => Some("no pid or process given".into()),
            Some(pid) if !alive(pid) => Some(format!("its process {pid} exited")),
            Some(_) => None,
        }
    }
}

/// True while process `pid` exists and is not a zombie.
pub fn alive(pid: u32) -> bool {
    i32::try_from(pid)
        .ok()
        .and_then(|pid| procfs::process::Process::new(pid).ok())
        .and_then(|p| p.stat().ok())
        .is_some_and(|s| s.state != 'Z')
}

/// The one process called `name` whose parent is not called so too: a server's workers
/// that share its name (nginx's, say) belong to its tree.
fn named(name: &str) -> Result<u32, RunningError> {
    let me = std::process::id() as i32;
    let called: Vec<(i32, i32)> = procfs::process::all_processes()
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|p| {
            let stat = p.stat().ok()?;
            let argv0 = p.cmdline().ok().and_then(|c| c.into_iter().next());
            let base = argv0.as_deref().map(|a| a.rsplit('/').next().unwrap_or(a));
            let is = stat.comm == name || base == Some(name);
            (is && stat.pid != me && stat.state != 'Z').then_some((stat.pid, stat.ppid))
        })
        .collect();
    let pids: HashSet<i32> = called.iter().map(|(pid, _)| *pid).collect();
    let mut roots: Vec<u32> = called
        .iter()
        .filter(|(_, parent)| !pids.contains(parent))
        .map(|(pid, _)| *pid as u32)
        .collect();
    roots.sort_unstable();
    match roots.as_slice() {
        [] => Err(RunningError::NoProcess(name.to_string())),
        [one] => Ok(*one),
        _ => Err(RunningError::Several {
            name: name.to_string(),
            pids: roots,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_alive_and_a_made_up_one_is_not() {
        assert!(alive(std::process::id()));
        assert!(!alive(u32::MAX));
    }

    #[test]
    fn a_name_nothing_runs_under_is_one_line() {
        let e = named("shootout-no-such-process").unwrap_err();
        assert_eq!(
            e.to_string(),
            "process: no running process is called \"shootout-no-such-process\""
        );
    }
}
