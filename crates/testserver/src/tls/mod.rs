//! The TLS mode: the same behaviors over rustls, and the ways a TLS server itself can
//! misbehave: before the handshake (garbage, silence), in it (a certificate the client
//! refuses), and after it, in place of an answer (an alert, a record longer than TLS
//! allows: rustls sends neither on request, so the server seals that record itself with
//! the connection's keys).

mod garbage;
mod instead;
mod sealed;
mod stall;

pub(crate) use garbage::answer_garbage;
pub(crate) use instead::Instead;
pub(crate) use stall::stall;

use std::sync::Arc;

use rustls::{AlertDescription, ServerConfig};

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

    /// The server as it starts: a fault that seals records by hand needs the connection's
    /// keys, which rustls gives only to a configuration that allows it; an HTTP/2 server
    /// offers `h2` by ALPN (the certificate it switches to as well).
    pub(crate) fn ready(mut self, alpn: Option<&[u8]>) -> Tls {
        if self.instead().is_some() {
            Arc::make_mut(&mut self.config).enable_secret_extraction = true;
        }
        if let Some(alpn) = alpn {
            offer(&mut self.config, alpn);
            if let Some(TlsFault::SwitchCertificate { then, .. }) = &mut self.fault {
                offer(then, alpn);
            }
        }
        self
    }

    /// The configuration the connection accepted `index`-th (from 0) handshakes with.
    pub(crate) fn config_for(&self, index: u64) -> Arc<ServerConfig> {
        match &self.fault {
            Some(TlsFault::SwitchCertificate { after, then }) if index >= *after => then.clone(),
            _ => self.config.clone(),
        }
    }

    /// What each connection sends in place of an answer, if the fault says so.
    pub(crate) fn instead(&self) -> Option<Instead> {
        match self.fault {
            Some(TlsFault::AlertAfter { after, alert }) => Some(Instead::alert(after, alert)),
            Some(TlsFault::OversizedRecordAfter { after, record }) => {
                Some(Instead::oversized(after, record))
            }
            _ => None,
        }
    }
}

/// Makes `config` offer `alpn` alone.
fn offer(config: &mut Arc<ServerConfig>, alpn: &[u8]) {
    Arc::make_mut(config).alpn_protocols = vec![alpn.to_vec()];
}

/// How a TLS server misbehaves.
#[derive(Debug, Clone)]
pub enum TlsFault {
    /// Answers the ClientHello with bytes that are no TLS record (what a clear HTTP/1.1
    /// server sends a TLS client), then closes.
    GarbageHello,
    /// Closes its connections with a bare FIN, never sending close_notify: a client cannot
    /// tell a close-delimited body's end from a truncation.
    NoCloseNotify,
    /// Reads the ClientHello, then says nothing until the client closes or the server stops.
    StallHandshake,
    /// Handshakes as [`Tls::config`] says on its first `after` connections (in accept
    /// order), then as `then` says: with another certificate, and another ticket key, so
    /// that no client resumes past the new certificate (see [`crate::TestPki::server_config_for`]).
    SwitchCertificate { after: u64, then: Arc<ServerConfig> },
    /// Answers `after` requests on each connection, then sends this fatal alert in place
    /// of the next answer and closes (TLS 1.3 only: the alert is sealed by hand).
    AlertAfter { after: u32, alert: AlertDescription },
    /// Answers `after` requests on each connection, then sends a record longer than TLS
    /// allows in place of the next answer and closes (TLS 1.3 only).
    OversizedRecordAfter { after: u32, record: Oversized },
}

/// A record longer than TLS allows, as [`TlsFault::OversizedRecordAfter`] sends it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Oversized {
    /// Sealed with the connection's key: 2^14 + 512 bytes of plaintext (TLS allows 2^14)
    /// in a ciphertext past TLS 1.3's 2^14 + 256, seen for what it is once decrypted.
    Sealed,
    /// A header announcing 2^16 - 1 bytes, more than any TLS version allows (2^14 + 2048),
    /// seen from the header alone.
    Announced,
}
