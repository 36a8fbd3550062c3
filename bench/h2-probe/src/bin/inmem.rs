//! The protocol work alone, no sockets: one client connection against a fake server in
//! memory that answers each request with nginx 1.22's exact response frames (HEADERS with
//! the captured 49-octet block, then DATA "Hello World" with END_STREAM), `-m` streams in
//! flight, the server answering at most `--per-round` requests per round trip.
//!
//! It is also the sketch of how the `h2` crate would sit in the engine's loops: the
//! connection's I/O is an AsyncRead/AsyncWrite over buffers the loop owns (here, `Pipe`),
//! every future is polled with `Waker::noop()`, and after each arrival the loop polls the
//! connection and then every stream of it.
//!
//! usage: inmem [-m 10] [--per-round 10] [-n 2000000]
//! prints, per client: ns of thread CPU per request (the fake server's share subtracted)
//! and allocations per request.

use bytes::Bytes;
use h2probe::alloc_count::{self, Counting};
use h2probe::h2client::{Client, Counts};
use std::cell::RefCell;
use std::future::Future;
use std::pin::{Pin, pin};
use std::rc::Rc;
use std::sync::atomic::Ordering::Relaxed;
use std::task::{Context, Poll, Waker};

#[global_allocator]
static A: Counting = Counting;

const NGINX_BLOCK: &str = "887689aa6355e580ae212e1f6196df3dbf4a09c5349fba82009c5020b8172e044a62d1bf5f87497ca58ae819aa5c023131";
const WINDOW: u32 = (1 << 30) - 1;

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

fn frame(out: &mut Vec<u8>, typ: u8, flags: u8, sid: u32, payload: &[u8]) {
    let len = payload.len();
    out.extend_from_slice(&[(len >> 16) as u8, (len >> 8) as u8, len as u8, typ, flags]);
    out.extend_from_slice(&sid.to_be_bytes());
    out.extend_from_slice(payload);
}

/// The fake server: reads the client's frames, answers SETTINGS with an ACK and each
/// HEADERS with nginx's response; keeps unanswered requests queued past `per_round`.
struct FakeServer {
    inbuf: Vec<u8>,
    preface_done: bool,
    queued: std::collections::VecDeque<u32>,
    block: Vec<u8>,
    per_round: usize,
    ns: u64, // thread CPU spent in the server, subtracted from the client's
    hdr_octets: u64,
    hdr_frames: u64,
}

impl FakeServer {
    fn new(per_round: usize, out: &mut Vec<u8>) -> Self {
        // nginx's first flight: SETTINGS (MAX_CONCURRENT_STREAMS 128, INITIAL_WINDOW_SIZE
        // 65536, MAX_FRAME_SIZE 16777215) and a connection WINDOW_UPDATE.
        let mut s = Vec::new();
        for (id, v) in [(3u16, 128u32), (4, 65536), (5, 16_777_215)] {
            s.extend_from_slice(&id.to_be_bytes());
            s.extend_from_slice(&v.to_be_bytes());
        }
        frame(out, 4, 0, 0, &s);
        frame(out, 8, 0, 0, &2_147_418_112u32.to_be_bytes());
        FakeServer {
            inbuf: Vec::with_capacity(64 * 1024),
            preface_done: false,
            queued: Default::default(),
            block: unhex(NGINX_BLOCK),
            per_round,
            ns: 0,
            hdr_octets: 0,
            hdr_frames: 0,
        }
    }

