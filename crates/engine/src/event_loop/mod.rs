//! What every event loop is given, and the logic the epoll and io_uring loops share: the
//! loop itself (drive), its connections and their books (slots), a connection's life
//! (connections), where a TLS load's bytes go through TLS (wire), a WebSocket load's close
//! handshakes at the end (closing), and what a loop hands back (results).

mod closing;
mod connections;
mod drive;
mod gather;
mod loop_spec;
mod results;
mod slots;
mod wire;

pub use connections::{close_and_reopen, connect_failed, peer_closed, tls_eof, tls_failed};
pub use drive::{drive, Driver};
pub use gather::Gather;
pub use loop_spec::LoopSpec;
pub use slots::Slots;
pub use wire::Arrival;

/// Read buffer size per loop (shared by all its connections): a large download comes in
/// as few reads as the socket allows (at 64 KiB, epoll's client CPU per MB received was
/// 1.09x the C floor's in bench/upload-cost), and one buffer a loop costs little.
pub const READ_BUFFER: usize = 256 * 1024;
