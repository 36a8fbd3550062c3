//! The epoll event loop: edge-triggered, one read per wakeup when it drains the socket,
//! writes straight after a response (no EPOLLOUT round trip unless a write is partial).

use crate::conn::{State, Verdict};
use crate::event_loop::{self as el, Arrival, Driver, Gather, LoopSpec, Slots, READ_BUFFER};
use crate::ledger::Clock;
use crate::outcome::Outcome;
use crate::socket::{self, check};
use crate::stats::LoopStats;
use crate::tls::Failure;
use std::io;
use std::os::fd::RawFd;

const EVENTS: usize = 1024;
const IN: u32 = libc::EPOLLIN as u32;
const OUT: u32 = libc::EPOLLOUT as u32;
const HANGUP: u32 = (libc::EPOLLRDHUP | libc::EPOLLHUP | libc::EPOLLERR) as u32;
const FAILED: u32 = (libc::EPOLLERR | libc::EPOLLHUP) as u32;

/// Runs one loop of the load on epoll until it finishes; returns what it measured.
pub fn run(spec: &LoopSpec) -> io::Result<LoopStats> {
    // SAFETY: plain epoll_create1; the fd is closed below.
    let epfd = check(unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) })?;
    let mut lp = EpollLoop {
        epfd,
        slots: Slots::new(spec),
        buf: vec![0; READ_BUFFER],
        events: vec![libc::epoll_event { events: 0, u64: 0 }; EVENTS],
    };
    let stats = el::drive(&mut lp, spec);
    socket::close(epfd);
    Ok(stats)
}

struct EpollLoop {
    epfd: RawFd,
    slots: Slots,
    /// The loop's one receive buffer: bytes are framed and dropped before the next read.
    buf: Vec<u8>,
    events: Vec<libc::epoll_event>,
}

#[inline]
fn token(slot: usize, gen: u32) -> u64 {
    ((slot as u64) << 32) | gen as u64
}

impl Driver for EpollLoop {
    fn slots(&mut self) -> &mut Slots {
        &mut self.slots
    }

    fn poll(&mut self, ns: u64, gather: Gather, clock: &Clock) {
        let n = self.gathered(ns, gather);
        for i in 0..n {
            let (bits, data) = (self.events[i].events, self.events[i].u64);
            self.event((data >> 32) as usize, data as u32, bits, clock);
        }
    }

    fn connect(&mut self, slot: usize, fd: RawFd) -> io::Result<bool> {
        let mut ev = libc::epoll_event {
            events: IN | OUT | libc::EPOLLRDHUP as u32 | libc::EPOLLET as u32,
            u64: token(slot, self.slots.conns[slot].gen),
        };
        // SAFETY: `ev` is a valid epoll_event and `fd` an open socket.
        check(unsafe { libc::epoll_ctl(self.epfd, libc::EPOLL_CTL_ADD, fd, &mut ev) })?;
        self.slots.dialer.connect(fd)
    }

    fn connected(&mut self, slot: usize, now: u64) {
        match self.slots.connected(slot, now) {
            Ok(()) => self.flush(slot, now),
            Err(failure) => el::tls_failed(self, slot, now, failure),
        }
    }

    fn release(&mut self, _slot: usize, fd: RawFd) {
        // Closing also removes the socket from the epoll set.
        socket::close(fd);
    }

    fn kick(&mut self, slot: usize, now: u64) {
        self.flush(slot, now);
    }
}

impl EpollLoop {
    /// Waits up to `ns` for events into `events`; how many. When fewer than `gather` asks
    /// are ready, the loop sleeps for its wait and takes what came meanwhile too, once.
    fn gathered(&mut self, ns: u64, gather: Gather) -> usize {
        let wait_ns = gather.min_wait_us as u64 * 1_000;
        if gather.completions < 2 || ns <= wait_ns {
            return self.wait_events(0, ns);
        }
        let ready = self.wait_events(0, 0);
        if ready >= gather.completions {
            return ready;
        }
        std::thread::sleep(std::time::Duration::from_nanos(wait_ns));
        let all = ready + self.wait_events(ready, 0);
        match all {
            0 => self.wait_events(0, ns - wait_ns),
            _ => all,
        }
    }

    /// Waits up to `ns` for events into `events[from..]`; how many came.
    fn wait_events(&mut self, from: usize, ns: u64) -> usize {
        // Nanosecond timeouts (epoll_pwait2): an open-loop schedule needs finer wakeups
        // than epoll_wait's milliseconds.
        let ts = libc::timespec {
            tv_sec: (ns / 1_000_000_000) as libc::time_t,
            tv_nsec: (ns % 1_000_000_000) as libc::c_long,
        };
        let room = &mut self.events[from..];
        // SAFETY: `room` is valid for its length and `ts` lives across the call.
        let n = unsafe {
            libc::epoll_pwait2(
                self.epfd,
                room.as_mut_ptr(),
                room.len() as i32,
                &ts,
                std::ptr::null(),
            )
        };
        n.max(0) as usize
    }

    fn event(&mut self, slot: usize, gen: u32, bits: u32, clock: &Clock) {
        let Some(conn) = self.slots.conns.get(slot) else {
            return;
        };
        if conn.gen != gen || conn.fd < 0 {
            return;
        }
        let now = clock.now();
        if conn.state == State::Connecting {
            if bits & FAILED != 0 {
                return el::connect_failed(self, slot, now, None);
            }
            if bits & OUT == 0 {
                return;
            }
            self.connected(slot, now);
            if self.slots.conns[slot].gen != gen {
                return;
            }
        }
        if bits & (IN | HANGUP) != 0 && !self.readable(slot, bits & HANGUP != 0, clock) {
            return;
        }
        self.flush(slot, clock.now());
    }

