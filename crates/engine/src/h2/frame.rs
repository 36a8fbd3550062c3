//! HTTP/2 frames (RFC 9113 section 6): the 9-octet header, and each frame type's payload
//! checked and named. Every way a payload can break the RFC is a [`Violation`], never a
//! panic: the frame reader is fuzzed (fuzz/fuzz_targets/h2_frames.rs).

use super::error_code::ErrorCode;

/// Octets in a frame header.
pub const HEADER_LEN: usize = 9;

/// Frame types the client reads or writes.
pub mod kind {
    pub const DATA: u8 = 0x0;
    pub const HEADERS: u8 = 0x1;
    pub const PRIORITY: u8 = 0x2;
    pub const RST_STREAM: u8 = 0x3;
    pub const SETTINGS: u8 = 0x4;
    pub const PUSH_PROMISE: u8 = 0x5;
    pub const PING: u8 = 0x6;
    pub const GOAWAY: u8 = 0x7;
    pub const WINDOW_UPDATE: u8 = 0x8;
    pub const CONTINUATION: u8 = 0x9;
}

/// Frame flags (a flag's meaning depends on the type).
pub mod flag {
    pub const END_STREAM: u8 = 0x1;
    pub const ACK: u8 = 0x1;
    pub const END_HEADERS: u8 = 0x4;
    pub const PADDED: u8 = 0x8;
    pub const PRIORITY: u8 = 0x20;
}

/// A frame header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameHeader {
    /// Payload length (24 bits).
    pub len: usize,
    pub kind: u8,
    pub flags: u8,
    /// Stream identifier (31 bits; the reserved bit dropped, as the RFC says to).
    pub stream: u32,
}

impl FrameHeader {
    /// Reads a header from its 9 octets.
    pub fn parse(h: &[u8; HEADER_LEN]) -> FrameHeader {
        FrameHeader {
            len: (h[0] as usize) << 16 | (h[1] as usize) << 8 | h[2] as usize,
            kind: h[3],
            flags: h[4],
            stream: u32::from_be_bytes([h[5], h[6], h[7], h[8]]) & 0x7fff_ffff,
        }
    }

    /// The header's 9 octets.
    pub fn encode(&self) -> [u8; HEADER_LEN] {
        let [_, l0, l1, l2] = (self.len as u32).to_be_bytes();
        let [s0, s1, s2, s3] = self.stream.to_be_bytes();
        [l0, l1, l2, self.kind, self.flags, s0, s1, s2, s3]
    }

    fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }
}

/// How the server broke HTTP/2: the code the client's GOAWAY carries, and what it was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Violation {
    pub code: ErrorCode,
    pub what: &'static str,
}

impl Violation {
    pub fn protocol(what: &'static str) -> Violation {
        Violation {
            code: ErrorCode::PROTOCOL_ERROR,
            what,
        }
    }

    pub fn frame_size(what: &'static str) -> Violation {
        Violation {
            code: ErrorCode::FRAME_SIZE_ERROR,
            what,
        }
    }
}

/// A frame the client acts on, its payload checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Frame<'a> {
    /// Response body bytes, `data` (padding taken off); `flow` is the whole payload
    /// (padding included), which flow control counts.
    Data {
        stream: u32,
        data: &'a [u8],
        flow: u32,
        end_stream: bool,
    },
    Headers {
        stream: u32,
        fragment: &'a [u8],
        end_stream: bool,
        end_headers: bool,
    },
    Continuation {
        stream: u32,
        fragment: &'a [u8],
        end_headers: bool,
    },
    RstStream {
        stream: u32,
        code: ErrorCode,
    },
    /// Parameters are 6 octets each (an identifier and a value).
    Settings {
        ack: bool,
        params: &'a [u8],
    },
    Ping {
        ack: bool,
        opaque: [u8; 8],
    },
    GoAway {
        last_stream: u32,
        code: ErrorCode,
    },
    WindowUpdate {
        stream: u32,
        increment: u32,
    },
    /// PRIORITY, and types this client does not know: read and ignored, as the RFC says.
    Ignored,
}

