//! Every default of a load, in one place: `LoadSpec::new`, serde (JSON and TOML) and
//! the CLI's flags read them from here.

use super::tls::{Alpn, CipherSuite, KxGroup, TlsVersions};
use crate::tls::Resume;
use http::Method;
use std::time::Duration;

/// Connections kept open (wrk's default).
pub fn connections() -> usize {
    10
}

/// Measured time of a load that names no stop and no stages.
pub fn duration() -> Duration {
    Duration::from_secs(10)
}

/// A request unanswered for this long is a timeout.
pub fn timeout() -> Duration {
    Duration::from_secs(5)
}

/// No warm-up.
pub fn warmup() -> Duration {
    Duration::ZERO
}

/// One request at a time on a connection: no pipelining.
pub fn pipeline() -> usize {
    1
}

/// HTTP/2 streams per connection: one, as h2load's `-m` default.
pub fn streams() -> usize {
    1
}

pub fn method() -> Method {
    Method::GET
}

/// Keep-alive, as HTTP/1.1 and wrk do.
pub fn keepalive() -> bool {
    true
}

/// Requests each device sends before it leaves (the 2019 Stressgrid script).
pub fn device_requests() -> u32 {
    100
}

/// Mean time between a device's response and its next request.
pub fn think() -> Duration {
    Duration::from_millis(900)
}

/// Uniform jitter of the think time (±5%).
pub fn jitter() -> f64 {
    0.05
}

/// TLS 1.2 and 1.3, as wrk, h2load and browsers offer.
pub fn tls_versions() -> TlsVersions {
    TlsVersions::every()
}

/// `http/1.1`, the one protocol the engine speaks: what h2load --h1 and curl --http1.1
/// offer. wrk and ab send no ALPN; offering it is what a browser's HTTP/1.1 fallback
/// does, lets a server that defaults to h2 answer in HTTP/1.1, and makes a server that
/// speaks only h2 refuse the handshake (no_application_protocol) instead of the requests.
pub fn alpn() -> Vec<Alpn> {
    vec![Alpn::http_1_1()]
}

/// What browsers offer, in their order: TLS 1.3 first, AES-128-GCM first.
pub fn cipher_suites() -> Vec<CipherSuite> {
    CipherSuite::browser_order()
}

/// X25519, then secp256r1, set explicitly: rustls with aws-lc-rs would offer
/// X25519MLKEM768 first, which wrk and h2load on Debian 12 do not (its 1,400-byte
/// ClientHello and about 32 µs more per handshake would make the comparison unfair).
/// X25519MLKEM768 can be asked for by name.
pub fn tls_groups() -> Vec<KxGroup> {
    vec![KxGroup::x25519(), KxGroup::secp256r1()]
}

/// Session tickets, falling back to session ids: what browsers do.
pub fn tls_resume() -> Resume {
    Resume::Tickets
}

/// Octets of a WebSocket message: a small chat or game message.
pub fn message_size() -> usize {
    32
}

/// WebSocket messages in flight per connection: one, echoed before the next goes.
pub fn in_flight() -> usize {
    1
}
