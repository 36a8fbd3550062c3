//! The framing of one WebSocket echo, in memory, per message: the engine's own session
//! against tungstenite's `WebSocket` over an in-memory stream (its no-I/O use). Each side
//! frames a masked client message, then reads the server's unmasked echo; the server's
//! side is a constant frame (an echo is the same octets every time). Prints nanoseconds
//! and allocations per message.

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::{self, Read, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;
use tungstenite::protocol::{Role, WebSocket};
use tungstenite::{Bytes, Message, Utf8Bytes};

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

const MESSAGES: u64 = 1_000_000;

/// An in-memory socket: reads what was put in, then WouldBlock; writes are counted and
/// dropped.
#[derive(Default)]
struct Memory {
    input: Vec<u8>,
    at: usize,
    written: usize,
}

impl Read for Memory {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = &self.input[self.at..];
        if left.is_empty() {
            return Err(io::ErrorKind::WouldBlock.into());
        }
        let n = left.len().min(buf.len());
        buf[..n].copy_from_slice(&left[..n]);
        self.at += n;
        Ok(n)
    }
}

impl Write for Memory {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.written += buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The server's unmasked frame carrying `payload`.
fn server_frame(binary: bool, payload: &[u8]) -> Vec<u8> {
    let mut f = vec![if binary { 0x82 } else { 0x81 }];
    match payload.len() {
        n @ 0..=125 => f.push(n as u8),
        n => {
            f.push(126);
            f.extend_from_slice(&(n as u16).to_be_bytes());
        }
    }
    f.extend_from_slice(payload);
    f
}

fn payload(size: usize, binary: bool) -> Vec<u8> {
    let text = b"abcdefghijklmnopqrstuvwxyz0123456789";
    (0..size)
        .map(|i| if binary { (i % 256) as u8 } else { text[i % text.len()] })
        .collect()
}

/// (ns, allocations) per message of `f` run `MESSAGES` times.
fn measure(mut f: impl FnMut()) -> (f64, f64) {
    for _ in 0..10_000 {
        f();
    }
    let a0 = ALLOCATIONS.load(Ordering::Relaxed);
    let t0 = Instant::now();
    for _ in 0..MESSAGES {
        f();
    }
    let ns = t0.elapsed().as_nanos() as f64 / MESSAGES as f64;
    let allocs = (ALLOCATIONS.load(Ordering::Relaxed) - a0) as f64 / MESSAGES as f64;
    (ns, allocs)
}

fn own(size: usize, binary: bool) -> (f64, f64) {
    let echo = server_frame(binary, &payload(size, binary));
    let mut probe = engine::fuzzing::WsProbe::new(size, binary);
    let r = measure(|| {
        probe.send();
        probe.receive(&echo);
    });
    let c = probe.counts();
    assert_eq!(c.ok, MESSAGES + 10_000, "every echo right: {c:?}");
    r
}

fn tungstenite(size: usize, binary: bool) -> (f64, f64) {
    let body = payload(size, binary);
    let echo = server_frame(binary, &body);
    let mut ws = WebSocket::from_raw_socket(Memory::default(), Role::Client, None);
    let shared = Bytes::from(body.clone());
    let text = match binary {
        true => Utf8Bytes::from_static(""),
        false => Utf8Bytes::try_from(shared.clone()).expect("ASCII"),
    };
    let mut right = 0u64;
    let r = measure(|| {
        let message = match binary {
            true => Message::Binary(shared.clone()),
            false => Message::Text(text.clone()),
        };
        ws.send(message).expect("sent");
        let s = ws.get_mut();
        s.input.clear();
        s.at = 0;
        s.input.extend_from_slice(&echo);
        if let Ok(m) = ws.read() {
            right += u64::from(m.into_data() == shared);
        }
    });
    assert_eq!(right, MESSAGES + 10_000);
    r
}

fn main() {
    println!("| framing | message | ns/message | allocations/message |");
    println!("|---|---|---|---|");
    for (size, binary) in [(32, false), (1024, true), (16 * 1024, true)] {
        let kind = if binary { "binary" } else { "text" };
        for (name, f) in [("own (engine::ws)", own as fn(usize, bool) -> (f64, f64)), ("tungstenite 0.27", tungstenite)] {
            let (ns, allocs) = f(size, binary);
            println!("| {name} | {size} B {kind} | {ns:.0} | {allocs:.2} |");
        }
    }
}
