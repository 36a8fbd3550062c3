//! One WebSocket connection of the client, sans I/O: the loop hands it the bytes that
//! arrived (clear, or decrypted by TLS) and writes what it queued. First the upgrade
//! (request queued when the connection is up, 101 checked), then up to `depth` messages
//! in flight, each a masked frame of the load's message, each ended by its echo (or a
//! failure) exactly once, in order: an echo server answers in order, so the messages are
//! a ring of start stamps, as HTTP/1.1's pipeline is. Pings are answered; a server's
//! close or a protocol error fails the connection under `ws`. The client closes with 1000
//! and waits for the server's close at the end of the load, after its messages when a
//! connection carries only so many (handshake churn), and when its device leaves.

use super::frame::{self, opcode};
use super::handshake::{self, Refusal, ACCEPT_LEN};
use super::owed::Owed;
use super::reader::{Event, Expected, FrameReader};
use super::violation::Violation;
use crate::conn::Verdict;
use crate::h2::{Lender, OutFrames};
use crate::ledger::{Ledger, Stamp};
use crate::outcome::Outcome;
use crate::request::RequestBytes;

/// Room in an out buffer beyond the upgrade request and the messages: a pong and a close
/// (131 and 8 octets masked). Not more: over io_uring every connection's upgrade holds
/// its buffer until its send completes, so a load that opens 10,000 at once has 10,000
/// buffers made, and each octet here is 10 KB of the generator's peak memory
/// (bench/connections).
const CONTROL_ROOM: usize = frame::masked_len(frame::MAX_CONTROL) + frame::masked_len(2);

/// Most octets of messages an out buffer is sized for: more in flight wait for room.
const MESSAGES_ROOM: usize = 1 << 20;

/// The client's close code at the end of a load: a normal closure.
const NORMAL_CLOSURE: u16 = 1000;

/// The longest wait for the server's answer to the client's close (less if the load's
/// timeout is shorter): a server that does not answer is counted, not waited for.
pub const CLOSE_WAIT_NS: u64 = 1_000_000_000;

/// Where the connection is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// No connection (or TCP/TLS not up yet).
    Down,
    /// The upgrade request is queued since the loop-clock nanosecond `since`.
    Upgrading {
        since: u64,
    },
    Open,
    /// The client queued its close at `since` and waits for the server's.
    Closing {
        since: u64,
    },
}

/// One connection's WebSocket state.
#[derive(Debug)]
pub struct Session {
    phase: Phase,
    out: OutFrames,
    /// The server's answer to the upgrade, while it is split across reads (lent).
    head: Vec<u8>,
    lender: Lender,
    reader: FrameReader,
    /// The pong and the close that did not fit in the out buffer yet.
    owed: Owed,
    /// Masks and keys: a cheap generator, seeded per loop and slot.
    rng: fastrand::Rng,
    accept: [u8; ACCEPT_LEN],
    /// Ring index (in the slot's stamps) of the oldest message in flight.
    oldest: u32,
    /// Messages started and not yet ended.
    pending: u32,
    /// Of those, the newest not yet framed (waiting for the upgrade or for room).
    unframed: u32,
    /// Messages a connection carries before the client closes it (u32::MAX: no end).
    per_connection: u32,
    /// Messages started on this connection.
    started: u32,
    /// The client's close was counted (begun while measuring): so is its answer.
    close_counted: bool,
}

impl Session {
    /// The buffers a loop of `connections` lends its sessions for `req` at `depth`
    /// messages in flight: out buffers for the upgrade request and twice the messages
    /// (a send may still read what was framed before), carries for an answer's head.
    pub fn lender(req: &RequestBytes, depth: usize, connections: usize) -> Lender {
        Lender::new(out_size(req, depth), handshake::MAX_HEAD + 1, connections)
    }

    /// A connection slot's session, borrowing its buffers from `lender`, its masks drawn
    /// from `seed`.
    pub fn new(lender: Lender, limit: u64, seed: u64) -> Session {
        Session {
            phase: Phase::Down,
            out: OutFrames::lent(lender.clone()),
            head: Vec::new(),
            lender,
            reader: FrameReader::new(limit),
            owed: Owed::new(),
            rng: fastrand::Rng::with_seed(seed),
            accept: [0; ACCEPT_LEN],
            oldest: 0,
            pending: 0,
            unframed: 0,
            per_connection: u32::MAX,
            started: 0,
            close_counted: false,
        }
    }

