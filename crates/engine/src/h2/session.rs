//! One HTTP/2 connection of the client (RFC 9113), sans I/O: the loop hands it the bytes
//! that arrived (clear, or decrypted by TLS) and writes what it queued. It keeps up to
//! `depth` requests (h2load's `-m`): queued until the server lets another stream open,
//! then streams until their response ends. Every request ends exactly once in the books.
//! The HTTP/2 counterpart of [`crate::response::ResponseParser`] with its pipeline ring.

use super::error_code::ErrorCode;
use super::frame::{flag, kind, Frame, FrameHeader, Violation, HEADER_LEN};
use super::out::OutFrames;
use super::reader::FrameReader;
use super::settings::{self, PeerSettings, CLIENT_WINDOW, DEFAULT_MAX_FRAME, DEFAULT_WINDOW};
use super::streams::Streams;
use crate::conn::Verdict;
use crate::hpack;
use crate::ledger::{Ledger, Stamp};
use crate::outcome::Outcome;
use crate::request::RequestBytes;

/// The client connection preface (RFC 9113 section 3.4).
const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// The largest header block (HEADERS and its CONTINUATIONs) the client reassembles.
const MAX_HEADER_BLOCK: usize = 64 * 1024;

/// Octets of a connection's out buffer beyond its first request block: room for many
/// requests' HEADERS (a few octets each once indexed), control frames, and request body.
const OUT_BUFFER: usize = 32 * 1024;

/// The highest stream identifier a client may open.
const MAX_STREAM_ID: u32 = (1 << 31) - 1;

/// A header block being reassembled from HEADERS and CONTINUATION frames.
#[derive(Debug, Clone, Copy)]
struct Continuing {
    stream: u32,
    end_stream: bool,
}

/// One connection's HTTP/2 state.
#[derive(Debug)]
pub struct Session {
    reader: FrameReader,
    decoder: hpack::Decoder,
    out: OutFrames,
    streams: Streams,
    peer: PeerSettings,
    /// The connection is up and its preface queued.
    open: bool,
    /// The server's SETTINGS came (its preface).
    settled: bool,
    next_id: u32,
    /// The request's header block as this connection sends it: literals the first time,
    /// indexed after, as the server's table allows.
    request: hpack::RequestBlock,
    send_window: i64,
    recv_unacked: u32,
    continuing: Option<Continuing>,
    /// A header block being reassembled (HEADERS, then CONTINUATION).
    header_block: Vec<u8>,
    /// A GOAWAY's last stream identifier: no new stream on this connection.
    going_away: Option<u32>,
    /// Open streams whose request body is not all sent.
    bodies: usize,
}

/// What one frame did to the connection.
enum Next {
    GoOn,
    /// The connection is done (GOAWAY); what is queued survives for a new one.
    Close,
}

