//! What every TLS connection of a load shares: the rustls configuration, the name the
//! server is asked for, and how sessions are resumed.

use rustls::pki_types::ServerName;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// A load's TLS client side, made once by [`crate::LoadSpec::resolve`].
#[derive(Debug, Clone)]
pub struct TlsClient {
    /// Versions, suites, groups, ALPN, roots and client certificate, as the spec asked.
    /// Each loop clones it with a session store of its own (share-nothing).
    pub config: Arc<rustls::ClientConfig>,
    /// Sent as SNI and checked against the certificate.
    pub server_name: ServerName<'static>,
    pub resume: Resume,
    /// The load speaks HTTP/2: the server must choose h2 by ALPN.
    pub http2: bool,
}

/// How a new connection resumes an earlier session (`--tls-resume`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Resume {
    /// Every connection does a full handshake.
    Off,
    /// Session tickets (TLS 1.3 PSK, RFC 5077 tickets in TLS 1.2), falling back to TLS
    /// 1.2 session ids: what browsers do.
    #[default]
    Tickets,
    /// TLS 1.2 session ids only (the server keeps the state); TLS 1.3 has no ids, so a
    /// TLS 1.3 connection still resumes by ticket.
    Ids,
}
