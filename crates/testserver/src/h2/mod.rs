//! The HTTP/2 mode (RFC 9113), written on raw frames so that it can break the protocol on
//! purpose: clear text with prior knowledge (h2c) or over TLS (ALPN `h2`), the same
//! thread per connection as HTTP/1.1.
//!
//! Well-behaved ([`H2Behavior::Hello`] and its knobs), a connection reads the client's
//! preface and SETTINGS, sends its own (MAX_CONCURRENT_STREAMS 100) and acks the
//! client's, acks PINGs, reads request bodies and grants their window back at once,
//! and answers each stream `:status 200`, content-length, date and "Hello World" in the
//! order the requests complete, within the client's windows and MAX_FRAME_SIZE. The
//! misbehaving ones are listed on [`H2Behavior`]; [`Counters`] counts what they did.
//!
//! Request header blocks are decoded with a real HPACK decoder (loona-hpack), so a
//! client's dynamic table is exercised; responses use literal fields, never the table.

mod behavior;
mod conn;
mod error_code;
mod frame;
mod receive;
mod request;
mod response;
mod rules;
mod send;
mod settings;
mod stream;
mod write;

pub use behavior::{H2Behavior, RstCode};
pub(crate) use conn::serve;

use std::sync::atomic::AtomicU64;

/// What HTTP/2 connections did besides answering, for the tests to compare.
#[derive(Default)]
pub(crate) struct Counters {
    /// RST_STREAM frames sent.
    pub resets: AtomicU64,
    /// Of those, with REFUSED_STREAM.
    pub refused: AtomicU64,
    /// GOAWAY frames sent, on purpose or for a client that broke the protocol.
    pub goaways: AtomicU64,
    /// PINGs sent (not acks).
    pub pings: AtomicU64,
    /// Acks of those PINGs received.
    pub ping_acks: AtomicU64,
}
