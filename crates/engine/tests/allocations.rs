//! The request path allocates nothing: neither a request nor a connection costs an
//! allocation, on either event loop, over HTTP/1.1 and HTTP/2 (no stream does either) and
//! WebSocket (no message does: masked into a lent buffer, its echo compared as it goes by;
//! nor does a new connection every 100 messages), requests that vary (their values drawn,
//! rendered and their answers checked) included, nor does a device's next request or
//! message, nor an open loop's request dropped for want of a connection. Over TLS, a
//! request costs exactly two, both inside
//! rustls 0.23 (see `RUSTLS_ALLOCATIONS_PER_REQUEST`).
//!
//! A counting global allocator sees every allocation in this process, and counts those
//! of the event loops' threads: the threads that first allocate while a load runs.
//! Every other thread here (the test's, which checks the load and summarises it once at
//! the end; the test servers', started before; libtest's) first allocated before. So the
//! count is what the loops allocated: their books and buffers when they start and when
//! they hand over (the same for any load of the same shape), one histogram per second
//! of the per-second series (the series is reserved up front, so a second costs exactly
//! that), and whatever a request or a connection costs. Subtracting the seconds, a load
//! of 1,000 requests and one of 10,000 must allocate exactly as much: how long either
//! took, on however busy a machine, does not enter.
//!
//! One test, so that no other test of this binary starts (or finishes, which libtest
//! reports) while a load is counted.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use engine::{
    CheckedLoad, DeviceScript, IoChoice, LoadConfig, LoadResult, LoadSpec, Pace, RateSchedule,
    Resume, Stop, Target, TlsClient, Vary, VarySpec, WebSocketSpec,
};
use rustls::{ServerConnection, StreamOwned};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Barrier};
use std::time::Duration;
use testserver::TestPki;

struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

/// Set while a load runs: a thread that first allocates then is one of its loops.
static LOADING: AtomicBool = AtomicBool::new(false);

const UNDECIDED: u8 = 0;
const COUNTED: u8 = 1;
const IGNORED: u8 = 2;

thread_local! {
    /// Whether this thread's allocations count, decided at its first allocation (a
    /// constant `Cell` needs no allocation and no destructor, so the allocator may use it).
    static KIND: Cell<u8> = const { Cell::new(UNDECIDED) };
}

fn counted() -> bool {
    let decide = |kind: &Cell<u8>| {
        if kind.get() == UNDECIDED {
            let loading = LOADING.load(Ordering::Relaxed);
            kind.set(if loading { COUNTED } else { IGNORED });
        }
        kind.get() == COUNTED
    };
    KIND.try_with(decide).unwrap_or(false)
}

/// This thread's allocations never count, whenever it allocates.
fn ignore_this_thread() {
    KIND.with(|kind| kind.set(IGNORED));
}

// SAFETY: forwards to the system allocator, only counting calls.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if counted() {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if counted() {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const RESPONSE: &[u8] = b"HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\nHello World";

/// Answers every request head on `stream` with RESPONSE, from fixed buffers (over TLS,
/// each response is one record).
fn answer(mut stream: impl Read + Write) {
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

/// Starts `threads` threads running `f`, and returns once each has begun: a thread
/// allocates as it starts, and these must have done so before any load is counted.
fn start_ignored(threads: usize, f: impl Fn() + Send + Sync + 'static) {
    let started = Arc::new(Barrier::new(threads + 1));
    let f = Arc::new(f);
    for _ in 0..threads {
        let (started, f) = (started.clone(), f.clone());
        std::thread::spawn(move || {
            ignore_this_thread();
            started.wait();
            f();
        });
    }
    started.wait();
}

/// A keep-alive server: 8 threads, each answering one connection at a time. A load has
/// 4 connections and the check's one before it, which closes at once (a WebSocket load
/// that churns, a connection per 100 messages).
fn serve() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    start_ignored(8, move || {
        // Bounded: the test makes a handful of connections and then the process ends.
        for stream in listener.incoming().take(64).flatten() {
            answer(stream);
        }
    });
    addr
}

