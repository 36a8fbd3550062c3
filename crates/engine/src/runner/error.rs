//! Why a load could not run.

use crate::config::ConfigError;

/// Why a load could not run. Nothing has been sent when one of these is returned.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(
        "{wanted} connections do not fit the open-file limit of {limit} (the hard limit); \
         at most {fits} fit with {threads} thread(s): lower -c or split the load over \
         {processes} processes (--generators local:{processes})"
    )]
    TooManyConnections {
        wanted: usize,
        limit: u64,
        fits: u64,
        threads: usize,
        /// Processes the load would need, each within the limit.
        processes: u64,
    },
    // `cause`, not `source`: the message says it once (a `source` would be printed again
    // by every error chain that shows it).
    #[error("cannot connect to {addr} ({url}): {cause}")]
    Unreachable {
        addr: std::net::SocketAddr,
        url: String,
        cause: std::io::Error,
    },
    /// The pre-flight handshake of an https load failed: a certificate that does not
    /// verify, nothing in common, a server that is not TLS.
    #[error("{url}: {cause}")]
    Tls {
        url: String,
        cause: crate::tls::handshake_error::HandshakeError,
    },
    #[error("io_uring is not available here ({0}); use --io epoll")]
    UringUnavailable(std::io::Error),
    #[error("event loop {index} failed to start: {cause}")]
    Loop { index: usize, cause: std::io::Error },
}
