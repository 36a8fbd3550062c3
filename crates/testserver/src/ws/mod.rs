//! The WebSocket mode (RFC 6455), on raw frames so that it can break the protocol on
//! purpose: clear text or over TLS, the same thread per connection as HTTP/1.1.
//!
//! Well-behaved ([`WsBehavior::Echo`]), a connection answers the upgrade with 101 and the
//! key's Accept, echoes each message (reassembled from fragments) in one frame, answers
//! pings with pongs and the client's close with the same close. The misbehaving ones are
//! listed on [`WsBehavior`]; [`Counters`] counts what the connections did besides echoing
//! (messages received are the server's `requests`, echoes its `responses`).

mod behavior;
mod conn;
mod frame;

pub use behavior::WsBehavior;
pub(crate) use conn::serve;

use std::sync::atomic::AtomicU64;

/// What WebSocket connections did besides echoing, for the tests to compare.
#[derive(Default)]
pub(crate) struct Counters {
    /// Pings the server sent.
    pub pings: AtomicU64,
    /// Pongs the client sent.
    pub pongs: AtomicU64,
    /// Closes the client sent.
    pub closes: AtomicU64,
    /// Of those, answered with the server's close.
    pub closes_answered: AtomicU64,
}