/// A keep-alive TLS server as [`serve`] is, with `pki`'s certificate.
fn serve_tls(pki: &TestPki) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let config = pki.server_config().unwrap();
    start_ignored(8, move || {
        for stream in listener.incoming().take(64).flatten() {
            if let Ok(tls) = ServerConnection::new(config.clone()) {
                answer(StreamOwned::new(tls, stream));
            }
        }
    });
    addr
}

/// An HTTP/2 server as [`serve`] is: the client's preface skipped, SETTINGS sent and the
/// client's acknowledged, every HEADERS frame (a request without a body) answered with
/// `:status 200` (indexed, one octet) and DATA `Hello World` on its stream, other frames
/// read and dropped; fixed buffers, no HPACK decoding (the request fields do not matter).
fn serve_h2() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    start_ignored(8, move || {
        for stream in listener.incoming().take(64).flatten() {
            answer_h2(stream);
        }
    });
    addr
}

fn answer_h2(mut stream: std::net::TcpStream) {
    let mut out = [0u8; 64];
    let mut preface = [0u8; 24];
    let settings = h2_frame(&mut out, 4, 0, 0, &[]);
    if stream.read_exact(&mut preface).is_err() || stream.write_all(settings).is_err() {
        return;
    }
    let mut header = [0u8; 9];
    let mut payload = [0u8; 16_384];
    while stream.read_exact(&mut header).is_ok() {
        let len = u32::from_be_bytes([0, header[0], header[1], header[2]]) as usize;
        let (kind, flags) = (header[3], header[4]);
        let id = u32::from_be_bytes([header[5], header[6], header[7], header[8]]);
        if len > payload.len() || stream.read_exact(&mut payload[..len]).is_err() {
            return;
        }
        let written = match (kind, flags & 1) {
            (4, 0) => stream.write_all(h2_frame(&mut out, 4, 1, 0, &[])),
            (1, _) => {
                let head = h2_frame(&mut out, 1, 4, id, &[0x88]).len();
                let body = h2_frame(&mut out[head..], 0, 1, id, b"Hello World").len();
                stream.write_all(&out[..head + body])
            }
            _ => Ok(()),
        };
        if written.is_err() {
            return;
        }
    }
}

/// A frame of `kind` with `flags` on `stream` carrying `payload`, written at the front of
/// `out`: the octets written.
fn h2_frame<'o>(out: &'o mut [u8], kind: u8, flags: u8, stream: u32, payload: &[u8]) -> &'o [u8] {
    let len = (payload.len() as u32).to_be_bytes();
    out[..3].copy_from_slice(&len[1..]);
    (out[3], out[4]) = (kind, flags);
    out[5..9].copy_from_slice(&stream.to_be_bytes());
    out[9..9 + payload.len()].copy_from_slice(payload);
    &out[..9 + payload.len()]
}

/// A WebSocket echo server as [`serve`] is: the upgrade answered with the key's Accept,
/// then every (masked) frame echoed unmasked, from fixed buffers.
fn serve_ws() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    start_ignored(8, move || {
        for stream in listener.incoming().take(128).flatten() {
            echo_ws(stream);
        }
    });
    addr
}

