//! One connection's TLS: its rustls state, the input rustls has not let go of yet, and its
//! ciphertext on the way out.

use super::failure::Failure;
use super::out::Out;
use super::pump::{self, Pumped};
use crate::pool::Pool;
use rustls::client::UnbufferedClientConnection;
use rustls::pki_types::ServerName;
use rustls::{ClientConfig, HandshakeKind};
use std::sync::Arc;

/// Most plaintext encrypted at once: one record's worth.
pub const MAX_PLAINTEXT: usize = 16 * 1024;

/// One connection's TLS state.
pub struct Session {
    tls: UnbufferedClientConnection,
    /// Input rustls has not consumed: a record (or handshake message) split across reads.
    /// rustls keeps no copy of it, and the loop's receive buffer serves every connection,
    /// so it waits here, in a buffer borrowed from the loop's pool only while there is any.
    carry: Option<Vec<u8>>,
    pub out: Out,
    /// The handshake is complete.
    pub open: bool,
    /// Loop-clock nanosecond the handshake began (the TCP connect's end).
    pub started: u64,
}

impl Session {
    /// A new client connection to `name`, begun at `now`, its ClientHello already in `out`.
    pub fn start(
        config: &Arc<ClientConfig>,
        name: &ServerName<'static>,
        now: u64,
        outs: &mut Pool,
    ) -> Result<Session, Failure> {
        let tls = UnbufferedClientConnection::new(config.clone(), name.clone())?;
        let mut session = Session {
            tls,
            carry: None,
            out: Out::default(),
            open: false,
            started: now,
        };
        pump::pump(
            &mut session.tls,
            &mut [],
            &mut session.out,
            outs,
            &mut |_| true,
        )?;
        Ok(session)
    }

    /// Copies the carried input to the front of `buf`; how many bytes that is.
    pub fn stage(&self, buf: &mut [u8]) -> Option<usize> {
        let carry = self.carry.as_deref().unwrap_or_default();
        buf.get_mut(..carry.len())?.copy_from_slice(carry);
        Some(carry.len())
    }

    /// Runs rustls over `input` (the carry and what arrived), handing the plaintext to
    /// `deliver`; keeps what it did not consume.
    pub fn receive(
        &mut self,
        input: &mut [u8],
        pools: &mut Pools,
        deliver: &mut impl FnMut(&[u8]) -> bool,
    ) -> Result<Pumped, Failure> {
        let pumped = pump::pump(
            &mut self.tls,
            input,
            &mut self.out,
            &mut pools.outs,
            deliver,
        )?;
        if !pumped.stopped {
            self.keep(&input[pumped.consumed..], &mut pools.carries);
        }
        Ok(pumped)
    }

    /// Encrypts up to a record of `plain` into `out`; the plaintext bytes taken (none
    /// while a send of `out` is in flight or rustls cannot send yet).
    pub fn encrypt(&mut self, plain: &[u8], pools: &mut Pools) -> Result<usize, Failure> {
        if self.out.pinned() || plain.is_empty() {
            return Ok(0);
        }
        let plain = &plain[..plain.len().min(MAX_PLAINTEXT)];
        let carry = self.carry.as_deref_mut().unwrap_or_default();
        let sent = pump::encrypt(&mut self.tls, carry, plain, &mut self.out, &mut pools.outs)?;
        Ok(if sent { plain.len() } else { 0 })
    }

    /// Encodes close_notify into `room` if the connection may still send; its length.
    pub fn close_notify(&mut self, room: &mut [u8]) -> usize {
        if !self.open || self.out.pinned() || !self.out.pending().is_empty() {
            // Ciphertext still queued or in flight must go first: skip it rather than wait.
            return 0;
        }
        let carry = self.carry.as_deref_mut().unwrap_or_default();
        pump::close_notify(&mut self.tls, carry, room)
    }

    /// True when this connection resumed an earlier session.
    pub fn resumed(&self) -> bool {
        self.tls.handshake_kind() == Some(HandshakeKind::Resumed)
    }

    /// The connection's rustls state, for what it negotiated.
    pub fn state(&self) -> &rustls::CommonState {
        &self.tls
    }

    /// The connection is over: its buffers go back to `pools`, except an out-buffer a send
    /// still reads, which is returned.
    pub fn end(mut self, pools: &mut Pools) -> Option<Vec<u8>> {
        if let Some(carry) = self.carry.take() {
            pools.carries.give(carry);
        }
        self.out.release(&mut pools.outs)
    }

    /// Keeps `unconsumed` for the next input; gives the carry buffer back when nothing is left.
    fn keep(&mut self, unconsumed: &[u8], carries: &mut Pool) {
        if unconsumed.is_empty() {
            if let Some(carry) = self.carry.take() {
                carries.give(carry);
            }
            return;
        }
        let carry = self.carry.get_or_insert_with(|| carries.take());
        carry.clear();
        carry.extend_from_slice(unconsumed);
    }
}

/// The buffers a loop lends its connections: carries and out-buffers.
#[derive(Debug)]
pub struct Pools {
    pub carries: Pool,
    pub outs: Pool,
}
