//! WebSocket echo loads against the test kit's WebSocket server, well-behaved and
//! misbehaving: every message is counted once under its class (echoed ok, `ws` with the
//! refusal, protocol error or close code named, timeout, in flight), the counts add up and
//! match the server's, and nothing panics, on both event-loop kinds, in clear text
//! (`ws://`) and over TLS (`wss://`). Loads go to 127.0.0.1 only and each is bounded by a
//! message count (every message ends, at worst by its timeout) or a short duration.
//!
//! A table, as h2_servers.rs has for HTTP/2: each row names the server's behaviour, how its
//! load differs from the usual one, and a check of the result against the server's own
//! counters.

use engine::{IoChoice, LoadConfig, LoadResult, LoadSpec, Pace, RateSchedule, Resume, Stop};
use engine::{TlsClient, WsSummary};
use std::sync::atomic::AtomicBool;
use std::sync::OnceLock;
use std::time::Duration;
use testserver::{TestPki, TestServer, Tls, WsBehavior};

use super::h2_servers::{at_least, eventually, eventually_within, same};

const BACKENDS: [IoChoice; 2] = [IoChoice::Epoll, IoChoice::Uring];

/// How a row's load differs from the usual one: 4 connections, 1 message in flight each,
/// 200 text messages of 32 octets.
#[derive(Clone)]
struct Load {
    messages: u64,
    in_flight: usize,
    size: usize,
    binary: bool,
    tls: bool,
    /// Open loop at this many messages/s for a second, instead of a message count.
    rate: Option<u32>,
    /// Messages per connection before the client closes it (handshake churn).
    per_connection: Option<u32>,
}

const LOAD: Load = Load {
    messages: 200,
    in_flight: 1,
    size: 32,
    binary: false,
    tls: false,
    rate: None,
    per_connection: None,
};

/// What a row's result must show, given the server's counters; Err says what is wrong.
type Check = fn(&LoadResult, &WsSummary, &TestServer) -> Result<(), String>;

struct Row {
    name: &'static str,
    behavior: WsBehavior,
    load: Load,
    check: Check,
}

/// Every message echoed, as the server counts them, and every connection closed with the
/// close handshake at the end.
fn all_echoed(r: &LoadResult, ws: &WsSummary, s: &TestServer) -> Result<(), String> {
    let q = &r.requests;
    same("ok", q.ok, q.total())?;
    eventually("the server's echoes", || s.responses(), q.ok)?;
    same("upgrades", ws.upgrades, r.connections.opened)?;
    same("closes sent", ws.closes_sent, 4)?;
    same("closes answered", ws.closes_answered, 4)?;
    eventually("closes the server read", || s.ws_closes().0, 4)?;
    same("upgrade histogram", r.histograms.upgrade.len(), ws.upgrades)?;
    match ws.errors.is_empty() && ws.refused.is_empty() && ws.closes.is_empty() {
        true => Ok(()),
        false => Err("errors, refusals or closes counted".into()),
    }
}

/// Every message echoed over connections that carried `k` messages each (the last ones
/// fewer, closed at the end): each upgraded, and closed with the close handshake, which
/// the server read and answered.
fn churned(r: &LoadResult, ws: &WsSummary, s: &TestServer, k: u64) -> Result<(), String> {
    let q = &r.requests;
    // At a fixed rate a message may be on its way at the stop (and echoed, or not).
    same("ok and in flight", q.ok + q.in_flight, q.total())?;
    let echoes = q.ok..=q.ok + q.in_flight;
    eventually_within("the server's echoes", || s.responses(), echoes)?;
    let opened = r.connections.opened;
    same("upgrades", ws.upgrades, opened)?;
    same("upgrade histogram", r.histograms.upgrade.len(), ws.upgrades)?;
    // Each connection carried k, but those open when the load ran out of messages.
    at_least("connections", opened, q.ok / k)?;
    if opened > q.ok / k + 4 {
        return Err(format!(
            "{opened} connections for {} messages, {k} each",
            q.ok
        ));
    }
    same("closes sent", ws.closes_sent, opened)?;
    same("closes answered", ws.closes_answered, opened)?;
    eventually("closes the server read", || s.ws_closes().0, opened)?;
    eventually(
        "connections the server accepted",
        || s.connections(),
        opened,
    )?;
    match ws.errors.is_empty() && ws.refused.is_empty() && ws.closes.is_empty() {
        true => Ok(()),
        false => Err("errors, refusals or closes counted".into()),
    }
}

