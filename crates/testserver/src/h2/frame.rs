//! Frames as read (RFC 9113 §4.1): the 9-octet header, the kinds and flags this server
//! looks at, and one whole frame taken off the front of what was read.

use super::error_code::ErrorCode;

/// What a client sends first (RFC 9113 §3.4), before its SETTINGS frame.
pub(crate) const PREFACE: &[u8; 24] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
/// A frame header's length.
pub(crate) const HEAD_LEN: usize = 9;
/// The largest payload either side may send until the other's SETTINGS_MAX_FRAME_SIZE
/// says more; this server never says more.
pub(crate) const DEFAULT_MAX_FRAME: u32 = 16_384;
/// The largest payload a frame header can announce, and a client can allow.
pub(crate) const LARGEST_FRAME: u32 = (1 << 24) - 1;

/// END_STREAM on DATA and HEADERS; ACK on SETTINGS and PING (the same bit).
pub(crate) const END_STREAM: u8 = 0x1;
pub(crate) const ACK: u8 = 0x1;
pub(crate) const END_HEADERS: u8 = 0x4;
pub(crate) const PADDED: u8 = 0x8;
pub(crate) const PRIORITY: u8 = 0x20;

/// A frame type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Data,
    Headers,
    Priority,
    RstStream,
    Settings,
    PushPromise,
    Ping,
    GoAway,
    WindowUpdate,
    Continuation,
    /// Extension types, which a receiver ignores (RFC 9113 §5.5).
    Unknown(u8),
}

impl Kind {
    /// The type of the octet on the wire.
    fn from_octet(octet: u8) -> Kind {
        match octet {
            0x0 => Kind::Data,
            0x1 => Kind::Headers,
            0x2 => Kind::Priority,
            0x3 => Kind::RstStream,
            0x4 => Kind::Settings,
            0x5 => Kind::PushPromise,
            0x6 => Kind::Ping,
            0x7 => Kind::GoAway,
            0x8 => Kind::WindowUpdate,
            0x9 => Kind::Continuation,
            other => Kind::Unknown(other),
        }
    }

    /// The octet on the wire.
    pub(crate) fn octet(self) -> u8 {
        match self {
            Kind::Data => 0x0,
            Kind::Headers => 0x1,
            Kind::Priority => 0x2,
            Kind::RstStream => 0x3,
            Kind::Settings => 0x4,
            Kind::PushPromise => 0x5,
            Kind::Ping => 0x6,
            Kind::GoAway => 0x7,
            Kind::WindowUpdate => 0x8,
            Kind::Continuation => 0x9,
            Kind::Unknown(other) => other,
        }
    }
}

/// One frame read whole.
#[derive(Debug)]
pub(crate) struct Frame {
    pub kind: Kind,
    pub flags: u8,
    /// The stream identifier, the reserved bit cleared.
    pub stream: u32,
    pub payload: Vec<u8>,
}

impl Frame {
    /// Whether `flag` is set.
    pub(crate) fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }

    /// A DATA or HEADERS payload without its padding (and its pad-length octet), when
    /// PADDED is set; a pad length that leaves nothing is a connection error.
    pub(crate) fn unpadded(&self) -> Result<&[u8], ErrorCode> {
        if !self.has(PADDED) {
            return Ok(&self.payload);
        }
        let (&pad, rest) = self.payload.split_first().ok_or(ErrorCode::FrameSize)?;
        let end = rest
            .len()
            .checked_sub(usize::from(pad))
            .ok_or(ErrorCode::Protocol)?;
        Ok(&rest[..end])
    }
}

/// Takes one whole frame off the front of `buf`, if it holds one; a frame longer than
/// `max_len` is a connection error (FRAME_SIZE_ERROR, RFC 9113 §4.2).
pub(crate) fn take(buf: &mut Vec<u8>, max_len: u32) -> Result<Option<Frame>, ErrorCode> {
    let Some(head) = buf.first_chunk::<HEAD_LEN>() else {
        return Ok(None);
    };
    let len = u32::from_be_bytes([0, head[0], head[1], head[2]]);
    if len > max_len {
        return Err(ErrorCode::FrameSize);
    }
    let end = HEAD_LEN + len as usize;
    if buf.len() < end {
        return Ok(None);
    }
    let frame = Frame {
        kind: Kind::from_octet(head[3]),
        flags: head[4],
        stream: u32::from_be_bytes([head[5], head[6], head[7], head[8]]) & 0x7fff_ffff,
        payload: buf[HEAD_LEN..end].to_vec(),
    };
    buf.drain(..end);
    Ok(Some(frame))
}

/// A frame's 31-bit stream identifier or window increment, from the first four octets
/// of `payload` (reserved bit cleared); a shorter payload is FRAME_SIZE_ERROR.
pub(crate) fn u31_at(payload: &[u8], at: usize) -> Result<u32, ErrorCode> {
    let octets = payload
        .get(at..at + 4)
        .ok_or(ErrorCode::FrameSize)?
        .try_into()
        .map_err(|_| ErrorCode::FrameSize)?;
    Ok(u32::from_be_bytes(octets) & 0x7fff_ffff)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn takes_whole_frames_only() {
        let mut buf = vec![0, 0, 2, 0x6, ACK, 0x80, 0, 0, 1, b'a'];
        assert!(take(&mut buf, 16_384).unwrap().is_none());
        buf.extend_from_slice(b"bX");
        let frame = take(&mut buf, 16_384).unwrap().unwrap();
        assert_eq!(
            (frame.kind, frame.flags, frame.stream),
            (Kind::Ping, ACK, 1)
        );
        assert_eq!(frame.payload, b"ab");
        assert_eq!(buf, b"X");
    }

    #[test]
    fn a_frame_past_the_limit_is_refused_from_its_header() {
        let mut buf = vec![0, 0x40, 0x01, 0, 0, 0, 0, 0, 1];
        assert_eq!(take(&mut buf, 16_384).unwrap_err(), ErrorCode::FrameSize);
    }

    #[test]
    fn padding_is_stripped_and_checked() {
        let frame = |payload: &[u8]| Frame {
            kind: Kind::Data,
            flags: PADDED,
            stream: 1,
            payload: payload.to_vec(),
        };
        assert_eq!(frame(&[2, b'h', b'i', 0, 0]).unpadded(), Ok(&b"hi"[..]));
        assert_eq!(frame(&[3, 0, 0]).unpadded(), Err(ErrorCode::Protocol));
        assert_eq!(frame(&[]).unpadded(), Err(ErrorCode::FrameSize));
    }
}
