//! What the HTTP/2 fuzz target drives (fuzz/fuzz_targets/h2_frames.rs): a client
//! connection's session fed a server's bytes in arbitrary pieces, so that the frame
//! reader (lengths, padding, frames split across reads, CONTINUATION) and the session's
//! state (SETTINGS, windows, GOAWAY, resets, header blocks) see every shape of input.

use super::Session;
use crate::config::{LoadConfig, Target};
use crate::ledger::{Ledger, Stamp};
use crate::request::RequestBytes;

/// Requests a fuzzed connection keeps in flight.
const DEPTH: usize = 10;

/// Feeds `input` to a fresh session in pieces whose sizes cycle through `cuts` (a piece
/// of 0 is 1); checks what must hold after each piece, and that every request ends once.
/// `body` asks for request bodies (flow control on the send side).
pub fn h2_session(input: &[u8], cuts: &[u8], body: bool) {
    let mut config = LoadConfig::new(Target::parse("http://127.0.0.1:1/fuzz").expect("a URL"));
    config.http2 = true;
    config.streams = DEPTH;
    if body {
        config.body = vec![b'x'; 70_000];
    }
    let mut req = RequestBytes::new(&config, 0);
    let mut ledger = Ledger::new(0, None, None, u64::MAX).with_h2();
    let mut times = [Stamp::default(); DEPTH];
    let mut session = Session::new(DEPTH, &req, Session::lender(&req, 1));
    let started = ledger.take(DEPTH as u32, 0);
    for _ in 0..started {
        session.start(Stamp::default(), &mut times, &mut req);
    }
    session.opened(&req);
    let mut rest = input;
    for (i, &cut) in cuts.iter().cycle().enumerate() {
        if rest.is_empty() || i > input.len() {
            break;
        }
        let (piece, after) = rest.split_at((cut as usize).clamp(1, rest.len()));
        rest = after;
        let ended = session.receive(piece, 1, &mut times, &req, &mut ledger);
        assert!(session.pending() <= DEPTH, "more requests than places");
        let sent = session.unsent().len();
        session.wrote(sent, &req);
        if ended.is_err() {
            session.fail(crate::Outcome::H2, 2, &mut times, &mut ledger);
            break;
        }
    }
    session.abandon(&mut times, &mut ledger);
    let counts = ledger.take_stats().counts;
    assert_eq!(
        counts.total(),
        started as u64,
        "every request ends exactly once"
    );
}