impl<'a> Frame<'a> {
    /// The frame `header` heads, its payload checked.
    pub fn parse(header: FrameHeader, payload: &'a [u8]) -> Result<Frame<'a>, Violation> {
        let h = header;
        let on_stream = |what| match h.stream {
            0 => Err(Violation::protocol(what)),
            _ => Ok(h.stream),
        };
        let on_connection = |what| match h.stream {
            0 => Ok(()),
            _ => Err(Violation::protocol(what)),
        };
        Ok(match h.kind {
            kind::DATA => {
                let (data, flow) = unpadded(h, payload)?;
                Frame::Data {
                    stream: on_stream("DATA on stream 0")?,
                    data,
                    flow,
                    end_stream: h.has(flag::END_STREAM),
                }
            }
            kind::HEADERS => Frame::Headers {
                stream: on_stream("HEADERS on stream 0")?,
                fragment: headers_fragment(h, payload)?,
                end_stream: h.has(flag::END_STREAM),
                end_headers: h.has(flag::END_HEADERS),
            },
            kind::CONTINUATION => Frame::Continuation {
                stream: on_stream("CONTINUATION on stream 0")?,
                fragment: payload,
                end_headers: h.has(flag::END_HEADERS),
            },
            kind::PRIORITY => {
                on_stream("PRIORITY on stream 0")?;
                exactly(payload, 5, "PRIORITY not 5 octets")?;
                Frame::Ignored
            }
            kind::RST_STREAM => Frame::RstStream {
                stream: on_stream("RST_STREAM on stream 0")?,
                code: ErrorCode(be32(exactly(payload, 4, "RST_STREAM not 4 octets")?)),
            },
            kind::SETTINGS => {
                on_connection("SETTINGS on a stream")?;
                settings(h, payload)?
            }
            kind::PUSH_PROMISE => {
                return Err(Violation::protocol("PUSH_PROMISE after ENABLE_PUSH 0"))
            }
            kind::PING => {
                on_connection("PING on a stream")?;
                let opaque = exactly(payload, 8, "PING not 8 octets")?;
                Frame::Ping {
                    ack: h.has(flag::ACK),
                    opaque: opaque.try_into().unwrap_or_default(),
                }
            }
            kind::GOAWAY => {
                on_connection("GOAWAY on a stream")?;
                if payload.len() < 8 {
                    return Err(Violation::frame_size("GOAWAY under 8 octets"));
                }
                Frame::GoAway {
                    last_stream: be32(&payload[..4]) & 0x7fff_ffff,
                    code: ErrorCode(be32(&payload[4..8])),
                }
            }
            kind::WINDOW_UPDATE => {
                let increment = be32(exactly(payload, 4, "WINDOW_UPDATE not 4 octets")?);
                match increment & 0x7fff_ffff {
                    0 => return Err(Violation::protocol("WINDOW_UPDATE of 0")),
                    increment => Frame::WindowUpdate {
                        stream: h.stream,
                        increment,
                    },
                }
            }
            _ => Frame::Ignored,
        })
    }
}

/// A padded frame's content without its padding, and the length flow control counts.
fn unpadded(h: FrameHeader, payload: &[u8]) -> Result<(&[u8], u32), Violation> {
    let flow = payload.len() as u32;
    if !h.has(flag::PADDED) {
        return Ok((payload, flow));
    }
    let Some((&pad, rest)) = payload.split_first() else {
        return Err(Violation::frame_size("PADDED frame without its pad length"));
    };
    match rest.len().checked_sub(pad as usize) {
        Some(len) => Ok((&rest[..len], flow)),
        None => Err(Violation::protocol("padding longer than the frame")),
    }
}

/// A HEADERS frame's block fragment: padding and priority fields taken off.
fn headers_fragment(h: FrameHeader, payload: &[u8]) -> Result<&[u8], Violation> {
    let (content, _) = unpadded(h, payload)?;
    if !h.has(flag::PRIORITY) {
        return Ok(content);
    }
    content
        .get(5..)
        .ok_or(Violation::frame_size("HEADERS too short for its priority"))
}

fn settings(h: FrameHeader, payload: &[u8]) -> Result<Frame<'_>, Violation> {
    let ack = h.has(flag::ACK);
    if ack && !payload.is_empty() {
        return Err(Violation::frame_size("SETTINGS ACK with a payload"));
    }
    if !payload.len().is_multiple_of(6) {
        return Err(Violation::frame_size("SETTINGS not a multiple of 6 octets"));
    }
    Ok(Frame::Settings {
        ack,
        params: payload,
    })
}

