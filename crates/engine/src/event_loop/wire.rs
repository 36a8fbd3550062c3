//! Where a TLS load's loops touch bytes, written once for both drivers: what a connection
//! has to send (its ciphertext: handshake flights, then its requests encrypted as they
//! start), and what became of bytes that arrived (decrypted, then framed as HTTP).
//!
//! A clear-text load does neither: its drivers write the tail of the shared request
//! buffer and frame what they read straight away, as they always have.

use super::Slots;
use crate::conn::{State, Verdict};
use crate::outcome::Outcome;
use crate::socket;
use crate::tls::{Failure, Negotiated, MAX_PLAINTEXT};
use std::os::fd::RawFd;

/// What became of bytes that arrived on a TLS connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arrival {
    /// Keep the connection (its handshake may just have finished: send what is due).
    Keep,
    /// HTTP says close: what is pending ends with this outcome.
    Close(Outcome),
    /// The server sent close_notify: it will send nothing more.
    PeerClosed,
    /// TLS failed.
    Failed(Failure),
}

impl Slots {
    /// What `slot` has to send: its pending ciphertext, after encrypting (up to a record
    /// of) its unsent requests once the handshake is done, behind what is pending (the
    /// client's Finished and the first request go in one write) unless that is a record
    /// already.
    pub fn tls_outgoing(&mut self, slot: usize, now: u64) -> Result<&[u8], Failure> {
        let Some((session, pools)) = self.tls.as_mut().and_then(|t| t.session(slot)) else {
            return Ok(&[]);
        };
        let conn = &mut self.conns[slot];
        let mut room_opened = false;
        if conn.state == State::Open && session.out.pending().len() < MAX_PLAINTEXT {
            let taken = session.encrypt(conn.unsent(&self.req), pools)?;
            room_opened = conn.wrote(taken, &self.req);
            // A TLS load counts its HTTP bytes, as a clear one does (not the records').
            self.ledger.wrote(taken, now);
        }
        if room_opened {
            self.refill(slot, now);
        }
        let pending = (self.tls.as_mut().and_then(|t| t.session(slot)))
            .map_or(&[][..], |(session, _)| session.out.pending());
        Ok(pending)
    }

    /// A send of what [`Slots::tls_outgoing`] gave is in flight (io_uring): its buffer
    /// must stay where it is until [`Slots::tls_sent`].
    pub fn tls_sending(&mut self, slot: usize) {
        if let Some((session, _)) = self.tls.as_mut().and_then(|t| t.session(slot)) {
            session.out.pin();
        }
    }

    /// `n` bytes of what [`Slots::tls_outgoing`] gave were written.
    pub fn tls_sent(&mut self, slot: usize, n: usize) {
        if let Some((session, pools)) = self.tls.as_mut().and_then(|t| t.session(slot)) {
            session.out.sent(n, &mut pools.outs);
        }
    }

    /// Where the next read on `slot` goes (after its carried bytes); None when there is
    /// no room (a handshake message longer than rustls allows).
    pub fn tls_stage(&mut self, slot: usize) -> Option<&mut [u8]> {
        self.tls.as_mut()?.stage(slot)
    }

    /// `data` arrived on `slot` at `now` (io_uring: from a ring buffer).
    pub fn tls_arrived_from(&mut self, slot: usize, data: &[u8], now: u64) -> Arrival {
        match self.tls_stage(slot) {
            Some(room) if room.len() >= data.len() => room[..data.len()].copy_from_slice(data),
            _ => return Arrival::Failed(Failure::RecordOverflow),
        }
        self.tls_arrived(slot, data.len(), now)
    }

    /// `n` bytes were read on `slot` at `now` into the room [`Slots::tls_stage`] gave:
    /// through rustls, then framed as HTTP.
    pub fn tls_arrived(&mut self, slot: usize, n: usize, now: u64) -> Arrival {
        let Some((session, input, pools)) = self.tls.as_mut().and_then(|t| t.received(slot, n))
        else {
            return Arrival::Keep;
        };
        let was_open = session.open;
        let conn = &mut self.conns[slot];
        let times = &mut self.times[slot * self.depth..(slot + 1) * self.depth];
        let (req, ledger) = (&self.req, &mut self.ledger);
        let mut verdict = Ok(Verdict::Keep);
        let mut deliver = |plain: &[u8]| {
            verdict = conn.receive(plain, now, times, req, ledger);
            verdict == Ok(Verdict::Keep)
        };
        let pumped = match session.receive(input, pools, &mut deliver) {
            Ok(pumped) => pumped,
            Err(failure) => return Arrival::Failed(failure),
        };
        match verdict {
            Err(outcome) => return Arrival::Close(outcome),
            Ok(Verdict::Close) => return Arrival::Close(Outcome::Read),
            Ok(Verdict::Keep) => {}
        }
        if pumped.open && !was_open {
            if let Err(failed) = self.handshake_done(slot, now) {
                return failed;
            }
        }
        match pumped.peer_closed {
            true => Arrival::PeerClosed,
            false => Arrival::Keep,
        }
    }

    /// `slot`'s handshake finished at `now`: it is recorded, and requests may go; an
    /// HTTP/2 load whose server did not choose h2 by ALPN fails.
    fn handshake_done(&mut self, slot: usize, now: u64) -> Result<(), Arrival> {
        let Some((session, _)) = self.tls.as_mut().and_then(|t| t.session(slot)) else {
            return Ok(());
        };
        session.open = true;
        if self.conns[slot].speaks_h2() && session.state().alpn_protocol() != Some(b"h2") {
            return Err(Arrival::Failed(Failure::NoH2));
        }
        if self.ledger.wants_negotiated() {
            if let Some(negotiated) = Negotiated::of(session.state()) {
                self.ledger.negotiated(negotiated);
            }
        }
        self.ledger
            .handshake(session.started, now, session.resumed());
        self.conns[slot].handshake_done(&self.req, now);
        if self.keepalive {
            self.refill(slot, now);
        }
        Ok(())
    }

    /// `slot`'s connection on `fd` is about to close: over TLS, close_notify goes first
    /// when nothing else is on its way (closing does not wait for it).
    pub fn tls_goodbye(&mut self, slot: usize, fd: RawFd) {
        let Some((session, _)) = self.tls.as_mut().and_then(|t| t.session(slot)) else {
            return;
        };
        let mut record = [0u8; 64];
        let n = session.close_notify(&mut record);
        if n > 0 {
            socket::send_now(fd, &record[..n]);
        }
    }

    /// `slot`'s clear connection on `fd` is about to close: a GOAWAY (HTTP/2) or a close
    /// (WebSocket) the client queued (it found the server broke the protocol, or the
    /// server closed) goes first if it can go alone.
    pub fn frames_goodbye(&mut self, slot: usize, fd: RawFd) {
        if self.tls.is_none() {
            if let Some(goodbye) = self.conns[slot].goodbye() {
                socket::send_now(fd, goodbye);
            }
        }
    }

    /// `slot`'s connection is closed: its TLS session ends.
    pub fn tls_end(&mut self, slot: usize) {
        let gen = self.conns[slot].gen;
        if let Some(tls) = self.tls.as_mut() {
            tls.end(slot, gen);
        }
    }
}
