//! WebSocket (RFC 6455) for the load engine, sans I/O, as HTTP/2 is: a connection's
//! [`Session`] takes the bytes that arrived (clear, or decrypted by TLS) and queues the
//! frames to write in a buffer the loop lends while there is something to send; the event
//! loops move the bytes. The upgrade is checked ([`handshake`]), the client's frames are
//! masked ([`frame`]), the server's are read in pieces without keeping a message
//! ([`reader`]). An echo load: each message sent must come back, and is one unit of
//! accounting, latency and timeout, as a request is over HTTP.
//!
//! The framing is the engine's own, not a crate's: docs/websocket.md says why, with the
//! numbers.

mod books;
mod frame;
#[doc(hidden)]
pub mod fuzzing;
mod handshake;
mod message;
mod owed;
#[doc(hidden)]
pub mod probe;
mod reader;
mod session;
mod utf8;
mod violation;

pub use books::WsBooks;
pub use handshake::Refusal;
pub use message::WsRequest;
pub use session::{Session, CLOSE_WAIT_NS};
pub use violation::Violation;

/// The client's pieces that `verify --websocket` drives over a blocking socket, so that
/// verification and a load judge a server by the same code.
pub mod client {
    pub use super::frame::{masked_len, opcode, write_masked};
    pub use super::handshake::{check_answer, key_and_accept, ACCEPT_LEN, KEY_LEN};
    pub use super::reader::{Event, Expected, FrameReader};
}
