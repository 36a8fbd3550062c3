//! Open-loop (`--rate`) loads: the schedule is kept, and latency counts from the intended
//! send time, so a stall shows in the corrected latency and not in the raw one.
//! Loads go to a local test server only, each bounded to a few seconds.

use engine::{IoChoice, LoadConfig, LoadResult, Pace, RateSchedule, Stop, Target};
use std::sync::atomic::AtomicBool;
use std::time::Duration;
use testserver::{Behavior, TestServer};

/// How many of a `rate`/s schedule of `secs` seconds an open loop can miss: none in the
/// window (a late loop catches up on what was due), but those due just before the end
/// when the loop woke only after it (`duration_s` says how late), and one either side.
fn missable(r: &LoadResult, rate: f64, secs: u64) -> f64 {
    let overrun = (r.duration_s - secs as f64).max(0.0);
    rate * overrun + 2.0
}

fn rate_load(server: &TestServer, io: IoChoice, rate: f64, conns: usize, secs: u64) -> LoadResult {
    let mut c = LoadConfig::new(Target::parse(&server.url("/hello")).unwrap());
    c.connections = conns;
    c.threads = 1;
    c.io = io;
    c.pace = Pace::Open(RateSchedule::constant(rate));
    c.stop = Stop::After(Duration::from_secs(secs));
    engine::run(&c, &AtomicBool::new(false)).expect("load runs")
}

#[test]
fn below_capacity_latency_is_the_servers_delay_and_the_rate_is_kept() {
    for io in [IoChoice::Epoll, IoChoice::Uring] {
        let server = TestServer::start(Behavior::Delay(Duration::from_millis(20))).unwrap();
        let r = rate_load(&server, io, 200.0, 20, 2);
        let rate = r.rate.as_ref().expect("open loop reports its rate");
        // At least the server's delay, which it holds each answer for; a loose ceiling
        // catches latency counted from the wrong time. How much a busy machine adds to
        // the delay is for bench/, not a test.
        let p50 = r.latency_us.p50;
        assert!((20_000.0..120_000.0).contains(&p50), "{io:?}: p50 {p50} us");
        // The rate is kept: every request due in the window started (20 connections
        // carry 1,000/s: none waits for one).
        let missed = 400.0 - rate.started as f64;
        assert!(
            (-2.0..=missable(&r, 200.0, 2)).contains(&missed),
            "{io:?}: {rate:?}, {} s",
            r.duration_s
        );
        assert!((rate.target_rps - 200.0).abs() < 1.0, "{rate:?}");
        assert_eq!(r.requests.errors(), 0, "{:?}", r.requests);
        assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    }
}

#[test]
fn a_stall_shows_in_corrected_latency_and_not_in_raw() {
    for io in [IoChoice::Epoll, IoChoice::Uring] {
        // 200 requests/s on 2 connections; after 200 answers the server holds every
        // answer for 1 s. The ~200 requests due during the stall wait in the generator.
        let server = TestServer::start(Behavior::PauseAfter {
            after: 200,
            pause: Duration::from_secs(1),
        })
        .unwrap();
        let r = rate_load(&server, io, 200.0, 2, 3);
        let (corrected, raw) = (r.latency_us.p99, r.latency_raw_us.p99);
        assert!(
            corrected > 500_000.0,
            "{io:?}: corrected p99 {corrected} us"
        );
        // The stall does not show in raw latency: far below it whatever the machine adds.
        assert!(raw < 500_000.0, "{io:?}: raw p99 {raw} us");
        assert!(
            r.latency_raw_us.max > 900_000.0,
            "{io:?}: the requests caught in the stall"
        );
        // They were held back by the server (every connection busy): counted as waited,
        // not as the generator's lateness (which a busy machine adds on its own, so it
        // is not asserted here).
        let rate = r.rate.as_ref().unwrap();
        assert!(rate.waited > 100, "{io:?}: {rate:?}");
    }
}

#[test]
fn a_schedule_beyond_the_connections_warns_that_it_was_missed() {
    // One connection to a 20 ms server can answer 50/s at most; 200/s cannot be kept.
    let server = TestServer::start(Behavior::Delay(Duration::from_millis(20))).unwrap();
    let r = rate_load(&server, IoChoice::Auto, 200.0, 1, 1);
    let rate = r.rate.as_ref().unwrap();
    assert!(rate.achieved_rps < 0.5 * rate.target_rps, "{rate:?}");
    assert!(
        r.warnings.iter().any(|w| w.contains("could not keep up")),
        "{:?}",
        r.warnings
    );
}

#[test]
fn a_rate_beyond_the_connections_waits_for_io_instead_of_spinning() {
    // 4 connections to a 100 ms server carry 40 requests/s; 2,000/s are scheduled, so a
    // due request always waits for a free connection. The loop must sleep in its poll
    // meanwhile: spinning showed as ~100% of a core for the generator thread.
    for io in [IoChoice::Epoll, IoChoice::Uring] {
        let server = TestServer::start(Behavior::Delay(Duration::from_millis(100))).unwrap();
        let r = rate_load(&server, io, 2000.0, 4, 1);
        assert!(r.requests.ok > 0, "{io:?}: {:?}", r.requests);
        let busy = r.generator.cpu_seconds / r.duration_s;
        assert!(
            busy < 0.5,
            "{io:?}: the generator was {:.0}% busy",
            busy * 100.0
        );
    }
}

#[test]
fn a_fixed_rate_without_keepalive_opens_a_connection_per_request_and_keeps_the_rate() {
    // 500 requests/s for 2 s on 2 loops: each request is due on the schedule, opens its
    // own connection, and the response ends it.
    for io in [IoChoice::Epoll, IoChoice::Uring] {
        let server = TestServer::start(Behavior::Hello).unwrap();
        let mut c = LoadConfig::new(Target::parse(&server.url("/hello")).unwrap());
        c.connections = 20;
        c.threads = 2;
        c.io = io;
        c.keepalive = false;
        c.pace = Pace::Open(RateSchedule::constant(500.0));
        c.stop = Stop::After(Duration::from_secs(2));
        let r = engine::run(&c, &AtomicBool::new(false)).expect("load runs");
        let q = &r.requests;
        let rate = r.rate.as_ref().expect("open loop reports its rate");
        let missed = 1000.0 - rate.started as f64;
        assert!(
            (-2.0..=missable(&r, 500.0, 2)).contains(&missed),
            "{io:?}: {rate:?}, {} s",
            r.duration_s
        );
        assert_eq!(
            q.ok + q.status + q.errors() + q.in_flight,
            q.total(),
            "{io:?}: {q:?}"
        );
        assert_eq!(q.total(), rate.started, "{io:?}: {q:?} {rate:?}");
        assert_eq!(q.errors(), 0, "{io:?}: {q:?}");
        // Every response came on its own connection.
        let opened = r.connections.opened;
        assert!(
            opened.abs_diff(q.total()) <= 2,
            "{io:?}: {opened} for {q:?}"
        );
        assert!(server.connections().abs_diff(q.total()) <= 2, "{io:?}");
        assert!(r.warnings.is_empty(), "{io:?}: {:?}", r.warnings);
    }
}
