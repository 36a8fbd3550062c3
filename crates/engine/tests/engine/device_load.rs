//! Device loads: devices arrive and leave along the stages, run their scripts, and the
//! per-second series says what happened, over HTTP and over WebSocket. Local test server
//! only; each load is ~2 s.

use engine::{DeviceScript, IoChoice, LoadConfig, LoadResult, LoadSpec, Pace, RateSchedule};
use engine::{Stop, Target};
use std::sync::atomic::AtomicBool;
use std::time::Duration;
use testserver::{Behavior, TestServer, WsBehavior};

fn device_load(server: &TestServer, io: IoChoice, stages: &str, think_ms: u64) -> LoadResult {
    let count = RateSchedule::parse_device_count(stages).unwrap();
    let mut c = LoadConfig::new(Target::parse(&server.url("/app")).unwrap());
    c.threads = 2;
    c.io = io;
    c.stop = Stop::After(count.duration());
    c.timeout = Duration::from_millis(200);
    c.pace = Pace::Devices(DeviceScript {
        count,
        requests: 5,
        think: Duration::from_millis(think_ms),
        jitter: 0.05,
    });
    engine::run(&c, &AtomicBool::new(false)).expect("load runs")
}

#[test]
fn devices_follow_the_stages_and_their_scripts() {
    for io in [IoChoice::Epoll, IoChoice::Uring] {
        let server = TestServer::start(Behavior::Delay(Duration::from_millis(50))).unwrap();
        let r = device_load(&server, io, "0,40:1s,40:1s,0:0.5s", 100);
        let q = &r.requests;
        assert_eq!(q.errors(), 0, "{io:?}: {q:?}");
        // ~28 devices on average for 2.5 s, one request per ~150 ms each.
        assert!((300..=600).contains(&(q.ok as i64)), "{io:?}: {q:?}");
        let peak = r.per_second.iter().map(|s| s.devices).max().unwrap();
        assert!((30..=40).contains(&peak), "{io:?}: peak devices {peak}");
        // Devices leave at their next pause, so the ramp-down lags by a think time.
        let last = r.per_second.last().unwrap().devices;
        assert!(last <= peak / 4, "{io:?}: {last} devices left of {peak}");
        // At least the server's 50 ms; a loose ceiling, not a speed (that is bench/'s).
        let p50 = r.latency_us.p50;
        assert!((50_000.0..150_000.0).contains(&p50), "{io:?}: p50 {p50} us");
        let sent: u64 = r.per_second.iter().map(|s| s.sent).sum();
        assert_eq!(
            sent,
            q.total(),
            "{io:?}: every started request is in the series"
        );
        // Every device runs 5 requests, then leaves and is replaced while wanted.
        assert!(
            r.connections.opened >= q.ok / 5,
            "{io:?}: {:?}",
            r.connections
        );
    }
}

#[test]
fn a_timed_out_device_reconnects_for_its_next_request() {
    for io in [IoChoice::Epoll, IoChoice::Uring] {
        let server = TestServer::start(Behavior::NeverAnswer).unwrap();
        let r = device_load(&server, io, "5:1s", 50);
        let q = &r.requests;
        assert!(q.timeout >= 10, "{io:?}: {q:?}");
        assert_eq!(q.errors(), q.timeout, "{io:?}: {q:?}");
        let per_second: u64 = r.per_second.iter().map(|s| s.timeouts).sum();
        assert_eq!(per_second, q.timeout);
        assert!(r.connections.opened > 10, "{io:?}: {:?}", r.connections);
    }
}

/// Devices over WebSocket: each device upgrades its connection, sends a message every
/// think time and awaits its echo, and when its script is done (or fewer devices are
/// wanted) closes with the close handshake; a new device takes its slot after.
#[test]
fn devices_hold_websocket_connections_and_close_them_when_they_leave() {
    for io in [IoChoice::Epoll, IoChoice::Uring] {
        let server = TestServer::start_ws(WsBehavior::Echo).unwrap();
        let stages = "0,20:0.5s,20:1s,0:0.5s";
        let mut spec = LoadSpec::new(engine::parse_url(&server.url("/echo")).unwrap());
        let count = RateSchedule::parse_device_count(stages).unwrap();
        spec.threads = Some(2);
        spec.io = io;
        spec.stop = Some(Stop::After(count.duration()));
        spec.timeout = Duration::from_secs(2);
        spec.pace = Pace::Devices(DeviceScript {
            count,
            requests: 5,
            think: Duration::from_millis(50),
            jitter: 0.05,
        });
        let c = spec.resolve().expect("devices over WebSocket resolve");
        let r = engine::run(&c, &AtomicBool::new(false)).expect("load runs");
        let (q, ws) = (&r.requests, r.ws.as_ref().expect("a ws summary"));
        assert_eq!(q.errors(), 0, "{io:?}: {q:?} {ws:?}");
        // ~13 devices on average for 2 s, a message every ~50 ms each.
        assert!((150..=900).contains(&(q.ok as i64)), "{io:?}: {q:?}");
        let peak = r.per_second.iter().map(|s| s.devices).max().unwrap();
        assert!((15..=20).contains(&peak), "{io:?}: peak devices {peak}");
        let opened = r.connections.opened;
        assert_eq!(ws.upgrades, opened, "{io:?}: {ws:?}");
        // Every device sends 5 messages, then leaves with the close handshake and is
        // replaced while wanted; those still there at the end close then.
        assert!(opened >= q.ok / 5, "{io:?}: {opened} connections");
        assert_eq!(ws.closes_sent, opened, "{io:?}: {ws:?}");
        assert_eq!(ws.closes_answered, opened, "{io:?}: {ws:?}");
        let read = super::polling::at_least(|| server.ws_closes().0, opened);
        assert_eq!(read, opened, "{io:?}: closes the server read");
        // Each echoed, and those in flight at the end perhaps too.
        let echoes = super::polling::at_least(|| server.responses(), q.ok);
        assert!(
            (q.ok..=q.ok + q.in_flight).contains(&echoes),
            "{io:?}: {echoes} echoes"
        );
    }
}
