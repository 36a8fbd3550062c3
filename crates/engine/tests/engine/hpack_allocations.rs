//! The HPACK decoder allocates nothing per header block once its table is full, and the request block nothing per
//! request or connection: counted on this test's own thread (`thread_allocations`).
//!
//! `hpack_decode_speed` (ignored; `cargo test --release -p shootout-engine --test engine
//! hpack_decode_speed -- --ignored --nocapture`) prints ns per nginx block, the figure
//! bench/h2-probe's `hpackbench` prints for the probe's decoder.

use engine::{HpackDecoder, HpackRequestBlock};
use std::hint::black_box;
use std::time::Instant;

use crate::thread_allocations::allocations;

/// nginx 1.22's response header block for `return 200 "Hello World"`, captured by
/// bench/h2-probe (`own --dump 1`): :status 200 indexed, then server, date, content-type
/// (Huffman) and content-length (raw) as literals with incremental indexing, so every
/// block inserts 4 entries and, once the table is full, evicts as many.
const NGINX_BLOCK: &str = "887689aa6355e580ae212e1f6196df3dbf4a09c5349fba82009c5020b8172e0\
                           44a62d1bf5f87497ca58ae819aa5c023131";

fn nginx_block() -> Vec<u8> {
    let hex = NGINX_BLOCK.as_bytes();
    let digit = |d: u8| (d as char).to_digit(16).expect("hex") as u8;
    hex.chunks(2)
        .map(|pair| digit(pair[0]) << 4 | digit(pair[1]))
        .collect()
}

#[test]
fn the_count_sees_an_allocation() {
    assert_eq!(
        allocations(|| drop(black_box(Vec::<u8>::with_capacity(8)))),
        1
    );
}

#[test]
fn decoding_nginx_blocks_allocates_nothing_once_the_table_is_full() {
    let block = nginx_block();
    assert_eq!(block.len(), 49);
    let mut decoder = HpackDecoder::new(4096);
    let mut fields = Vec::new();
    decoder
        .decode(&block, |name, value| {
            fields.push((name.to_vec(), value.to_vec()))
        })
        .unwrap();
    let text = |octets: &[u8]| String::from_utf8(octets.to_vec()).unwrap();
    let fields: Vec<(String, String)> = fields.iter().map(|(n, v)| (text(n), text(v))).collect();
    let names: Vec<&str> = fields.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            ":status",
            "server",
            "date",
            "content-type",
            "content-length"
        ]
    );
    assert_eq!(
        (fields[0].1.as_str(), fields[1].1.as_str()),
        ("200", "nginx/1.22.1")
    );
    assert_eq!(
        (fields[3].1.as_str(), fields[4].1.as_str()),
        ("text/plain", "11")
    );

    // The dynamic table grows to its working size as entries come (a held connection
    // keeps what its server's fields take): a few doublings while it fills, then nothing.
    let mut count = 0;
    let mut decode = |blocks: usize| {
        allocations(|| {
            for _ in 0..blocks {
                decoder.decode(&block, |_, _| count += 1).unwrap();
            }
        })
    };
    let growing = decode(99);
    assert!(
        growing <= 16,
        "{growing} allocations while the table filled"
    );
    assert_eq!(
        decode(9_900),
        0,
        "allocations in 9,900 blocks after the first 100"
    );
    assert_eq!(count, 5 * 9_999);
}

#[test]
fn request_blocks_allocate_nothing_per_request_or_connection() {
    let fields: [(&[u8], &[u8]); 5] = [
        (b":method", b"GET"),
        (b":scheme", b"http"),
        (b":path", b"/hello"),
        (b":authority", b"127.0.0.1:8080"),
        (b"user-agent", b"shootout"),
    ];
    let mut request = HpackRequestBlock::new(&fields);
    let mut octets = 0;
    let allocated = allocations(|| {
        for connection in 0..100 {
            request.reset();
            for stream in 0..100 {
                if stream == 50 && connection % 2 == 0 {
                    request.peer_table_size(connection);
                }
                octets += black_box(request.block()).len();
            }
        }
    });
    assert!(octets > 0);
    assert_eq!(
        allocated, 0,
        "allocations in 100 connections of 100 requests"
    );
}

#[test]
#[ignore = "a measurement: run it alone, with --nocapture, in release"]
fn hpack_decode_speed() {
    let block = nginx_block();
    let mut decoder = HpackDecoder::new(4096);
    let mut decode = || {
        let mut fields = 0;
        decoder
            .decode(black_box(&block), |name, value| {
                black_box((name, value));
                fields += 1;
            })
            .unwrap();
        fields
    };
    for _ in 0..1_000 {
        decode();
    }
    let blocks = 2_000_000;
    let started = Instant::now();
    for _ in 0..blocks {
        black_box(decode());
    }
    let ns = started.elapsed().as_nanos() as f64 / blocks as f64;
    println!("engine hpack::Decoder, nginx's 49-octet block: {ns:.1} ns/block, 0 allocations");
}