    /// The session closes each connection after `messages` (None: never), and a new one
    /// upgrades in its place.
    pub fn closing_after(mut self, messages: Option<u32>) -> Session {
        self.per_connection = messages.unwrap_or(u32::MAX);
        self
    }

    /// Messages in flight (framed or not).
    pub fn pending(&self) -> usize {
        self.pending as usize
    }

    /// How many more messages may start now, of `depth`: none before the upgrade, nor
    /// past the connection's share of messages.
    pub fn room(&self, depth: usize) -> usize {
        match self.phase {
            Phase::Open => depth
                .saturating_sub(self.pending as usize)
                .min(self.per_connection.saturating_sub(self.started) as usize),
            _ => 0,
        }
    }

    /// True while the upgrade waits for its answer.
    pub fn upgrading(&self) -> bool {
        matches!(self.phase, Phase::Upgrading { .. })
    }

    /// True when the upgrade has waited `timeout` at `now`, or the client's close has
    /// waited [`CLOSE_WAIT_NS`] (or `timeout`, if shorter) for the server's.
    pub fn overdue(&self, now: u64, timeout: u64) -> bool {
        match self.phase {
            Phase::Upgrading { since } => now.saturating_sub(since) >= timeout,
            Phase::Closing { since } => now.saturating_sub(since) >= timeout.min(CLOSE_WAIT_NS),
            Phase::Down | Phase::Open => false,
        }
    }

    /// The connection is up (TCP, or TLS) at `now`: the upgrade request goes.
    pub fn opened(&mut self, req: &RequestBytes, now: u64) {
        let Some(ws) = req.ws() else {
            return;
        };
        let (key, accept) = handshake::key_and_accept(self.rng.u128(..).to_ne_bytes());
        self.accept = accept;
        let upgrade = &ws.upgrade;
        self.out.raw(&upgrade.before_key);
        self.out.raw(&key);
        self.out.raw(&upgrade.after_key);
        self.phase = Phase::Upgrading { since: now };
    }

    /// Starts a message stamped `stamp`: framed now if the connection is open and has
    /// room, else when it has.
    pub fn start(&mut self, stamp: Stamp, times: &mut [Stamp], req: &RequestBytes) {
        let depth = times.len() as u32;
        times[((self.oldest + self.pending) % depth) as usize] = stamp;
        self.pending += 1;
        self.unframed += 1;
        self.started = self.started.saturating_add(1);
        if self.phase == Phase::Open {
            self.frame_messages(req);
        }
    }

    /// Frames the messages waiting, as far as the out buffer has room.
    fn frame_messages(&mut self, req: &RequestBytes) {
        let Some(ws) = req.ws() else {
            return;
        };
        let kind = match ws.binary {
            true => opcode::BINARY,
            false => opcode::TEXT,
        };
        while self.unframed > 0 && self.queue_frame(kind, &ws.payload) {
            self.unframed -= 1;
        }
    }

    /// Queues a frame of `kind` carrying `payload`, masked anew; false without room.
    fn queue_frame(&mut self, kind: u8, payload: &[u8]) -> bool {
        queue(&mut self.out, &mut self.rng, kind, payload)
    }

    /// Queues what is owed (the latest pong, then the close), as far as there is room.
    fn pay_owed(&mut self) {
        let (out, rng) = (&mut self.out, &mut self.rng);
        self.owed
            .pay(|kind, payload| queue(out, rng, kind, payload));
    }

    /// The octets to write.
    pub fn unsent(&self) -> &[u8] {
        self.out.pending()
    }

    /// `n` octets of [`Session::unsent`] were written: messages that waited for room go.
    pub fn wrote(&mut self, n: usize, req: &RequestBytes) {
        self.out.wrote(n);
        self.pay_owed();
        if self.phase == Phase::Open {
            self.frame_messages(req);
        }
    }

    /// Reads what arrived at `now`: the upgrade's answer, then frames.
    pub fn receive(
        &mut self,
        mut data: &[u8],
        now: u64,
        times: &mut [Stamp],
        req: &RequestBytes,
        ledger: &mut Ledger,
    ) -> Result<Verdict, Outcome> {
        ledger.read(data.len(), now);
        if let Phase::Upgrading { since } = self.phase {
            match self.answer(data) {
                Ok(None) => return Ok(Verdict::Keep),
                Ok(Some(used)) => data = &data[used..],
                Err((refusal, status)) => return Err(refused(refusal, status, now, ledger)),
            }
            self.upgraded(since, now, times, req, ledger);
        }
        let Some(ws) = req.ws() else {
            return Ok(Verdict::Keep);
        };
        let expected = Expected {
            payload: &ws.payload,
            binary: ws.binary,
        };
        loop {
            match self.reader.next(&mut data, &expected) {
                Ok(None) => return Ok(Verdict::Keep),
                Ok(Some(event)) => {
                    if let Some(end) = self.on(event, now, times, ledger) {
                        return end;
                    }
                }
                Err(violation) => return Err(self.violated(violation, now, ledger)),
            }
        }
    }

