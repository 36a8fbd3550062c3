//! The TLS mode: the same behaviors over rustls, and the ways a TLS server itself can
//! misbehave.

use std::sync::Arc;

use rustls::ServerConfig;

/// A server's TLS side: its configuration (see [`crate::TestPki::server_config`]) and,
/// to test a client against a broken server, what it does wrong.
#[derive(Clone)]
pub struct Tls {
    pub config: Arc<ServerConfig>,
    pub fault: Option<TlsFault>,
}

impl Tls {
    /// A well-behaved TLS server with `config`.
    pub fn new(config: Arc<ServerConfig>) -> Tls {
        Tls {
            config,
            fault: None,
        }
    }

    /// The same server, misbehaving as `fault` says.
    pub fn with_fault(self, fault: TlsFault) -> Tls {
        Tls {
            fault: Some(fault),
            ..self
        }
    }
}

/// How a TLS server misbehaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TlsFault {
    /// Answers the ClientHello with bytes that are no TLS record (what a clear HTTP/1.1
    /// server sends a TLS client), then closes.
    GarbageHello,
    /// Closes its connections with a bare FIN, never sending close_notify: a client cannot
    /// tell a close-delimited body's end from a truncation.
    NoCloseNotify,
}

/// What a [`TlsFault::GarbageHello`] server answers a ClientHello with.
pub(crate) const GARBAGE: &[u8] =
    b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
