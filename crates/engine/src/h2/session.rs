//! One HTTP/2 connection of the client (RFC 9113), sans I/O: the loop hands it the bytes
//! that arrived (clear, or decrypted by TLS) and writes what it queued. It keeps up to
//! `depth` requests (h2load's `-m`): queued until the server lets another stream open,
//! then streams until their response ends. Every request ends exactly once in the books.
//! The HTTP/2 counterpart of [`crate::response::ResponseParser`] with its pipeline ring.
//! Here: its state and the sending side; what arrives is read in receive.rs.

use super::frame::{flag, kind, HEADER_LEN};
use super::lender::Lender;
use super::out::OutFrames;
use super::reader::FrameReader;
use super::settings::{self, PeerSettings, CLIENT_WINDOW, DEFAULT_MAX_FRAME, DEFAULT_WINDOW};
use super::streams::Streams;
use crate::hpack;
use crate::ledger::{Ledger, Stamp};
use crate::outcome::Outcome;
use crate::request::RequestBytes;
use crate::vary::{H2Requests, Vary};

/// The client connection preface (RFC 9113 section 3.4).
const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// The largest header block (HEADERS and its CONTINUATIONs) the client reassembles.
pub(super) const MAX_HEADER_BLOCK: usize = 64 * 1024;

/// Octets of a connection's out buffer beyond its first request block: room for many
/// requests' HEADERS (a few octets each once indexed), control frames, and request body.
const OUT_BUFFER: usize = 32 * 1024;

/// Octets of the out buffer that requests and their bodies leave free, for the frames the
/// server's own ask for at any time: a SETTINGS acknowledgement (9), a PING's (17), a
/// WINDOW_UPDATE (13), a RST_STREAM (13) and a GOAWAY (17), more than once over. Bodies
/// filling the buffer to its end left no room to acknowledge a SETTINGS that came late,
/// which fails the connection (a 2 MB upload over h2c to node-http, one run in two).
const CONTROL_ROOM: usize = 128;

/// The highest stream identifier a client may open.
const MAX_STREAM_ID: u32 = (1 << 31) - 1;

/// A header block being reassembled from HEADERS and CONTINUATION frames.
#[derive(Debug, Clone, Copy)]
pub(super) struct Continuing {
    pub(super) stream: u32,
    pub(super) end_stream: bool,
}

/// One connection's HTTP/2 state.
#[derive(Debug)]
pub struct Session {
    pub(super) reader: FrameReader,
    pub(super) decoder: hpack::Decoder,
    pub(super) out: OutFrames,
    pub(super) streams: Streams,
    pub(super) peer: PeerSettings,
    /// The connection is up and its preface queued.
    pub(super) open: bool,
    /// The server's SETTINGS came (its preface).
    pub(super) settled: bool,
    pub(super) next_id: u32,
    /// The request's header block as this connection sends it: literals the first time,
    /// indexed after, as the server's table allows.
    pub(super) request: hpack::RequestBlock,
    pub(super) send_window: i64,
    pub(super) recv_unacked: u32,
    pub(super) continuing: Option<Continuing>,
    /// A header block being reassembled (HEADERS, then CONTINUATION).
    pub(super) header_block: Vec<u8>,
    /// A GOAWAY's last stream identifier: no new stream on this connection.
    pub(super) going_away: Option<u32>,
    /// Open streams whose request body is not all sent.
    pub(super) bodies: usize,
    /// Varying requests: each place's values, rendered as its stream opens.
    pub(super) vary: Option<Box<H2Requests>>,
}

/// What one frame did to the connection.
pub(super) enum Next {
    GoOn,
    /// The connection is done (GOAWAY); what is queued survives for a new one.
    Close,
}

impl Session {
    /// The buffers a loop of `connections` lends its sessions for requests `req`: out
    /// buffers with room for the first request block twice beyond [`OUT_BUFFER`], and
    /// carries for a whole frame.
    pub fn lender(req: &RequestBytes, connections: usize) -> Lender {
        let block = req.h2_block().map_or(0, |b| b.first().len())
            + req.vary().map_or(0, Vary::max_h2_block);
        let carry = HEADER_LEN + DEFAULT_MAX_FRAME;
        Lender::new(OUT_BUFFER + 2 * block, carry, connections)
    }

    /// A connection slot's session for requests `req`, with `depth` places, borrowing
    /// its buffers from `lender` (one per loop: [`Session::lender`]).
    pub fn new(depth: usize, req: &RequestBytes, lender: Lender) -> Session {
        Session {
            reader: FrameReader::lent(DEFAULT_MAX_FRAME, lender.clone()),
            decoder: hpack::Decoder::new(settings::DEFAULT_HEADER_TABLE),
            out: OutFrames::lent(lender),
            streams: Streams::new(depth),
            peer: PeerSettings::default(),
            open: false,
            settled: false,
            next_id: 1,
            request: req
                .h2_block()
                .cloned()
                .unwrap_or_else(|| hpack::RequestBlock::new(&[])),
            send_window: DEFAULT_WINDOW as i64,
            recv_unacked: 0,
            continuing: None,
            header_block: Vec::new(),
            going_away: None,
            bodies: 0,
            vary: req.vary().map(|v| Box::new(H2Requests::new(depth, v))),
        }
    }

