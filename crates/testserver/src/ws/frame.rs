//! Frames as the test server reads and writes them: the client's (masked) read whole from
//! a buffer; the server's written unmasked, or broken on purpose.

pub const CONTINUATION: u8 = 0x0;
pub const TEXT: u8 = 0x1;
pub const CLOSE: u8 = 0x8;
pub const PING: u8 = 0x9;
pub const PONG: u8 = 0xA;

/// One whole frame the client sent, unmasked.
pub struct ClientFrame {
    pub fin: bool,
    pub opcode: u8,
    pub masked: bool,
    pub payload: Vec<u8>,
}

/// The frame at the front of `buf`, if it is all there, and its length.
pub fn read(buf: &[u8]) -> Option<(ClientFrame, usize)> {
    let (&b0, &b1) = (buf.first()?, buf.get(1)?);
    let (len, mut at) = match b1 & 0x7f {
        126 => (u16::from_be_bytes([*buf.get(2)?, *buf.get(3)?]) as usize, 4),
        127 => (
            u64::from_be_bytes(buf.get(2..10)?.try_into().ok()?) as usize,
            10,
        ),
        n => (n as usize, 2),
    };
    let masked = b1 & 0x80 != 0;
    let key = match masked {
        true => {
            let key: [u8; 4] = buf.get(at..at + 4)?.try_into().ok()?;
            at += 4;
            key
        }
        false => [0; 4],
    };
    let payload = buf.get(at..at.checked_add(len)?)?;
    let payload = payload
        .iter()
        .enumerate()
        .map(|(i, b)| b ^ key[i % 4])
        .collect();
    let frame = ClientFrame {
        fin: b0 & 0x80 != 0,
        opcode: b0 & 0x0f,
        masked,
        payload,
    };
    Some((frame, at + len))
}

/// How a server frame is written.
#[derive(Debug, Clone, Copy, Default)]
pub struct Shape {
    pub fin: bool,
    /// Set the mask bit (with a zero key): a server must not.
    pub masked: bool,
    /// Set RSV1: no extension was negotiated.
    pub rsv1: bool,
}

/// A server frame of `opcode` carrying `payload`.
pub fn write(opcode: u8, payload: &[u8], shape: Shape) -> Vec<u8> {
    let first = opcode | if shape.fin { 0x80 } else { 0 } | if shape.rsv1 { 0x40 } else { 0 };
    let mask = if shape.masked { 0x80 } else { 0 };
    let mut out = vec![first];
    match payload.len() {
        n @ 0..=125 => out.push(mask | n as u8),
        n @ 126..=0xffff => {
            out.push(mask | 126);
            out.extend_from_slice(&(n as u16).to_be_bytes());
        }
        n => {
            out.push(mask | 127);
            out.extend_from_slice(&(n as u64).to_be_bytes());
        }
    }
    if shape.masked {
        out.extend_from_slice(&[0; 4]);
    }
    out.extend_from_slice(payload);
    out
}

/// A whole, well-formed server frame.
pub fn whole(opcode: u8, payload: &[u8]) -> Vec<u8> {
    write(
        opcode,
        payload,
        Shape {
            fin: true,
            ..Shape::default()
        },
    )
}
