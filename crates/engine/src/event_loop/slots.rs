//! A loop's connections with their start-time rings, the request bytes, the dialer and
//! the books; and which connection takes the next request (closed, open or device load).

use super::{LoopSpec, READ_BUFFER};
use crate::conn::{Conn, State};
use crate::devices::{Fleet, Next};
use crate::h2::Session;
use crate::ledger::{Ledger, Stamp};
use crate::pool::Carries;
use crate::request::RequestBytes;
use crate::response::MAX_HEAD;
use crate::schedule::Pacer;
use crate::socket::Dialer;
use crate::tls::{Failure, TlsLayer};
use crate::ws::Session as WsSession;

/// The loop's connection slots, each made once with what its protocol keeps (the
/// buffers they borrow lent by the loop).
fn connections(spec: &LoopSpec, req: &RequestBytes, depth: usize) -> Vec<Conn> {
    let c = spec.config;
    let n = spec.connections;
    if let Some(ws) = c.websocket.as_ref() {
        let lender = WsSession::lender(req, depth, n);
        // Any frame past the message and a good margin cannot be an echo.
        let limit = (ws.message_size as u64).max(1 << 16) * 2;
        let seed = crate::spec::clock_seed() ^ (spec.index as u64) << 48;
        let session = |slot: usize| {
            WsSession::new(lender.clone(), limit, seed ^ slot as u64)
                .closing_after(ws.messages_per_connection)
        };
        return (0..n).map(|slot| Conn::websocket(session(slot))).collect();
    }
    let lender = Session::lender(req, n);
    // One carry made now: a loop that meets a split head then allocates nothing.
    let carries = Carries::new(MAX_HEAD, n, 1);
    let conn = |_| match (c.http2, req.vary()) {
        (true, _) => Conn::http2(Session::new(depth, req, lender.clone())),
        (false, Some(vary)) => Conn::varying(depth, vary).lend_carries(&carries),
        (false, None) => Conn::default().lend_carries(&carries),
    };
    (0..n).map(conn).collect()
}

/// The state both loop kinds share: connections, their start-time rings, the request
/// bytes, the dialer and the books.
pub struct Slots {
    pub conns: Vec<Conn>,
    /// `depth` start stamps per connection, connection `i` at `i * depth`.
    pub(super) times: Vec<Stamp>,
    pub(super) depth: usize,
    /// Open loop: the schedule, and the connections with room for a request (without
    /// keep-alive: the closed slots free to open a connection for one).
    pub(super) pacer: Option<Pacer>,
    ready: Vec<usize>,
    /// Device load: the devices, and those whose connection is to close.
    pub(super) fleet: Option<Fleet>,
    pub(super) leaving: Vec<usize>,
    pub req: RequestBytes,
    pub dialer: Dialer,
    pub ledger: Ledger,
    pub keepalive: bool,
    /// An https load: the TLS between the sockets and HTTP (event_loop/wire.rs).
    pub tls: Option<TlsLayer>,
    /// Open loop: a due request found every connection busy and waits for one; requests
    /// that start late meanwhile waited on the server, not on the generator.
    pub(super) backlogged: bool,
    /// The load is over and its connections close: none opens again.
    pub(super) stopping: bool,
}

impl Slots {
    /// Slots for the loop `spec` describes; no socket is opened yet.
    pub fn new(spec: &LoopSpec) -> Slots {
        let c = spec.config;
        let depth = c.depth();
        let timeout = c.timeout.as_nanos() as u64;
        let req = RequestBytes::new(c, spec.index);
        let mut ledger = Ledger::new(spec.measure_start, spec.end, spec.budget, timeout);
        if spec.pacer.is_none() && spec.devices.is_none() {
            ledger = ledger.closed();
        }
        if c.tls.is_some() {
            ledger = ledger.with_tls();
        }
        if c.http2 {
            ledger = ledger.with_h2();
        }
        if c.websocket.is_some() {
            ledger = ledger.with_ws();
        }
        let tls = (c.tls.as_ref()).map(|client| {
            let most = req.most_unsent(depth);
            TlsLayer::new(client, spec.connections, most, READ_BUFFER)
        });
        Slots {
            conns: connections(spec, &req, depth),
            times: vec![Stamp::default(); spec.connections * depth],
            depth,
            pacer: spec.pacer.clone(),
            ready: Vec::with_capacity(spec.connections),
            fleet: (c.pace.devices())
                .zip(spec.devices)
                .map(|(script, (offset, stride))| {
                    Fleet::new(script, spec.connections, offset, stride)
                }),
            leaving: Vec::new(),
            req,
            dialer: Dialer::new(c.target.addr, true, c.keepalive, spec.index),
            ledger,
            keepalive: c.keepalive,
            tls,
            backlogged: false,
            stopping: false,
        }
    }

    /// Connection `slot` with its start-time ring, the request bytes and the books.
    #[inline]
    pub fn parts(
        &mut self,
        slot: usize,
    ) -> (&mut Conn, &mut [Stamp], &mut RequestBytes, &mut Ledger) {
        let times = &mut self.times[slot * self.depth..(slot + 1) * self.depth];
        (
            &mut self.conns[slot],
            times,
            &mut self.req,
            &mut self.ledger,
        )
    }

    /// Open loop without keep-alive: each request opens its own connection when it is
    /// due, and its slot waits closed in the free pool between requests.
    pub fn per_request(&self) -> bool {
        self.pacer.is_some() && !self.keepalive
    }

