//! Everything that can fail before a load starts, checked once: what passes is a
//! [`CheckedLoad`], with the I/O interface its loops will use.

use super::RunError;
use crate::config::{IoChoice, LoadConfig, Stop};
use crate::limits;
use crate::pace::Pace;
use crate::tls;
use crate::uring;
use std::net::TcpStream;
use std::time::Duration;

/// Time allowed for the connect that checks the target answers at all.
const PREFLIGHT_TIMEOUT: Duration = Duration::from_secs(5);

/// A load that passed [`check`]: valid, within the open-file limit, target answering.
#[derive(Debug, Clone)]
pub struct CheckedLoad {
    pub(super) config: LoadConfig,
    pub(super) io: Io,
}

impl CheckedLoad {
    /// The load as it will run (threads capped at the connection count).
    pub fn config(&self) -> &LoadConfig {
        &self.config
    }

    /// The I/O interface the loops will use.
    pub fn io(&self) -> Io {
        self.io
    }
}

/// Everything that can fail before the load starts: the configuration, the open-file
/// limit (raised to the hard limit here), the I/O interface, and one connect to the target
/// (with a TLS handshake over https).
pub fn check(config: &LoadConfig) -> Result<CheckedLoad, RunError> {
    let checked = check_settings(config)?;
    preflight(&checked.config)?;
    Ok(checked)
}

/// What [`check`] checks but the connect and the handshake: for a load whose server
/// fails them on purpose (the misbehaving-server tests), where every failure is the
/// loops' to count, not a reason not to start.
pub fn check_settings(config: &LoadConfig) -> Result<CheckedLoad, RunError> {
    config.validate()?;
    let mut config = config.clone();
    if let Pace::Devices(script) = &config.pace {
        // A device is a connection: the slots are the peak device count.
        config.connections = script.count.peak().floor().max(1.0) as usize;
    }
    config.connections = config.shard.share(config.connections as u64) as usize;
    if let Stop::Requests(n) = config.stop {
        config.stop = Stop::Requests(config.shard.share(n));
    }
    config.threads = config.threads.min(config.connections);
    let limit = limits::raise_nofile().unwrap_or(1024);
    let fits = limits::connections_that_fit(limit, config.threads);
    if config.connections as u64 > fits {
        return Err(RunError::TooManyConnections {
            wanted: config.connections,
            limit,
            fits,
            threads: config.threads,
            processes: (config.connections as u64 * config.shard.count).div_ceil(fits.max(1)),
        });
    }
    let io = choose_io(config.io)?;
    Ok(CheckedLoad { config, io })
}

/// One connect to the target, and over https one full handshake (within the load's
/// timeout): a certificate that does not verify is refused here, before any load.
fn preflight(config: &LoadConfig) -> Result<(), RunError> {
    let addr = config.target.addr;
    let url = &config.target.url;
    let stream = TcpStream::connect_timeout(&addr, PREFLIGHT_TIMEOUT).map_err(|cause| {
        RunError::Unreachable {
            addr,
            url: url.clone(),
            cause,
        }
    })?;
    let Some(tls) = &config.tls else {
        return Ok(());
    };
    tls::preflight::handshake(stream, tls, config.timeout).map_err(|cause| RunError::Tls {
        url: url.clone(),
        cause,
    })
}

/// The I/O interface the loops will use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Io {
    Uring,
    Epoll,
}

impl Io {
    /// The name used in output and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Io::Uring => "uring",
            Io::Epoll => "epoll",
        }
    }
}

fn choose_io(choice: IoChoice) -> Result<Io, RunError> {
    match choice {
        IoChoice::Epoll => Ok(Io::Epoll),
        IoChoice::Uring => uring::probe()
            .map(|_| Io::Uring)
            .map_err(RunError::UringUnavailable),
        IoChoice::Auto => Ok(if uring::probe().is_ok() {
            Io::Uring
        } else {
            Io::Epoll
        }),
    }
}
