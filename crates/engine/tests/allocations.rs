//! The request path allocates nothing: ten times the requests, the same allocations.
//!
//! A counting global allocator sees every allocation in this test process, so the
//! server here is a tiny one that answers from a static buffer without allocating.

use engine::{IoChoice, LoadConfig, Pace, RateSchedule, Stop, Target};
use std::alloc::{GlobalAlloc, Layout, System};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

// SAFETY: forwards to the system allocator, only counting calls.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The counter is process-wide: tests that count take turns.
static COUNTING: Mutex<()> = Mutex::new(());

const RESPONSE: &[u8] = b"HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\nHello World";

/// Answers every request head on `stream` with RESPONSE, from fixed buffers.
fn answer(mut stream: TcpStream) {
    let mut buf = [0u8; 4096];
    let mut tail = [0u8; 3];
    while let Ok(n) = stream.read(&mut buf) {
        if n == 0 {
            return;
        }
        // Count request ends, including one split across reads.
        let mut window = [0u8; 4];
        let mut ends = 0;
        for (i, &b) in buf[..n].iter().enumerate() {
            window = [
                if i >= 3 { buf[i - 3] } else { tail[i] },
                if i >= 2 { buf[i - 2] } else { tail[i + 1] },
                if i >= 1 { buf[i - 1] } else { tail[2] },
                b,
            ];
            ends += usize::from(&window == b"\r\n\r\n");
        }
        tail = [window[1], window[2], window[3]];
        for _ in 0..ends {
            if stream.write_all(RESPONSE).is_err() {
                return;
            }
        }
    }
}

fn serve() -> std::net::SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        // Bounded: the test makes a handful of connections and then the process ends.
        for stream in listener.incoming().take(64).flatten() {
            std::thread::spawn(move || answer(stream));
        }
    });
    addr
}

/// Answers one request per connection, one connection at a time, from fixed buffers:
/// a thread per connection would allocate in this process.
fn serve_one_per_connection() -> std::net::SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let mut buf = [0u8; 4096];
            let mut len = 0;
            while let Ok(n) = stream.read(&mut buf[len..]) {
                len += n;
                if n == 0 || buf[..len].ends_with(b"\r\n\r\n") || len == buf.len() {
                    break;
                }
            }
            let _ = stream.write_all(RESPONSE);
        }
    });
    addr
}

fn allocations_for(addr: std::net::SocketAddr, requests: u64, io: IoChoice) -> u64 {
    allocations_with(addr, requests, |c| c.io = io)
}

/// Allocations of a load of `requests` on 4 connections, shaped by `tweak`.
fn allocations_with(
    addr: std::net::SocketAddr,
    requests: u64,
    tweak: impl Fn(&mut LoadConfig),
) -> u64 {
    let mut c = LoadConfig::new(Target::parse(&format!("http://{addr}/")).unwrap());
    c.connections = 4;
    c.threads = 1;
    c.stop = Stop::Requests(requests);
    c.timeout = Duration::from_secs(5);
    tweak(&mut c);
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    let r = engine::run(&c, &AtomicBool::new(false)).unwrap();
    let after = ALLOCATIONS.load(Ordering::Relaxed);
    assert_eq!(r.requests.ok, requests, "{:?}", r.requests);
    after - before
}

#[test]
fn ten_times_the_requests_cost_no_more_allocations() {
    let _turn = COUNTING.lock().unwrap_or_else(|e| e.into_inner());
    let addr = serve();
    for io in [IoChoice::Epoll, IoChoice::Uring] {
        let few = allocations_for(addr, 2_000, io);
        let many = allocations_for(addr, 20_000, io);
        // A new second of the per-second series allocates; nothing per request does.
        assert!(
            many <= few + 16,
            "{io:?}: {few} allocations for 2,000 requests, {many} for 20,000"
        );
    }
}

#[test]
fn a_fixed_rate_without_keepalive_allocates_nothing_per_connection() {
    let _turn = COUNTING.lock().unwrap_or_else(|e| e.into_inner());
    let addr = serve_one_per_connection();
    for io in [IoChoice::Epoll, IoChoice::Uring] {
        let tweak = |c: &mut LoadConfig| {
            c.io = io;
            c.keepalive = false;
            c.pace = Pace::Open(RateSchedule::constant(10_000.0));
        };
        let few = allocations_with(addr, 1_000, tweak);
        let many = allocations_with(addr, 10_000, tweak);
        assert!(
            many <= few + 16,
            "{io:?}: {few} allocations for 1,000 requests, {many} for 10,000"
        );
    }
}
