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

/// Every request the schedule made due in the measured window is accounted for exactly
/// once: sent (in exactly one class, or in flight), dropped, or still due at the stop; a
/// load with `-n` that ended by itself accounts for exactly its N. Each mismatch, named.
fn accounting(r: &LoadResult) -> Vec<String> {
    let q = &r.requests;
    let mut found = Vec::new();
    let classes = q.ok
        + q.status
        + q.timeout
        + q.connect
        + q.read
        + q.write
        + q.parse
        + q.tls
        + q.reset
        + q.h2
        + q.dropped
        + q.in_flight;
    if classes != q.total() {
        found.push(format!("{classes} in the classes, total {}", q.total()));
    }
    let Some(rate) = r.rate.as_ref() else {
        return vec!["no rate summary".into()];
    };
    if rate.started + q.dropped + rate.still_due != rate.scheduled {
        found.push(format!(
            "{} started + {} dropped + {} still due != {} scheduled",
            rate.started, q.dropped, rate.still_due, rate.scheduled
        ));
    }
    if rate.started != q.sent() {
        found.push(format!("{} started, {} sent", rate.started, q.sent()));
    }
    if let (Some(n), false) = (r.config.requests, r.interrupted) {
        if (q.total(), rate.scheduled, rate.still_due) != (n, n, 0) {
            found.push(format!("-n {n}: total {}, {rate:?}", q.total()));
        }
    }
    found
}

/// An open loop of `n` requests at `rate`/s against `url`, on `io`, without the pre-flight
/// (a refused port would be refused before the load); failed, naming `what`, if it has
/// not ended a minute later (it is then interrupted).
fn open_n(what: &str, url: &str, tweak: impl Fn(&mut LoadConfig)) -> LoadResult {
    let mut c = LoadConfig::new(Target::parse(url).unwrap());
    c.connections = 2;
    c.threads = 1;
    c.timeout = Duration::from_millis(100);
    c.pace = Pace::Open(RateSchedule::constant(400.0));
    c.stop = Stop::Requests(40);
    tweak(&mut c);
    let checked = engine::check_settings(&c).expect("the load's settings check");
    let stop = AtomicBool::new(false);
    std::thread::scope(|s| {
        let (done, ended) = std::sync::mpsc::channel();
        let (checked, stop) = (&checked, &stop);
        // The sender moves in: a load that panics drops it and ends the waits below.
        s.spawn(move || {
            let _ = done.send(engine::run_checked(checked, stop));
        });
        let within = ended.recv_timeout(Duration::from_secs(60));
        let hung = within.is_err();
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        let r = within
            .or_else(|_| ended.recv())
            .unwrap()
            .expect("load runs");
        assert!(
            !hung,
            "{what}: still running after a minute: {:?}",
            r.requests
        );
        r
    })
}

/// An address nothing listens on (bound for a moment to find a free port, then closed).
fn refused_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    format!("http://{}/", listener.local_addr().unwrap())
}

/// A listener the kernel completes connections for, and that never reads nor answers:
/// a server that accepts and never answers. Closed when dropped.
fn silent_listener() -> (std::net::TcpListener, String) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    (listener, url)
}

#[test]
fn a_healthy_server_drops_nothing_and_every_request_is_accounted_for() {
    let server = TestServer::start(Behavior::Hello).unwrap();
    for io in [IoChoice::Epoll, IoChoice::Uring] {
        for keepalive in [true, false] {
            let what = format!("{io:?}, keep-alive {keepalive}");
            let r = open_n(&what, &server.url("/hello"), |c| {
                c.io = io;
                c.keepalive = keepalive;
                c.connections = 10;
                c.pace = Pace::Open(RateSchedule::constant(1000.0));
                c.stop = Stop::Requests(200);
                // Generous: a busy machine must not drop a request of a healthy server.
                c.timeout = Duration::from_secs(5);
            });
            let q = &r.requests;
            assert_eq!((q.ok, q.dropped), (200, 0), "{what}: {q:?}");
            let wrong = accounting(&r);
            assert!(wrong.is_empty(), "{what}: {wrong:?}");
            assert!(
                !r.warnings.iter().any(|w| w.contains("dropped")),
                "{what}: {:?}",
                r.warnings
            );
        }
    }
}

