//! What every event loop is given, and the logic the epoll and io_uring loops share.

use crate::config::LoadConfig;
use crate::conn::{Conn, State};
use crate::cpu::CpuTime;
use crate::devices::{Fleet, Next};
use crate::ledger::{Clock, Ledger, Stamp};
use crate::live::{Live, Published};
use crate::outcome::Outcome;
use crate::request::RequestBytes;
use crate::schedule::Pacer;
use crate::socket::{self, Dialer};
use crate::stats::LoopStats;
use std::io;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, Ordering};

/// How long a slot waits before reconnecting after a failed connect, so that a refusing
/// server is not hammered in a busy loop.
pub const CONNECT_BACKOFF_NS: u64 = 10_000_000;

/// Read buffer size per loop (shared by all its connections).
pub const READ_BUFFER: usize = 64 * 1024;

/// The part of a load one loop runs.
#[derive(Debug, Clone)]
pub struct LoopSpec<'a> {
    pub config: &'a LoadConfig,
    /// This loop's number, 0-based.
    pub index: usize,
    /// Connections this loop holds.
    pub connections: usize,
    pub clock: Clock,
    /// Loop-clock nanosecond at which measuring starts (the warm-up ends).
    pub measure_start: u64,
    /// Loop-clock nanosecond at which no request may start (duration loads).
    pub end: Option<u64>,
    /// Measured requests this loop starts (request-count loads).
    pub budget: Option<u64>,
    /// Set from outside (Ctrl-C) to stop the load early.
    pub interrupt: &'a AtomicBool,
    /// Where the loop publishes its response count at each tick.
    pub live: &'a Live,
    /// Open loop: this loop's share of the rate schedule.
    pub pacer: Option<Pacer>,
    /// Device load: this loop's devices are `offset + k * stride`.
    pub devices: Option<(u64, u64)>,
}

impl LoopSpec<'_> {
    /// How often timeouts, reconnects and the stop conditions are checked.
    pub fn tick_ns(&self) -> u64 {
        let timeout = self.config.timeout.as_nanos() as u64;
        (timeout / 10).clamp(1_000_000, 50_000_000)
    }

    /// True when the user asked the load to stop.
    pub fn interrupted(&self) -> bool {
        self.interrupt.load(Ordering::Relaxed)
    }
}

/// The state both loop kinds share: connections, their start-time rings, the request
/// bytes, the dialer and the books.
pub struct Slots {
    pub conns: Vec<Conn>,
    /// `depth` start stamps per connection, connection `i` at `i * depth`.
    times: Vec<Stamp>,
    depth: usize,
    /// Open loop: the schedule, and the connections with room for a request (without
    /// keep-alive: the closed slots free to open a connection for one).
    pacer: Option<Pacer>,
    ready: Vec<usize>,
    /// Device load: the devices, and those whose connection is to close.
    fleet: Option<Fleet>,
    leaving: Vec<usize>,
    pub req: RequestBytes,
    pub dialer: Dialer,
    pub ledger: Ledger,
    pub keepalive: bool,
    /// Open loop: a due request found every connection busy and waits for one; requests
    /// that start late meanwhile waited on the server, not on the generator.
    backlogged: bool,
}

impl Slots {
    /// Slots for the loop `spec` describes; no socket is opened yet.
    pub fn new(spec: &LoopSpec) -> Slots {
        let c = spec.config;
        let depth = c.pipeline.max(1);
        let timeout = c.timeout.as_nanos() as u64;
        Slots {
            conns: (0..spec.connections).map(|_| Conn::default()).collect(),
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
            req: RequestBytes::new(c),
            dialer: Dialer::new(c.target.addr, true, c.keepalive, spec.index),
            ledger: Ledger::new(spec.measure_start, spec.end, spec.budget, timeout),
            keepalive: c.keepalive,
            backlogged: false,
        }
    }

    /// Connection `slot` with its start-time ring, the request bytes and the books.
    #[inline]
    pub fn parts(&mut self, slot: usize) -> (&mut Conn, &mut [Stamp], &RequestBytes, &mut Ledger) {
        let times = &mut self.times[slot * self.depth..(slot + 1) * self.depth];
        (&mut self.conns[slot], times, &self.req, &mut self.ledger)
    }

    /// Open loop without keep-alive: each request opens its own connection when it is
    /// due, and its slot waits closed in the free pool between requests.
    pub fn per_request(&self) -> bool {
        self.pacer.is_some() && !self.keepalive
    }

    /// Open loop without keep-alive: `slot` has no connection and waits for a due request.
    fn free(&mut self, slot: usize) {
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
        conn.has_room(self.depth)
    }

