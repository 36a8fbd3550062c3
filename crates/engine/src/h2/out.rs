//! One connection's frames on their way to the socket, in a buffer of fixed size that
//! never moves: an io_uring send reads it after the call that queued it returns, and
//! frames are added behind the bytes in flight meanwhile.

use super::frame::{FrameHeader, HEADER_LEN};

/// Frames not yet written: `buf[sent..filled]`.
#[derive(Debug)]
pub struct OutFrames {
    buf: Box<[u8]>,
    sent: usize,
    filled: usize,
}

impl OutFrames {
    /// A buffer of `capacity` octets, made once per connection slot.
    pub fn new(capacity: usize) -> OutFrames {
        OutFrames {
            buf: vec![0; capacity].into_boxed_slice(),
            sent: 0,
            filled: 0,
        }
    }

    /// The octets still to be written.
    pub fn pending(&self) -> &[u8] {
        &self.buf[self.sent..self.filled]
    }

    /// Octets free behind the pending ones.
    pub fn room(&self) -> usize {
        self.buf.len() - self.filled
    }

    /// `n` pending octets were written (no send of them is in flight any more, so the
    /// rest may move to the front).
    pub fn wrote(&mut self, n: usize) {
        self.sent = (self.sent + n).min(self.filled);
        if self.sent == self.filled {
            (self.sent, self.filled) = (0, 0);
        } else if self.filled > self.buf.len() / 2 {
            self.buf.copy_within(self.sent..self.filled, 0);
            (self.sent, self.filled) = (0, self.filled - self.sent);
        }
    }

    /// The free octets behind the pending ones, to write into before [`commit`](Self::commit).
    pub fn spare(&mut self) -> &mut [u8] {
        &mut self.buf[self.filled..]
    }

    /// `n` octets written into [`spare`](Self::spare) are pending.
    pub fn commit(&mut self, n: usize) {
        self.filled = (self.filled + n).min(self.buf.len());
    }

    /// Drops everything (a new connection).
    pub fn clear(&mut self) {
        (self.sent, self.filled) = (0, 0);
    }

    /// Appends raw octets (the connection preface); false, and nothing added, without room.
    pub fn raw(&mut self, octets: &[u8]) -> bool {
        let Some(room) = self.buf.get_mut(self.filled..self.filled + octets.len()) else {
            return false;
        };
        room.copy_from_slice(octets);
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
}