fn echo_ws(mut stream: std::net::TcpStream) {
    let mut head = [0u8; 4096];
    let mut len = 0;
    while !head[..len].ends_with(b"\r\n\r\n") {
        match stream.read(&mut head[len..]) {
            Ok(n) if n > 0 && len + n < head.len() => len += n,
            _ => return,
        }
    }
    let text = std::str::from_utf8(&head[..len]).unwrap_or_default();
    let key = text
        .lines()
        .find_map(|l| l.strip_prefix("Sec-WebSocket-Key: "))
        .unwrap_or_default();
    let mut sha = aws_lc_rs::digest::Context::new(&aws_lc_rs::digest::SHA1_FOR_LEGACY_USE_ONLY);
    sha.update(key.trim().as_bytes());
    sha.update(b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11");
    let mut accept = [0u8; 28];
    let _ = STANDARD.encode_slice(sha.finish().as_ref(), &mut accept);
    // One write, as RESPONSE is: an answer split across the client's reads makes its
    // session borrow a carry, which its loop's lender makes the first time, so whether a
    // load allocates one more would hang on the timing of the pieces, not on its count.
    const HEAD: &[u8] = b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\
        Connection: Upgrade\r\nSec-WebSocket-Accept: ";
    let mut answer = [0u8; HEAD.len() + 28 + 4];
    answer[..HEAD.len()].copy_from_slice(HEAD);
    answer[HEAD.len()..HEAD.len() + 28].copy_from_slice(&accept);
    answer[HEAD.len() + 28..].copy_from_slice(b"\r\n\r\n");
    if stream.write_all(&answer).is_err() {
        return;
    }
    let mut header = [0u8; 2];
    let mut payload = [0u8; 4 + 125];
    while stream.read_exact(&mut header).is_ok() {
        // The load's messages and closes are short: 7-bit lengths, masked.
        let len = (header[1] & 0x7f) as usize;
        if len > 125 || stream.read_exact(&mut payload[..4 + len]).is_err() {
            return;
        }
        let (key, body) = payload.split_at_mut(4);
        for (i, b) in body[..len].iter_mut().enumerate() {
            *b ^= key[i % 4];
        }
        let mut out = [0u8; 2 + 125];
        out[0] = header[0];
        out[1] = len as u8;
        out[2..2 + len].copy_from_slice(&body[..len]);
        if stream.write_all(&out[..2 + len]).is_err() || header[0] & 0x0f == 0x8 {
            return;
        }
    }
}

/// Answers one request per connection, one connection at a time, from fixed buffers.
fn serve_one_per_connection() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    start_ignored(1, move || {
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

/// What the loops of a load of `requests` on 4 connections, shaped by `tweak`, allocated
/// beyond one histogram per second of its series.
fn allocations_beyond_seconds(
    addr: SocketAddr,
    requests: u64,
    tweak: impl Fn(&mut LoadConfig),
) -> u64 {
    let c = config(addr, requests, tweak);
    let (allocations, r) = run_counted(&engine::check(&c).unwrap());
    assert_eq!(r.requests.ok, requests, "{:?}", r.requests);
    allocations
}

/// A load of `requests` on 4 connections to `addr`, shaped by `tweak`.
fn config(addr: SocketAddr, requests: u64, tweak: impl Fn(&mut LoadConfig)) -> LoadConfig {
    let mut c = LoadConfig::new(Target::parse(&format!("http://{addr}/")).unwrap());
    c.connections = 4;
    c.threads = 1;
    c.stop = Stop::Requests(requests);
    c.timeout = Duration::from_secs(5);
    tweak(&mut c);
    c
}

/// What the loops of `load` allocated beyond one histogram per second of its series, and
/// its result.
fn run_counted(load: &CheckedLoad) -> (u64, LoadResult) {
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    LOADING.store(true, Ordering::Relaxed);
    let r = engine::run_checked(load, &AtomicBool::new(false));
    LOADING.store(false, Ordering::Relaxed);
    let after = ALLOCATIONS.load(Ordering::Relaxed);
    let r = r.unwrap();
    // One loop: the merged series has its length.
    ((after - before) - r.per_second.len() as u64, r)
}

/// Asserts that dropping 10,000 requests costs the loops what dropping 1,000 does: an
/// open loop to a port that refuses every connect, so that no connection ever takes one.
fn assert_dropping_allocates_nothing(io: IoChoice) {
    let refused = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let dropped = |requests: u64| {
        let c = config(refused, requests, |c| {
            c.io = io;
            // Due within 10 ms at most, each dropped 20 ms later.
            c.pace = Pace::Open(RateSchedule::constant(1_000_000.0));
            c.timeout = Duration::from_millis(20);
        });
        // Without the pre-flight, which the refusing port would fail.
        let (allocations, r) = run_counted(&engine::check_settings(&c).unwrap());
        assert_eq!(r.requests.dropped, requests, "{io:?}: {:?}", r.requests);
        allocations
    };
    let (few, many) = (dropped(1_000), dropped(10_000));
    assert_eq!(
        few, many,
        "{io:?}, dropped: beyond their seconds, {few} allocations for 1,000 requests, {many} \
         for 10,000"
    );
}

/// Asserts that 10,000 requests cost the loops what 1,000 do, beyond their seconds.
fn assert_no_allocation_per_request(what: &str, addr: SocketAddr, tweak: impl Fn(&mut LoadConfig)) {
    let few = allocations_beyond_seconds(addr, 1_000, &tweak);
    let many = allocations_beyond_seconds(addr, 10_000, &tweak);
    assert_eq!(
        few, many,
        "{what}: beyond their seconds, {few} allocations for 1,000 requests, {many} for 10,000"
    );
}

/// rustls 0.23's unbuffered API allocates twice per request and response, and nothing
/// of this engine's use can avoid either (read in rustls 0.23.46's source, confirmed by
/// the count): `WriteTraffic::encrypt` has the provider seal each record into a new
/// `Vec` (`MessageEncrypter::encrypt` returns an owned `OutboundOpaqueMessage`,
/// crypto/aws_lc_rs/tls13.rs) and copies it out; a received record is decrypted in place,
/// then copied into a new `Vec` (`CommonState::take_received_plaintext`, `into_vec`) that
/// `ReadTraffic::next_record` lends and drops. One record each way per request here, so
/// exactly 2 per request: the bound this asserts. Everything else of the TLS path (the
/// out-buffers and carries the loop lends, the input buffer) allocates once, not per
/// request.
///
/// The way out is not published yet (read 2026-11-28): rustls 0.24.0-dev.2 encrypts into a
/// caller's buffer (`encrypt_outgoing_into`, rustls PR 3127), but it has no unbuffered API
/// any more (a split one instead), and its providers are separate crates that are
/// placeholders so far (rustls-aws-lc-rs 0.0.1 and rustls-ring 0.0.1: "Coming soon").
const RUSTLS_ALLOCATIONS_PER_REQUEST: u64 = 2;

/// Asserts that over TLS, 10,000 requests cost the loops what 1,000 do, beyond their
/// seconds, plus exactly rustls's allocations for the 9,000 more.
fn assert_rustls_allocations_only(what: &str, addr: SocketAddr, tweak: impl Fn(&mut LoadConfig)) {
    let few = allocations_beyond_seconds(addr, 1_000, &tweak);
    let many = allocations_beyond_seconds(addr, 10_000, &tweak);
    let rustls = RUSTLS_ALLOCATIONS_PER_REQUEST * 9_000;
    assert_eq!(
        many,
        few + rustls,
        "{what}: beyond their seconds, {few} allocations for 1,000 requests, {many} for \
         10,000: {} per request more, want {RUSTLS_ALLOCATIONS_PER_REQUEST}",
        (many as f64 - few as f64) / 9_000.0
    );
}

/// Varying requests to `addr`: a GET and a POST with a body (3 to 1), random numbers, a
/// sequence number and a list's item in a header, and the answer expected from the item
/// (the servers here answer `Hello World`, the list's one item).
fn varying(addr: SocketAddr) -> Vary {
    let mut spec = LoadSpec::new(format!("http://{addr}/").parse().unwrap());
    spec.headers = vec!["X-Word: {w=list:Hello World}".parse().unwrap()];
    spec.vary = Some(VarySpec {
        seed: Some(1),
        requests: [
            "3*GET /q?a={rand:1-1000000}&n={seq}",
            "POST /p n={seq}&b={rand:1-9}",
        ]
        .map(|r| r.parse().unwrap())
        .to_vec(),
        expect: Some("{w}".parse().unwrap()),
    });
    spec.resolve().unwrap().vary.unwrap()
}

#[test]
fn neither_a_request_nor_a_connection_allocates() {
    ignore_this_thread();
    let pki = TestPki::new().unwrap();
    let over_tls = serve_tls(&pki);
    let (keepalive, one_per_connection) = (serve(), serve_one_per_connection());
    let over_h2c = serve_h2();
    let over_ws = serve_ws();
    for io in [IoChoice::Epoll, IoChoice::Uring] {
        let closed = |c: &mut LoadConfig| c.io = io;
        assert_no_allocation_per_request(&format!("{io:?}, keep-alive"), keepalive, closed);
        // An open loop without keep-alive: a new connection per request.
        let open = |c: &mut LoadConfig| {
            c.io = io;
            c.keepalive = false;
            c.pace = Pace::Open(RateSchedule::constant(10_000.0));
        };
        let what = format!("{io:?}, a fixed rate without keep-alive");
        assert_no_allocation_per_request(&what, one_per_connection, open);
        let tls = |c: &mut LoadConfig| {
            c.io = io;
            c.tls = Some(TlsClient {
                config: pki.client_config().unwrap(),
                server_name: TestPki::server_name(),
                resume: Resume::Tickets,
                http2: false,
            });
        };
        assert_rustls_allocations_only(&format!("{io:?}, keep-alive over TLS"), over_tls, tls);
        // Varying requests, pipelined: drawn, rendered into each connection's buffer and
        // their answers checked, in clear text and over TLS.
        let vary = |c: &mut LoadConfig| {
            c.io = io;
            c.pipeline = 4;
            c.vary = Some(varying(keepalive));
        };
        assert_no_allocation_per_request(&format!("{io:?}, varying"), keepalive, vary);
        let vary_tls = |c: &mut LoadConfig| {
            tls(c);
            c.vary = Some(varying(over_tls));
        };
        let what = format!("{io:?}, varying over TLS");
        assert_rustls_allocations_only(&what, over_tls, vary_tls);
        // HTTP/2, 10 streams per connection: streams, frames and header blocks reuse
        // the slot's session, whose buffers are made once.
        let h2c = |c: &mut LoadConfig| {
            c.io = io;
            c.http2 = true;
            c.streams = 10;
        };
        assert_no_allocation_per_request(&format!("{io:?}, h2c, 10 streams"), over_h2c, h2c);
        // Varying over HTTP/2: each stream's block and body rendered into the slot's
        // buffers, its answer checked.
        let vary_h2c = |c: &mut LoadConfig| {
            h2c(c);
            c.vary = Some(varying(over_h2c));
        };
        let what = format!("{io:?}, varying h2c, 10 streams");
        assert_no_allocation_per_request(&what, over_h2c, vary_h2c);
        // WebSocket echoes, 4 messages in flight per connection: each masked into the
        // slot's lent buffer and its echo compared as it arrives; the upgrades and the
        // close handshakes at the end are per connection.
        let ws = |c: &mut LoadConfig| {
            c.io = io;
            c.websocket = Some(WebSocketSpec {
                in_flight: 4,
                ..WebSocketSpec::default()
            });
        };
        assert_no_allocation_per_request(&format!("{io:?}, WebSocket, 4 in flight"), over_ws, ws);
        // Handshake churn: a new connection every 100 messages, each upgraded and closed
        // with the close handshake, in the buffers lent before.
        let churn = |c: &mut LoadConfig| {
            c.io = io;
            c.websocket = Some(WebSocketSpec {
                messages_per_connection: Some(100),
                ..WebSocketSpec::default()
            });
        };
        let what = format!("{io:?}, WebSocket, a new connection every 100 messages");
        assert_no_allocation_per_request(&what, over_ws, churn);
        // Devices, over HTTP and WebSocket: each device's next request (message) a timer
        // in the loop's heap, sent on its held connection (no think time here, so that
        // the count is quick).
        let devices = |c: &mut LoadConfig| {
            c.io = io;
            c.pace = Pace::Devices(DeviceScript {
                count: RateSchedule::parse_device_count("4").unwrap(),
                requests: 1_000_000,
                think: Duration::ZERO,
                jitter: 0.0,
            });
        };
        assert_no_allocation_per_request(&format!("{io:?}, devices"), keepalive, devices);
        let ws_devices = |c: &mut LoadConfig| {
            devices(c);
            c.websocket = Some(WebSocketSpec::default());
        };
        let what = format!("{io:?}, WebSocket devices");
        assert_no_allocation_per_request(&what, over_ws, ws_devices);
        assert_dropping_allocates_nothing(io);
    }
}