    fn step(&mut self, from_client: &[u8], out: &mut Vec<u8>) {
        let t0 = thread_cpu_ns();
        self.inbuf.extend_from_slice(from_client);
        let mut pos = 0;
        if !self.preface_done && self.inbuf.len() >= 24 {
            assert_eq!(&self.inbuf[..24], b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
            pos = 24;
            self.preface_done = true;
        }
        if self.preface_done {
            while self.inbuf.len() - pos >= 9 {
                let h = &self.inbuf[pos..pos + 9];
                let len = (h[0] as usize) << 16 | (h[1] as usize) << 8 | h[2] as usize;
                if self.inbuf.len() - pos < 9 + len {
                    break;
                }
                let (typ, flags) = (h[3], h[4]);
                let sid = u32::from_be_bytes([h[5], h[6], h[7], h[8]]) & 0x7fff_ffff;
                match typ {
                    1 => {
                        self.queued.push_back(sid);
                        self.hdr_octets += len as u64;
                        self.hdr_frames += 1;
                    }
                    4 if flags & 1 == 0 => frame(out, 4, 1, 0, &[]),
                    _ => {}
                }
                pos += 9 + len;
            }
            self.inbuf.drain(..pos);
        }
        for _ in 0..self.per_round {
            let Some(sid) = self.queued.pop_front() else { break };
            frame(out, 1, 4, sid, &self.block);
            frame(out, 0, 1, sid, b"Hello World");
        }
        self.ns += thread_cpu_ns() - t0;
    }
}

struct Result {
    req_block: f64, // mean request header block, octets
    ns_per_req: f64,
    allocs_per_req: f64,
    server_ns_per_req: f64,
}

fn run_own(m: usize, per_round: usize, n: u64, loona: bool) -> Result {
    let mut to_client = Vec::with_capacity(64 * 1024);
    let mut server = FakeServer::new(per_round, &mut to_client);
    let mut c = Client::new("127.0.0.1:18480", "/hello", m, loona);
    c.start_streams();
    let mut counts = Counts::default();
    let mut dump = 0;
    let mut measure_from: Option<(u64, u64, u64, u64)> = None;
    while counts.ok < n {
        if measure_from.is_none() && counts.ok >= n / 10 {
            alloc_count::ON.store(true, Relaxed);
            measure_from = Some((thread_cpu_ns(), alloc_count::allocs(), counts.ok, server.ns));
        }
        let out = c.outgoing();
        let len = out.len();
        server.step(out, &mut to_client);
        c.sent(len);
        let mut off = 0;
        while off < to_client.len() {
            let space = c.read_space();
            let k = space.len().min(to_client.len() - off);
            space[..k].copy_from_slice(&to_client[off..off + k]);
            off += k;
            c.received(k, &mut counts, true, &mut dump);
        }
        to_client.clear();
        assert!(!c.dead && counts.errors == 0);
    }
    let (t0, a0, ok0, s0) = measure_from.unwrap();
    let (t1, a1, s1) = (thread_cpu_ns(), alloc_count::allocs(), server.ns);
    alloc_count::ON.store(false, Relaxed);
    let reqs = (counts.ok - ok0) as f64;
    Result {
        req_block: server.hdr_octets as f64 / server.hdr_frames as f64,
        ns_per_req: ((t1 - t0) - (s1 - s0)) as f64 / reqs,
        allocs_per_req: (a1 - a0) as f64 / reqs,
        server_ns_per_req: (s1 - s0) as f64 / reqs,
    }
}

/// The engine's buffers, seen by h2 as its I/O.
#[derive(Default)]
struct Pipe {
    to_client: Vec<u8>,
    cpos: usize,
    to_server: Vec<u8>,
}

struct MemIo(Rc<RefCell<Pipe>>);

impl tokio::io::AsyncRead for MemIo {
    fn poll_read(self: Pin<&mut Self>, _cx: &mut Context<'_>, buf: &mut tokio::io::ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        let mut p = self.0.borrow_mut();
        let avail = p.to_client.len() - p.cpos;
        if avail == 0 {
            return Poll::Pending; // the loop polls again after the next arrival
        }
        let k = avail.min(buf.remaining());
        let start = p.cpos;
        buf.put_slice(&p.to_client[start..start + k]);
        p.cpos += k;
        if p.cpos == p.to_client.len() {
            p.to_client.clear();
            p.cpos = 0;
        }
        Poll::Ready(Ok(()))
    }
}

impl tokio::io::AsyncWrite for MemIo {
    fn poll_write(self: Pin<&mut Self>, _cx: &mut Context<'_>, data: &[u8]) -> Poll<std::io::Result<usize>> {
        self.0.borrow_mut().to_server.extend_from_slice(data);
        Poll::Ready(Ok(data.len()))
    }
    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }
    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

enum Slot {
    Empty,
    Waiting(h2::client::ResponseFuture),
    Body(h2::RecvStream, bool),
}

/// With `--trace-allocs`, the h2 run records a backtrace for each allocation of one round
/// trip in the steady state and prints the frames of h2/http/bytes/tokio-util per allocation.
static TRACE_ROUND: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

fn run_h2(m: usize, per_round: usize, n: u64) -> Result {
    let pipe = Rc::new(RefCell::new(Pipe::default()));
    let mut server = {
        let mut p = pipe.borrow_mut();
        FakeServer::new(per_round, &mut p.to_client)
    };
    let mut cx = Context::from_waker(Waker::noop());
    let mut hs = pin!(
        h2::client::Builder::new()
            .initial_window_size(WINDOW)
            .initial_connection_window_size(WINDOW)
            .enable_push(false)
            .handshake::<_, Bytes>(MemIo(pipe.clone()))
    );
    let (mut send, conn) = loop {
        if let Poll::Ready(r) = hs.as_mut().poll(&mut cx) {
            break r.expect("handshake");
        }
    };
    let mut conn = pin!(conn);
    let req = http::Request::builder()
        .uri(http::Uri::from_static("http://127.0.0.1:18480/hello"))
        .header("user-agent", http::HeaderValue::from_static("h2probe"))
        .body(())
        .unwrap();
    let mut slots: Vec<Slot> = (0..m).map(|_| Slot::Empty).collect();
    let (mut ok, mut bad) = (0u64, 0u64);
    let mut measure_from: Option<(u64, u64, u64, u64)> = None;
    while ok < n {
        if measure_from.is_none() && ok >= n / 10 {
            alloc_count::ON.store(true, Relaxed);
            measure_from = Some((thread_cpu_ns(), alloc_count::allocs(), ok, server.ns));
            if TRACE_ROUND.load(Relaxed) {
                alloc_count::TRACE.store(1000, Relaxed);
            }
        } else if measure_from.is_some() && alloc_count::TRACE.load(Relaxed) > 0 {
            alloc_count::TRACE.store(0, Relaxed);
            print_traces();
        }
        for slot in slots.iter_mut() {
            if matches!(slot, Slot::Empty) {
                match send.poll_ready(&mut cx) {
                    Poll::Ready(Ok(())) => {
                        let (f, _) = send.send_request(req.clone(), true).expect("send");
                        *slot = Slot::Waiting(f);
                    }
                    _ => break,
                }
            }
        }
        // The connection writes what the streams queued; the server answers; the
        // connection reads it and hands it to the streams.
        if let Poll::Ready(r) = conn.as_mut().poll(&mut cx) {
            panic!("connection ended: {r:?}");
        }
        {
            let mut p = pipe.borrow_mut();
            let p = &mut *p;
            server.step(&p.to_server, &mut p.to_client);
            p.to_server.clear();
        }
        if let Poll::Ready(r) = conn.as_mut().poll(&mut cx) {
            panic!("connection ended: {r:?}");
        }
        for slot in slots.iter_mut() {
            if let Slot::Waiting(f) = slot {
                match Pin::new(f).poll(&mut cx) {
                    Poll::Ready(Ok(resp)) => {
                        let good = resp.status().is_success();
                        *slot = Slot::Body(resp.into_body(), good);
                    }
                    Poll::Ready(Err(e)) => panic!("stream: {e}"),
                    Poll::Pending => {}
                }
            }
            if let Slot::Body(body, good) = slot {
                loop {
                    match body.poll_data(&mut cx) {
                        Poll::Ready(Some(Ok(d))) => {
                            let _ = body.flow_control().release_capacity(d.len());
                        }
                        Poll::Ready(Some(Err(e))) => panic!("body: {e}"),
                        Poll::Ready(None) => {
                            if *good {
                                ok += 1
                            } else {
                                bad += 1
                            }
                            *slot = Slot::Empty;
                            break;
                        }
                        Poll::Pending => break,
                    }
                }
            }
        }
    }
    assert_eq!(bad, 0);
    let (t0, a0, ok0, s0) = measure_from.unwrap();
    let (t1, a1, s1) = (thread_cpu_ns(), alloc_count::allocs(), server.ns);
    alloc_count::ON.store(false, Relaxed);
    let reqs = (ok - ok0) as f64;
    Result {
        req_block: server.hdr_octets as f64 / server.hdr_frames as f64,
        ns_per_req: ((t1 - t0) - (s1 - s0)) as f64 / reqs,
        allocs_per_req: (a1 - a0) as f64 / reqs,
        server_ns_per_req: (s1 - s0) as f64 / reqs,
    }
}

fn print_traces() {
    alloc_count::TRACES.with(|t| {
        let t = t.borrow();
        println!("-- allocations in one steady round trip of the h2 run: {}", t.len());
        for (i, (size, bt)) in t.iter().enumerate() {
            let text = format!("{bt}");
            let frames: Vec<&str> = text
                .lines()
                .filter(|l| !l.trim_start().starts_with("at "))
                .map(|l| l.trim())
                .filter(|l| ["h2::", "http::", "bytes::", "tokio_util::", "inmem::"].iter().any(|k| l.contains(k)))
                .take(4)
                .collect();
            println!("#{i} {size} B: {}", frames.join(" <- "));
        }
    });
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
    let m: usize = arg(&args, "-m", 10);
    let per_round: usize = arg(&args, "--per-round", m);
    let n: u64 = arg(&args, "-n", 2_000_000);
    TRACE_ROUND.store(args.iter().any(|a| a == "--trace-allocs"), Relaxed);
    if TRACE_ROUND.load(Relaxed) {
        run_h2(m, per_round, 100_000);
        return;
    }
    println!("one connection in memory, -m {m}, the server answers up to {per_round} per round trip, {n} requests");
    println!("{:<34} {:>12} {:>14} {:>16} {:>22}", "client", "ns/req", "allocs/req", "(server ns/req)", "request block, octets");
    for (name, r) in [
        ("own framing + own HPACK", run_own(m, per_round, n, false)),
        ("h2 0.4 crate, noop waker", run_h2(m, per_round, n)),
        ("own framing + loona-hpack", run_own(m, per_round, n / 20, true)),
    ] {
        println!("{:<34} {:>12.1} {:>14.2} {:>16.1} {:>22.2}", name, r.ns_per_req, r.allocs_per_req, r.server_ns_per_req, r.req_block);
    }
}
