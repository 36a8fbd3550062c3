//! Control frames a connection owes the server while its out buffer has no room for them:
//! the pong to the latest ping, and after it the close at the end of the load. A flood of
//! pings in one read can outgrow any buffer, and RFC 6455 section 5.5.3 lets a client
//! answer only the most recent of the pings it has not yet answered: so a connection owes
//! at most one pong (its payload kept here, 125 octets at most) and sends it, then the
//! close, as soon as the buffer has room, before any new message.

use super::frame::{opcode, MAX_CONTROL};

/// What one connection owes.
#[derive(Debug)]
pub struct Owed {
    pong: [u8; MAX_CONTROL],
    pong_len: u8,
    pong_owed: bool,
    close: Option<u16>,
}

impl Owed {
    pub fn new() -> Owed {
        Owed {
            pong: [0; MAX_CONTROL],
            pong_len: 0,
            pong_owed: false,
            close: None,
        }
    }

    /// A ping came with `payload` (125 octets at most): its pong replaces any owed.
    pub fn pong(&mut self, payload: &[u8]) {
        let n = payload.len().min(MAX_CONTROL);
        self.pong[..n].copy_from_slice(&payload[..n]);
        (self.pong_len, self.pong_owed) = (n as u8, true);
    }

    /// The connection closes with `code` once the owed pong is out.
    pub fn close(&mut self, code: u16) {
        self.close = Some(code);
    }

    /// Nothing is owed any more (the connection failed, or closed).
    pub fn clear(&mut self) {
        (self.pong_owed, self.close) = (false, None);
    }

    /// Queues what is owed, in order, with `queue` (false: no room for that frame), up to
    /// the first frame that does not fit.
    pub fn pay(&mut self, mut queue: impl FnMut(u8, &[u8]) -> bool) {
        if self.pong_owed {
            if !queue(opcode::PONG, &self.pong[..self.pong_len as usize]) {
                return;
            }
            self.pong_owed = false;
        }
        if let Some(code) = self.close {
            if queue(opcode::CLOSE, &code.to_be_bytes()) {
                self.close = None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_latest_pong_goes_first_then_the_close_and_nothing_past_a_frame_without_room() {
        let mut owed = Owed::new();
        owed.pong(b"one");
        owed.pong(b"two");
        owed.close(1000);
        let mut sent: Vec<(u8, Vec<u8>)> = Vec::new();
        owed.pay(|_, _| false);
        owed.pay(|kind, p| {
            sent.push((kind, p.to_vec()));
            kind == opcode::PONG
        });
        owed.pay(|kind, p| {
            sent.push((kind, p.to_vec()));
            true
        });
        owed.pay(|kind, p| {
            sent.push((kind, p.to_vec()));
            true
        });
        let close = (opcode::CLOSE, 1000u16.to_be_bytes().to_vec());
        assert_eq!(
            sent,
            [(opcode::PONG, b"two".to_vec()), close.clone(), close]
        );
    }
}
