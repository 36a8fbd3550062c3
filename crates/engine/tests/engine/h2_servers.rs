//! HTTP/2 loads against the test kit's HTTP/2 server, well-behaved and misbehaving: every
//! stream is counted once under its class, the counts add up and match the server's, and
//! nothing panics, on both event-loop kinds, in clear text (h2c) and over TLS (ALPN h2).
//! Loads go to 127.0.0.1 only and each is bounded by a request count (every request ends,
//! at worst by its timeout) or a short duration.
//!
//! A table, as misbehaving_servers.rs has for HTTP/1.1: each row names the server's
//! behaviour, how its load differs from the usual one, and a check of the result against
//! the server's own counters.

use engine::{IoChoice, LoadConfig, LoadResult, Pace, RateSchedule, Resume, Stop, Target};
use engine::{RunError, TlsClient};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use testserver::{H2Behavior, RstCode, TestPki, TestServer, Tls};

const BACKENDS: [IoChoice; 2] = [IoChoice::Epoll, IoChoice::Uring];

/// How a row's load differs from the usual one: 4 connections of 10 streams, 200 requests.
#[derive(Clone)]
struct Load {
    requests: u64,
    connections: usize,
    streams: usize,
    body: usize,
    timeout: Duration,
    tls: bool,
    /// Open loop at this many requests/s for a second, instead of a request count.
    rate: Option<u32>,
}

const LOAD: Load = Load {
    requests: 200,
    connections: 4,
    streams: 10,
    body: 0,
    timeout: Duration::from_secs(3),
    tls: false,
    rate: None,
};

/// What a row's result must show, given the server's counters; Err says what is wrong.
type Check = fn(&LoadResult, &TestServer) -> Result<(), String>;

struct Row {
    name: &'static str,
    behavior: H2Behavior,
    load: Load,
    check: Check,
}

