//! WebSocket frames on the wire (RFC 6455 section 5.2): the header of a server's frame
//! read, a client's masked header written, and the masking itself.

/// Frame opcodes.
pub mod opcode {
    pub const CONTINUATION: u8 = 0x0;
    pub const TEXT: u8 = 0x1;
    pub const BINARY: u8 = 0x2;
    pub const CLOSE: u8 = 0x8;
    pub const PING: u8 = 0x9;
    pub const PONG: u8 = 0xA;
}

/// The longest frame header: 2 octets, a 64-bit length and a masking key.
pub const MAX_HEADER: usize = 14;

/// The longest control frame payload.
pub const MAX_CONTROL: usize = 125;

/// A frame's header as the server sent it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameHead {
    pub fin: bool,
    /// RSV1-3 (no extension is negotiated, so any set is an error).
    pub rsv: u8,
    pub opcode: u8,
    pub masked: bool,
    pub len: u64,
    /// Octets of the header itself.
    pub size: usize,
}

impl FrameHead {
    /// The header at the front of `bytes`, if all of it is there.
    pub fn parse(bytes: &[u8]) -> Option<FrameHead> {
        let (&b0, &b1) = (bytes.first()?, bytes.get(1)?);
        let masked = b1 & 0x80 != 0;
        let (len, at) = match b1 & 0x7f {
            126 => (
                u16::from_be_bytes(*bytes.get(2..4)?.first_chunk()?) as u64,
                4,
            ),
            127 => (u64::from_be_bytes(*bytes.get(2..10)?.first_chunk()?), 10),
            n => (n as u64, 2),
        };
        let size = at + if masked { 4 } else { 0 };
        (bytes.len() >= size).then_some(FrameHead {
            fin: b0 & 0x80 != 0,
            rsv: b0 & 0x70,
            opcode: b0 & 0x0f,
            masked,
            len,
            size,
        })
    }

    pub fn is_control(&self) -> bool {
        self.opcode & 0x8 != 0
    }
}

/// Octets of a client frame carrying `len` octets: header, masking key, payload.
pub const fn masked_len(len: usize) -> usize {
    let extended = match len {
        0..=125 => 0,
        126..=0xffff => 2,
        _ => 8,
    };
    2 + extended + 4 + len
}

/// Writes a final client frame of `opcode` whose payload is `payload` masked with `key`
/// at the front of `out` (at least [`masked_len`] octets); the octets written.
pub fn write_masked(out: &mut [u8], opcode: u8, payload: &[u8], key: [u8; 4]) -> usize {
    let len = payload.len();
    out[0] = 0x80 | opcode;
    let at = match len {
        0..=125 => {
            out[1] = 0x80 | len as u8;
            2
        }
        126..=0xffff => {
            out[1] = 0x80 | 126;
            out[2..4].copy_from_slice(&(len as u16).to_be_bytes());
            4
        }
        _ => {
            out[1] = 0x80 | 127;
            out[2..10].copy_from_slice(&(len as u64).to_be_bytes());
            10
        }
    };
    out[at..at + 4].copy_from_slice(&key);
    let body = at + 4;
    mask(&mut out[body..body + len], payload, key);
    body + len
}

/// `dst` = `src` XOR the key repeated (section 5.3), eight octets at a time.
pub fn mask(dst: &mut [u8], src: &[u8], key: [u8; 4]) {
    let wide = u64::from_ne_bytes([
        key[0], key[1], key[2], key[3], key[0], key[1], key[2], key[3],
    ]);
    let mut d = dst.chunks_exact_mut(8);
    let mut s = src.chunks_exact(8);
    for (d, s) in (&mut d).zip(&mut s) {
        let word = u64::from_ne_bytes(*s.first_chunk().unwrap_or(&[0; 8])) ^ wide;
        d.copy_from_slice(&word.to_ne_bytes());
    }
    for (i, (d, s)) in d.into_remainder().iter_mut().zip(s.remainder()).enumerate() {
        *d = s ^ key[i % 4];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_masked_frame_reads_back_as_written_at_every_length_form() {
        for len in [0, 5, 125, 126, 300, 0xffff, 0x10000] {
            let payload: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
            let mut out = vec![0; masked_len(len)];
            let key = [1, 2, 3, 4];
            assert_eq!(
                write_masked(&mut out, opcode::BINARY, &payload, key),
                out.len()
            );
            let head = FrameHead::parse(&out).unwrap();
            assert_eq!((head.fin, head.masked, head.len), (true, true, len as u64));
            let mut back = vec![0; len];
            mask(&mut back, &out[head.size..], key);
            assert_eq!(back, payload, "{len} octets");
        }
    }

    #[test]
    fn a_header_split_short_is_not_read() {
        let mut out = [0; 16];
        write_masked(&mut out, opcode::TEXT, &[7; 2], [9; 4]);
        assert!(FrameHead::parse(&out[..5]).is_none());
        assert!(FrameHead::parse(&[0x81, 126, 0]).is_none());
        assert_eq!(FrameHead::parse(&[0x81, 126, 1, 0]).unwrap().len, 256);
    }
}
