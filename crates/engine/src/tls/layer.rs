//! A loop's TLS: its configuration, one session per connection slot, the buffer socket
//! reads land in, and the buffers it lends.

use super::failure::Failure;
use super::loop_config::loop_config;
use super::session::{Pools, Session, MAX_PLAINTEXT};
use super::TlsClient;
use crate::pool::Pool;
use rustls::pki_types::ServerName;
use rustls::ClientConfig;
use std::sync::Arc;

/// Largest TLS record on the wire: 5-byte header, 2^14 plaintext bytes and TLS 1.2's
/// 2048 bytes of expansion (TLS 1.3 allows 256). A record split across reads is carried
/// in a buffer this big.
pub const MAX_RECORD: usize = 5 + (1 << 14) + 2048;

/// Room in an out-buffer beyond the requests: a ClientHello (about 250 bytes with two
/// groups), a record's header and tag, a client's second flight without a certificate.
const OUT_SLACK: usize = 1024;

/// One loop's TLS layer.
pub struct TlsLayer {
    config: Arc<ClientConfig>,
    server_name: ServerName<'static>,
    /// The session of each slot's connection; None while it has none (or is clear).
    sessions: Vec<Option<Session>>,
    /// Socket reads land here, after the reading connection's carried bytes.
    input: Vec<u8>,
    /// How many carried bytes lead `input` since the last [`TlsLayer::stage`].
    staged: usize,
    pools: Pools,
    /// Out-buffers of closed connections that an io_uring send still reads: (slot, its
    /// connection's generation, buffer), until that send's completion comes back.
    in_flight: Vec<(usize, u32, Vec<u8>)>,
}

impl TlsLayer {
    /// The TLS layer of a loop of `connections` whose requests take `request_bytes` (all
    /// the pipeline's), reading `read` bytes at a time at most.
    pub fn new(
        client: &TlsClient,
        connections: usize,
        request_bytes: usize,
        read: usize,
    ) -> TlsLayer {
        let out = request_bytes.min(MAX_PLAINTEXT) + OUT_SLACK;
        TlsLayer {
            config: loop_config(client, connections),
            server_name: client.server_name.clone(),
            sessions: (0..connections).map(|_| None).collect(),
            // A read after the longest carry: a record split across reads, or a handshake
            // message split across records (rustls allows them up to 64 KiB).
            input: vec![0; read.max(1 << 16) + MAX_RECORD],
            staged: 0,
            pools: Pools {
                // One made now: a record split across reads (at every buffer's end over
                // io_uring's incremental buffers) then allocates nothing.
                carries: Pool::new(MAX_RECORD, connections).made(1),
                outs: Pool::new(out, connections),
            },
            in_flight: Vec::new(),
        }
    }

    /// Begins a handshake on `slot`'s new connection at `now`.
    pub fn start(&mut self, slot: usize, now: u64) -> Result<(), Failure> {
        let outs = &mut self.pools.outs;
        self.sessions[slot] = Some(Session::start(&self.config, &self.server_name, now, outs)?);
        Ok(())
    }

    /// `slot`'s session, if its connection has one, and the pools it borrows from.
    pub fn session(&mut self, slot: usize) -> Option<(&mut Session, &mut Pools)> {
        let session = self.sessions.get_mut(slot)?.as_mut()?;
        Some((session, &mut self.pools))
    }

    /// Makes the input buffer ready for a read on `slot`: its carried bytes first; the room
    /// left for the read (None when the carry leaves none: a handshake message longer than
    /// rustls allows).
    pub fn stage(&mut self, slot: usize) -> Option<&mut [u8]> {
        let carried = match self.sessions.get(slot) {
            Some(Some(session)) => session.stage(&mut self.input)?,
            _ => 0,
        };
        self.staged = carried;
        Some(&mut self.input[carried..]).filter(|room| !room.is_empty())
    }

    /// The session of `slot`, the input staged for it plus `n` bytes read, and the pools.
    pub fn received(
        &mut self,
        slot: usize,
        n: usize,
    ) -> Option<(&mut Session, &mut [u8], &mut Pools)> {
        let session = self.sessions.get_mut(slot)?.as_mut()?;
        let input = &mut self.input[..self.staged + n];
        Some((session, input, &mut self.pools))
    }

    /// `slot`'s connection is over: its session goes, and its buffers back to the pools
    /// (an out-buffer a send still reads waits for that send, under `gen`).
    pub fn end(&mut self, slot: usize, gen: u32) {
        let Some(session) = self.sessions.get_mut(slot).and_then(Option::take) else {
            return;
        };
        if let Some(buf) = session.end(&mut self.pools) {
            self.in_flight.push((slot, gen, buf));
        }
    }

    /// A send of an ended connection of `slot` completed, its generation one that `gen`
    /// accepts: its buffer may be used again.
    pub fn send_completed_after_end(&mut self, slot: usize, gen: impl Fn(u32) -> bool) {
        let ended = |&(s, g, _): &(usize, u32, Vec<u8>)| s == slot && gen(g);
        if let Some(i) = self.in_flight.iter().position(ended) {
            let (_, _, buf) = self.in_flight.swap_remove(i);
            self.pools.outs.give(buf);
        }
    }
}