    /// Requests queued or open.
    pub fn pending(&self) -> usize {
        self.streams.pending()
    }

    /// How many more requests may start now, of `depth`: none before the connection is up
    /// or after a GOAWAY, and never past the server's MAX_CONCURRENT_STREAMS.
    pub fn room(&self, depth: usize) -> usize {
        if !self.open || self.going_away.is_some() {
            return 0;
        }
        let limit = self.peer.stream_limit().map_or(depth, |n| n.min(depth));
        limit.saturating_sub(self.pending())
    }

    /// The connection closed: its state goes (a request started before the next one is
    /// up waits in the queue, not on a stream of the old one); queued requests stay.
    pub fn closed(&mut self) {
        self.reader.reset();
        self.decoder.reset();
        self.out.clear();
        self.peer = PeerSettings::default();
        (self.open, self.settled) = (false, false);
        self.request.reset();
        self.next_id = 1;
        self.send_window = DEFAULT_WINDOW as i64;
        self.recv_unacked = 0;
        self.continuing = None;
        self.going_away = None;
        self.bodies = 0;
    }

    /// The connection is up (TCP, or TLS with ALPN h2): the preface goes, then the queue.
    pub fn opened(&mut self, req: &RequestBytes) {
        self.open = true;
        self.out.raw(PREFACE);
        self.out
            .frame(kind::SETTINGS, 0, 0, &[&settings::client_settings()]);
        let increment = (CLIENT_WINDOW - DEFAULT_WINDOW).to_be_bytes();
        self.out.frame(kind::WINDOW_UPDATE, 0, 0, &[&increment]);
        self.open_streams(req);
    }

    /// Starts a request stamped `stamp`: queued, and opened as a stream if it may be.
    /// Its HEADERS wait in the out buffer for the loop's next write, with every other
    /// frame queued since: requests started together leave in one write.
    pub fn start(&mut self, stamp: Stamp, times: &mut [Stamp], req: &mut RequestBytes) {
        if let Some(place) = self.streams.enqueue() {
            times[place] = stamp;
            if let (Some(v), Some(drawn)) = (self.vary.as_mut(), req.draw()) {
                v.start(place, drawn);
            }
        }
        if self.open {
            self.open_streams(req);
        }
    }

    /// The octets to write.
    pub fn unsent(&self) -> &[u8] {
        self.out.pending()
    }

    /// `n` octets of [`Session::unsent`] were written: what waited for room may go.
    pub fn wrote(&mut self, n: usize, req: &RequestBytes) {
        self.out.wrote(n);
        if self.open {
            // Sends the bodies that waited for room too.
            self.open_streams(req);
        }
    }

    /// Opens queued requests as streams while the server allows more and there is room.
    pub(super) fn open_streams(&mut self, req: &RequestBytes) {
        let limit = self.peer.stream_limit().unwrap_or(usize::MAX);
        // The most a HEADERS frame takes: the first block, and a size update before it.
        let varying = req.vary().map_or(0, Vary::max_h2_block);
        let most =
            HEADER_LEN + self.request.first().len().max(self.request.next().len()) + 3 + varying;
        while self.streams.queued() > 0 && self.streams.open() < limit && self.going_away.is_none()
        {
            if self.next_id > MAX_STREAM_ID {
                // Identifiers are used up: this connection drains and a new one takes over.
                self.going_away = Some(MAX_STREAM_ID);
                return;
            }
            if self.out.room() < most + CONTROL_ROOM {
                return;
            }
            let Some(place) = self.streams.next_queued() else {
                return;
            };
            let has_body = match (self.vary.as_ref(), req.vary()) {
                (Some(v), Some(vary)) => v.has_body(vary, place),
                _ => !req.body().is_empty(),
            };
            let flags = flag::END_HEADERS | if has_body { 0 } else { flag::END_STREAM };
            // Over a varying load the fixed block holds no field: only a size update owed.
            let fragment = self.request.block();
            let fields = match (self.vary.as_mut(), req.vary()) {
                (Some(v), Some(vary)) => v.block(vary, place),
                _ => &[],
            };
            self.out
                .frame(kind::HEADERS, flags, self.next_id, &[fragment, fields]);
            let window = self.peer.initial_window_size as i64;
            self.streams.open_next(self.next_id, window);
            self.next_id += 2;
            if has_body {
                self.bodies += 1;
            }
        }
        if self.bodies > 0 {
            self.send_bodies(req);
        }
    }