#[test]
fn requests_no_connection_takes_are_dropped_and_a_request_count_ends() {
    let never_answers = TestServer::start(Behavior::NeverAnswer).unwrap();
    let (_silent, silent) = silent_listener();
    let refused = refused_url();
    let mut wrong = Vec::new();
    for io in [IoChoice::Epoll, IoChoice::Uring] {
        for keepalive in [true, false] {
            for (server, url) in [
                ("never answers", never_answers.url("/")),
                ("refuses", refused.clone()),
            ] {
                let what = format!("{io:?}, keep-alive {keepalive}, a server that {server}");
                let r = open_n(&what, &url, |c| {
                    c.io = io;
                    c.keepalive = keepalive;
                    // A refused connect backs off 10 ms: 2 slots take ~200 a second at
                    // most of the 2,000 due, and the rest wait past the timeout.
                    c.pace = Pace::Open(RateSchedule::constant(2000.0));
                    c.stop = Stop::Requests(100);
                    c.timeout = Duration::from_millis(50);
                });
                wrong.extend(dropped_mismatches(
                    &what,
                    &r,
                    keepalive && server == "refuses",
                ));
            }
        }
        // HTTP/2 over a connection that never answers: its streams time out, the rest
        // wait for room and are dropped.
        let what = format!("{io:?}, h2c, a listener that never reads");
        let r = open_n(&what, &silent, |c| {
            c.io = io;
            c.http2 = true;
        });
        wrong.extend(dropped_mismatches(&what, &r, false));
    }
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
}

/// What a load that could not send its requests got wrong: it must have dropped some
/// (every one of them when `all`: no connection ever opened) and account for each.
fn dropped_mismatches(what: &str, r: &LoadResult, all: bool) -> Vec<String> {
    let q = &r.requests;
    let mut found = accounting(r);
    if q.dropped == 0 || (all && q.dropped != q.total()) {
        found.push(format!("dropped {} of {}", q.dropped, q.total()));
    }
    if q.ok + q.status > 0 {
        found.push("answered".into());
    }
    if !r.warnings.iter().any(|w| w.contains("were dropped")) {
        found.push(format!("no warning of the dropped: {:?}", r.warnings));
    }
    let series: u64 = r.per_second.iter().map(|s| s.dropped).sum();
    if series != q.dropped {
        found.push(format!("{series} dropped in the per-second series"));
    }
    found
        .into_iter()
        .map(|m| format!("{what}: {m}\n  {q:?} {:?}", r.rate))
        .collect()
}

#[test]
fn a_duration_ends_with_what_still_waited_for_a_connection() {
    // 200/s for 1 s on 2 connections to a server that never answers, timeout 300 ms:
    // the requests due in the last 300 ms still wait for a connection at the stop.
    let server = TestServer::start(Behavior::NeverAnswer).unwrap();
    for io in [IoChoice::Epoll, IoChoice::Uring] {
        let what = format!("{io:?}");
        let r = open_n(&what, &server.url("/"), |c| {
            c.io = io;
            c.timeout = Duration::from_millis(300);
            c.pace = Pace::Open(RateSchedule::constant(200.0));
            c.stop = Stop::After(Duration::from_secs(1));
        });
        let wrong = accounting(&r);
        assert!(wrong.is_empty(), "{what}: {wrong:?}");
        let rate = r.rate.as_ref().unwrap();
        assert!(rate.still_due > 0, "{what}: {rate:?}");
        assert!(r.requests.dropped > 0, "{what}: {:?}", r.requests);
        // What the schedule asked of the window: 200 requests, one either side.
        assert!(rate.scheduled.abs_diff(200) <= 1, "{what}: {rate:?}");
    }
}

#[test]
fn a_load_that_drops_waits_for_each_timeout_instead_of_spinning() {
    // No connection ever opens: every due request waits its timeout, then is dropped.
    // Meanwhile the loop sleeps until the oldest is due to be dropped, or I/O comes.
    let refused = refused_url();
    for io in [IoChoice::Epoll, IoChoice::Uring] {
        let what = format!("{io:?}");
        let r = open_n(&what, &refused, |c| {
            c.io = io;
            c.pace = Pace::Open(RateSchedule::constant(2000.0));
            c.stop = Stop::After(Duration::from_secs(1));
        });
        assert!(r.requests.dropped > 1000, "{what}: {:?}", r.requests);
        let busy = r.generator.cpu_seconds / r.duration_s;
        assert!(
            busy < 0.5,
            "{what}: the generator was {:.0}% busy",
            busy * 100.0
        );
    }
}
