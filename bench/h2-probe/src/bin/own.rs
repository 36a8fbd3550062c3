//! The probe's own HTTP/2 client (src/h2client.rs) on a socket loop: one thread, epoll
//! (level-triggered) over nonblocking sockets, one read per readiness, one write after it.
//!
//! usage: own --addr 127.0.0.1:18480 --path /hello -c 50 -m 10 -D 5 [--hpack own|loona]
//!            [--count-allocs] [--dump N] [--spin-us N] [--defer-writes]

use h2probe::alloc_count::{self, Counting};
use h2probe::h2client::{Client, Counts};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::os::fd::AsRawFd;
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};

#[global_allocator]
static A: Counting = Counting;

struct Conn {
    sock: TcpStream,
    token: u64,
    want_out: bool,
    h: Client,
}

impl Conn {
    fn on_readable(&mut self, counts: &mut Counts, dump: &mut u32) {
        loop {
            match self.sock.read(self.h.read_space()) {
                Ok(0) => {
                    self.h.dead = true;
                    return;
                }
                Ok(n) => return self.h.received(n, counts, true, dump),
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => {
                    self.h.dead = true;
                    counts.errors += 1;
                    return;
                }
            }
        }
    }

    /// Write what is pending; returns whether some is left (wait for EPOLLOUT).
    fn flush(&mut self) -> bool {
        while !self.h.outgoing().is_empty() {
            match self.sock.write(self.h.outgoing()) {
                Ok(n) => self.h.sent(n),
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return true,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => {
                    self.h.dead = true;
                    return false;
                }
            }
        }
        false
    }
}

fn arg<T: std::str::FromStr>(args: &[String], name: &str, default: T) -> T {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map(|v| v.parse().ok().expect("a value"))
        .unwrap_or(default)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let addr: String = arg(&args, "--addr", "127.0.0.1:18480".to_string());
    let path: String = arg(&args, "--path", "/hello".to_string());
    let nconns: usize = arg(&args, "-c", 50);
    let m: usize = arg(&args, "-m", 10);
    let secs: f64 = arg(&args, "-D", 5.0);
    let mut dump: u32 = arg(&args, "--dump", 0);
    let use_loona = arg(&args, "--hpack", "own".to_string()) == "loona";
    let count_allocs = args.iter().any(|a| a == "--count-allocs");
    // Poll (epoll_wait with timeout 0) for up to this long after the last event before
    // blocking: fewer sleeps and wake-ups, bigger batches, at the cost of polling.
    let spin = Duration::from_micros(arg(&args, "--spin-us", 0u64));
    let mut last_event = Instant::now();
    alloc_count::ON.store(count_allocs, Relaxed);

    let epfd = unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) };
    assert!(epfd >= 0);
    let mut conns: Vec<Conn> = Vec::with_capacity(nconns);
    for i in 0..nconns {
        let sock = TcpStream::connect(&addr).expect("connect");
        sock.set_nodelay(true).unwrap();
        sock.set_nonblocking(true).unwrap();
        let mut c = Conn { sock, token: i as u64, want_out: false, h: Client::new(&addr, &path, m, use_loona) };
        c.h.start_streams();
        let mut ev = libc::epoll_event { events: libc::EPOLLIN as u32, u64: i as u64 };
        let rc = unsafe { libc::epoll_ctl(epfd, libc::EPOLL_CTL_ADD, c.sock.as_raw_fd(), &mut ev) };
        assert_eq!(rc, 0);
        conns.push(c);
    }
    let start = Instant::now();
    let deadline = start + Duration::from_secs_f64(secs);
    let steady_from = start + Duration::from_secs_f64(secs.min(1.0));
    let mut counts = Counts::default();
    let mut steady: Option<(u64, u64)> = None; // (allocs, ok) at steady_from
    for c in conns.iter_mut() {
        if c.flush() {
            set_out(epfd, c, true);
        }
    }
    let mut events = vec![libc::epoll_event { events: 0, u64: 0 }; 256];
    // --defer-writes (as h2load's loop does it, in effect): a connection's new requests
    // are not written right after its read, but when a poll (timeout 0) finds nothing
    // more to read, so that what arrives meanwhile leaves in the same write.
    let defer = args.iter().any(|a| a == "--defer-writes");
    let mut pending: Vec<usize> = Vec::with_capacity(nconns);
    loop {
        let now = Instant::now();
        if now >= deadline {
            break;
        }
        if steady.is_none() && now >= steady_from {
            steady = Some((alloc_count::allocs(), counts.ok));
        }
        let wait_ms = if !pending.is_empty() || now.duration_since(last_event) < spin {
            0
        } else {
            (deadline - now).as_millis().min(100) as i32 + 1
        };
        let n = unsafe { libc::epoll_wait(epfd, events.as_mut_ptr(), events.len() as i32, wait_ms) };
        if n == 0 && !pending.is_empty() {
            for i in pending.drain(..) {
                let c = &mut conns[i];
                let left = c.flush();
                if left != c.want_out {
                    set_out(epfd, c, left);
                }
            }
            continue;
        }
        if n <= 0 {
            continue;
        }
        last_event = now;
        for ev in &events[..n as usize] {
            let i = ev.u64 as usize;
            let c = &mut conns[i];
            if c.h.dead {
                continue;
            }
            if ev.events & (libc::EPOLLIN | libc::EPOLLHUP | libc::EPOLLERR) as u32 != 0 {
                c.on_readable(&mut counts, &mut dump);
            }
            if defer && ev.events & libc::EPOLLOUT as u32 == 0 {
                if !c.h.outgoing().is_empty() && !pending.contains(&i) {
                    pending.push(i);
                }
                continue;
            }
            let left = c.flush();
            if left != c.want_out {
                set_out(epfd, c, left);
            }
            if c.h.dead {
                unsafe { libc::epoll_ctl(epfd, libc::EPOLL_CTL_DEL, c.sock.as_raw_fd(), std::ptr::null_mut()) };
            }
        }
    }
    let elapsed = start.elapsed().as_secs_f64();
    let (a0, ok0) = steady.unwrap_or((0, 0));
    let (a1, ok1) = (alloc_count::allocs(), counts.ok);
    let inflight: usize = conns.iter().map(|c| c.h.active).sum();
    let opened: u64 = conns.iter().map(|c| c.h.opened()).sum();
    // Every stream opened is answered, reset or still in flight: nothing lost or doubled.
    assert_eq!(opened, counts.ok + counts.non2xx + counts.reset + inflight as u64);
    println!(
        "ok={} non2xx={} reset={} goaway={} errors={} inflight_at_end={} secs={:.3} allocs_total={} steady_allocs={} steady_ok={} allocs_per_req_steady={:.4}",
        counts.ok, counts.non2xx, counts.reset, counts.goaway, counts.errors, inflight, elapsed, a1,
        a1 - a0, ok1 - ok0,
        if ok1 > ok0 { (a1 - a0) as f64 / (ok1 - ok0) as f64 } else { 0.0 }
    );
}

fn set_out(epfd: i32, c: &mut Conn, on: bool) {
    c.want_out = on;
    let mut ev = libc::epoll_event {
        events: (libc::EPOLLIN | if on { libc::EPOLLOUT } else { 0 }) as u32,
        u64: 0,
    };
    ev.u64 = c.token;
    unsafe { libc::epoll_ctl(epfd, libc::EPOLL_CTL_MOD, c.sock.as_raw_fd(), &mut ev) };
}

