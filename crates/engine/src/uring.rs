//! The io_uring event loop: connect, send and multishot receive as ring operations,
//! receive buffers from one provided-buffer ring per loop, one system call per batch.

use crate::buf_ring::{BufRing, Lent};
use crate::conn::{State, Verdict};
use crate::event_loop::{self as el, Arrival, Driver, Gather, LoopSpec, Slots};
use crate::ledger::Clock;
use crate::outcome::Outcome;
use crate::socket::{self, SockAddr};
use crate::stats::LoopStats;
use io_uring::{cqueue, opcode, squeue, types, IoUring};
use std::io;
use std::os::fd::RawFd;

const BUF_GROUP: u16 = 1;
/// Receive buffers: 8 MiB a loop either way. Incremental (kernel 6.12 on), few and large:
/// a receive takes what it fills, so a large answer comes 128 KiB a completion and small
/// ones share a buffer. Else many and small, one a receive whatever it holds.
const INCREMENTAL_BUFS: (u16, usize) = (64, 128 * 1024);
const WHOLE_BUFS: (u16, usize) = (1024, 8 * 1024);

const OP_CONNECT: u64 = 1;
const OP_RECV: u64 = 2;
const OP_SEND: u64 = 3;

/// Checks that this kernel offers what the loop needs (a ring and provided-buffer rings).
pub fn probe() -> io::Result<()> {
    let ring = new_ring(8)?;
    BufRing::new(&ring, 2, 64, BUF_GROUP, false).map(drop)
}

fn new_ring(entries: u32) -> io::Result<IoUring> {
    // One thread submits and reaps, so the kernel may defer completion work to our
    // next enter instead of interrupting us: fewer context switches per request. The
    // flag (IORING_SQ_TASKRUN) says such work waits, so that an enter that does not
    // wait still runs it (UringLoop::wait).
    IoUring::builder()
        .setup_single_issuer()
        .setup_defer_taskrun()
        .setup_coop_taskrun()
        .setup_taskrun_flag()
        .setup_cqsize(entries * 4)
        .build(entries)
        .or_else(|_| IoUring::builder().setup_cqsize(entries * 4).build(entries))
}

/// Runs one loop of the load on io_uring until it finishes; returns what it measured.
pub fn run(spec: &LoopSpec) -> io::Result<LoopStats> {
    let ring = new_ring(4096)?;
    let bufs = BufRing::new(
        &ring,
        INCREMENTAL_BUFS.0,
        INCREMENTAL_BUFS.1,
        BUF_GROUP,
        true,
    )
    .or_else(|_| BufRing::new(&ring, WHOLE_BUFS.0, WHOLE_BUFS.1, BUF_GROUP, false))?;
    let slots = Slots::new(spec);
    let mut lp = UringLoop {
        target: Box::new(*slots.dialer.target()),
        io: vec![ConnIo::default(); slots.conns.len()],
        rearm: Vec::new(),
        submits: 1,
        ring,
        bufs,
        slots,
    };
    Ok(el::drive(&mut lp, spec))
}

/// Which ring operations a connection has in flight.
#[derive(Debug, Clone, Copy, Default)]
struct ConnIo {
    recv_armed: bool,
    sending: bool,
    connecting: bool,
    /// The submission count when this connection last queued an entry.
    queued_at: u64,
}

struct UringLoop {
    // Dropped first: the kernel must be done with the buffers and address below.
    ring: IoUring,
    bufs: BufRing,
    /// The connect address, boxed so its address stays put while the kernel reads it.
    target: Box<SockAddr>,
    slots: Slots,
    io: Vec<ConnIo>,
    /// Slots whose multishot receive ended for lack of buffers.
    rearm: Vec<usize>,
    /// How many times the queue was handed to the kernel.
    submits: u64,
}

#[inline]
fn user_data(slot: usize, gen: u32, op: u64) -> u64 {
    ((slot as u64) << 32) | (((gen & 0xff_ffff) as u64) << 8) | op
}