    /// Reads the answer to the upgrade from `data` (after what was carried): the octets of
    /// `data` its head took, None while it is incomplete, or why it is refused.
    fn answer(&mut self, data: &[u8]) -> Result<Option<usize>, (Refusal, u16)> {
        if self.head.is_empty() {
            if let Some(len) = handshake::check_answer(data, &self.accept)? {
                return Ok(Some(len));
            }
            self.head = self.lender.take_carry();
        }
        let had = self.head.len();
        let n = data.len().min(handshake::MAX_HEAD + 1 - had);
        self.head.extend_from_slice(&data[..n]);
        let checked = handshake::check_answer(&self.head, &self.accept);
        if !matches!(checked, Ok(None)) {
            self.lender.give_carry(std::mem::take(&mut self.head));
        }
        Ok(checked?.map(|len| len - had))
    }

    /// The 101 came at `now`: its time is recorded, and the messages that waited go,
    /// stamped as sent now (their intended time stays).
    fn upgraded(
        &mut self,
        since: u64,
        now: u64,
        times: &mut [Stamp],
        req: &RequestBytes,
        ledger: &mut Ledger,
    ) {
        self.phase = Phase::Open;
        if let Some(books) = ledger.ws(now) {
            books.record_upgrade(now.saturating_sub(since));
        }
        let depth = times.len() as u32;
        for i in self.pending - self.unframed..self.pending {
            times[((self.oldest + i) % depth) as usize].sent = now;
        }
        self.frame_messages(req);
    }

    /// What `event` does: None to read on, or how the connection ends.
    fn on(
        &mut self,
        event: Event,
        now: u64,
        times: &mut [Stamp],
        ledger: &mut Ledger,
    ) -> Option<Result<Verdict, Outcome>> {
        match event {
            Event::Message { .. } if self.closing() => {}
            Event::Message { .. } if self.pending == self.unframed => {
                if let Some(books) = ledger.ws(now) {
                    books.unsolicited += 1;
                }
            }
            Event::Message { right } => {
                let started = self.pop(times);
                match right {
                    true => ledger.echoed(started, now),
                    false => ledger.error(started, now, Outcome::Wrong),
                }
                if self.pending == 0 && self.started >= self.per_connection {
                    // The connection's last message is back: it closes, and a new one
                    // takes its place once the server has answered.
                    self.close(now, ledger);
                }
            }
            Event::Ping => {
                // Once the client's close is queued, nothing may follow it.
                if !self.closing() {
                    self.owed.pong(self.reader.control());
                    self.pay_owed();
                }
                if let Some(books) = ledger.ws(now) {
                    books.pings += 1;
                }
            }
            Event::Pong => {}
            Event::Close(code) => return Some(self.closed_by_server(code, now, ledger)),
        }
        None
    }

    /// The server sent a close with `code` at `now`: the answer to the client's, or a
    /// close mid-load, answered with the same code, that fails what is pending.
    fn closed_by_server(
        &mut self,
        code: Option<u16>,
        now: u64,
        ledger: &mut Ledger,
    ) -> Result<Verdict, Outcome> {
        if self.closing() {
            if let Some(books) = ledger.ws(now).filter(|_| self.close_counted) {
                books.goodbyes_answered += 1;
            }
            return Ok(Verdict::Close);
        }
        if let Some(books) = ledger.ws(now) {
            books.closes.add(code);
        }
        ledger.closed_by_server(now);
        self.goodbye_with(code.unwrap_or(NORMAL_CLOSURE));
        match self.pending {
            0 => Ok(Verdict::Close),
            _ => Err(Outcome::Ws),
        }
    }

    /// The server broke the protocol at `now`: counted, a close with the violation's code
    /// queued alone, and the connection failed.
    fn violated(&mut self, violation: Violation, now: u64, ledger: &mut Ledger) -> Outcome {
        if let Some(books) = ledger.ws(now) {
            books.violated(violation);
        }
        self.goodbye_with(violation.close_code());
        Outcome::Ws
    }