    /// Reads what arrived; false when the connection was closed (and reopened).
    fn readable(&mut self, slot: usize, hangup: bool, clock: &Clock) -> bool {
        if self.slots.tls.is_some() {
            return self.readable_tls(slot, hangup, clock);
        }
        let fd = self.slots.conns[slot].fd;
        loop {
            // SAFETY: `buf` is valid for its length.
            let n = unsafe { libc::recv(fd, self.buf.as_mut_ptr().cast(), self.buf.len(), 0) };
            let now = clock.now();
            if n == 0 {
                let (conn, times, req, ledger) = self.slots.parts(slot);
                conn.eof(now, times, req, ledger);
                return self.reopen(slot, now, Outcome::Read);
            }
            if n < 0 {
                if io::Error::last_os_error().kind() == io::ErrorKind::WouldBlock {
                    break;
                }
                return self.reopen(slot, now, Outcome::Read);
            }
            let n = n as usize;
            let (conn, times, req, ledger) = self.slots.parts(slot);
            match conn.receive(&self.buf[..n], now, times, req, ledger) {
                Err(outcome) => return self.reopen(slot, now, outcome),
                Ok(Verdict::Close) => return self.reopen(slot, now, Outcome::Read),
                Ok(Verdict::Keep) => {}
            }
            // A short read drained the socket; under edge triggering, later bytes
            // wake us again. After a hang-up, read on to see the end.
            if n < self.buf.len() && !hangup {
                break;
            }
        }
        let now = clock.now();
        if !self.slots.keepalive && self.slots.conns[slot].pending() == 0 {
            // One request per connection: the client closes, as ab without -k does.
            return self.reopen(slot, now, Outcome::Read);
        }
        self.slots.refill(slot, now);
        true
    }

    /// As [`EpollLoop::readable`], through TLS: each read lands after the connection's
    /// carried bytes, in the TLS layer's buffer.
    fn readable_tls(&mut self, slot: usize, hangup: bool, clock: &Clock) -> bool {
        let fd = self.slots.conns[slot].fd;
        loop {
            let Some(room) = self.slots.tls_stage(slot) else {
                el::tls_failed(self, slot, clock.now(), Failure::RecordOverflow);
                return false;
            };
            let room_len = room.len();
            // SAFETY: `room` is valid for its length.
            let n = unsafe { libc::recv(fd, room.as_mut_ptr().cast(), room_len, 0) };
            let now = clock.now();
            if n == 0 {
                el::tls_eof(self, slot, now);
                return false;
            }
            if n < 0 {
                if io::Error::last_os_error().kind() == io::ErrorKind::WouldBlock {
                    break;
                }
                return self.reopen(slot, now, Outcome::Read);
            }
            match self.slots.tls_arrived(slot, n as usize, now) {
                Arrival::Keep => {}
                Arrival::Close(outcome) => return self.reopen(slot, now, outcome),
                Arrival::PeerClosed => {
                    el::peer_closed(self, slot, now);
                    return false;
                }
                Arrival::Failed(failure) => {
                    el::tls_failed(self, slot, now, failure);
                    return false;
                }
            }
            if (n as usize) < room_len && !hangup {
                break;
            }
        }
        let now = clock.now();
        let conn = &self.slots.conns[slot];
        if !self.slots.keepalive && conn.pending() == 0 {
            return self.reopen(slot, now, Outcome::Read);
        }
        if conn.state == State::Open {
            self.slots.refill(slot, now);
        }
        true
    }

    /// Writes the connection's unsent request bytes until done or the socket is full.
    fn flush(&mut self, slot: usize, now: u64) {
        if self.slots.tls.is_some() {
            return self.flush_tls(slot, now);
        }
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
            if n < 0 {
                if io::Error::last_os_error().kind() != io::ErrorKind::WouldBlock {
                    self.reopen(slot, now, Outcome::Write);
                }
                return;
            }
            self.slots.ledger.wrote(n as usize, now);
            if self.slots.conns[slot].wrote(n as usize, &self.slots.req) {
                self.slots.refill(slot, now);
            }
        }
    }

    /// As [`EpollLoop::flush`], through TLS: the connection's ciphertext.
    fn flush_tls(&mut self, slot: usize, now: u64) {
        let fd = self.slots.conns[slot].fd;
        loop {
            let bytes = match self.slots.tls_outgoing(slot, now) {
                Ok(bytes) if !bytes.is_empty() => bytes,
                Ok(_) => return,
                Err(failure) => return el::tls_failed(self, slot, now, failure),
            };
            // SAFETY: `bytes` is valid for its length.
            let n =
                unsafe { libc::send(fd, bytes.as_ptr().cast(), bytes.len(), libc::MSG_NOSIGNAL) };
            if n < 0 {
                if io::Error::last_os_error().kind() != io::ErrorKind::WouldBlock {
                    self.reopen(slot, now, Outcome::Write);
                }
                return;
            }
            self.slots.tls_sent(slot, n as usize);
        }
    }

    /// Fails what is pending with `outcome`, closes and reopens; always false.
    fn reopen(&mut self, slot: usize, now: u64, outcome: Outcome) -> bool {
        el::close_and_reopen(self, slot, now, outcome);
        false
    }
}