impl UringLoop {
    /// Submits what is queued and waits up to `ns` for completions. When `gather` asks
    /// for several, it takes what has come at once; when that is fewer, it sleeps for the
    /// gather's wait and then takes what came meanwhile, as the epoll loop does. Deferred
    /// completions pile up unseen while it sleeps, so nothing wakes it early. The kernel's
    /// own wait for several (`min_wait`, Linux 6.12+) arms a timer on every wait, and
    /// its expiry and re-arming cost 1.2-1.5 µs a request more (on a VM, a timer is an
    /// exit to the hypervisor): see docs/http2.md.
    fn wait(&mut self, ns: u64, gather: Gather) {
        let wait_ns = u64::from(gather.min_wait_us) * 1_000;
        if gather.completions < 2 || ns <= wait_ns {
            return self.enter(1, ns);
        }
        self.enter(0, 0);
        if self.ring.completion().len() >= gather.completions {
            return;
        }
        std::thread::sleep(std::time::Duration::from_nanos(wait_ns));
        self.enter(1, ns - wait_ns);
    }

    /// Submits what is queued, runs the completions the kernel deferred to this thread,
    /// and waits up to `ns` for `want` of them. ETIME (nothing completed in time), EINTR
    /// and EBUSY (completions to reap first) all mean: go on and look at the queue.
    fn enter(&mut self, want: usize, ns: u64) {
        let ts = types::Timespec::new()
            .sec(ns / 1_000_000_000)
            .nsec((ns % 1_000_000_000) as u32);
        self.submits += 1;
        let args = types::SubmitArgs::new().timespec(&ts);
        let _ = self.ring.submitter().submit_with_args(want, &args);
    }

    /// Handles every completion, then gives the kernel back the buffers and receives.
    fn reap(&mut self, clock: &Clock) {
        loop {
            let Some(cqe) = self.ring.completion().next() else {
                break;
            };
            self.complete(cqe.user_data(), cqe.result(), cqe.flags(), clock);
        }
        self.bufs.publish();
        for slot in std::mem::take(&mut self.rearm) {
            self.arm_recv(slot);
        }
    }

    fn complete(&mut self, ud: u64, res: i32, flags: u32, clock: &Clock) {
        let slot = (ud >> 32) as usize;
        let gen = ((ud >> 8) & 0xff_ffff) as u32;
        let op = ud & 0xff;
        let lent = cqueue::buffer_select(flags).map(|bid| {
            let len = res.max(0) as usize;
            self.bufs.lent(bid, len, flags)
        });
        let current = self
            .slots
            .conns
            .get(slot)
            .is_some_and(|c| c.gen & 0xff_ffff == gen && c.fd >= 0);
        if !current {
            // A completion of a socket this slot has since closed.
            if let Some(lent) = lent {
                self.bufs.give_back(lent);
            }
            if op == OP_SEND {
                // Over TLS, the buffer that send read may now serve another connection.
                if let Some(tls) = self.slots.tls.as_mut() {
                    tls.send_completed_after_end(slot, |g| g & 0xff_ffff == gen);
                }
            }
            return;
        }
        let now = clock.now();
        match op {
            OP_CONNECT => self.connect_done(slot, res, now),
            OP_SEND => self.send_done(slot, res, now),
            OP_RECV => self.recv_done(slot, res, lent, cqueue::more(flags), now),
            _ => {}
        }
    }

    fn connect_done(&mut self, slot: usize, res: i32, now: u64) {
        self.io[slot].connecting = false;
        if res < 0 {
            let err = io::Error::from_raw_os_error(-res);
            return el::connect_failed(self, slot, now, Some(err));
        }
        self.connected(slot, now);
    }