    /// Sends request bodies as far as the windows, the frame size and the buffer allow.
    pub(super) fn send_bodies(&mut self, req: &RequestBytes) {
        if self.bodies == 0 || (req.body().is_empty() && req.vary().is_none()) {
            return;
        }
        let max_frame = self.peer.max_frame_size as usize;
        for place in 0..self.streams.places() {
            let s = self.streams.get_mut(place);
            let length = match (self.vary.as_ref(), req.vary()) {
                (Some(v), Some(vary)) if s.id != 0 => v.body_len(vary, place),
                _ => req.body().len(),
            };
            let left = length - s.body_sent.min(length);
            if s.id == 0 || left == 0 {
                continue;
            }
            let window = s.send_window.min(self.send_window).max(0) as usize;
            let room = self.out.room().saturating_sub(HEADER_LEN + CONTROL_ROOM);
            let n = left.min(window).min(max_frame).min(room);
            if n == 0 {
                continue;
            }
            let end = if n == left { flag::END_STREAM } else { 0 };
            let (id, from) = (s.id, s.body_sent);
            s.body_sent += n;
            s.send_window -= n as i64;
            self.send_window -= n as i64;
            let body = match (self.vary.as_mut(), req.vary()) {
                (Some(v), Some(vary)) => v.body(vary, place),
                _ => req.body(),
            };
            self.out
                .frame(kind::DATA, end, id, &[&body[from..from + n]]);
            if end != 0 {
                self.bodies -= 1;
            }
        }
    }

    /// Ends every request with `outcome`, except that a close after a GOAWAY (`Read`)
    /// leaves the requests the GOAWAY returned queued, for the next connection.
    pub fn fail(&mut self, outcome: Outcome, now: u64, times: &mut [Stamp], ledger: &mut Ledger) {
        for (place, &stamp) in times.iter().enumerate() {
            let taken = self.streams.is_taken(place);
            let kept = outcome == Outcome::Read && self.streams.is_retry(place);
            if taken && !kept {
                ledger.error(stamp, now, outcome);
                self.streams.release(place);
            }
        }
        self.bodies = 0;
    }

    /// True (and every request failed as a timeout) when a request has waited past the
    /// timeout at `now`.
    pub fn expire(&mut self, now: u64, times: &mut [Stamp], ledger: &mut Ledger) -> bool {
        let timeout = ledger.timeout();
        let expired = (0..self.streams.places())
            .any(|p| self.streams.is_taken(p) && now.saturating_sub(times[p].sent) >= timeout);
        if expired {
            self.fail(Outcome::Timeout, now, times, ledger);
        }
        expired
    }

    /// The load stopped: every request is in flight.
    pub fn abandon(&mut self, times: &mut [Stamp], ledger: &mut Ledger) {
        for (place, &stamp) in times.iter().enumerate() {
            if self.streams.is_taken(place) {
                ledger.in_flight(stamp);
                self.streams.release(place);
            }
        }
        self.bodies = 0;
    }

    /// A GOAWAY for the close, if one is queued and nothing else is (so it can go alone).
    pub fn goodbye(&self) -> Option<&[u8]> {
        let pending = self.out.pending();
        let goaway = pending.len() == 17 && pending[3] == kind::GOAWAY;
        goaway.then_some(pending)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{LoadConfig, Target};

    /// Uploads fill the out buffer with bodies before the server's SETTINGS come: its
    /// acknowledgement still finds room.
    #[test]
    fn bodies_leave_room_to_acknowledge_a_late_settings() {
        let mut config = LoadConfig::new(Target::parse("http://127.0.0.1:1/up").expect("a URL"));
        (config.http2, config.streams) = (true, 10);
        config.body = vec![b'x'; 2_000_000];
        let mut req = RequestBytes::new(&config, 0);
        let mut ledger = Ledger::new(0, None, None, u64::MAX).with_h2();
        let mut times = [Stamp::default(); 10];
        let mut session = Session::new(10, &req, Session::lender(&req, 1));
        for _ in 0..ledger.take(10, 0) {
            session.start(Stamp::default(), &mut times, &mut req);
        }
        session.opened(&req);
        assert!(
            session.out.room() <= CONTROL_ROOM,
            "the bodies filled the buffer"
        );
        // The server's preface: an empty SETTINGS frame.
        let settings = [0, 0, 0, kind::SETTINGS, 0, 0, 0, 0, 0];
        let got = session.receive(&settings, 1, &mut times, &req, &mut ledger);
        assert!(got.is_ok(), "{:?}", got.err());
        assert!(session
            .unsent()
            .ends_with(&[0, 0, 0, kind::SETTINGS, flag::ACK, 0, 0, 0, 0]));
    }
}
