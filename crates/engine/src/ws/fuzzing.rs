//! What the WebSocket fuzz target drives (fuzz/fuzz_targets/ws_frames.rs): a client
//! connection's session, its upgrade answered, fed a server's bytes in arbitrary pieces,
//! so that the frame reader (headers split anywhere, 16- and 64-bit lengths, fragments,
//! control frames between them, pings, closes and their codes, UTF-8 across pieces) and
//! the session's state see every shape of input while messages are in flight.

use super::Session;
use crate::config::{LoadConfig, Target};
use crate::conn::Verdict;
use crate::ledger::{Ledger, Stamp};
use crate::request::RequestBytes;
use crate::spec::WebSocketSpec;

/// The most messages a fuzzed connection keeps in flight.
const DEPTH: usize = 8;

/// How many messages a fuzzed connection may start in all.
const BUDGET: u32 = 1024;

/// Message sizes the control octet picks from: a 7-bit, a 16-bit and a 64-bit length.
const SIZES: [usize; 4] = [1, 32, 300, 70_000];

/// Feeds `input` to a fresh session in pieces whose sizes cycle through `cuts` (a piece
/// of 0 is 1). `control` picks the messages: bit 0 binary, bits 1-2 the size, bits 3-4
/// how many in flight (1, 2, 4, 8); bit 5 lets `input` answer the upgrade itself (else a
/// right 101 comes first). Checks that every message ends exactly once.
pub fn ws_session(input: &[u8], cuts: &[u8], control: u8) {
    let mut config = LoadConfig::new(Target::parse("http://127.0.0.1:1/fuzz").expect("a URL"));
    let depth = 1 << ((control >> 3) & 3);
    config.websocket = Some(WebSocketSpec {
        message_size: SIZES[((control >> 1) & 3) as usize],
        binary: control & 1 == 1,
        in_flight: depth,
        ..WebSocketSpec::default()
    });
    let req = RequestBytes::new(&config, 0);
    let mut ledger = Ledger::new(0, None, Some(BUDGET as u64), u64::MAX).with_ws();
    let mut times = [Stamp::default(); DEPTH];
    let times = &mut times[..depth];
    let mut session = Session::new(Session::lender(&req, depth, 1), 1 << 20, 7);
    session.opened(&req, 0);
    let upgrade = session.unsent().to_vec();
    session.wrote(upgrade.len(), &req);
    let mut started = 0u32;
    let answer = match control & 0x20 {
        0 => switching_protocols(&upgrade),
        _ => Vec::new(),
    };
    let mut pieces = std::iter::once(answer.as_slice()).chain(cut(input, cuts));
    let ended = loop {
        let room = session.room(depth) as u32;
        for _ in 0..ledger.take(room, 1) {
            session.start(Stamp::default(), times, &req);
            started += 1;
        }
        assert!(session.pending() <= depth, "more messages than places");
        let Some(piece) = pieces.next() else {
            break None;
        };
        let verdict = session.receive(piece, 1, times, &req, &mut ledger);
        let sent = session.unsent().len();
        session.wrote(sent, &req);
        match verdict {
            Ok(Verdict::Keep) => {}
            Ok(Verdict::Close) => break None,
            Err(outcome) => break Some(outcome),
        }
    };
    if let Some(outcome) = ended {
        session.fail(outcome, 2, times, &mut ledger);
    }
    session.abandon(times, &mut ledger);
    session.closed();
    let counts = ledger.take_stats().counts;
    assert_eq!(
        counts.total(),
        started as u64,
        "every message ends exactly once"
    );
}

/// `input` in pieces whose sizes cycle through `cuts`.
fn cut<'a>(mut input: &'a [u8], cuts: &'a [u8]) -> impl Iterator<Item = &'a [u8]> + 'a {
    cuts.iter().cycle().map_while(move |&cut| {
        if input.is_empty() {
            return None;
        }
        let (piece, rest) = input.split_at((cut as usize).clamp(1, input.len()));
        input = rest;
        Some(piece)
    })
}

/// A right answer to `upgrade`, the request the session wrote.
fn switching_protocols(upgrade: &[u8]) -> Vec<u8> {
    let name = b"Sec-WebSocket-Key: ";
    let at = upgrade.windows(name.len()).position(|w| w == name);
    let key = at.map_or(&[][..], |at| {
        let from = at + name.len();
        &upgrade[from..(from + super::handshake::KEY_LEN).min(upgrade.len())]
    });
    let accept = super::handshake::accept_of(key);
    [
        &b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
           Sec-WebSocket-Accept: "[..],
        &accept,
        b"\r\n\r\n",
    ]
    .concat()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An unmasked server frame.
    fn frame(first: u8, payload: &[u8]) -> Vec<u8> {
        let mut f = vec![first, payload.len() as u8];
        f.extend_from_slice(payload);
        f
    }

    #[test]
    fn echoes_pings_and_a_broken_frame_each_end_every_message_once() {
        let echo = frame(0x81, &[b'x'; 32]);
        let mut input = [echo.clone(), frame(0x89, b"ping"), echo.clone(), echo].concat();
        // Text of 32 octets, 2 in flight, in pieces of 1, 3 and 7 octets.
        ws_session(&input, &[1, 3, 7], 0b0_1010);
        input.extend(frame(0xC1, b"rsv1"));
        ws_session(&input, &[255], 0b1_1010);
        ws_session(b"HTTP/1.1 400 No\r\n\r\n", &[2], 0b10_0000);
        ws_session(&frame(0x88, &[0x03, 0xE8]), &[255], 0);
    }
}