    fn send_done(&mut self, slot: usize, res: i32, now: u64) {
        self.io[slot].sending = false;
        if self.slots.tls.is_some() {
            // The buffer is free to move again, whatever became of the send.
            self.slots.tls_sent(slot, res.max(0) as usize);
        }
        if res < 0 {
            el::close_and_reopen(self, slot, now, Outcome::Write);
            return;
        }
        if self.slots.tls.is_none() {
            self.slots.ledger.wrote(res as usize, now);
            if self.slots.conns[slot].wrote(res as usize, &self.slots.req) {
                self.slots.refill(slot, now);
            }
        }
        self.send(slot, now);
    }

    fn recv_done(&mut self, slot: usize, res: i32, lent: Option<Lent>, more: bool, now: u64) {
        if !more {
            self.io[slot].recv_armed = false;
        }
        if res == -libc::ENOBUFS {
            self.rearm.push(slot);
            return;
        }
        if res < 0 {
            el::close_and_reopen(self, slot, now, Outcome::Read);
            return;
        }
        let Some(lent) = lent.filter(|_| res > 0) else {
            if let Some(lent) = lent {
                self.bufs.give_back(lent);
            }
            if self.slots.tls.is_some() {
                return el::tls_eof(self, slot, now);
            }
            let (conn, times, req, ledger) = self.slots.parts(slot);
            conn.eof(now, times, req, ledger);
            el::close_and_reopen(self, slot, now, Outcome::Read);
            return;
        };
        if self.slots.tls.is_some() {
            return self.recv_tls(slot, lent, res as usize, now);
        }
        let data = self.bufs.get(lent, res as usize);
        let (conn, times, req, ledger) = self.slots.parts(slot);
        let verdict = conn.receive(data, now, times, req, ledger);
        self.bufs.give_back(lent);
        match verdict {
            Err(outcome) => el::close_and_reopen(self, slot, now, outcome),
            Ok(Verdict::Close) => el::close_and_reopen(self, slot, now, Outcome::Read),
            Ok(Verdict::Keep) if !self.slots.keepalive && self.slots.conns[slot].pending() == 0 => {
                // One request per connection: the client closes, as ab without -k does.
                el::close_and_reopen(self, slot, now, Outcome::Read)
            }
            Ok(Verdict::Keep) => {
                self.slots.refill(slot, now);
                self.send(slot, now);
                if !self.io[slot].recv_armed && !self.rearm.contains(&slot) {
                    self.arm_recv(slot);
                }
            }
        }
    }

    /// As [`UringLoop::recv_done`], through TLS: `len` bytes of a ring buffer, `lent`.
    fn recv_tls(&mut self, slot: usize, lent: Lent, len: usize, now: u64) {
        let data = self.bufs.get(lent, len);
        let arrival = self.slots.tls_arrived_from(slot, data, now);
        self.bufs.give_back(lent);
        match arrival {
            Arrival::Keep => {}
            Arrival::Close(outcome) => return el::close_and_reopen(self, slot, now, outcome),
            Arrival::PeerClosed => return el::peer_closed(self, slot, now),
            Arrival::Failed(failure) => return el::tls_failed(self, slot, now, failure),
        }
        let conn = &self.slots.conns[slot];
        if !self.slots.keepalive && conn.pending() == 0 {
            // One request per connection: the client closes, as ab without -k does.
            return el::close_and_reopen(self, slot, now, Outcome::Read);
        }
        if conn.state == State::Open {
            self.slots.refill(slot, now);
        }
        self.send(slot, now);
        if !self.io[slot].recv_armed && !self.rearm.contains(&slot) {
            self.arm_recv(slot);
        }
    }

    fn push(&mut self, slot: usize, entry: squeue::Entry) {
        self.io[slot].queued_at = self.submits;
        loop {
            // SAFETY: every pointer in the entries we build (request bytes, target
            // address, buffer ring) outlives the ring.
            if unsafe { self.ring.submission().push(&entry) }.is_ok() {
                return;
            }
            // Queue full: hand what is there to the kernel and try again.
            self.submit();
        }
    }

