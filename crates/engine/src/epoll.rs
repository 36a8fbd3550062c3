//! The epoll event loop: edge-triggered, one read per wakeup when it drains the socket,
//! writes straight after a response (no EPOLLOUT round trip unless a write is partial).

use crate::conn::{State, Verdict};
use crate::cpu::CpuTime;
use crate::event_loop::{LoopSpec, Slots, CONNECT_BACKOFF_NS, READ_BUFFER};
use crate::outcome::Outcome;
use crate::socket::{self, check};
use crate::stats::LoopStats;
use std::io;
use std::os::fd::RawFd;

const EVENTS: usize = 1024;

/// Runs one loop of the load on epoll until it finishes; returns what it measured.
pub fn run(spec: &LoopSpec) -> io::Result<LoopStats> {
    // SAFETY: plain epoll_create1; the fd is closed by `Epoll`'s drop.
    let epfd = check(unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) })?;
    let mut lp = EpollLoop {
        epfd,
        slots: Slots::new(spec),
        buf: vec![0; READ_BUFFER],
    };
    let stats = lp.drive(spec);
    socket::close(epfd);
    Ok(stats)
}

struct EpollLoop {
    epfd: RawFd,
    slots: Slots,
    buf: Vec<u8>,
}

#[inline]
fn token(slot: usize, gen: u32) -> u64 {
    ((slot as u64) << 32) | gen as u64
}

impl EpollLoop {
    fn drive(&mut self, spec: &LoopSpec) -> LoopStats {
        let clock = spec.clock;
        let tick = spec.tick_ns();
        let mut events = vec![libc::epoll_event { events: 0, u64: 0 }; EVENTS];
        let mut now = clock.now();
        for slot in 0..self.slots.conns.len() {
            self.open(slot, now);
        }
        let mut next_tick = now + tick;
        let mut cpu_start = None;
        loop {
            let wake = spec.end.map_or(next_tick, |end| end.min(next_tick));
            let wait_ms = wake.saturating_sub(now).div_ceil(1_000_000) as i32;
            // SAFETY: `events` is valid for EVENTS entries.
            let n =
                unsafe { libc::epoll_wait(self.epfd, events.as_mut_ptr(), EVENTS as i32, wait_ms) };
            for ev in events.iter().take(n.max(0) as usize) {
                let (bits, data) = (ev.events, ev.u64);
                self.event((data >> 32) as usize, data as u32, bits, &clock);
            }
            now = clock.now();
            if cpu_start.is_none() && self.slots.ledger.measuring(now) {
                cpu_start = Some(CpuTime::thread());
            }
            if now >= next_tick {
                self.tick(now);
                next_tick = now + tick;
            }
            if self.slots.finished(spec, now) {
                break;
            }
        }
        self.finish(cpu_start, now)
    }

    fn event(&mut self, slot: usize, gen: u32, bits: u32, clock: &crate::ledger::Clock) {
        let Some(conn) = self.slots.conns.get(slot) else {
            return;
        };
        if conn.gen != gen || conn.fd < 0 {
            return;
        }
        let failed = bits & (libc::EPOLLERR | libc::EPOLLHUP) as u32 != 0;
        let now = clock.now();
        if conn.state == State::Connecting {
            if failed {
                return self.connect_failed(slot, now, None);
            }
            if bits & libc::EPOLLOUT as u32 == 0 {
                return;
            }
            self.on_connected(slot, now);
            if self.slots.conns[slot].gen != gen {
                return;
            }
        }
        let readable = (libc::EPOLLIN | libc::EPOLLRDHUP | libc::EPOLLERR | libc::EPOLLHUP) as u32;
        if bits & readable != 0 {
            let hup = bits & (libc::EPOLLRDHUP | libc::EPOLLHUP | libc::EPOLLERR) as u32 != 0;
            if !self.readable(slot, hup, clock) {
                return;
            }
        }
        self.flush(slot, clock.now());
    }

    /// Reads what arrived; false when the connection was closed (and reopened).
    fn readable(&mut self, slot: usize, hup: bool, clock: &crate::ledger::Clock) -> bool {
        let fd = self.slots.conns[slot].fd;
        loop {
            // SAFETY: `buf` is valid for its length.
            let n = unsafe { libc::recv(fd, self.buf.as_mut_ptr().cast(), self.buf.len(), 0) };
            let now = clock.now();
            if n > 0 {
                let n = n as usize;
                let (conn, times, req, ledger) = self.slots.parts(slot);
                match conn.receive(&self.buf[..n], now, times, req, ledger) {
                    Err(outcome) => return self.fail(slot, outcome, now),
                    Ok(Verdict::Close) => return self.close_and_reopen(slot, now, Outcome::Read),
                    Ok(Verdict::Keep) => {}
                }
                // A short read drained the socket; under edge triggering, later bytes
                // wake us again. After a hang-up, read on to see the end.
                if n < self.buf.len() && !hup {
                    break;
                }
            } else if n == 0 {
                let (conn, times, req, ledger) = self.slots.parts(slot);
                conn.eof(now, times, req, ledger);
                return self.close_and_reopen(slot, now, Outcome::Read);
            } else {
                let e = io::Error::last_os_error();
                if e.kind() == io::ErrorKind::WouldBlock {
                    break;
                }
                return self.fail(slot, Outcome::Read, now);
            }
        }
        let now = clock.now();
        if !self.slots.keepalive && self.slots.conns[slot].pending() == 0 {
            // One request per connection: the client closes, as ab without -k does.
            return self.close_and_reopen(slot, now, Outcome::Read);
        }
        let (conn, times, req, ledger) = self.slots.parts(slot);
        conn.top_up(now, times, req, ledger);
        true
    }