    /// Drops what is queued and queues a close with `code` alone, to go as the socket
    /// closes ([`Session::goodbye`]).
    fn goodbye_with(&mut self, code: u16) {
        self.owed.clear();
        self.out.clear();
        self.queue_frame(opcode::CLOSE, &code.to_be_bytes());
    }

    /// A close queued alone, to send as the socket closes.
    pub fn goodbye(&self) -> Option<&[u8]> {
        let pending = self.out.pending();
        let close = pending.len() == frame::masked_len(2) && pending[0] == 0x80 | opcode::CLOSE;
        close.then_some(pending)
    }

    /// The client closes at `now` (the load is over, the connection's messages are done,
    /// or its device leaves): an open connection sends its close (1000) and waits for the
    /// server's; true when it did.
    pub fn close(&mut self, now: u64, ledger: &mut Ledger) -> bool {
        if self.phase != Phase::Open {
            return false;
        }
        self.phase = Phase::Closing { since: now };
        self.owed.close(NORMAL_CLOSURE);
        self.pay_owed();
        let books = ledger.ws(now);
        self.close_counted = books.is_some();
        if let Some(books) = books {
            books.goodbyes += 1;
        }
        true
    }

    /// True while the client's close waits for the server's.
    pub fn closing(&self) -> bool {
        matches!(self.phase, Phase::Closing { .. })
    }

    /// Ends every message in flight with `outcome`.
    pub fn fail(&mut self, outcome: Outcome, now: u64, times: &mut [Stamp], ledger: &mut Ledger) {
        while self.pending > 0 {
            let started = self.pop(times);
            ledger.error(started, now, outcome);
        }
        self.unframed = 0;
    }

    /// True (and every message failed as a timeout) when the oldest message has waited
    /// past the timeout at `now`.
    pub fn expire(&mut self, now: u64, times: &mut [Stamp], ledger: &mut Ledger) -> bool {
        let oldest = times[self.oldest as usize];
        let expired = self.pending > 0 && now.saturating_sub(oldest.sent) >= ledger.timeout();
        if expired {
            self.fail(Outcome::Timeout, now, times, ledger);
        }
        expired
    }

    /// The load stopped: every message is in flight.
    pub fn abandon(&mut self, times: &mut [Stamp], ledger: &mut Ledger) {
        while self.pending > 0 {
            let started = self.pop(times);
            ledger.in_flight(started);
        }
        self.unframed = 0;
    }

    /// The connection closed: its state goes.
    pub fn closed(&mut self) {
        self.phase = Phase::Down;
        self.owed.clear();
        self.out.clear();
        self.reader.reset();
        if self.head.capacity() > 0 {
            self.lender.give_carry(std::mem::take(&mut self.head));
        }
        (self.oldest, self.pending, self.unframed) = (0, 0, 0);
        (self.started, self.close_counted) = (0, false);
    }

    /// The oldest message in flight ends: its stamp.
    fn pop(&mut self, times: &[Stamp]) -> Stamp {
        let stamp = times[self.oldest as usize];
        self.oldest = (self.oldest + 1) % times.len() as u32;
        self.pending -= 1;
        self.unframed = self.unframed.min(self.pending);
        stamp
    }
}

/// The upgrade was refused at `now` for `refusal` (with the answer's `status`).
fn refused(refusal: Refusal, status: u16, now: u64, ledger: &mut Ledger) -> Outcome {
    ledger.status_seen(status, now);
    if let Some(books) = ledger.ws(now) {
        books.refused(refusal);
    }
    Outcome::Ws
}

/// An out buffer's size: the upgrade request, twice the messages in flight (at most
/// [`MESSAGES_ROOM`], at least one), and a pong and a close.
fn out_size(req: &RequestBytes, depth: usize) -> usize {
    let Some(ws) = req.ws() else {
        return CONTROL_ROOM;
    };
    let one = frame::masked_len(ws.payload.len());
    let messages = (depth * one).min(MESSAGES_ROOM).max(one);
    ws.upgrade.len() + 2 * messages + CONTROL_ROOM
}

/// Queues a frame of `kind` carrying `payload` in `out`, masked with a key from `rng`;
/// false without room.
fn queue(out: &mut OutFrames, rng: &mut fastrand::Rng, kind: u8, payload: &[u8]) -> bool {
    let len = frame::masked_len(payload.len());
    if out.room() < len {
        return false;
    }
    let key = rng.u32(..).to_ne_bytes();
    let written = frame::write_masked(out.spare(), kind, payload, key);
    out.commit(written);
    true
}
