//! Micro-benchmark: decode nginx 1.22's response header block for `return 200 "Hello
//! World"` (captured off the wire by `own --dump 1`), over and over with one decoder, as one
//! connection would: nginx sends every field but :status as a literal *with incremental
//! indexing* and never refers to the table, so each block inserts 4 entries and, once the
//! 4096-octet table is full, evicts as many. Reports ns and allocations per block.
//!
//! usage: hpackbench [SECONDS_PER_DECODER]

use h2probe::alloc_count::{self, Counting};
use h2probe::hpack_own;
use std::hint::black_box;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Instant;

#[global_allocator]
static A: Counting = Counting;

const NGINX_BLOCK: &str = "887689aa6355e580ae212e1f6196df3dbf4a09c5349fba82009c5020b8172e044a62d1bf5f87497ca58ae819aa5c023131";

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

/// Run `f` (one block) for about `secs`, after a warm-up that fills the dynamic table;
/// return (ns per block, allocations per block, fields seen in the last block).
fn bench(secs: f64, mut f: impl FnMut() -> usize) -> (f64, f64, usize) {
    let mut fields = 0;
    for _ in 0..1000 {
        fields = f();
    }
    // Calibrate a batch size of roughly 10 ms.
    let t = Instant::now();
    let mut n = 0u64;
    while t.elapsed().as_secs_f64() < 0.01 {
        f();
        n += 1;
    }
    let batch = n.max(1);
    alloc_count::ON.store(true, Relaxed);
    let a0 = alloc_count::allocs();
    alloc_count::ON.store(false, Relaxed);
    // Count allocations over one batch, then time without counting.
    alloc_count::ON.store(true, Relaxed);
    for _ in 0..batch {
        f();
    }
    alloc_count::ON.store(false, Relaxed);
    let allocs = (alloc_count::allocs() - a0) as f64 / batch as f64;
    let t = Instant::now();
    let mut done = 0u64;
    while t.elapsed().as_secs_f64() < secs {
        for _ in 0..batch {
            black_box(f());
        }
        done += batch;
    }
    (t.elapsed().as_nanos() as f64 / done as f64, allocs, fields)
}

fn main() {
    let secs: f64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(1.0);
    let block = unhex(NGINX_BLOCK);
    println!("block: {} octets: :status 200 (indexed), server, date, content-type (Huffman, incremental indexing), content-length (raw, incremental indexing)", block.len());
    println!("{:<28} {:>10} {:>14} {:>7}", "decoder", "ns/block", "allocs/block", "fields");

    let mut own = hpack_own::Decoder::new();
    let r = bench(secs, || {
        let mut n = 0;
        own.decode(black_box(&block), |name, value| {
            black_box((name, value));
            n += 1;
        })
        .unwrap();
        n
    });
    println!("{:<28} {:>10.1} {:>14.2} {:>7}", "own (src/hpack_own.rs)", r.0, r.1, r.2);

    let mut loona = loona_hpack::Decoder::new();
    let r = bench(secs, || {
        let mut n = 0;
        loona
            .decode_with_cb(black_box(&block), |name, value| {
                black_box((&name, &value));
                n += 1;
            })
            .unwrap();
        n
    });
    println!("{:<28} {:>10.1} {:>14.2} {:>7}", "loona-hpack 0.4.3 (cb)", r.0, r.1, r.2);

    let mut fluke = fluke_hpack::Decoder::new();
    let r = bench(secs, || {
        let mut n = 0;
        fluke
            .decode_with_cb(black_box(&block), |name, value| {
                black_box((&name, &value));
                n += 1;
            })
            .unwrap();
        n
    });
    println!("{:<28} {:>10.1} {:>14.2} {:>7}", "fluke-hpack 0.3.1 (cb)", r.0, r.1, r.2);

    let mut old = hpack::Decoder::new();
    let r = bench(secs, || {
        let mut n = 0;
        old.decode_with_cb(black_box(&block), |name, value| {
            black_box((&name, &value));
            n += 1;
        })
        .unwrap();
        n
    });
    println!("{:<28} {:>10.1} {:>14.2} {:>7}", "hpack 0.3.0 (cb)", r.0, r.1, r.2);

    let mut httlib = httlib_hpack::Decoder::default();
    let mut dst = Vec::with_capacity(16);
    let mut buf = Vec::with_capacity(block.len());
    let r = bench(secs, || {
        // Its API consumes a Vec<u8>: refill one kept buffer (no allocation for that).
        buf.clear();
        buf.extend_from_slice(&block);
        dst.clear();
        httlib.decode(&mut buf, &mut dst).unwrap();
        black_box(&dst);
        dst.len()
    });
    println!("{:<28} {:>10.1} {:>14.2} {:>7}", "httlib-hpack 0.1.3", r.0, r.1, r.2);
}