/// Every message failed as `ws`, the books naming `name` in `books`.
fn all_failed(
    r: &LoadResult,
    books: &std::collections::BTreeMap<String, u64>,
    name: &str,
) -> Result<(), String> {
    same("ws", r.requests.ws, r.requests.total())?;
    at_least(name, books.get(name).copied().unwrap_or(0), 1)?;
    match books.len() {
        1 => Ok(()),
        _ => Err(format!("more than {name} counted: {books:?}")),
    }
}

fn rows() -> Vec<Row> {
    vec![
        Row {
            name: "an echo server: every message echoed, closed with the handshake",
            behavior: WsBehavior::Echo,
            load: LOAD,
            check: all_echoed,
        },
        Row {
            name: "binary messages of 100 KiB (64-bit lengths), 2 in flight",
            behavior: WsBehavior::Echo,
            load: Load {
                messages: 40,
                in_flight: 2,
                size: 100 * 1024,
                binary: true,
                ..LOAD
            },
            check: |r, ws, s| {
                all_echoed(r, ws, s)?;
                at_least("bytes read", r.bytes.read, 40 * 100 * 1024)
            },
        },
        Row {
            name: "8 messages in flight per connection",
            behavior: WsBehavior::Echo,
            load: Load {
                messages: 400,
                in_flight: 8,
                ..LOAD
            },
            check: all_echoed,
        },
        Row {
            name: "over TLS (wss://), 4 in flight",
            behavior: WsBehavior::Echo,
            load: Load {
                in_flight: 4,
                tls: true,
                ..LOAD
            },
            check: |r, ws, s| {
                all_echoed(r, ws, s)?;
                same(
                    "TLS handshakes",
                    r.tls.as_ref().map_or(0, |t| t.handshakes()),
                    4,
                )
            },
        },
        Row {
            name: "fragmented echoes with a ping between fragments",
            behavior: WsBehavior::Fragmented,
            load: Load { size: 100, ..LOAD },
            check: |r, ws, s| {
                all_echoed(r, ws, s)?;
                same("pings answered", ws.pings, 200)?;
                eventually("the server's pongs", || s.ws_pongs(), 200)
            },
        },
        Row {
            name: "a ping every 3 messages, each answered",
            behavior: WsBehavior::PingEvery(3),
            load: LOAD,
            check: |r, ws, s| {
                all_echoed(r, ws, s)?;
                eventually("the server's pongs", || s.ws_pongs(), s.ws_pings())?;
                same("pings answered", ws.pings, s.ws_pings())
            },
        },
        Row {
            name: "a fixed message rate (open loop)",
            behavior: WsBehavior::Echo,
            load: Load {
                rate: Some(400),
                ..LOAD
            },
            check: |r, _, s| {
                let rate = r.rate.as_ref().ok_or("no rate summary")?;
                same(
                    "scheduled",
                    rate.started + r.requests.dropped + rate.still_due,
                    rate.scheduled,
                )?;
                at_least("ok", r.requests.ok, 300)?;
                eventually("the server's echoes", || s.responses(), r.requests.ok)
            },
        },
        Row {
            name: "a new connection every 10 messages (handshake churn)",
            behavior: WsBehavior::Echo,
            load: Load {
                per_connection: Some(10),
                ..LOAD
            },
            check: |r, ws, s| churned(r, ws, s, 10),
        },
        Row {
            name: "a new connection every 10 messages over TLS, 4 in flight",
            behavior: WsBehavior::Echo,
            load: Load {
                per_connection: Some(10),
                in_flight: 4,
                tls: true,
                ..LOAD
            },
            check: |r, ws, s| {
                churned(r, ws, s, 10)?;
                let tls = r.tls.as_ref().ok_or("no TLS summary")?;
                same("TLS handshakes", tls.handshakes(), r.connections.opened)
            },
        },
        Row {
            name: "a new connection every 20 messages at a fixed rate",
            behavior: WsBehavior::Echo,
            load: Load {
                rate: Some(400),
                per_connection: Some(20),
                ..LOAD
            },
            check: |r, ws, s| {
                at_least("ok", r.requests.ok, 300)?;
                churned(r, ws, s, 20)
            },
        },
        Row {
            name: "churn against a server that never answers the close: given up, counted",
            behavior: WsBehavior::IgnoreClose,
            load: Load {
                messages: 32,
                per_connection: Some(4),
                ..LOAD
            },
            check: |r, ws, s| {
                // 4 connections of 4 messages, whose closes wait a second for nothing,
                // then 4 more.
                same("ok", r.requests.ok, 32)?;
                same("connections", r.connections.opened, 8)?;
                same("closes sent", ws.closes_sent, 8)?;
                same("closes answered", ws.closes_answered, 0)?;
                eventually("closes the server read", || s.ws_closes().0, 8)
            },
        },
        Row {
            name: "a wrong Accept: every upgrade refused, its message ws",
            behavior: WsBehavior::WrongAccept,
            load: Load {
                messages: 50,
                ..LOAD
            },
            check: |r, ws, _| all_failed(r, &ws.refused, "wrong_accept"),
        },
        Row {
            name: "a 400 for the upgrade: refused, its status kept",
            behavior: WsBehavior::Refuse,
            load: Load {
                messages: 50,
                ..LOAD
            },
            check: |r, ws, _| {
                all_failed(r, &ws.refused, "status")?;
                at_least("400s", r.status_codes.get("400").copied().unwrap_or(0), 1)
            },
        },
        Row {
            name: "a masked server frame",
            behavior: WsBehavior::MaskedFrame,
            load: Load {
                messages: 50,
                ..LOAD
            },
            check: |r, ws, _| all_failed(r, &ws.errors, "masked_frame"),
        },
        Row {
            name: "invalid UTF-8 in a text frame",
            behavior: WsBehavior::InvalidUtf8,
            load: Load {
                messages: 50,
                ..LOAD
            },
            check: |r, ws, _| all_failed(r, &ws.errors, "invalid_utf8"),
        },
        Row {
            name: "reserved bits set",
            behavior: WsBehavior::ReservedBits,
            load: Load {
                messages: 50,
                ..LOAD
            },
            check: |r, ws, _| all_failed(r, &ws.errors, "reserved_bits"),
        },
        Row {
            name: "a server that never answers the close: counted, not waited for",
            behavior: WsBehavior::IgnoreClose,
            load: LOAD,
            check: |r, ws, s| {
                same("ok", r.requests.ok, 200)?;
                same("closes sent", ws.closes_sent, 4)?;
                same("closes answered", ws.closes_answered, 0)?;
                eventually("closes the server read", || s.ws_closes().0, 4)
            },
        },
        Row {
            name: "a frame header announcing 2^40 octets: too long, refused at its header",
            behavior: WsBehavior::TooLong,
            load: Load {
                messages: 50,
                ..LOAD
            },
            check: |r, ws, _| all_failed(r, &ws.errors, "too_long"),
        },
        Row {
            name: "a close 1001 after the first fragment of each echo",
            behavior: WsBehavior::CloseMidMessage,
            load: Load {
                messages: 50,
                ..LOAD
            },
            check: |r, ws, _| {
                same("ws", r.requests.ws, 50)?;
                same(
                    "closes 1001",
                    ws.closes.get("1001").copied().unwrap_or(0),
                    50,
                )?;
                match ws.errors.is_empty() {
                    true => Ok(()),
                    false => Err(format!("protocol errors counted: {:?}", ws.errors)),
                }
            },
        },
        Row {
            name: "a flood of 100 pings before each echo: the echoes and the close still go",
            behavior: WsBehavior::PingFlood(100),
            load: Load {
                messages: 50,
                ..LOAD
            },
            check: |r, ws, s| {
                // The server read every close, and so every pong sent before it.
                all_echoed(r, ws, s)?;
                same("pings counted", ws.pings, 5000)?;
                // A flood the out buffer cannot hold is answered by the pong to the
                // latest ping (RFC 6455 section 5.5.3): one pong per flood at least.
                let pongs = s.ws_pongs();
                at_least("the server's pongs", pongs, 50)?;
                match pongs <= 5000 {
                    true => Ok(()),
                    false => Err(format!("{pongs} pongs for 5000 pings")),
                }
            },
        },
        Row {
            name: "a close 1011 after 3 echoes per connection",
            behavior: WsBehavior::CloseAfter(3),
            load: LOAD,
            check: |r, ws, s| {
                let q = &r.requests;
                same("ok and ws", q.ok + q.ws, 200)?;
                at_least("ws", q.ws, 1)?;
                same(
                    "closes 1011",
                    ws.closes.get("1011").copied().unwrap_or(0),
                    q.ws,
                )?;
                eventually("the server's echoes", || s.responses(), q.ok)
            },
        },
    ]
}