fn rows() -> Vec<Row> {
    vec![
        Row {
            name: "a well-behaved server: every stream counted once, as the server counts it",
            behavior: H2Behavior::Hello,
            load: LOAD,
            check: |r, s| {
                same("ok", r.requests.ok, 200)?;
                eventually("the server's requests", || s.requests(), 200)?;
                same("connections opened", r.connections.opened, 4)?;
                let settings =
                    r.h2.as_ref()
                        .and_then(|h| h.settings)
                        .ok_or("no settings")?;
                same(
                    "max streams",
                    settings.max_concurrent_streams.unwrap_or(0).into(),
                    100,
                )
            },
        },
        Row {
            name: "over TLS, by ALPN h2",
            behavior: H2Behavior::Hello,
            load: Load { tls: true, ..LOAD },
            check: |r, s| {
                same("ok", r.requests.ok, 200)?;
                eventually("the server's requests", || s.requests(), 200)?;
                let alpn = r.tls.as_ref().and_then(|t| t.negotiated.as_ref());
                match alpn.and_then(|n| n.alpn.as_deref()) {
                    Some("h2") => Ok(()),
                    other => Err(format!("ALPN {other:?}")),
                }
            },
        },
        Row {
            name: "responses larger than the server's frames and the first window",
            behavior: H2Behavior::Body(200_000),
            load: Load {
                requests: 40,
                ..LOAD
            },
            check: |r, _| same("ok", r.requests.ok, 40),
        },
        Row {
            name: "request bodies larger than the server's window wait for WINDOW_UPDATE",
            behavior: H2Behavior::Hello,
            load: Load {
                requests: 40,
                body: 150_000,
                ..LOAD
            },
            check: |r, s| {
                same("ok", r.requests.ok, 40)?;
                eventually("the server's requests", || s.requests(), 40)?;
                at_least("bytes written", r.bytes.written, 40 * 150_000)
            },
        },
        Row {
            // The first request of each stream goes before the server's SETTINGS can say
            // its window is 0 (a client may use the default 65,535 until then): those 4
            // are answered; every later body waits for a window that never opens.
            name: "a window never opened: bodies cannot go, requests time out",
            behavior: H2Behavior::ZeroWindow,
            load: Load {
                requests: 8,
                connections: 2,
                streams: 2,
                body: 1_000,
                timeout: Duration::from_millis(300),
                ..LOAD
            },
            check: |r, _| {
                same("ok", r.requests.ok, 4)?;
                same("timeout", r.requests.timeout, 4)
            },
        },
        Row {
            name: "a server that answers the preface in HTTP/1.1 breaks HTTP/2",
            behavior: H2Behavior::BadPreface,
            load: Load {
                requests: 20,
                ..LOAD
            },
            check: |r, s| {
                same("h2", r.requests.h2, 20)?;
                eventually("the server's requests", || s.requests(), 0)?;
                let h2 = r.h2.as_ref().ok_or("no h2 books")?;
                at_least("PROTOCOL_ERROR", code(&h2.errors, "PROTOCOL_ERROR"), 1)?;
                match h2.first_error.as_deref() {
                    Some(e) if e.contains("HTTP/1.x") => Ok(()),
                    other => Err(format!("first error {other:?}")),
                }
            },
        },
        Row {
            name: "a frame over the client's SETTINGS_MAX_FRAME_SIZE is a FRAME_SIZE_ERROR",
            behavior: H2Behavior::OversizedFrameAfter(3),
            load: LOAD,
            check: |r, _| {
                at_least("h2", r.requests.h2, 1)?;
                at_least("ok", r.requests.ok, 3)?;
                same("ok + h2", r.requests.ok + r.requests.h2, 200)?;
                let h2 = r.h2.as_ref().ok_or("no h2 books")?;
                at_least("FRAME_SIZE_ERROR", code(&h2.errors, "FRAME_SIZE_ERROR"), 1)
            },
        },
        Row {
            name: "GOAWAY mid-load: unprocessed streams go again, each answered once",
            behavior: H2Behavior::GoawayAfter(25),
            load: LOAD,
            check: |r, s| {
                same("ok", r.requests.ok, 200)?;
                eventually("the server's responses", || s.responses(), 200)?;
                let h2 = r.h2.as_ref().ok_or("no h2 books")?;
                at_least("retried", h2.retried, 1)?;
                at_least("GOAWAY NO_ERROR", code(&h2.goaways, "NO_ERROR"), 1)
            },
        },
        Row {
            name: "GOAWAY mid-load over TLS",
            behavior: H2Behavior::GoawayAfter(25),
            load: Load { tls: true, ..LOAD },
            check: |r, s| {
                same("ok", r.requests.ok, 200)?;
                eventually("the server's responses", || s.responses(), 200)
            },
        },
        Row {
            name: "streams reset with INTERNAL_ERROR are reset",
            behavior: H2Behavior::RstEvery {
                every: 5,
                code: RstCode::Internal,
            },
            load: LOAD,
            check: |r, s| {
                eventually("the server's resets", || s.resets(), r.requests.reset)?;
                at_least("reset", r.requests.reset, 1)?;
                same("ok + reset", r.requests.ok + r.requests.reset, 200)?;
                let h2 = r.h2.as_ref().ok_or("no h2 books")?;
                same(
                    "INTERNAL_ERROR",
                    code(&h2.resets, "INTERNAL_ERROR"),
                    r.requests.reset,
                )
            },
        },
        Row {
            name: "a stream refused once goes again; refused twice, it is reset",
            behavior: H2Behavior::RstEvery {
                every: 2,
                code: RstCode::Refused,
            },
            load: LOAD,
            check: |r, s| {
                same("ok + reset", r.requests.ok + r.requests.reset, 200)?;
                let h2 = r.h2.as_ref().ok_or("no h2 books")?;
                eventually(
                    "the server's refusals",
                    || s.resets(),
                    code(&h2.resets, "REFUSED_STREAM"),
                )?;
                same("retried + reset", h2.retried + r.requests.reset, s.resets())
            },
        },
        Row {
            name: "HPACK that does not decode is a COMPRESSION_ERROR",
            behavior: H2Behavior::HpackGarbageAfter(3),
            load: LOAD,
            check: |r, _| {
                at_least("h2", r.requests.h2, 1)?;
                same("ok + h2", r.requests.ok + r.requests.h2, 200)?;
                let h2 = r.h2.as_ref().ok_or("no h2 books")?;
                at_least(
                    "COMPRESSION_ERROR",
                    code(&h2.errors, "COMPRESSION_ERROR"),
                    1,
                )
            },
        },
        Row {
            name: "MAX_CONCURRENT_STREAMS 1: the client keeps to it",
            behavior: H2Behavior::MaxConcurrentStreams(1),
            load: LOAD,
            check: |r, s| {
                same("ok", r.requests.ok, 200)?;
                eventually("the server's requests", || s.requests(), 200)?;
                // Streams opened before the server's SETTINGS came are refused and sent again.
                let h2 = r.h2.as_ref().ok_or("no h2 books")?;
                eventually("the server's refusals", || s.refused(), h2.retried)
            },
        },
        Row {
            name: "a flood of PINGs is answered and the load goes on",
            behavior: H2Behavior::PingFlood(3),
            load: LOAD,
            check: |r, s| {
                same("ok", r.requests.ok, 200)?;
                let h2 = r.h2.as_ref().ok_or("no h2 books")?;
                at_least("pings", h2.pings, 1)?;
                // The acks of the PINGs after each connection's last responses may still be
                // queued when the load ends: 3 PINGs after each of up to 10 streams, on 4.
                let acks = s.ping_acks();
                at_least(
                    "the server's acks",
                    acks,
                    h2.pings.saturating_sub(4 * 10 * 3),
                )?;
                at_least("PINGs answered", h2.pings, acks)
            },
        },
        Row {
            name: "GOAWAY with PROTOCOL_ERROR after the answered streams: the rest go again",
            behavior: H2Behavior::ProtocolErrorAfter(5),
            load: LOAD,
            check: |r, s| {
                same("ok", r.requests.ok, 200)?;
                eventually("the server's responses", || s.responses(), 200)?;
                let h2 = r.h2.as_ref().ok_or("no h2 books")?;
                at_least(
                    "GOAWAY PROTOCOL_ERROR",
                    code(&h2.goaways, "PROTOCOL_ERROR"),
                    1,
                )
            },
        },
        Row {
            name: "a response without :status is a parse error",
            behavior: H2Behavior::NoStatus,
            load: Load {
                requests: 40,
                ..LOAD
            },
            check: |r, _| same("parse", r.requests.parse, 40),
        },
        Row {
            name: "a close without GOAWAY fails the open streams as read errors",
            behavior: H2Behavior::CloseAfter(5),
            load: LOAD,
            check: |r, _| {
                at_least("read", r.requests.read, 1)?;
                same("ok + read", r.requests.ok + r.requests.read, 200)
            },
        },
        Row {
            name: "an open loop: each stream a slot, the server's count exact",
            behavior: H2Behavior::Hello,
            load: Load {
                rate: Some(2_000),
                ..LOAD
            },
            check: |r, s| {
                let q = &r.requests;
                at_least("ok", q.ok, 1_000)?;
                same("ok + in flight", q.ok + q.in_flight, q.total())?;
                // A response the server sent as the load stopped is in flight to the client.
                let answered = q.ok..=q.ok + q.in_flight;
                eventually_within("the server's responses", || s.responses(), answered)
            },
        },
    ]
}

