//! What a client connection does with the bytes a server sent: frames read, responses
//! ended in the books, the server's SETTINGS, PINGs and windows answered, GOAWAY and
//! resets, and every way a server can break HTTP/2 counted.

use super::error_code::ErrorCode;
use super::frame::{flag, kind, Frame, FrameHeader, Violation};
use super::session::{Continuing, Next, Session, MAX_HEADER_BLOCK};
use super::settings::CLIENT_WINDOW;
use crate::conn::Verdict;
use crate::ledger::{Ledger, Stamp};
use crate::outcome::Outcome;
use crate::request::RequestBytes;

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
                data,
                flow,
                end_stream,
            } => self.data(stream, data, flow, end_stream, &mut at)?,
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

    fn data(
        &mut self,
        stream: u32,
        data: &[u8],
        flow: u32,
        end: bool,
        at: &mut At,
    ) -> Result<(), Violation> {
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
        if let (Some(v), Some(vary)) = (self.vary.as_mut(), at.req.vary()) {
            v.answered(vary, place, data);
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
        let right = match (self.vary.as_ref(), at.req.vary()) {
            (Some(v), Some(vary)) => status >= 400 || v.right(vary, place),
            _ => true,
        };
        match right {
            true => at.ledger.response(at.times[place], at.now, status),
            false => at.ledger.error(at.times[place], at.now, Outcome::Wrong),
        }
        self.release(place, at.req);
    }

    /// The request at `place` ended with `outcome`.
    fn end_stream(&mut self, place: usize, outcome: Outcome, at: &mut At) {
        at.ledger.error(at.times[place], at.now, outcome);
        self.release(place, at.req);
    }

    fn release(&mut self, place: usize, req: &RequestBytes) {
        let body = self.body_len(place, req);
        let s = self.streams.get_mut(place);
        if s.id != 0 && s.body_sent < body {
            self.bodies -= 1;
        }
        self.streams.release(place);
    }

    fn count_bodies(&mut self, req: &RequestBytes) {
        self.bodies = (0..self.streams.places())
            .filter(|&p| {
                let body = self.body_len(p, req);
                let s = self.streams.get_mut(p);
                s.id != 0 && s.body_sent < body
            })
            .count();
    }

    /// The length of the body of the request at `place`.
    fn body_len(&self, place: usize, req: &RequestBytes) -> usize {
        match (self.vary.as_ref(), req.vary()) {
            (Some(v), Some(vary)) => v.body_len(vary, place),
            _ => req.body().len(),
        }
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
