//! One connection's request/response bookkeeping, shared by the epoll and io_uring loops.
//!
//! A connection carries up to `depth` pending requests. Their start times live in a slab
//! owned by the loop, `depth` per connection. Over HTTP/1.1 they are a ring, and the bytes
//! still to write are a single count: every request is the same, so the unsent bytes are
//! always the tail of the loop's shared request buffer; when requests vary, they are the
//! connection's own ([`H1Requests`]). Over HTTP/2 the connection's [`Session`] holds them
//! (its streams answer in any order) and the frames to write; over WebSocket, its
//! [`WsSession`] holds the messages (echoed in order) and their frames.

use crate::h2::Session;
use crate::ledger::{Ledger, Stamp};
use crate::outcome::Outcome;
use crate::pool::Carries;
use crate::request::RequestBytes;
use crate::response::{Response, ResponseParser};
use crate::vary::{H1Requests, Vary};
use crate::ws::Session as WsSession;
use std::os::fd::RawFd;

/// Where a connection is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// No socket; may open one at `retry_at` (nanoseconds on the loop clock).
    Closed {
        retry_at: u64,
    },
    Connecting,
    /// Connected; the TLS handshake is under way (requests wait for it).
    Handshaking,
    Open,
}

/// What the loop must do with a connection after bytes arrived.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Keep it and write the next requests.
    Keep,
    /// Close it; the server asked for it, or the load no longer needs it.
    Close,
}

/// One connection slot of a loop.
#[derive(Debug)]
pub struct Conn {
    pub fd: RawFd,
    /// Bumped on every close, so events of an earlier socket in this slot are ignored.
    pub gen: u32,
    pub state: State,
    parser: ResponseParser,
    /// Requests started on this connection and not yet answered or failed.
    pending: u32,
    /// Ring index of the oldest pending request's start time.
    oldest: u32,
    /// Bytes of pending requests not yet written.
    unsent: u32,
    connect_started: u64,
    /// Open loop: the slot is on the loop's list of connections with room.
    pub ready: bool,
    /// An HTTP/2 load's connection state (None over HTTP/1.1): made once per slot.
    h2: Option<Box<Session>>,
    /// Varying HTTP/1.1 requests (None: the loop's shared bytes).
    vary: Option<Box<H1Requests>>,
    /// A WebSocket load's connection state (None over HTTP): made once per slot.
    ws: Option<Box<WsSession>>,
}

impl Default for Conn {
    fn default() -> Self {
        Conn {
            fd: -1,
            gen: 0,
            state: State::Closed { retry_at: 0 },
            parser: ResponseParser::new(),
            pending: 0,
            oldest: 0,
            unsent: 0,
            connect_started: 0,
            ready: false,
            h2: None,
            vary: None,
            ws: None,
        }
    }
}

impl Conn {
    /// A connection slot that speaks HTTP/2 through `session`.
    pub fn http2(session: Session) -> Conn {
        Conn {
            h2: Some(Box::new(session)),
            ..Conn::default()
        }
    }

    /// A connection slot that speaks WebSocket through `session`.
    pub fn websocket(session: WsSession) -> Conn {
        Conn {
            ws: Some(Box::new(session)),
            ..Conn::default()
        }
    }

    /// A connection slot whose HTTP/1.1 requests vary, `depth` of them pending at most.
    pub fn varying(depth: usize, vary: &Vary) -> Conn {
        Conn {
            vary: Some(Box::new(H1Requests::new(depth, vary))),
            ..Conn::default()
        }
    }

    /// This connection's HTTP/1.1 response heads split across reads are carried in
    /// buffers lent from `carries`, its loop's.
    pub fn lend_carries(mut self, carries: &Carries) -> Conn {
        self.parser.lend_from(carries.clone());
        self
    }

    /// True when the connection speaks WebSocket.
    pub fn speaks_ws(&self) -> bool {
        self.ws.is_some()
    }

    /// True when the connection speaks HTTP/2.
    pub fn speaks_h2(&self) -> bool {
        self.h2.is_some()
    }

    /// Requests pending on this connection.
    #[inline]
    pub fn pending(&self) -> u32 {
        match (&self.h2, &self.ws) {
            (Some(h2), _) => h2.pending() as u32,
            (None, Some(ws)) => ws.pending() as u32,
            (None, None) => self.pending,
        }
    }

    /// A new socket `fd` is connecting, begun at `now`; `head_request` is whether
    /// the requests are HEAD (their responses carry no body).
    pub fn connecting(&mut self, fd: RawFd, now: u64, head_request: bool) {
        self.parser.start(head_request);
        self.fd = fd;
        self.state = State::Connecting;
        self.connect_started = now;
    }