    /// Writes the connection's unsent request bytes until done or the socket is full.
    fn flush(&mut self, slot: usize, now: u64) {
        loop {
            let conn = &self.slots.conns[slot];
            let bytes = conn.unsent(&self.slots.req);
            if bytes.is_empty() || conn.state != State::Open {
                return;
            }
            // SAFETY: `bytes` is valid for its length.
            let n = unsafe {
                libc::send(
                    conn.fd,
                    bytes.as_ptr().cast(),
                    bytes.len(),
                    libc::MSG_NOSIGNAL,
                )
            };
            if n >= 0 {
                self.slots.conns[slot].wrote(n as usize);
                self.slots.ledger.wrote(n as usize, now);
                continue;
            }
            if io::Error::last_os_error().kind() != io::ErrorKind::WouldBlock {
                self.fail(slot, Outcome::Write, now);
            }
            return;
        }
    }

    /// Opens a socket for `slot` if the load may start another request.
    fn open(&mut self, slot: usize, now: u64) {
        let (conn, times, req, ledger) = self.slots.parts(slot);
        if ledger.take(1, now) == 0 {
            conn.state = State::Closed { retry_at: u64::MAX };
            return;
        }
        // The first request starts with the connect, so its latency includes it (as ab's does).
        conn.start(1, now, times, req);
        let fd = match self.slots.dialer.socket() {
            Ok(fd) => fd,
            Err(e) => return self.connect_failed(slot, now, Some(e)),
        };
        let head = self.slots.req.is_head();
        self.slots.conns[slot].connecting(fd, now, head);
        let gen = self.slots.conns[slot].gen;
        let mut ev = libc::epoll_event {
            events: (libc::EPOLLIN | libc::EPOLLOUT | libc::EPOLLRDHUP | libc::EPOLLET) as u32,
            u64: token(slot, gen),
        };
        // SAFETY: `ev` is a valid epoll_event and `fd` an open socket.
        let added = unsafe { libc::epoll_ctl(self.epfd, libc::EPOLL_CTL_ADD, fd, &mut ev) };
        if added < 0 {
            return self.connect_failed(slot, now, Some(io::Error::last_os_error()));
        }
        match self.slots.dialer.connect(fd) {
            Ok(true) => self.on_connected(slot, now),
            Ok(false) => {}
            Err(e) => self.connect_failed(slot, now, Some(e)),
        }
    }

    fn on_connected(&mut self, slot: usize, now: u64) {
        let keepalive = self.slots.keepalive;
        let (conn, times, req, ledger) = self.slots.parts(slot);
        conn.connected(now, ledger);
        if keepalive {
            conn.top_up(now, times, req, ledger);
        }
        self.flush(slot, now);
    }

    fn connect_failed(&mut self, slot: usize, now: u64, err: Option<io::Error>) {
        let err = err.or_else(|| socket::take_error(self.slots.conns[slot].fd).err());
        if err.as_ref().is_some_and(socket::is_port_exhaustion) && self.slots.ledger.measuring(now)
        {
            self.slots.ledger.stats.port_exhaustion += 1;
        }
        let (conn, times, _, ledger) = self.slots.parts(slot);
        conn.fail(Outcome::Connect, now, times, ledger);
        self.close(slot, now + CONNECT_BACKOFF_NS);
    }

    /// Fails what is pending with `outcome`, closes, and reopens; always false.
    fn fail(&mut self, slot: usize, outcome: Outcome, now: u64) -> bool {
        let (conn, times, _, ledger) = self.slots.parts(slot);
        conn.fail(outcome, now, times, ledger);
        self.close_and_reopen(slot, now, outcome)
    }

    /// Closes a connection whose pending requests (if any) end as `outcome`, then reopens.
    fn close_and_reopen(&mut self, slot: usize, now: u64, outcome: Outcome) -> bool {
        let (conn, times, _, ledger) = self.slots.parts(slot);
        conn.fail(outcome, now, times, ledger);
        self.close(slot, now);
        self.open(slot, now);
        false
    }

    fn close(&mut self, slot: usize, retry_at: u64) {
        let conn = &mut self.slots.conns[slot];
        if conn.fd >= 0 {
            socket::close(conn.fd);
        }
        conn.closed(retry_at);
    }

    /// Fails requests past their timeout and reconnects slots whose backoff is over.
    fn tick(&mut self, now: u64) {
        for slot in 0..self.slots.conns.len() {
            let (conn, times, _, ledger) = self.slots.parts(slot);
            if conn.fd >= 0 && conn.expire(now, times, ledger) {
                self.close_and_reopen(slot, now, Outcome::Timeout);
            }
        }
        let due: Vec<usize> = self.slots.due_for_reconnect(now).collect();
        for slot in due {
            self.open(slot, now);
        }
    }

    /// Counts what is still pending as in flight, closes every socket, and hands back the stats.
    fn finish(&mut self, cpu_start: Option<CpuTime>, now: u64) -> LoopStats {
        let cpu = cpu_start
            .map(|s| CpuTime::thread().since(&s))
            .unwrap_or_default();
        for slot in 0..self.slots.conns.len() {
            let (conn, times, _, ledger) = self.slots.parts(slot);
            conn.abandon(times, ledger);
            self.close(slot, u64::MAX);
        }
        let mut stats = std::mem::take(&mut self.slots.ledger.stats);
        stats.user_seconds = cpu.user.as_secs_f64();
        stats.sys_seconds = cpu.sys.as_secs_f64();
        stats.ended_ns = now;
        stats
    }
}
