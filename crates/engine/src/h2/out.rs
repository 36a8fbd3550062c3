//! One connection's frames on their way to the socket, in a buffer that never moves while
//! it holds any: an io_uring send reads it after the call that queued it returns, and
//! frames are added behind the bytes in flight meanwhile. Over HTTP/2 the buffer is lent
//! by the loop ([`Lender`]) and goes back once everything in it is written.

use super::frame::{FrameHeader, HEADER_LEN};
use super::lender::Lender;

/// Frames not yet written: `buf[sent..filled]`.
#[derive(Debug)]
pub struct OutFrames {
    buf: Option<Vec<u8>>,
    sent: usize,
    filled: usize,
    /// The buffer's length, whether it is here or lent out.
    size: usize,
    /// Where the buffer comes from and goes back to; None for one of its own.
    lender: Option<Lender>,
}

impl OutFrames {
    /// A buffer of its own, of `capacity` octets, made once per connection slot.
    pub fn new(capacity: usize) -> OutFrames {
        OutFrames {
            buf: Some(vec![0; capacity]),
            sent: 0,
            filled: 0,
            size: capacity,
            lender: None,
        }
    }

    /// A buffer borrowed from `lender` while there are frames to write.
    pub fn lent(lender: Lender) -> OutFrames {
        OutFrames {
            buf: None,
            sent: 0,
            filled: 0,
            size: lender.out_size(),
            lender: Some(lender),
        }
    }

    /// The octets still to be written.
    pub fn pending(&self) -> &[u8] {
        self.buf
            .as_deref()
            .map_or(&[], |b| &b[self.sent..self.filled])
    }

    /// Octets free behind the pending ones (all of a buffer the lender would lend).
    pub fn room(&self) -> usize {
        self.size - self.filled
    }

    /// `n` pending octets were written (no send of them is in flight any more, so the
    /// rest may move to the front, or a lent buffer with nothing left go back).
    pub fn wrote(&mut self, n: usize) {
        self.sent = (self.sent + n).min(self.filled);
        let filled = self.filled;
        if self.sent == filled {
            (self.sent, self.filled) = (0, 0);
            if let Some(lender) = &self.lender {
                self.buf
                    .take()
                    .into_iter()
                    .for_each(|buf| lender.give_out(buf));
            }
        } else if let Some(buf) = self.buf.as_mut().filter(|b| filled > b.len() / 2) {
            buf.copy_within(self.sent..filled, 0);
            (self.sent, self.filled) = (0, filled - self.sent);
        }
    }

    /// The buffer, borrowed from the lender if it has none.
    fn buf(&mut self) -> &mut Vec<u8> {
        let lender = &self.lender;
        self.buf
            .get_or_insert_with(|| lender.as_ref().map_or_else(Vec::new, Lender::take_out))
    }

    /// The free octets behind the pending ones, to write into before [`commit`](Self::commit).
    pub fn spare(&mut self) -> &mut [u8] {
        let filled = self.filled;
        &mut self.buf()[filled..]
    }

    /// `n` octets written into [`spare`](Self::spare) are pending.
    pub fn commit(&mut self, n: usize) {
        self.filled = (self.filled + n).min(self.size);
    }

    /// Drops everything (a new connection). A lent buffer stays until its next bytes are
    /// written: a send of the old connection's may still be reading it.
    pub fn clear(&mut self) {
        (self.sent, self.filled) = (0, 0);
    }

    /// Appends raw octets (the connection preface); false, and nothing added, without room.
    pub fn raw(&mut self, octets: &[u8]) -> bool {
        if self.room() < octets.len() {
            return false;
        }
        let filled = self.filled;
        self.buf()[filled..filled + octets.len()].copy_from_slice(octets);
        self.filled += octets.len();
        true
    }

    /// Appends a frame of `kind` with `flags` on `stream` whose payload is `parts` in
    /// order; false, and nothing added, without room.
    pub fn frame(&mut self, kind: u8, flags: u8, stream: u32, parts: &[&[u8]]) -> bool {
        let len: usize = parts.iter().map(|p| p.len()).sum();
        if self.room() < HEADER_LEN + len {
            return false;
        }
        let header = FrameHeader {
            len,
            kind,
            flags,
            stream,
        };
        self.raw(&header.encode());
        for part in parts {
            self.raw(part);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_queue_behind_each_other_and_leave_when_written() {
        let mut out = OutFrames::new(32);
        assert!(out.frame(4, 1, 0, &[]));
        assert!(out.frame(6, 0, 0, &[b"12345678"]));
        assert_eq!(out.pending().len(), 26);
        assert!(!out.frame(6, 0, 0, &[b"12345678"]), "only 6 octets left");
        out.wrote(9);
        assert_eq!(out.pending().len(), 17);
        assert_eq!(out.room(), 15, "the rest moved to the front");
        out.wrote(17);
        assert_eq!((out.pending().len(), out.room()), (0, 32));
    }

    #[test]
    fn a_lent_buffer_goes_back_once_everything_in_it_is_written() {
        let lender = Lender::new(32, 16, 2);
        let mut out = OutFrames::lent(lender.clone());
        assert_eq!((out.pending().len(), out.room()), (0, 32));
        assert!(out.buf.is_none(), "nothing to write, nothing borrowed");
        assert!(out.frame(6, 0, 0, &[b"12345678"]));
        out.wrote(10);
        assert!(out.buf.is_some(), "7 octets still to go");
        out.wrote(7);
        assert!(out.buf.is_none(), "all written: the buffer went back");
        let mut other = OutFrames::lent(lender);
        assert!(other.raw(b"PRI"));
        assert_eq!(other.pending(), b"PRI", "the same buffer, lent again");
    }
}