impl Session {
    /// A connection slot's session for requests `req`, with `depth` places.
    pub fn new(depth: usize, req: &RequestBytes) -> Session {
        let block = req.h2_block().map_or(0, |b| b.first().len());
        Session {
            reader: FrameReader::new(DEFAULT_MAX_FRAME),
            decoder: hpack::Decoder::new(settings::DEFAULT_HEADER_TABLE),
            out: OutFrames::new(OUT_BUFFER + 2 * block),
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
    pub fn start(&mut self, stamp: Stamp, times: &mut [Stamp], req: &RequestBytes) {
        if let Some(place) = self.streams.enqueue() {
            times[place] = stamp;
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
            self.open_streams(req);
            self.send_bodies(req);
        }
    }

    /// Opens queued requests as streams while the server allows more and there is room.
    fn open_streams(&mut self, req: &RequestBytes) {
        let limit = self.peer.stream_limit().unwrap_or(usize::MAX);
        // The most a HEADERS frame takes: the first block, and a size update before it.
        let most = HEADER_LEN + self.request.first().len().max(self.request.next().len()) + 3;
        while self.streams.queued() > 0 && self.streams.open() < limit && self.going_away.is_none()
        {
            if self.next_id > MAX_STREAM_ID {
                // Identifiers are used up: this connection drains and a new one takes over.
                self.going_away = Some(MAX_STREAM_ID);
                return;
            }
            if self.out.room() < most {
                return;
            }
            let body = req.body();
            let flags = flag::END_HEADERS | if body.is_empty() { flag::END_STREAM } else { 0 };
            let fragment = self.request.block();
            self.out
                .frame(kind::HEADERS, flags, self.next_id, &[fragment]);
            let window = self.peer.initial_window_size as i64;
            self.streams.open_next(self.next_id, window);
            self.next_id += 2;
            if !body.is_empty() {
                self.bodies += 1;
            }
        }
        if self.bodies > 0 {
            self.send_bodies(req);
        }
    }

    /// Sends request bodies as far as the windows, the frame size and the buffer allow.
    fn send_bodies(&mut self, req: &RequestBytes) {
        let body = req.body();
        if self.bodies == 0 || body.is_empty() {
            return;
        }
        let max_frame = self.peer.max_frame_size as usize;
        for place in 0..self.streams.places() {
            let s = self.streams.get_mut(place);
            let left = body.len() - s.body_sent.min(body.len());
            if s.id == 0 || left == 0 {
                continue;
            }
            let window = s.send_window.min(self.send_window).max(0) as usize;
            let room = self.out.room().saturating_sub(HEADER_LEN);
            let n = left.min(window).min(max_frame).min(room);
            if n == 0 {
                continue;
            }
            let end = if n == left { flag::END_STREAM } else { 0 };
            let chunk = &body[s.body_sent..s.body_sent + n];
            let id = s.id;
            s.body_sent += n;
            s.send_window -= n as i64;
            self.send_window -= n as i64;
            self.out.frame(kind::DATA, end, id, &[chunk]);
            if end != 0 {
                self.bodies -= 1;
            }
        }
    }
}

impl Session {
    /// Reads the frames in `data`, which arrived at `now`: responses end in the books;
    /// the server's SETTINGS, PINGs and windows are answered. Err: the server broke
    /// HTTP/2 and the connection is over (its requests end with that outcome).
    pub fn receive(
        &mut self,
        data: &[u8],
        now: u64,
        times: &mut [Stamp],
        req: &RequestBytes,
        ledger: &mut Ledger,
    ) -> Result<Verdict, Outcome> {
        ledger.read(data.len(), now);
        if !self.settled && data.starts_with(b"HTTP/") {
            // An HTTP/1.x server answers the preface with an error response: name it as
            // what it is, not as the frame its first octets would make.
            let v = Violation::protocol("the server answered in HTTP/1.x: it does not speak h2c");
            return Err(self.violated(v, now, ledger));
        }
        let mut reader = std::mem::take(&mut self.reader);
        let mut closing = false;
        let read = reader.feed(data, |header, payload| {
            let next = self.frame(header, payload, now, times, req, ledger)?;
            closing = matches!(next, Next::Close);
            Ok::<bool, Violation>(!closing)
        });
        self.reader = reader;
        if let Err(violation) = read {
            return Err(self.violated(violation, now, ledger));
        }
        self.open_streams(req);
        let drained = self.going_away.is_some() && self.streams.open() == 0;
        Ok(match closing || drained {
            true => Verdict::Close,
            false => Verdict::Keep,
        })
    }

    /// The server broke HTTP/2: counted, and a GOAWAY queued for the close.
    fn violated(&mut self, violation: Violation, now: u64, ledger: &mut Ledger) -> Outcome {
        if let Some(books) = ledger.h2(now) {
            books.errors.add(violation.code);
            books.first_error.get_or_insert(violation.what);
        }
        let [last, code] = [0u32, violation.code.0].map(u32::to_be_bytes);
        self.out.frame(kind::GOAWAY, 0, 0, &[&last, &code]);
        Outcome::H2
    }

    fn frame(
        &mut self,
        header: FrameHeader,
        payload: &[u8],
        now: u64,
        times: &mut [Stamp],
        req: &RequestBytes,
        ledger: &mut Ledger,
    ) -> Result<Next, Violation> {
        let frame = Frame::parse(header, payload)?;
        if !self.settled && !matches!(frame, Frame::Settings { ack: false, .. }) {
            return Err(Violation::protocol("the server's preface is not SETTINGS"));
        }
        if self.continuing.is_some() && !matches!(frame, Frame::Continuation { .. }) {
            return Err(Violation::protocol("another frame inside a header block"));
        }
        let mut at = At {
            now,
            times,
            req,
            ledger,
        };
        match frame {
            Frame::Data {
                stream,
                flow,
                end_stream,
            } => self.data(stream, flow, end_stream, &mut at)?,
            Frame::Headers {
                stream,
                fragment,
                end_stream,
                end_headers: true,
            } => self.headers(stream, fragment, end_stream, &mut at)?,
            Frame::Headers {
                stream,
                fragment,
                end_stream,
                end_headers: false,
            } => {
                self.stream_of(stream)?;
                self.continuing = Some(Continuing { stream, end_stream });
                self.header_block.clear();
                self.header_block.extend_from_slice(fragment);
            }
            Frame::Continuation {
                stream,
                fragment,
                end_headers,
            } => self.continuation(stream, fragment, end_headers, &mut at)?,
            Frame::RstStream { stream, code } => self.reset(stream, code, &mut at)?,
            Frame::Settings { ack: false, params } => self.settings(params, &mut at)?,
            Frame::Settings { ack: true, .. } => {}
            Frame::Ping { ack: false, opaque } => self.ping(opaque, &mut at)?,
            Frame::Ping { ack: true, .. } => {}
            Frame::GoAway { last_stream, code } => {
                return Ok(self.goaway(last_stream, code, &mut at))
            }
            Frame::WindowUpdate { stream, increment } => self.window_update(stream, increment)?,
            Frame::Ignored => {}
        }
        Ok(Next::GoOn)
    }

    /// The place of `stream` if it is open; an error for a stream the client never opened.
    fn stream_of(&self, stream: u32) -> Result<Option<usize>, Violation> {
        if stream.is_multiple_of(2) || stream >= self.next_id {
            return Err(Violation::protocol(
                "a frame on a stream the client never opened",
            ));
        }
        // Not found: a stream already over (its reset or a late frame); ignored.
        Ok(self.streams.find(stream))
    }

    fn data(&mut self, stream: u32, flow: u32, end: bool, at: &mut At) -> Result<(), Violation> {
        self.recv_unacked += flow;
        if self.recv_unacked >= CLIENT_WINDOW / 2 && self.window_update_out(0, self.recv_unacked) {
            self.recv_unacked = 0;
        }
        let Some(place) = self.stream_of(stream)? else {
            return Ok(());
        };
        let s = self.streams.get_mut(place);
        if s.status == 0 {
            return Err(Violation::protocol("DATA before the response's HEADERS"));
        }
        if end {
            self.finish(place, at);
            return Ok(());
        }
        s.unacked += flow;
        let unacked = s.unacked;
        if unacked >= CLIENT_WINDOW / 2 && self.window_update_out(stream, unacked) {
            self.streams.get_mut(place).unacked = 0;
        }
        Ok(())
    }

    fn continuation(
        &mut self,
        stream: u32,
        fragment: &[u8],
        end_headers: bool,
        at: &mut At,
    ) -> Result<(), Violation> {
        let Some(begun) = self.continuing.filter(|c| c.stream == stream) else {
            return Err(Violation::protocol("CONTINUATION not after its HEADERS"));
        };
        if self.header_block.len() + fragment.len() > MAX_HEADER_BLOCK {
            return Err(Violation {
                code: ErrorCode::ENHANCE_YOUR_CALM,
                what: "a header block over 64 KiB",
            });
        }
        self.header_block.extend_from_slice(fragment);
        if !end_headers {
            return Ok(());
        }
        self.continuing = None;
        let block = std::mem::take(&mut self.header_block);
        let done = self.headers(stream, &block, begun.end_stream, at);
        self.header_block = block;
        done
    }

    /// A complete header block for `stream`: a response's head, an interim one, or trailers.
    fn headers(
        &mut self,
        stream: u32,
        block: &[u8],
        end: bool,
        at: &mut At,
    ) -> Result<(), Violation> {
        let mut status = None;
        let decoded = self.decoder.decode(block, |name, value| {
            if name == b":status" {
                status = Some(parse_status(value));
            }
        });
        // The table changes for every block, so a block of a stream already over is
        // decoded too, and one that does not decode ends the connection.
        decoded.map_err(|_| Violation {
            code: ErrorCode::COMPRESSION_ERROR,
            what: "a header block that does not decode",
        })?;
        let Some(place) = self.stream_of(stream)? else {
            return Ok(());
        };
        if self.streams.get_mut(place).status != 0 {
            if !end {
                return Err(Violation::protocol("trailers without END_STREAM"));
            }
            self.finish(place, at);
            return Ok(());
        }
        match status.flatten() {
            Some(100..=199) if end => {
                Err(Violation::protocol("an interim response ends its stream"))
            }
            Some(100..=199) => Ok(()),
            Some(status) => {
                self.streams.get_mut(place).status = status;
                if end {
                    self.finish(place, at);
                }
                Ok(())
            }
            None => {
                // A malformed response (RFC 9113 section 8.1.1): the stream's error only.
                self.end_stream(place, Outcome::Parse, at);
                let code = ErrorCode::PROTOCOL_ERROR.0.to_be_bytes();
                self.out.frame(kind::RST_STREAM, 0, stream, &[&code]);
                Ok(())
            }
        }
    }

    fn reset(&mut self, stream: u32, code: ErrorCode, at: &mut At) -> Result<(), Violation> {
        let Some(place) = self.stream_of(stream)? else {
            return Ok(());
        };
        // REFUSED_STREAM says the server did nothing with it (RFC 9113 section 8.7): sent
        // again once, on this connection, as the server's limit allows. Refused twice,
        // or reset for any other reason, the request ends as `reset`.
        let again = code == ErrorCode::REFUSED_STREAM
            && !self.streams.get_mut(place).retry
            && self.going_away.is_none();
        if let Some(books) = at.ledger.h2(at.now) {
            books.resets.add(code);
            books.retried += u64::from(again);
        }
        match again {
            true => {
                self.streams.requeue(place);
                self.count_bodies(at.req);
            }
            false => self.end_stream(place, Outcome::Reset, at),
        }
        Ok(())
    }

    fn settings(&mut self, params: &[u8], at: &mut At) -> Result<(), Violation> {
        let before = self.peer;
        self.peer.apply(params)?;
        let delta = self.peer.initial_window_size as i64 - before.initial_window_size as i64;
        for place in 0..self.streams.places() {
            let s = self.streams.get_mut(place);
            if s.id != 0 {
                s.send_window += delta;
            }
        }
        self.request
            .peer_table_size(self.peer.header_table_size as usize);
        if !self.out.frame(kind::SETTINGS, flag::ACK, 0, &[]) {
            return Err(calm("no room to acknowledge SETTINGS"));
        }
        if !self.settled {
            self.settled = true;
            at.ledger.h2_settings(self.peer);
        }
        self.send_bodies(at.req);
        Ok(())
    }

    fn ping(&mut self, opaque: [u8; 8], at: &mut At) -> Result<(), Violation> {
        if let Some(books) = at.ledger.h2(at.now) {
            books.pings += 1;
        }
        match self.out.frame(kind::PING, flag::ACK, 0, &[&opaque]) {
            true => Ok(()),
            false => Err(calm("a flood of PINGs the client cannot answer")),
        }
    }

    /// GOAWAY: streams above `last` were never processed and go again on a new connection;
    /// with an error code, the server ended the connection and the others fail as `h2`.
    fn goaway(&mut self, last: u32, code: ErrorCode, at: &mut At) -> Next {
        let retried = self.streams.requeue_above(last);
        if let Some(books) = at.ledger.h2(at.now) {
            books.goaways.add(code);
            books.retried += retried;
        }
        self.going_away = Some(last);
        if code != ErrorCode::NO_ERROR {
            for place in 0..self.streams.places() {
                if self.streams.get_mut(place).id != 0 {
                    self.end_stream(place, Outcome::H2, at);
                }
            }
        }
        self.count_bodies(at.req);
        match self.streams.open() {
            0 => Next::Close,
            _ => Next::GoOn,
        }
    }

    fn window_update(&mut self, stream: u32, increment: u32) -> Result<(), Violation> {
        let overflow = Violation {
            code: ErrorCode::FLOW_CONTROL_ERROR,
            what: "a window over 2^31-1",
        };
        if stream == 0 {
            self.send_window += increment as i64;
            return match self.send_window > i32::MAX as i64 {
                true => Err(overflow),
                false => Ok(()),
            };
        }
        let Some(place) = self.stream_of(stream)? else {
            return Ok(());
        };
        let s = self.streams.get_mut(place);
        s.send_window += increment as i64;
        match s.send_window > i32::MAX as i64 {
            true => Err(overflow),
            false => Ok(()),
        }
    }

    /// Queues a WINDOW_UPDATE; false when there is no room now (it goes with a later one).
    fn window_update_out(&mut self, stream: u32, increment: u32) -> bool {
        self.out
            .frame(kind::WINDOW_UPDATE, 0, stream, &[&increment.to_be_bytes()])
    }

    /// The response of the stream at `place` ended: counted with its status.
    fn finish(&mut self, place: usize, at: &mut At) {
        let status = self.streams.get_mut(place).status;
        at.ledger.response(at.times[place], at.now, status);
        self.release(place, at.req);
    }

    /// The request at `place` ended with `outcome`.
    fn end_stream(&mut self, place: usize, outcome: Outcome, at: &mut At) {
        at.ledger.error(at.times[place], at.now, outcome);
        self.release(place, at.req);
    }

    fn release(&mut self, place: usize, req: &RequestBytes) {
        let s = self.streams.get_mut(place);
        if s.id != 0 && s.body_sent < req.body().len() {
            self.bodies -= 1;
        }
        self.streams.release(place);
    }

    fn count_bodies(&mut self, req: &RequestBytes) {
        let body = req.body().len();
        self.bodies = (0..self.streams.places())
            .filter(|&p| {
                let s = self.streams.get_mut(p);
                s.id != 0 && s.body_sent < body
            })
            .count();
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

/// What a frame handler needs of the loop: the time, the stamps, the request, the books.
struct At<'a> {
    now: u64,
    times: &'a mut [Stamp],
    req: &'a RequestBytes,
    ledger: &'a mut Ledger,
}

fn calm(what: &'static str) -> Violation {
    Violation {
        code: ErrorCode::ENHANCE_YOUR_CALM,
        what,
    }
}

/// A :status value: three digits, or None.
fn parse_status(value: &[u8]) -> Option<u16> {
    match value {
        [a, b, c] if value.iter().all(u8::is_ascii_digit) => Some(
            [a, b, c]
                .iter()
                .fold(0, |n, d| n * 10 + (**d - b'0') as u16),
        ),
        _ => None,
    }
}