fn exactly<'a>(payload: &'a [u8], n: usize, what: &'static str) -> Result<&'a [u8], Violation> {
    match payload.len() == n {
        true => Ok(payload),
        false => Err(Violation::frame_size(what)),
    }
}

fn be32(b: &[u8]) -> u32 {
    u32::from_be_bytes([b[0], b[1], b[2], b[3]])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(kind: u8, flags: u8, stream: u32, len: usize) -> FrameHeader {
        FrameHeader {
            len,
            kind,
            flags,
            stream,
        }
    }

    #[test]
    fn a_header_round_trips_and_drops_the_reserved_bit() {
        let h = header(kind::HEADERS, 0x25, 0x7fff_fffd, 0x01_02_03);
        assert_eq!(FrameHeader::parse(&h.encode()), h);
        let mut octets = h.encode();
        octets[5] |= 0x80;
        assert_eq!(FrameHeader::parse(&octets).stream, 0x7fff_fffd);
    }

    #[test]
    fn padding_and_priority_are_taken_off_a_headers_fragment() {
        let payload = [2, 0, 0, 0, 1, 9, 0x88, 0xaa, 0, 0];
        let h = header(
            kind::HEADERS,
            flag::PADDED | flag::PRIORITY,
            1,
            payload.len(),
        );
        let Frame::Headers { fragment, .. } = Frame::parse(h, &payload).unwrap() else {
            panic!("not HEADERS");
        };
        assert_eq!(fragment, [0x88, 0xaa]);
    }

    #[test]
    fn every_malformed_payload_is_a_named_violation() {
        use ErrorCode as E;
        let cases: [(FrameHeader, &[u8], ErrorCode); 14] = [
            (
                header(kind::DATA, flag::PADDED, 1, 3),
                &[3, 0, 0],
                E::PROTOCOL_ERROR,
            ),
            (
                header(kind::DATA, flag::PADDED, 1, 0),
                &[],
                E::FRAME_SIZE_ERROR,
            ),
            (header(kind::DATA, 0, 0, 1), &[0], E::PROTOCOL_ERROR),
            (
                header(kind::HEADERS, flag::PRIORITY, 1, 4),
                &[0; 4],
                E::FRAME_SIZE_ERROR,
            ),
            (header(kind::HEADERS, 0, 0, 1), &[0x88], E::PROTOCOL_ERROR),
            (
                header(kind::PRIORITY, 0, 1, 4),
                &[0; 4],
                E::FRAME_SIZE_ERROR,
            ),
            (
                header(kind::RST_STREAM, 0, 1, 3),
                &[0; 3],
                E::FRAME_SIZE_ERROR,
            ),
            (
                header(kind::RST_STREAM, 0, 0, 4),
                &[0; 4],
                E::PROTOCOL_ERROR,
            ),
            (
                header(kind::SETTINGS, 0, 0, 5),
                &[0; 5],
                E::FRAME_SIZE_ERROR,
            ),
            (
                header(kind::SETTINGS, flag::ACK, 0, 6),
                &[0; 6],
                E::FRAME_SIZE_ERROR,
            ),
            (header(kind::SETTINGS, 0, 3, 0), &[], E::PROTOCOL_ERROR),
            (header(kind::PING, 0, 0, 7), &[0; 7], E::FRAME_SIZE_ERROR),
            (header(kind::GOAWAY, 0, 0, 7), &[0; 7], E::FRAME_SIZE_ERROR),
            (
                header(kind::WINDOW_UPDATE, 0, 1, 4),
                &[0x80, 0, 0, 0],
                E::PROTOCOL_ERROR,
            ),
        ];
        for (h, payload, code) in cases {
            let got = Frame::parse(h, payload).map_err(|v| v.code);
            assert_eq!(got, Err(code), "{h:?} {payload:?}");
        }
        let push = header(kind::PUSH_PROMISE, 0, 1, 4);
        assert!(Frame::parse(push, &[0; 4]).is_err());
    }

    #[test]
    fn unknown_types_and_priority_are_ignored() {
        assert_eq!(
            Frame::parse(header(0xfa, 0xff, 0, 3), &[1, 2, 3]),
            Ok(Frame::Ignored)
        );
        let p = header(kind::PRIORITY, 0, 3, 5);
        assert_eq!(Frame::parse(p, &[0; 5]), Ok(Frame::Ignored));
    }
}
