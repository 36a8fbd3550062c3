//! Splits what a connection reads into frames: frames whole in the input are handed over
//! where they lie; a frame split across reads is carried in a buffer the loop lends
//! (the loop's receive buffer serves every connection) until its last octet arrives.

use super::frame::{FrameHeader, Violation, HEADER_LEN};
use super::lender::Lender;

/// One connection's frame reader.
#[derive(Debug, Default)]
pub struct FrameReader {
    /// A frame begun in an earlier read: its header, then as much payload as has come.
    /// Empty, and holding no memory, between frames.
    carry: Vec<u8>,
    /// The longest payload this side accepts (its SETTINGS_MAX_FRAME_SIZE).
    max_payload: usize,
    /// Where a carry comes from and goes back to; None: one of its own, as needed.
    lender: Option<Lender>,
}

impl FrameReader {
    /// A reader that refuses payloads over `max_payload` octets.
    pub fn new(max_payload: usize) -> FrameReader {
        FrameReader {
            carry: Vec::new(),
            max_payload,
            lender: None,
        }
    }

    /// The same, carrying split frames in buffers from `lender`.
    pub fn lent(max_payload: usize, lender: Lender) -> FrameReader {
        FrameReader {
            lender: Some(lender),
            ..FrameReader::new(max_payload)
        }
    }

    /// Forgets a carried partial frame (a new connection).
    pub fn reset(&mut self) {
        let carry = std::mem::take(&mut self.carry);
        self.put_back(carry);
    }

    /// Hands every frame completed by `data` to `on_frame`, in order, and carries a frame
    /// that is not complete yet. `on_frame` returns false to stop (the connection is
    /// over: the rest is dropped). A payload over the limit is a FRAME_SIZE_ERROR.
    pub fn feed<E: From<Violation>>(
        &mut self,
        mut data: &[u8],
        mut on_frame: impl FnMut(FrameHeader, &[u8]) -> Result<bool, E>,
    ) -> Result<(), E> {
        if !self.carry.is_empty() {
            let Some(header) = self.complete_carry(&mut data)? else {
                return Ok(());
            };
            let carried = std::mem::take(&mut self.carry);
            let go_on = on_frame(header, &carried[HEADER_LEN..]);
            self.put_back(carried);
            if !go_on? {
                return Ok(());
            }
        }
        while let Some(header) = self.header_of(data)? {
            let Some(payload) = data.get(HEADER_LEN..HEADER_LEN + header.len) else {
                break;
            };
            data = &data[HEADER_LEN + header.len..];
            if !on_frame(header, payload)? {
                return Ok(());
            }
        }
        if !data.is_empty() {
            if let (0, Some(lender)) = (self.carry.capacity(), &self.lender) {
                self.carry = lender.take_carry();
            }
            self.carry.extend_from_slice(data);
        }
        Ok(())
    }

    /// A carry done with: back to the lender, or kept (empty) when it is the reader's own.
    fn put_back(&mut self, mut carry: Vec<u8>) {
        carry.clear();
        match &self.lender {
            Some(lender) if carry.capacity() > 0 => lender.give_carry(carry),
            Some(_) => {}
            None => self.carry = carry,
        }
    }

    /// Moves octets from `data` into the carry until its frame is whole; its header then.
    fn complete_carry(&mut self, data: &mut &[u8]) -> Result<Option<FrameHeader>, Violation> {
        let mut take = |carry: &mut Vec<u8>, upto: usize| {
            let n = upto.saturating_sub(carry.len()).min(data.len());
            carry.extend_from_slice(&data[..n]);
            *data = &data[n..];
            carry.len() >= upto
        };
        if !take(&mut self.carry, HEADER_LEN) {
            return Ok(None);
        }
        let Some(header) = self.header_of(&self.carry)? else {
            return Ok(None);
        };
        Ok(take(&mut self.carry, HEADER_LEN + header.len).then_some(header))
    }

    /// The header at the front of `data`, if all 9 octets are there, checked for size.
    fn header_of(&self, data: &[u8]) -> Result<Option<FrameHeader>, Violation> {
        let Some(octets) = data.first_chunk::<HEADER_LEN>() else {
            return Ok(None);
        };
        let header = FrameHeader::parse(octets);
        if header.len > self.max_payload {
            return Err(Violation::frame_size(
                "a frame longer than SETTINGS_MAX_FRAME_SIZE",
            ));
        }
        Ok(Some(header))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::h2::frame::kind;

    fn frame(kind: u8, stream: u32, payload: &[u8]) -> Vec<u8> {
        let h = FrameHeader {
            len: payload.len(),
            kind,
            flags: 0,
            stream,
        };
        [&h.encode()[..], payload].concat()
    }

    fn read_in_pieces(bytes: &[u8], piece: usize) -> Vec<(u32, Vec<u8>)> {
        let mut reader = FrameReader::new(16_384);
        let mut frames = Vec::new();
        for chunk in bytes.chunks(piece) {
            reader
                .feed::<Violation>(chunk, |h, p| {
                    frames.push((h.stream, p.to_vec()));
                    Ok(true)
                })
                .unwrap();
        }
        frames
    }

    #[test]
    fn frames_come_out_whole_however_the_reads_split_them() {
        let bytes = [
            frame(kind::DATA, 1, b"hello"),
            frame(kind::HEADERS, 3, &[]),
            frame(kind::DATA, 5, &[7; 300]),
        ]
        .concat();
        let whole = read_in_pieces(&bytes, bytes.len());
        assert_eq!(whole.len(), 3);
        for piece in [1, 2, 8, 9, 10, 13, 64] {
            assert_eq!(read_in_pieces(&bytes, piece), whole, "reads of {piece}");
        }
    }

    #[test]
    fn an_oversized_frame_is_refused_before_its_payload_arrives() {
        let mut reader = FrameReader::new(16);
        let h = FrameHeader {
            len: 17,
            kind: kind::DATA,
            flags: 0,
            stream: 1,
        };
        let got = reader.feed::<Violation>(&h.encode(), |_, _| Ok(true));
        assert_eq!(
            got.unwrap_err().code,
            crate::h2::ErrorCode::FRAME_SIZE_ERROR
        );
    }

    #[test]
    fn stopping_drops_the_rest() {
        let bytes = [frame(kind::DATA, 1, b"a"), frame(kind::DATA, 3, b"b")].concat();
        let mut reader = FrameReader::new(16);
        let mut seen = 0;
        reader
            .feed::<Violation>(&bytes, |_, _| {
                seen += 1;
                Ok(false)
            })
            .unwrap();
        assert_eq!(seen, 1);
        assert!(reader.carry.is_empty());
    }
}