    /// The connect finished at `now`.
    pub fn connected(&mut self, now: u64, req: &RequestBytes, ledger: &mut Ledger) {
        ledger.connected(self.connect_started, now);
        self.handshake_done(req, now);
    }

    /// The connect finished at `now` and a TLS handshake begins.
    pub fn handshaking(&mut self, now: u64, ledger: &mut Ledger) {
        self.state = State::Handshaking;
        ledger.connected(self.connect_started, now);
    }

    /// The TLS handshake is done (or a clear connection is up) at `now`: requests may go
    /// (over WebSocket, the upgrade first).
    pub fn handshake_done(&mut self, req: &RequestBytes, now: u64) {
        self.state = State::Open;
        if let Some(h2) = self.h2.as_mut() {
            h2.opened(req);
        }
        if let Some(ws) = self.ws.as_mut() {
            ws.opened(req, now);
        }
    }

    /// Starts `n` requests at `now`: they are pending and their bytes unsent.
    #[inline]
    pub fn start(&mut self, n: u32, now: u64, times: &mut [Stamp], req: &mut RequestBytes) {
        let stamp = Stamp {
            intended: now,
            sent: now,
        };
        for _ in 0..n {
            self.start_stamped(stamp, times, req);
        }
    }

    /// Starts one request stamped `stamp` (an open-loop request may be late).
    #[inline]
    pub fn start_stamped(&mut self, stamp: Stamp, times: &mut [Stamp], req: &mut RequestBytes) {
        if let Some(h2) = self.h2.as_mut() {
            return h2.start(stamp, times, req);
        }
        if let Some(ws) = self.ws.as_mut() {
            return ws.start(stamp, times, req);
        }
        let depth = times.len() as u32;
        let place = ((self.oldest + self.pending) % depth) as usize;
        times[place] = stamp;
        self.pending += 1;
        if let (Some(v), Some(drawn)) = (self.vary.as_mut(), req.draw()) {
            if let Some(vary) = req.vary() {
                v.start(place, drawn, self.oldest + self.pending, vary);
            }
            return;
        }
        self.unsent += req.request_len() as u32;
    }

    /// True when the pipeline has room for another request.
    #[inline]
    pub fn has_room(&self, depth: usize, req: &RequestBytes) -> bool {
        self.state == State::Open && self.room(depth, req) > 0
    }

    /// How many more requests may start now, of `depth`.
    #[inline]
    fn room(&self, depth: usize, req: &RequestBytes) -> usize {
        match (&self.h2, &self.ws) {
            (Some(h2), _) => h2.room(depth),
            (None, Some(ws)) => ws.room(depth),
            (None, None) => depth.saturating_sub(self.in_pipeline(req) as usize),
        }
    }

    /// The requests holding a place in the pipeline: those not answered, and those
    /// answered before they were all written (a server may answer before it has read a
    /// body: nginx's `return`, an early 413), whose bytes still stand in the shared
    /// buffer of `depth` requests.
    #[inline]
    fn in_pipeline(&self, req: &RequestBytes) -> u32 {
        // Varying requests are rendered into the connection's own buffer, when it has
        // room; nothing unsent (the usual case once a write is done) holds no place.
        if self.unsent == 0 || self.vary.is_some() {
            return self.pending;
        }
        self.pending
            .max(self.unsent.div_ceil(req.request_len().max(1) as u32))
    }

    /// Starts as many requests as the pipeline depth and the ledger allow.
    #[inline]
    pub fn top_up(
        &mut self,
        now: u64,
        times: &mut [Stamp],
        req: &mut RequestBytes,
        ledger: &mut Ledger,
    ) {
        let room = self.room(times.len(), req) as u32;
        if room > 0 {
            let n = ledger.take(room, now);
            self.start(n, now, times, req);
        }
    }

    /// The bytes still to write (a tail of the shared request buffer).
    #[inline]
    pub fn unsent<'r>(&'r self, req: &'r RequestBytes) -> &'r [u8] {
        if let Some(h2) = &self.h2 {
            return h2.unsent();
        }
        if let Some(ws) = &self.ws {
            return ws.unsent();
        }
        if let Some(v) = &self.vary {
            return v.unsent();
        }
        let all = req.all();
        &all[all.len() - self.unsent as usize..]
    }

    /// `n` bytes of the unsent requests were written. True when that gave the pipeline
    /// room it did not have: the request written was answered already (the loop refills
    /// the connection, as after a response).
    #[inline]
    #[must_use]
    pub fn wrote(&mut self, n: usize, req: &RequestBytes) -> bool {
        if let Some(h2) = self.h2.as_mut() {
            h2.wrote(n, req);
            return false;
        }
        if let Some(ws) = self.ws.as_mut() {
            ws.wrote(n, req);
            return false;
        }
        if let (Some(v), Some(vary)) = (self.vary.as_mut(), req.vary()) {
            v.wrote(n, self.oldest + self.pending, vary);
            return false;
        }
        let before = self.in_pipeline(req);
        self.unsent -= (n as u32).min(self.unsent);
        self.in_pipeline(req) < before
    }