    /// The connect of `slot` finished at `now`: record it and start its requests.
    pub fn connected(&mut self, slot: usize, now: u64) {
        let (conn, _, _, ledger) = self.parts(slot);
        conn.connected(now, ledger);
        if self.keepalive {
            self.refill(slot, now);
        }
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
            if !conn.ready && conn.has_room(self.depth) {
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
        if self.ledger.take(1, now) == 0 {
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

    /// Slots whose reconnect time has come.
    pub fn due_for_reconnect(&self, now: u64) -> impl Iterator<Item = usize> + '_ {
        self.conns
            .iter()
            .enumerate()
            .filter_map(move |(i, c)| match c.state {
                State::Closed { retry_at } if retry_at <= now => Some(i),
                _ => None,
            })
    }
}

/// What differs between the loop kinds: how sockets are watched, connected and released.
/// Everything else (opening, failing, timeouts, the stop) is written once, below.
pub trait Driver {
    /// The loop's connections and books.
    fn slots(&mut self) -> &mut Slots;
    /// Waits up to `ns` for I/O and handles what happened.
    fn poll(&mut self, ns: u64, clock: &Clock);
    /// Starts connecting `fd`, already recorded in `slot`; Ok(true) if connected at once.
    fn connect(&mut self, slot: usize, fd: RawFd) -> io::Result<bool>;
    /// The connect of `slot` finished: start its requests.
    fn connected(&mut self, slot: usize, now: u64);
    /// Closes the slot's socket, ending any kernel operation still using it.
    fn release(&mut self, slot: usize, fd: RawFd);
    /// Writes (or queues the write of) the slot's unsent requests.
    fn kick(&mut self, slot: usize, now: u64);
}

/// Runs a loop until the load is over and returns what it measured.
pub fn drive<D: Driver>(d: &mut D, spec: &LoopSpec) -> LoopStats {
    let clock = spec.clock;
    let tick = spec.tick_ns();
    let mut now = clock.now();
    for slot in 0..d.slots().conns.len() {
        open(d, slot, now);
    }
    let mut next_tick = now + tick;
    let mut cpu_start = None;
    let mut published = Published::default();
    let mut starved = false;
    loop {
        let mut wake = spec.end.map_or(next_tick, |end| end.min(next_tick));
        // A due request with no free connection waits for I/O to free one: polling
        // again at once would spin the loop at 100% without sending anything.
        if let Some(due) = d.slots().next_due().filter(|_| !starved) {
            wake = wake.min(due);
        }
        if let Some(t) = d.slots().fleet.as_ref().and_then(Fleet::next_timer) {
            wake = wake.min(t);
        }
        d.poll(wake.saturating_sub(now), &clock);
        now = clock.now();
        starved = dispatch(d, now);
        tend_devices(d, now);
        if cpu_start.is_none() && d.slots().ledger.measuring(now) {
            cpu_start = Some(CpuTime::thread());
        }
        if now >= next_tick {
            expire_and_reconnect(d, now);
            // A slot back from its connect backoff may take the request that waits.
            starved = false;
            next_tick = now + tick;
            publish(d, spec.live, &mut published);
        }
        if d.slots().finished(spec, now) {
            break;
        }
    }
    publish(d, spec.live, &mut published);
    finish(d, cpu_start, now)
}

/// Adds the counts seen since the last call to the shared live counts.
fn publish<D: Driver>(d: &mut D, live: &Live, published: &mut Published) {
    let ledger = &d.slots().ledger;
    let now = Published::of(ledger.responses_seen(), ledger.counts());
    live.add(published, &now);
    *published = now;
}

/// Open loop: starts every request that is due on connections with room; the rest wait
/// (and their wait counts in the corrected latency). True when a due request is waiting
/// for a connection.
fn dispatch<D: Driver>(d: &mut D, now: u64) -> bool {
    while let Some(due) = d.slots().next_due().filter(|&due| due <= now) {
        let Some(slot) = d.slots().start_due(due, now) else {
            d.slots().backlogged = true;
            return true;
        };
        if d.slots().per_request() {
            // The request starts with the connect, so its latency includes the handshake.
            dial(d, slot, now);
        } else {
            d.kick(slot, now);
        }
    }
    // Every due request has started: the backlog, if there was one, is gone.
    d.slots().backlogged = false;
    false
}

/// Device load: lets devices leave, fires due timers, and brings in new devices.
fn tend_devices<D: Driver>(d: &mut D, now: u64) {
    if d.slots().fleet.is_none() {
        return;
    }
    for slot in std::mem::take(&mut d.slots().leaving) {
        leave(d, slot);
    }
    while let Some(fired) = d.slots().fleet.as_mut().and_then(|f| f.fire(now)) {
        match fired {
            Ok(slot) => {
                d.slots().refill(slot, now);
                d.kick(slot, now);
            }
            Err(slot) => leave(d, slot),
        }
    }
    while let Some(slot) = d.slots().fleet.as_mut().and_then(|f| f.arrive(now)) {
        open(d, slot, now);
    }
    let s = d.slots();
    let active = s.fleet.as_ref().map_or(0, Fleet::active);
    s.ledger.devices(active, now);
}

/// The device on `slot` leaves: its connection closes and the slot is free.
fn leave<D: Driver>(d: &mut D, slot: usize) {
    close(d, slot, u64::MAX);
    if let Some(f) = d.slots().fleet.as_mut() {
        f.leave(slot);
    }
}

/// Opens a socket for `slot` if the load may start another request.
pub fn open<D: Driver>(d: &mut D, slot: usize, now: u64) {
    let s = d.slots();
    if s.fleet.as_ref().is_some_and(|f| !f.is_active(slot)) {
        // A device slot with no device: nothing to reconnect.
        s.conns[slot].state = State::Closed { retry_at: u64::MAX };
        return;
    }
    if s.per_request() {
        // The slot waits for the schedule's next due request to open a connection.
        return s.free(slot);
    }
    let open_loop = s.pacer.is_some() || s.fleet.is_some();
    let (conn, times, req, ledger) = s.parts(slot);
    if open_loop {
        // The schedule, not the connection, decides when requests start.
        if ledger.exhausted(now) {
            conn.state = State::Closed { retry_at: u64::MAX };
            return;
        }
    } else if ledger.take(1, now) == 0 {
        conn.state = State::Closed { retry_at: u64::MAX };
        return;
    } else {
        // The first request starts with the connect, so its latency includes it (as ab's does).
        conn.start(1, now, times, req);
    }
    dial(d, slot, now);
}

/// Opens `slot`'s socket and begins its connect; a failure fails what is pending on it.
fn dial<D: Driver>(d: &mut D, slot: usize, now: u64) {
    let s = d.slots();
    let fd = match s.dialer.socket() {
        Ok(fd) => fd,
        Err(e) => return connect_failed(d, slot, now, Some(e)),
    };
    let head = s.req.is_head();
    s.conns[slot].connecting(fd, now, head);
    match d.connect(slot, fd) {
        Ok(true) => d.connected(slot, now),
        Ok(false) => {}
        Err(e) => connect_failed(d, slot, now, Some(e)),
    }
}

/// The connect of `slot` failed with `err` (or the socket's pending error): its request
/// is a connect error, and the slot retries after a backoff.
pub fn connect_failed<D: Driver>(d: &mut D, slot: usize, now: u64, err: Option<io::Error>) {
    let s = d.slots();
    let fd = s.conns[slot].fd;
    let err = err.or_else(|| (fd >= 0).then(|| socket::take_error(fd).err()).flatten());
    if err.as_ref().is_some_and(socket::is_port_exhaustion) {
        s.ledger.port_exhausted(now);
    }
    let (conn, times, _, ledger) = s.parts(slot);
    conn.fail(Outcome::Connect, now, times, ledger);
    close(d, slot, now + CONNECT_BACKOFF_NS);
}

/// Ends what is pending on `slot` with `outcome`, closes it, and opens a new connection.
pub fn close_and_reopen<D: Driver>(d: &mut D, slot: usize, now: u64, outcome: Outcome) {
    let (conn, times, _, ledger) = d.slots().parts(slot);
    conn.fail(outcome, now, times, ledger);
    close(d, slot, now);
    open(d, slot, now);
}

/// Closes `slot`'s socket; the slot may reconnect at `retry_at`.
pub fn close<D: Driver>(d: &mut D, slot: usize, retry_at: u64) {
    let fd = d.slots().conns[slot].fd;
    if fd >= 0 {
        d.release(slot, fd);
    }
    d.slots().conns[slot].closed(retry_at);
}

/// Fails requests past their timeout and reconnects slots whose backoff is over.
fn expire_and_reconnect<D: Driver>(d: &mut D, now: u64) {
    for slot in 0..d.slots().conns.len() {
        let (conn, times, _, ledger) = d.slots().parts(slot);
        if conn.fd >= 0 && conn.expire(now, times, ledger) {
            close_and_reopen(d, slot, now, Outcome::Timeout);
        }
    }
    let due: Vec<usize> = d.slots().due_for_reconnect(now).collect();
    for slot in due {
        open(d, slot, now);
    }
}

/// Counts what is still pending as in flight, closes every socket, and hands back the stats.
fn finish<D: Driver>(d: &mut D, cpu_start: Option<CpuTime>, now: u64) -> LoopStats {
    let cpu = cpu_start
        .map(|s| CpuTime::thread().since(&s))
        .unwrap_or_default();
    for slot in 0..d.slots().conns.len() {
        let (conn, times, _, ledger) = d.slots().parts(slot);
        conn.abandon(times, ledger);
        close(d, slot, u64::MAX);
    }
    let mut stats = d.slots().ledger.take_stats();
    stats.user_seconds = cpu.user.as_secs_f64();
    stats.sys_seconds = cpu.sys.as_secs_f64();
    stats.ended_ns = now;
    stats
}
