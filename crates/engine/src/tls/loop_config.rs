//! The load's TLS client as one loop uses it: the same settings, with a session store of
//! the loop's own (share-nothing: loops never touch each other's sessions).

use super::session_store::LoopSessions;
use super::{Resume, TlsClient};
use rustls::client::{Resumption, Tls12Resumption};
use rustls::ClientConfig;
use std::sync::Arc;

/// `client`'s configuration for a loop of `connections`, resuming as `client.resume` says:
/// - `Off`: no session is kept, every handshake is full;
/// - `Tickets`: TLS 1.3 tickets; TLS 1.2 tickets (RFC 5077), else session ids;
/// - `Ids`: TLS 1.2 session ids only. TLS 1.3 has no session ids: its only resumption is
///   by ticket (PSK), so a TLS 1.3 connection resumes by ticket under `Ids` too.
pub fn loop_config(client: &TlsClient, connections: usize) -> Arc<ClientConfig> {
    let mut config = ClientConfig::clone(&client.config);
    // A ticket for each connection, so that all of them can resume at once; servers send
    // more (rustls, nginx and OpenSSL: 2 per full handshake), the oldest make room. Each
    // ticket held costs about 0.7 KB (it carries the server's certificate): docs/tls.md.
    let store = || Arc::new(LoopSessions::new(connections));
    config.resumption = match client.resume {
        Resume::Off => Resumption::disabled(),
        Resume::Tickets => {
            Resumption::store(store()).tls12_resumption(Tls12Resumption::SessionIdOrTickets)
        }
        Resume::Ids => Resumption::store(store()).tls12_resumption(Tls12Resumption::SessionIdOnly),
    };
    Arc::new(config)
}
