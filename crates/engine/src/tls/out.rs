//! One connection's ciphertext on its way to the socket: handshake flights, requests,
//! close_notify, in the order rustls made them.

use super::failure::Failure;
use crate::pool::Pool;

/// Ciphertext not yet written, in a buffer borrowed from the loop's pool while there is
/// any. While a send of it is in flight (io_uring reads it after the call returns), the
/// buffer is pinned: bytes may be added after the pending ones, but it never moves.
#[derive(Debug, Default)]
pub struct Out {
    buf: Option<Vec<u8>>,
    /// `buf[sent..filled]` is still to be written.
    filled: usize,
    sent: usize,
    pinned: bool,
}

/// How a write into the buffer went: the bytes written, or the room it needed.
pub enum Wrote {
    Done(usize),
    Needs(usize),
    Failed(Failure),
}

impl Out {
    /// The bytes still to be written.
    pub fn pending(&self) -> &[u8] {
        match &self.buf {
            Some(buf) => &buf[self.sent..self.filled],
            None => &[],
        }
    }

    /// True while a send of the pending bytes is in flight.
    pub fn pinned(&self) -> bool {
        self.pinned
    }

    /// A send of the pending bytes is in flight: the buffer must not move until [`Out::sent`].
    pub fn pin(&mut self) {
        self.pinned = !self.pending().is_empty();
    }

    /// `n` pending bytes were written (a send in flight, if any, is over); an emptied
    /// buffer goes back to `pool`.
    pub fn sent(&mut self, n: usize, pool: &mut Pool) {
        self.pinned = false;
        self.sent = (self.sent + n).min(self.filled);
        if self.sent == self.filled {
            self.sent = 0;
            self.filled = 0;
            if let Some(buf) = self.buf.take() {
                pool.give(buf);
            }
        }
    }

    /// Appends what `write` puts into the free room it is given, growing the buffer when
    /// it says it needs more (never while pinned: the send in flight reads it).
    pub fn write_with(
        &mut self,
        pool: &mut Pool,
        mut write: impl FnMut(&mut [u8]) -> Wrote,
    ) -> Result<(), Failure> {
        let buf = self.buf.get_or_insert_with(|| pool.take());
        loop {
            match write(&mut buf[self.filled..]) {
                Wrote::Done(n) => {
                    self.filled += n;
                    return Ok(());
                }
                Wrote::Needs(room) if !self.pinned && room > buf.len() - self.filled => {
                    buf.resize(self.filled + room, 0);
                }
                // Pinned, or a buffer that had the room it asked for: rustls's limits were
                // not what this code expects.
                Wrote::Needs(_) => return Err(Failure::Other),
                Wrote::Failed(failure) => return Err(failure),
            }
        }
    }

    /// The connection is over: the buffer goes back to `pool`, or, if a send still reads
    /// it, to the caller, who keeps it until that send completes.
    pub fn release(&mut self, pool: &mut Pool) -> Option<Vec<u8>> {
        let buf = self.buf.take()?;
        let pinned = std::mem::take(&mut self.pinned);
        self.filled = 0;
        self.sent = 0;
        if pinned {
            return Some(buf);
        }
        pool.give(buf);
        None
    }
}