    /// Frames the responses in `data`, which arrived at `now`.
    #[inline]
    pub fn receive(
        &mut self,
        mut data: &[u8],
        now: u64,
        times: &mut [Stamp],
        req: &RequestBytes,
        ledger: &mut Ledger,
    ) -> Result<Verdict, Outcome> {
        if let Some(h2) = self.h2.as_mut() {
            return h2.receive(data, now, times, req, ledger);
        }
        if let Some(ws) = self.ws.as_mut() {
            return ws.receive(data, now, times, req, ledger);
        }
        ledger.read(data.len(), now);
        while !data.is_empty() {
            if self.pending == 0 {
                // Nothing asked for these bytes: the last response was longer than its framing.
                ledger.unsolicited(now);
                return Ok(Verdict::Close);
            }
            let progress = self.feed(data, req).map_err(|_| Outcome::Parse)?;
            data = data.get(progress.consumed..).unwrap_or_default();
            let Some(response) = progress.done else {
                continue;
            };
            let right = self.answered_right(&response, req);
            let started = self.pop(times);
            self.parser.start(req.is_head());
            if self.pending == 0 && !data.is_empty() {
                // Bytes beyond the declared end with no request left to own them.
                ledger.error(started, now, Outcome::Parse);
                ledger.unsolicited(now);
                return Ok(Verdict::Close);
            }
            match right {
                true => ledger.response(started, now, response.status),
                false => ledger.error(started, now, Outcome::Wrong),
            }
            if !response.keep_alive {
                ledger.closed_by_server(now);
                return Ok(Verdict::Close);
            }
        }
        Ok(Verdict::Keep)
    }

    /// The server closed the connection at `now`: ends a close-delimited body, or fails
    /// what was pending as read errors.
    pub fn eof(&mut self, now: u64, times: &mut [Stamp], req: &RequestBytes, ledger: &mut Ledger) {
        ledger.closed_by_server(now);
        if self.h2.is_some() || self.ws.is_some() {
            // HTTP/2 and WebSocket frame their answers: a close ends none; the fail that
            // follows ends what was pending (and over HTTP/2 keeps what a GOAWAY returned
            // for the next connection).
            return;
        }
        if self.pending == 0 {
            return;
        }
        if let Ok(response) = self.parser.finish_eof() {
            let right = self.answered_right(&response, req);
            let started = self.pop(times);
            self.parser.start(req.is_head());
            match right {
                true => ledger.response(started, now, response.status),
                false => ledger.error(started, now, Outcome::Wrong),
            }
        }
        self.fail(Outcome::Read, now, times, ledger);
    }

    /// The server closed the connection at `now` without TLS's close_notify: a body only
    /// the close could end may have been cut short (nobody can tell), so what is pending
    /// fails as TLS (true); anything else as [`Conn::eof`] (false).
    pub fn eof_unannounced(
        &mut self,
        now: u64,
        times: &mut [Stamp],
        req: &RequestBytes,
        ledger: &mut Ledger,
    ) -> bool {
        if self.h2.is_none() && self.pending > 0 && self.parser.ends_at_eof() {
            ledger.closed_by_server(now);
            self.fail(Outcome::Tls, now, times, ledger);
            return true;
        }
        self.eof(now, times, req, ledger);
        false
    }

    /// Ends every pending request with `outcome`.
    pub fn fail(&mut self, outcome: Outcome, now: u64, times: &mut [Stamp], ledger: &mut Ledger) {
        if let Some(h2) = self.h2.as_mut() {
            return h2.fail(outcome, now, times, ledger);
        }
        if let Some(ws) = self.ws.as_mut() {
            return ws.fail(outcome, now, times, ledger);
        }
        while self.pending > 0 {
            let started = self.pop(times);
            ledger.error(started, now, outcome);
        }
        self.unsent = 0;
        if let Some(v) = self.vary.as_mut() {
            v.clear();
        }
    }

    /// Fails the pending requests as timeouts if the oldest has waited too long.
    #[inline]
    pub fn expire(&mut self, now: u64, times: &mut [Stamp], ledger: &mut Ledger) -> bool {
        if let Some(h2) = self.h2.as_mut() {
            return h2.expire(now, times, ledger);
        }
        if let Some(ws) = self.ws.as_mut() {
            return ws.expire(now, times, ledger);
        }
        let expired = self.pending > 0
            && now.saturating_sub(times[self.oldest as usize].sent) >= ledger.timeout();
        if expired {
            self.fail(Outcome::Timeout, now, times, ledger);
        }
        expired
    }

