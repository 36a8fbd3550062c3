//! Reads a server's frames as they arrive, in any pieces, without keeping a message: a
//! data frame's payload is compared with the message sent as it goes by (and checked as
//! UTF-8 if text), a control frame's (125 octets at most) is kept until it ends, and a
//! header split across reads is carried (14 octets at most). So a connection reads with
//! no buffer beyond its own few octets, and nothing allocates.

use super::frame::{opcode, FrameHead, MAX_CONTROL, MAX_HEADER};
use super::utf8::Utf8;
use super::violation::{valid_close_code, Violation};

/// What the echo of a message must be.
#[derive(Debug, Clone, Copy)]
pub struct Expected<'a> {
    pub payload: &'a [u8],
    pub binary: bool,
}

/// What a whole frame (or message) said.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// A message ended; `right`: it is the message sent (kind, length and octets).
    Message {
        right: bool,
    },
    /// A ping, its payload in [`FrameReader::control`].
    Ping,
    Pong,
    /// A close, with its code (None: no code).
    Close(Option<u16>),
}

/// The frame being read.
#[derive(Debug, Clone, Copy)]
struct Frame {
    head: FrameHead,
    left: u64,
}

/// The data message being read.
#[derive(Debug, Clone, Copy)]
struct Message {
    binary: bool,
    received: u64,
    right: bool,
}

/// One connection's frame reader.
#[derive(Debug)]
pub struct FrameReader {
    head: [u8; MAX_HEADER],
    head_len: usize,
    frame: Option<Frame>,
    message: Option<Message>,
    utf8: Utf8,
    control: [u8; MAX_CONTROL],
    control_len: usize,
    /// The longest data frame accepted.
    limit: u64,
}

impl FrameReader {
    /// A reader that refuses data frames longer than `limit` octets.
    pub fn new(limit: u64) -> FrameReader {
        FrameReader {
            head: [0; MAX_HEADER],
            head_len: 0,
            frame: None,
            message: None,
            utf8: Utf8::default(),
            control: [0; MAX_CONTROL],
            control_len: 0,
            limit,
        }
    }

    /// Forgets everything (a new connection).
    pub fn reset(&mut self) {
        (self.head_len, self.frame, self.message) = (0, None, None);
        self.utf8 = Utf8::default();
        self.control_len = 0;
    }

    /// The payload of the last control frame.
    pub fn control(&self) -> &[u8] {
        &self.control[..self.control_len]
    }

    /// Reads from `data` up to the next event (consuming what it read); None when `data`
    /// ran out first.
    pub fn next(
        &mut self,
        data: &mut &[u8],
        expected: &Expected,
    ) -> Result<Option<Event>, Violation> {
        loop {
            let frame = match self.frame {
                Some(frame) => frame,
                None => match self.header(data) {
                    Some(head) => self.begin(head)?,
                    None => return Ok(None),
                },
            };
            let n = frame.left.min(data.len() as u64) as usize;
            let (chunk, rest) = data.split_at(n);
            *data = rest;
            self.payload(frame.head, chunk, expected)?;
            let left = frame.left - n as u64;
            if left > 0 {
                self.frame = Some(Frame { left, ..frame });
                return Ok(None);
            }
            self.frame = None;
            if let Some(event) = self.end(frame.head, expected)? {
                return Ok(Some(event));
            }
        }
    }

    /// The next frame's header, from the carried octets and `data`; None (and what there
    /// is carried) when it is not all there.
    fn header(&mut self, data: &mut &[u8]) -> Option<FrameHead> {
        if self.head_len == 0 {
            if let Some(head) = FrameHead::parse(data) {
                *data = &data[head.size..];
                return Some(head);
            }
        }
        let had = self.head_len;
        let n = (MAX_HEADER - had).min(data.len());
        self.head[had..had + n].copy_from_slice(&data[..n]);
        self.head_len += n;
        match FrameHead::parse(&self.head[..self.head_len]) {
            Some(head) => {
                *data = &data[head.size - had..];
                self.head_len = 0;
                Some(head)
            }
            None => {
                *data = &data[n..];
                None
            }
        }
    }

    /// A frame begins: its header checked against RFC 6455 and the message under way.
    fn begin(&mut self, head: FrameHead) -> Result<Frame, Violation> {
        if head.rsv != 0 {
            return Err(Violation::ReservedBits);
        }
        if head.masked {
            return Err(Violation::MaskedFrame);
        }
        match head.opcode {
            opcode::CLOSE | opcode::PING | opcode::PONG => {
                if !head.fin || head.len > MAX_CONTROL as u64 {
                    return Err(Violation::BadControlFrame);
                }
                self.control_len = 0;
            }
            opcode::CONTINUATION if self.message.is_none() => {
                return Err(Violation::UnexpectedContinuation)
            }
            opcode::CONTINUATION => {}
            opcode::TEXT | opcode::BINARY if self.message.is_some() => {
                return Err(Violation::InterleavedMessage)
            }
            opcode::TEXT | opcode::BINARY => {
                self.message = Some(Message {
                    binary: head.opcode == opcode::BINARY,
                    received: 0,
                    right: true,
                });
            }
            _ => return Err(Violation::UnknownOpcode),
        }
        if head.len > self.limit {
            return Err(Violation::TooLong);
        }
        Ok(Frame {
            head,
            left: head.len,
        })
    }