#[test]
fn every_http2_misbehaviour_is_counted_under_its_class() {
    let mut failures = Vec::new();
    for row in rows() {
        for io in BACKENDS {
            if let Err(e) = run_row(&row, io) {
                failures.push(format!("{} ({io:?}, {}): {e}", row.name, row.behavior));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Runs `row` on `io` against a fresh server; the first thing wrong with its result.
fn run_row(row: &Row, io: IoChoice) -> Result<(), String> {
    let server = match row.load.tls {
        true => TestServer::start_h2_tls(row.behavior.clone(), Tls::new(server_config())),
        false => TestServer::start_h2(row.behavior.clone()),
    }
    .map_err(|e| format!("the server does not start: {e}"))?;
    let c = config(&server, io, &row.load);
    let r = engine::check_settings(&c)
        .and_then(|checked| engine::run_checked(&checked, &AtomicBool::new(false)))
        .map_err(|e: RunError| format!("the load fails: {e}"))?;
    let q = &r.requests;
    let classes = q.ok + q.status + q.errors() + q.in_flight;
    same("requests in the classes", classes, q.total())?;
    if row.load.rate.is_none() {
        same("total", q.total(), row.load.requests)?;
    }
    (row.check)(&r, &server)
        .map_err(|e| format!("{e}\n  requests {:?}\n  h2 {:?}", r.requests, r.h2))
}

fn pki() -> &'static TestPki {
    static PKI: OnceLock<TestPki> = OnceLock::new();
    PKI.get_or_init(|| TestPki::new().expect("test certificates"))
}

/// The test server's TLS configuration, offering h2 by ALPN.
fn server_config() -> Arc<rustls::ServerConfig> {
    pki().server_config().expect("a server config")
}

/// The load of a row against `server` on backend `io`.
fn config(server: &TestServer, io: IoChoice, load: &Load) -> LoadConfig {
    let addr = server.addr();
    let mut c = LoadConfig::new(Target::parse(&format!("http://{addr}/hello")).unwrap());
    if load.tls {
        let mut client = (*pki().client_config().expect("a client config")).clone();
        client.alpn_protocols = vec![b"h2".to_vec()];
        c.tls = Some(TlsClient {
            config: Arc::new(client),
            server_name: TestPki::server_name(),
            resume: Resume::Tickets,
            http2: true,
        });
    }
    c.http2 = true;
    c.streams = load.streams;
    c.connections = load.connections;
    c.threads = 1;
    c.io = io;
    c.stop = Stop::Requests(load.requests);
    if let Some(rate) = load.rate {
        c.pace = Pace::Open(RateSchedule::parse(&rate.to_string()).unwrap());
        c.stop = Stop::After(Duration::from_secs(1));
    }
    if load.body > 0 {
        c.method = http::Method::POST;
        c.body = vec![b'x'; load.body];
    }
    c.timeout = load.timeout;
    c
}

fn code(counts: &std::collections::BTreeMap<String, u64>, name: &str) -> u64 {
    counts.get(name).copied().unwrap_or(0)
}

/// The server counts an answer once its write returns, which may be just after the client
/// read it: its counter is polled until it is `want`, for at most 10 s.
pub(crate) fn eventually(what: &str, get: impl Fn() -> u64, want: u64) -> Result<(), String> {
    eventually_within(what, get, want..=want)
}

/// Polls `get` until it falls in `want`, for at most 10 s.
pub(crate) fn eventually_within(
    what: &str,
    get: impl Fn() -> u64,
    want: std::ops::RangeInclusive<u64>,
) -> Result<(), String> {
    match super::polling::until(get, |got| want.contains(&got)) {
        got if want.contains(&got) => Ok(()),
        got if want.start() == want.end() => Err(format!("{what} is {got}, want {}", want.start())),
        got => Err(format!("{what} is {got}, want {want:?}")),
    }
}

pub(crate) fn same(what: &str, got: u64, want: u64) -> Result<(), String> {
    match got == want {
        true => Ok(()),
        false => Err(format!("{what} is {got}, want {want}")),
    }
}

pub(crate) fn at_least(what: &str, got: u64, least: u64) -> Result<(), String> {
    match got >= least {
        true => Ok(()),
        false => Err(format!("{what} is {got}, want at least {least}")),
    }
}