    /// True when the TLS handshake (or the WebSocket upgrade, or the client's WebSocket
    /// close) has run past `timeout` at `now` with no request waiting on it (an open loop
    /// starts requests on open connections only, so none would time out): the connection
    /// is to be given up as a timeout.
    pub fn handshake_overdue(&self, now: u64, timeout: u64) -> bool {
        let tls =
            self.state == State::Handshaking && now.saturating_sub(self.connect_started) >= timeout;
        let ws = (self.ws.as_ref()).is_some_and(|ws| ws.overdue(now, timeout));
        (tls || ws) && self.pending() == 0
    }

    /// True while a WebSocket upgrade waits for its answer.
    pub fn upgrading(&self) -> bool {
        self.ws.as_ref().is_some_and(|ws| ws.upgrading())
    }

    /// A GOAWAY (HTTP/2) or a close (WebSocket) the client queued for the close, if it
    /// can go alone.
    pub fn goodbye(&self) -> Option<&[u8]> {
        match (&self.h2, &self.ws) {
            (Some(h2), _) => h2.goodbye(),
            (None, Some(ws)) => ws.goodbye(),
            (None, None) => None,
        }
    }

    /// The client closes at `now` (the load is over, or a device leaves): over
    /// WebSocket, an open connection sends its close; true when it did (and waits for the
    /// server's).
    pub fn close_handshake(&mut self, now: u64, ledger: &mut Ledger) -> bool {
        (self.ws.as_mut()).is_some_and(|ws| ws.close(now, ledger))
    }

    /// True while the client's WebSocket close waits for the server's.
    pub fn closing(&self) -> bool {
        self.fd >= 0 && self.ws.as_ref().is_some_and(|ws| ws.closing())
    }

    /// The load stopped: pending requests are counted as in flight.
    pub fn abandon(&mut self, times: &mut [Stamp], ledger: &mut Ledger) {
        if let Some(h2) = self.h2.as_mut() {
            return h2.abandon(times, ledger);
        }
        if let Some(ws) = self.ws.as_mut() {
            return ws.abandon(times, ledger);
        }
        while self.pending > 0 {
            let started = self.pop(times);
            ledger.in_flight(started);
        }
        self.unsent = 0;
        if let Some(v) = self.vary.as_mut() {
            v.clear();
        }
    }

    /// The socket is gone; the slot may reconnect at `retry_at`.
    pub fn closed(&mut self, retry_at: u64) {
        debug_assert_eq!(
            self.pending, 0,
            "pending requests must be resolved before close"
        );
        // Over HTTP/2, requests a GOAWAY returned stay queued for the next connection.
        if let Some(h2) = self.h2.as_mut() {
            h2.closed();
        }
        if let Some(ws) = self.ws.as_mut() {
            ws.closed();
        }
        self.fd = -1;
        self.gen = self.gen.wrapping_add(1);
        self.state = State::Closed { retry_at };
        self.oldest = 0;
        self.unsent = 0;
        if let Some(v) = self.vary.as_mut() {
            v.clear();
        }
    }

    /// Frames `data` for the oldest pending request; a varying one's answer is checked
    /// as its body goes by.
    #[inline]
    fn feed(
        &mut self,
        data: &[u8],
        req: &RequestBytes,
    ) -> Result<crate::response::Progress, crate::response::ResponseError> {
        let (Some(v), Some(vary)) = (self.vary.as_mut(), req.vary()) else {
            return self.parser.feed(data);
        };
        let drawn = v.drawn(self.oldest as usize);
        let mut checking = crate::vary::Checking {
            vary,
            drawn: &drawn,
            answer: &mut v.answer,
        };
        self.parser.feed_to(data, &mut checking)
    }

    /// False when the oldest pending request's answer is not what its values call for
    /// (a 4xx or 5xx is a status, whatever its body); its check starts over.
    fn answered_right(&mut self, response: &Response, req: &RequestBytes) -> bool {
        let (Some(v), Some(vary)) = (self.vary.as_mut(), req.vary()) else {
            return true;
        };
        let answer = std::mem::take(&mut v.answer);
        response.status >= 400 || answer.right(vary, &v.drawn(self.oldest as usize))
    }

    #[inline]
    fn pop(&mut self, times: &[Stamp]) -> Stamp {
        let t = times[self.oldest as usize];
        self.oldest = (self.oldest + 1) % times.len() as u32;
        self.pending -= 1;
        if let Some(v) = self.vary.as_mut() {
            v.answered(self.pending);
        }
        t
    }
}