    /// Octets of the current frame's payload arrived.
    fn payload(
        &mut self,
        head: FrameHead,
        chunk: &[u8],
        expected: &Expected,
    ) -> Result<(), Violation> {
        if head.is_control() {
            let at = self.control_len;
            self.control[at..at + chunk.len()].copy_from_slice(chunk);
            self.control_len += chunk.len();
            return Ok(());
        }
        let Some(m) = self.message.as_mut() else {
            return Ok(());
        };
        let from = m.received.min(expected.payload.len() as u64) as usize;
        let sent = expected.payload.get(from..from + chunk.len());
        m.right &= sent == Some(chunk);
        m.received += chunk.len() as u64;
        if !m.binary && !self.utf8.feed(chunk) {
            return Err(Violation::InvalidUtf8);
        }
        Ok(())
    }

    /// The current frame ended: the event it makes, if any.
    fn end(&mut self, head: FrameHead, expected: &Expected) -> Result<Option<Event>, Violation> {
        match head.opcode {
            opcode::PING => Ok(Some(Event::Ping)),
            opcode::PONG => Ok(Some(Event::Pong)),
            opcode::CLOSE => self.close().map(|code| Some(Event::Close(code))),
            _ if !head.fin => Ok(None),
            _ => {
                let Some(m) = self.message.take() else {
                    return Ok(None);
                };
                if !m.binary && !self.utf8.finish() {
                    return Err(Violation::InvalidUtf8);
                }
                let whole = m.received == expected.payload.len() as u64;
                let right = m.right && whole && m.binary == expected.binary;
                Ok(Some(Event::Message { right }))
            }
        }
    }

    /// A close frame's code, checked, and its reason checked as UTF-8.
    fn close(&self) -> Result<Option<u16>, Violation> {
        let payload = self.control();
        let Some((code, reason)) = payload.split_first_chunk::<2>() else {
            return match payload.is_empty() {
                true => Ok(None),
                false => Err(Violation::BadClose),
            };
        };
        let code = u16::from_be_bytes(*code);
        if !valid_close_code(code) {
            return Err(Violation::BadClose);
        }
        match std::str::from_utf8(reason) {
            Ok(_) => Ok(Some(code)),
            Err(_) => Err(Violation::InvalidUtf8),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An unmasked server frame.
    fn frame(first: u8, payload: &[u8]) -> Vec<u8> {
        let mut f = vec![first];
        match payload.len() {
            n @ 0..=125 => f.push(n as u8),
            n => {
                f.push(126);
                f.extend_from_slice(&(n as u16).to_be_bytes());
            }
        }
        f.extend_from_slice(payload);
        f
    }

    fn events(bytes: &[u8], piece: usize, expected: &Expected) -> Result<Vec<Event>, Violation> {
        let mut reader = FrameReader::new(1 << 20);
        let mut out = Vec::new();
        for mut chunk in bytes.chunks(piece) {
            while let Some(e) = reader.next(&mut chunk, expected)? {
                out.push(e);
            }
        }
        Ok(out)
    }

    const HELLO: Expected = Expected {
        payload: b"hello world, echoed back",
        binary: false,
    };

    #[test]
    fn fragmented_messages_and_control_frames_between_read_alike_in_any_pieces() {
        let bytes = [
            frame(0x01, b"hello "),
            frame(0x89, b"are you there"),
            frame(0x00, b"world, "),
            frame(0x80, b"echoed back"),
            frame(0x81, b"hello world, echoed back"),
            frame(0x82, b"hello world, echoed back"),
            frame(0x81, &[b'x'; 300]),
            frame(0x8A, b""),
            frame(0x88, &[0x03, 0xe8, b'o', b'k']),
        ]
        .concat();
        let want = vec![
            Event::Ping,
            Event::Message { right: true },
            Event::Message { right: true },
            Event::Message { right: false },
            Event::Message { right: false },
            Event::Pong,
            Event::Close(Some(1000)),
        ];
        for piece in [1, 2, 3, 7, 64, bytes.len()] {
            assert_eq!(events(&bytes, piece, &HELLO), Ok(want.clone()), "{piece}");
        }
    }

    #[test]
    fn each_violation_is_named() {
        let cases = [
            (frame(0xC1, b"x"), Violation::ReservedBits),
            (vec![0x81, 0x81, 1, 2, 3, 4, b'x'], Violation::MaskedFrame),
            (frame(0x83, b""), Violation::UnknownOpcode),
            (frame(0x09, b""), Violation::BadControlFrame),
            (frame(0x89, &[0; 126]), Violation::BadControlFrame),
            (frame(0x80, b"x"), Violation::UnexpectedContinuation),
            (
                [frame(0x01, b"a"), frame(0x81, b"b")].concat(),
                Violation::InterleavedMessage,
            ),
            (frame(0x81, b"\xffoops"), Violation::InvalidUtf8),
            (
                [frame(0x01, b"\xe2\x82"), frame(0x80, b"")].concat(),
                Violation::InvalidUtf8,
            ),
            (frame(0x88, &[3]), Violation::BadClose),
            (frame(0x88, &[0x03, 0xee]), Violation::BadClose),
            (frame(0x88, &[0x03, 0xe8, 0xff]), Violation::InvalidUtf8),
        ];
        for (bytes, want) in cases {
            assert_eq!(events(&bytes, 1, &HELLO), Err(want), "{bytes:?}");
        }
        let mut reader = FrameReader::new(10);
        let got = reader.next(&mut &frame(0x82, &[0; 11])[..], &HELLO);
        assert_eq!(got, Err(Violation::TooLong));
    }
}