#[test]
fn every_message_is_counted_once_under_its_class() {
    let mut failures = Vec::new();
    for row in rows() {
        for io in BACKENDS {
            if let Err(e) = run_row(&row, io) {
                failures.push(format!("{} ({io:?}): {e}", row.name));
            }
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

fn run_row(row: &Row, io: IoChoice) -> Result<(), String> {
    let server = match row.load.tls {
        true => TestServer::start_ws_tls(row.behavior, Tls::new(pki().server_config().unwrap())),
        false => TestServer::start_ws(row.behavior),
    }
    .map_err(|e| format!("server: {e}"))?;
    let c = config(&server, io, &row.load);
    let checked = engine::check_settings(&c).map_err(|e| e.to_string())?;
    let r = engine::run_checked(&checked, &AtomicBool::new(false)).map_err(|e| e.to_string())?;
    let q = &r.requests;
    let classes = q.ok + q.status + q.errors() + q.in_flight;
    same("messages in the classes", classes, q.total())?;
    if row.load.rate.is_none() {
        same("total", q.total(), row.load.messages)?;
    }
    let ws = r.ws.clone().ok_or("no ws summary")?;
    (row.check)(&r, &ws, &server)
        .map_err(|e| format!("{e}\n  requests {:?}\n  ws {ws:?}", r.requests))
}

/// Two shards' results merge exactly: counts add, and the upgrade histograms add up to
/// the upgrades.
#[test]
fn shards_of_a_websocket_load_merge_exactly() {
    let server = TestServer::start_ws(WsBehavior::Echo).unwrap();
    let part = || {
        let c = config(
            &server,
            IoChoice::Epoll,
            &Load {
                messages: 100,
                ..LOAD
            },
        );
        engine::run(&c, &AtomicBool::new(false)).unwrap()
    };
    let (a, b) = (part(), part());
    let merged = engine::merge(&[a.clone(), b.clone()]).unwrap();
    let ws = |r: &LoadResult| r.ws.clone().unwrap();
    assert_eq!(merged.requests.ok, 200);
    assert_eq!(ws(&merged).upgrades, ws(&a).upgrades + ws(&b).upgrades);
    assert_eq!(merged.histograms.upgrade.len(), ws(&merged).upgrades);
    assert_eq!(ws(&merged).closes_answered, 8);
    let text = serde_json::to_string(&merged).unwrap();
    let back: LoadResult = serde_json::from_str(&text).unwrap();
    assert_eq!(back.histograms.upgrade, merged.histograms.upgrade);
    assert_eq!(back.ws, merged.ws);
}

/// Two shards of a device load over WebSocket (the devices split between them, both
/// starting at one instant), each through its JSON as `shootout merge` reads it, merge
/// exactly: messages, upgrades, closes and the devices of each second add up, as the
/// server counts them.
#[test]
fn shards_of_a_websocket_device_load_merge_exactly() {
    let server = TestServer::start_ws(WsBehavior::Echo).unwrap();
    let start_at = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
        + 300;
    let shard = |index: u64, io: IoChoice| {
        let mut spec = LoadSpec::new(engine::parse_url(&server.url("/echo")).unwrap());
        let count = RateSchedule::parse_device_count("0,10:0.3s,10:0.7s").unwrap();
        spec.threads = Some(1);
        spec.io = io;
        spec.stop = Some(Stop::After(count.duration()));
        spec.pace = Pace::Devices(engine::DeviceScript {
            count,
            requests: 4,
            think: Duration::from_millis(40),
            jitter: 0.05,
        });
        let mut c = spec.resolve().unwrap();
        c.shard = engine::Shard { index, count: 2 };
        c.start_at = Some(start_at);
        let r = engine::run(&c, &AtomicBool::new(false)).unwrap();
        let text = serde_json::to_string(&r).unwrap();
        serde_json::from_str::<LoadResult>(&text).unwrap()
    };
    let (a, b) = std::thread::scope(|s| {
        let a = s.spawn(|| shard(0, IoChoice::Epoll));
        let b = s.spawn(|| shard(1, IoChoice::Uring));
        (a.join().unwrap(), b.join().unwrap())
    });
    let m = engine::merge(&[a.clone(), b.clone()]).unwrap();
    let ws = |r: &LoadResult| r.ws.clone().unwrap();
    assert_eq!(m.requests.errors(), 0, "{:?}", m.requests);
    assert_eq!(m.requests.ok, a.requests.ok + b.requests.ok);
    assert!(
        a.requests.ok > 0 && b.requests.ok > 0,
        "each shard ran devices"
    );
    assert_eq!(ws(&m).upgrades, ws(&a).upgrades + ws(&b).upgrades);
    assert_eq!(m.histograms.upgrade.len(), ws(&m).upgrades);
    let books = format!("{:?} {:?} {:?}", m.requests, m.connections, ws(&m));
    assert_eq!(ws(&m).upgrades, m.connections.opened, "{books}");
    assert_eq!(ws(&m).closes_sent, m.connections.opened, "{books}");
    assert_eq!(ws(&m).closes_answered, ws(&m).closes_sent, "{books}");
    let devices = |r: &LoadResult| r.per_second.iter().map(|s| s.devices).collect::<Vec<_>>();
    let (da, db) = (devices(&a), devices(&b));
    let sums: Vec<u64> = (0..da.len().max(db.len()))
        .map(|i| da.get(i).unwrap_or(&0) + db.get(i).unwrap_or(&0))
        .collect();
    assert_eq!(
        devices(&m),
        sums,
        "the shards' devices add up, second by second"
    );
    // 5 devices a shard (one may be between leaving and its successor's arrival).
    let peak = sums.iter().copied().max().unwrap_or(0);
    assert!((8..=10).contains(&peak), "peak devices {peak}");
    // Each echoed, and those in flight at the end perhaps too.
    let echoes = super::polling::at_least(|| server.responses(), m.requests.ok);
    let q = &m.requests;
    assert!(
        (q.ok..=q.ok + q.in_flight).contains(&echoes),
        "{echoes} echoes: {q:?}"
    );
}

/// A `ws://` URL that the spec resolves, with `load`'s settings, on backend `io`.
fn config(server: &TestServer, io: IoChoice, load: &Load) -> LoadConfig {
    let url = server.url("/echo").replace("wss://", "ws://");
    let mut spec = LoadSpec::new(engine::parse_url(&url).unwrap());
    spec.connections = 4;
    spec.threads = Some(1);
    spec.io = io;
    spec.timeout = Duration::from_secs(3);
    spec.stop = Some(Stop::Requests(load.messages));
    spec.websocket.in_flight = load.in_flight;
    spec.websocket.message_size = load.size;
    spec.websocket.binary = load.binary;
    spec.websocket.messages_per_connection = load.per_connection;
    if let Some(rate) = load.rate {
        spec.pace = Pace::Open(RateSchedule::constant(rate as f64));
        spec.stop = Some(Stop::After(Duration::from_secs(1)));
    }
    let mut c = spec.resolve().unwrap();
    if load.tls {
        c.tls = Some(TlsClient {
            config: pki().client_config().expect("a client config"),
            server_name: TestPki::server_name(),
            resume: Resume::Tickets,
            http2: false,
        });
    }
    c
}

fn pki() -> &'static TestPki {
    static PKI: OnceLock<TestPki> = OnceLock::new();
    PKI.get_or_init(|| TestPki::new().expect("test certificates"))
}