    /// Open loop without keep-alive: `slot` has no connection and waits for a due request.
    pub(super) fn free(&mut self, slot: usize) {
        let conn = &mut self.conns[slot];
        conn.state = State::Closed { retry_at: u64::MAX };
        if !conn.ready {
            conn.ready = true;
            self.ready.push(slot);
        }
    }

    /// True when `slot` may take the next due request: an open connection with room, or
    /// (without keep-alive) a free slot.
    fn can_take(&self, slot: usize) -> bool {
        let conn = &self.conns[slot];
        if self.per_request() {
            return matches!(conn.state, State::Closed { .. }) && conn.pending() == 0;
        }
        conn.has_room(self.depth, &self.req)
    }

    /// The connect of `slot` finished at `now`: record it and start its requests, or over
    /// TLS its handshake (the requests start when that is done: `handshake_done`).
    pub fn connected(&mut self, slot: usize, now: u64) -> Result<(), Failure> {
        if let Some(tls) = self.tls.as_mut() {
            self.conns[slot].handshaking(now, &mut self.ledger);
            return tls.start(slot, now);
        }
        let (conn, _, req, ledger) = self.parts(slot);
        conn.connected(now, req, ledger);
        if self.keepalive {
            self.refill(slot, now);
        }
        Ok(())
    }

    /// `slot` has room for more requests: a closed loop starts them now; an open loop
    /// offers the connection to the schedule.
    #[inline]
    pub fn refill(&mut self, slot: usize, now: u64) {
        if self.fleet.is_some() {
            return self.refill_device(slot, now);
        }
        if self.per_request() {
            // The slot is offered again once its connection closes (see `open`).
            return;
        }
        if self.pacer.is_some() {
            let conn = &mut self.conns[slot];
            if !conn.ready && conn.has_room(self.depth, &self.req) {
                conn.ready = true;
                self.ready.push(slot);
            }
            return;
        }
        let (conn, times, req, ledger) = self.parts(slot);
        conn.top_up(now, times, req, ledger);
    }

    /// Device load: a device whose connection is idle sends, waits, or leaves.
    fn refill_device(&mut self, slot: usize, now: u64) {
        let Some(fleet) = self.fleet.as_mut() else {
            return;
        };
        let conn = &self.conns[slot];
        if conn.state != State::Open || conn.pending() > 0 {
            return;
        }
        match fleet.next(slot, now) {
            Next::Wait => {}
            Next::Leave => self.leaving.push(slot),
            Next::Send(due) => {
                if self.ledger.take(1, now) == 1 {
                    let stamp = Stamp {
                        intended: due,
                        sent: now,
                    };
                    let (conn, times, req, _) = self.parts(slot);
                    conn.start_stamped(stamp, times, req);
                }
            }
        }
    }

    /// Open loop: nanosecond at which the next request is due (None: closed loop, or the
    /// schedule is over).
    pub fn next_due(&mut self) -> Option<u64> {
        self.pacer.as_mut().and_then(Pacer::due)
    }

    /// Open loop: starts the next due request on a ready connection (without keep-alive:
    /// a free slot, whose connect the caller then begins), if there is one and the load
    /// may still start requests; returns the slot to write or connect.
    pub fn start_due(&mut self, due: u64, now: u64) -> Option<usize> {
        let slot = loop {
            let slot = self.ready.pop()?;
            self.conns[slot].ready = false;
            if self.can_take(slot) {
                break slot;
            }
        };
        if self.ledger.take_due(1, due, now) == 0 {
            if self.per_request() {
                self.free(slot);
            }
            self.refill(slot, now);
            return None;
        }
        let stamp = Stamp {
            intended: due,
            sent: now,
        };
        let backlogged = self.backlogged;
        let (conn, times, req, ledger) = self.parts(slot);
        conn.start_stamped(stamp, times, req);
        ledger.started_due(due, now, backlogged);
        if let Some(p) = self.pacer.as_mut() {
            p.advance();
        }
        self.refill(slot, now);
        Some(slot)
    }

    /// Open loop: the request due at `due` waited for a connection past its timeout and
    /// is dropped at `now`; the schedule moves on to the next. False when the load allows
    /// no more requests (nothing was dropped).
    pub fn drop_due(&mut self, due: u64, now: u64) -> bool {
        if !self.ledger.dropped(due, now) {
            return false;
        }
        if let Some(p) = self.pacer.as_mut() {
            p.advance();
        }
        true
    }

    /// Open loop, at the stop (`now`): counts the requests that came due and were neither
    /// sent nor dropped, so that sent + dropped + still due is what the schedule asked.
    /// They are at most a timeout's worth (older ones were dropped), or what a late loop
    /// had not reached yet.
    pub fn count_still_due(&mut self, now: u64) {
        let Some(pacer) = self.pacer.as_mut() else {
            return;
        };
        while let Some(due) = pacer.due().filter(|&due| due <= now) {
            if !self.ledger.still_due(due) {
                return;
            }
            pacer.advance();
        }
    }

    /// True when no request is pending on any connection.
    pub fn idle(&self) -> bool {
        self.conns.iter().all(|c| c.pending() == 0)
    }

    /// True when the load is over: interrupted, past its end, or out of requests and idle.
    pub fn finished(&self, spec: &LoopSpec, now: u64) -> bool {
        if spec.interrupted() || spec.end.is_some_and(|end| now >= end) {
            return true;
        }
        self.ledger.exhausted(now) && self.idle()
    }

    /// True when `slot` is closed and its reconnect time has come.
    pub fn due_for_reconnect(&self, slot: usize, now: u64) -> bool {
        matches!(self.conns[slot].state, State::Closed { retry_at } if retry_at <= now)
    }
}
