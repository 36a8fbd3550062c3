//! One connection's WebSocket session driven in memory, without sockets: what the
//! framing probe (bench/ws-probe) measures against a crate's, and what a fuzz target of
//! the frame reader can drive. Not an API.

use super::Session;
use crate::config::{LoadConfig, Target};
use crate::ledger::{Ledger, Stamp};
use crate::outcome::Counts;
use crate::request::RequestBytes;
use crate::spec::WebSocketSpec;

/// A session past its upgrade, its messages of `size` octets sent and echoes read.
pub struct WsProbe {
    session: Session,
    req: RequestBytes,
    ledger: Ledger,
    times: [Stamp; 1],
}

impl WsProbe {
    /// An open session for messages of `size` octets (text, or `binary`).
    pub fn new(size: usize, binary: bool) -> WsProbe {
        let target = Target::parse("http://127.0.0.1:1/echo").expect("a URL");
        let mut config = LoadConfig::new(target);
        config.websocket = Some(WebSocketSpec {
            message_size: size,
            binary,
            in_flight: 1,
            ..WebSocketSpec::default()
        });
        let req = RequestBytes::new(&config, 0);
        let lender = Session::lender(&req, 1, 1);
        let mut probe = WsProbe {
            session: Session::new(lender, 1 << 20, 7),
            req,
            ledger: Ledger::new(0, None, None, u64::MAX).with_ws(),
            times: [Stamp::default(); 1],
        };
        probe.session.opened(&probe.req, 0);
        let upgrade = probe.session.unsent();
        let key = upgrade
            .windows(19)
            .position(|w| w == b"Sec-WebSocket-Key: ");
        let key = key
            .map(|at| upgrade[at + 19..at + 43].to_vec())
            .unwrap_or_default();
        let accept = super::handshake::accept_of(&key);
        let n = probe.session.unsent().len();
        probe.session.wrote(n, &probe.req);
        let answer = [
            &b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: "[..],
            &accept,
            b"\r\n\r\n",
        ]
        .concat();
        probe.receive(&answer);
        probe
    }

    /// Starts a message: its masked frame, written.
    pub fn send(&mut self) -> usize {
        self.session
            .start(Stamp::default(), &mut self.times, &self.req);
        let n = self.session.unsent().len();
        self.session.wrote(n, &self.req);
        n
    }

    /// What the server sent arrives.
    pub fn receive(&mut self, data: &[u8]) {
        let _ = self
            .session
            .receive(data, 0, &mut self.times, &self.req, &mut self.ledger);
    }

    /// The messages' outcomes so far.
    pub fn counts(&self) -> Counts {
        *self.ledger.counts()
    }
}
