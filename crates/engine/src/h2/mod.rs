//! HTTP/2 (RFC 9113) for the load engine, sans I/O: a connection's [`Session`] takes the
//! bytes that arrived (clear, or decrypted by TLS) and queues the frames to write, in
//! buffers the connection slot owns; the event loops move the bytes, as they do for
//! HTTP/1.1. Frames are read and written here ([`frame`], [`reader`], [`out`]); header
//! blocks are HPACK ([`crate::hpack`]).
//!
//! Cleartext with prior knowledge (h2c) and over TLS by ALPN `h2`. Upgrade from HTTP/1.1
//! is left out: RFC 9113 deprecates it and no load client of note uses it.

mod books;
mod error_code;
mod frame;
#[doc(hidden)]
pub mod fuzzing;
mod lender;
mod out;
mod reader;
mod receive;
mod session;
mod settings;
mod streams;

pub use books::H2Books;
pub use error_code::ErrorCode;
pub(crate) use lender::Lender;
pub(crate) use out::OutFrames;
pub use session::Session;
pub use settings::PeerSettings;