    fn submit(&mut self) {
        self.submits += 1;
        let _ = self.ring.submit();
    }

    fn arm_recv(&mut self, slot: usize) {
        let conn = &self.slots.conns[slot];
        if conn.fd < 0 || self.io[slot].recv_armed {
            return;
        }
        let e = opcode::RecvMulti::new(types::Fd(conn.fd), BUF_GROUP)
            .build()
            .user_data(user_data(slot, conn.gen, OP_RECV));
        self.io[slot].recv_armed = true;
        self.push(slot, e);
    }

    /// Queues a send of the connection's unsent bytes, one send in flight at a time.
    fn send(&mut self, slot: usize, now: u64) {
        if self.slots.tls.is_some() {
            return self.send_tls(slot, now);
        }
        let conn = &self.slots.conns[slot];
        let bytes = conn.unsent(&self.slots.req);
        if bytes.is_empty() || self.io[slot].sending || conn.state != State::Open {
            return;
        }
        let e = opcode::Send::new(types::Fd(conn.fd), bytes.as_ptr(), bytes.len() as u32)
            .flags(libc::MSG_NOSIGNAL)
            .build()
            .user_data(user_data(slot, conn.gen, OP_SEND));
        self.io[slot].sending = true;
        self.push(slot, e);
    }

    /// As [`UringLoop::send`], through TLS: the connection's ciphertext, whose buffer stays
    /// put until the send completes.
    fn send_tls(&mut self, slot: usize, now: u64) {
        let (fd, gen) = (self.slots.conns[slot].fd, self.slots.conns[slot].gen);
        if fd < 0 || self.io[slot].sending {
            return;
        }
        let bytes = match self.slots.tls_outgoing(slot, now) {
            Ok(bytes) if !bytes.is_empty() => bytes,
            Ok(_) => return,
            Err(failure) => return el::tls_failed(self, slot, now, failure),
        };
        let e = opcode::Send::new(types::Fd(fd), bytes.as_ptr(), bytes.len() as u32)
            .flags(libc::MSG_NOSIGNAL)
            .build()
            .user_data(user_data(slot, gen, OP_SEND));
        self.slots.tls_sending(slot);
        self.io[slot].sending = true;
        self.push(slot, e);
    }
}

impl Driver for UringLoop {
    fn slots(&mut self) -> &mut Slots {
        &mut self.slots
    }

    fn poll(&mut self, ns: u64, gather: Gather, clock: &Clock) {
        self.wait(ns, gather);
        self.reap(clock);
    }

    fn connect(&mut self, slot: usize, fd: RawFd) -> io::Result<bool> {
        let gen = self.slots.conns[slot].gen;
        let e = opcode::Connect::new(types::Fd(fd), self.target.as_ptr(), self.target.len)
            .build()
            .user_data(user_data(slot, gen, OP_CONNECT));
        self.io[slot].connecting = true;
        self.push(slot, e);
        Ok(false)
    }

    fn connected(&mut self, slot: usize, now: u64) {
        if let Err(failure) = self.slots.connected(slot, now) {
            return el::tls_failed(self, slot, now, failure);
        }
        self.arm_recv(slot);
        self.send(slot, now);
    }

    fn release(&mut self, slot: usize, fd: RawFd) {
        let io = std::mem::take(&mut self.io[slot]);
        if io.queued_at == self.submits && !self.ring.submission().is_empty() {
            // An entry for this fd still waits in the queue: submitted after the
            // close, it would act on whatever socket reuses the number next.
            self.submit();
        }
        if io.recv_armed || io.sending || io.connecting {
            // Operations in flight hold the socket open; shutting it down ends them
            // now (their completions then carry a stale generation and are ignored).
            // SAFETY: `fd` is our open socket.
            unsafe { libc::shutdown(fd, libc::SHUT_RDWR) };
        }
        socket::close(fd);
    }

    fn kick(&mut self, slot: usize, now: u64) {
        self.send(slot, now);
    }
}
