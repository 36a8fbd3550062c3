//! The one way a contestant is brought up, for `shootout run`, `verify` and `start`:
//! started in its process group (pinned if asked), then polled until its port answers,
//! failing fast if it exits, within one start timeout.

use crate::contestant::certificates::CertificateFiles;
use crate::contestant::manifest::{Contestant, Placeholders, Serving};
use crate::process::server::{free_port, Server, ServerError};
use std::time::Duration;

/// How long a contestant may take to start listening (JVMs and BEAM take seconds).
pub const START_TIMEOUT: Duration = Duration::from_secs(60);

/// Where and how to start a contestant.
#[derive(Debug, Clone, Default)]
pub struct LaunchSpec<'a> {
    /// The port to listen on; a free one when None.
    pub port: Option<u16>,
    /// The server's parallelism (`{threads}` in its manifest).
    pub threads: usize,
    /// CPUs to pin it to; unpinned when None.
    pub cpus: Option<&'a [usize]>,
    /// Variables its environment gets beside its manifest's (the database's URL).
    pub environment: &'a [(&'static str, String)],
}

/// Why a contestant is not up.
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    /// It could not be started (no free port, no log file, no shell).
    #[error("start: {0}")]
    Start(ServerError),
    /// It started but did not answer in time, or exited first.
    #[error("start: {0}")]
    NotReady(ServerError),
}

/// Starts `c` as `spec` says and waits until it answers; its output goes to
/// `server.log` in its build folder.
pub fn launch(c: &Contestant, spec: &LaunchSpec) -> Result<Server, LaunchError> {
    start(c, spec, Serving::Start)
}

/// Starts `c` serving cleartext HTTP/2 with prior knowledge (its manifest's `[h2c]`), as
/// `spec` says, and waits until it accepts connections; its output goes to `server.log`.
pub fn launch_h2c(c: &Contestant, spec: &LaunchSpec) -> Result<Server, LaunchError> {
    start(c, spec, Serving::H2c)
}

/// Starts `c` serving HTTPS with `certificate` (its manifest's `[tls]`), as `spec` says,
/// and waits until it accepts connections; its output goes to `server.log`.
pub fn launch_over_tls(
    c: &Contestant,
    spec: &LaunchSpec,
    certificate: &CertificateFiles,
) -> Result<Server, LaunchError> {
    start(c, spec, Serving::Tls(certificate))
}

fn start(c: &Contestant, spec: &LaunchSpec, serving: Serving) -> Result<Server, LaunchError> {
    let port = match spec.port {
        Some(p) => p,
        None => free_port().map_err(LaunchError::Start)?,
    };
    let log = c.build.join("server.log");
    let p = Placeholders {
        port,
        threads: spec.threads,
        serving,
    };
    let mut server =
        Server::start(c, p, spec.cpus, &log, spec.environment).map_err(LaunchError::Start)?;
    server
        .wait_ready(START_TIMEOUT)
        .map_err(LaunchError::NotReady)?;
    Ok(server)
}
