//! Loads over TLS account exactly: every request the client counts as ok is one the server
//! read, on both drivers, with keep-alive and with a new connection per request (closed
//! and open loop), resuming sessions or not, at every pace. The client trusts a CA made
//! for the test (testserver's TestPki).

use engine::{
    DeviceScript, IoChoice, LoadConfig, LoadResult, Pace, RateSchedule, Resume, Stop, Target,
    TlsClient, TlsSummary,
};
use rustls::ClientConfig;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use testserver::{Behavior, TestPki, TestServer, Tls, TlsFault};

const BACKENDS: [IoChoice; 2] = [IoChoice::Epoll, IoChoice::Uring];

/// A TLS hello server with `pki`'s certificate.
fn tls_server(pki: &TestPki) -> TestServer {
    let tls = Tls::new(pki.server_config().unwrap());
    TestServer::start_tls(Behavior::Hello, tls).unwrap()
}

/// A load of `requests` over TLS on 4 connections of one loop to `server`, shaped by `tweak`.
fn load(
    server: &TestServer,
    config: Arc<ClientConfig>,
    requests: u64,
    tweak: impl Fn(&mut LoadConfig),
) -> LoadResult {
    let mut c = LoadConfig::new(Target::parse(&format!("http://{}/", server.addr())).unwrap());
    c.connections = 4;
    c.threads = 1;
    c.stop = Stop::Requests(requests);
    c.timeout = Duration::from_secs(5);
    c.warmup = Duration::ZERO;
    c.tls = Some(TlsClient {
        config,
        server_name: TestPki::server_name(),
        resume: Resume::Tickets,
        http2: false,
    });
    tweak(&mut c);
    engine::run(&c, &AtomicBool::new(false)).unwrap()
}

/// Every request ended ok, the server read each one, and each connection the load opened
/// finished its handshake (`what` names the load in a failure).
fn assert_exact(what: &str, r: &LoadResult, server: &TestServer, requests: u64) -> TlsSummary {
    let q = &r.requests;
    assert_eq!((q.ok, q.total()), (requests, requests), "{what}: {q:?}");
    assert_eq!(server.requests(), requests, "{what}: the server's count");
    let tls = r
        .tls
        .clone()
        .unwrap_or_else(|| panic!("{what}: no TLS summary"));
    assert_eq!(tls.handshakes(), r.connections.opened, "{what}: {tls:?}");
    assert!(tls.failures.is_empty(), "{what}: {tls:?}");
    assert_eq!(r.histograms.handshake.len(), tls.handshakes(), "{what}");
    tls
}

#[test]
fn keep_alive_over_tls_counts_exactly_and_says_what_was_negotiated() {
    let pki = TestPki::new().unwrap();
    for io in BACKENDS {
        let server = tls_server(&pki);
        let r = load(&server, pki.client_config().unwrap(), 500, |c| c.io = io);
        let tls = assert_exact(&format!("{io:?}"), &r, &server, 500);
        assert_eq!(r.connections.opened, 4, "{io:?}");
        let n = (tls.negotiated.as_ref()).expect("the first handshake says what it settled on");
        assert_eq!(n.version, "TLS 1.3", "{io:?}");
        assert_eq!(n.group.as_deref(), Some("X25519"), "{io:?}");
        assert!(n.suite.starts_with("TLS13_"), "{io:?}: {}", n.suite);
        assert!(tls.handshake_us.p50 > 0.0, "{io:?}: {tls:?}");
    }
}

#[test]
fn a_connection_per_request_resumes_when_told_to_and_never_when_not() {
    let pki = TestPki::new().unwrap();
    for io in BACKENDS {
        for resume in [Resume::Tickets, Resume::Off] {
            let server = tls_server(&pki);
            let r = load(&server, pki.client_config().unwrap(), 120, |c| {
                c.io = io;
                c.keepalive = false;
                c.tls.as_mut().unwrap().resume = resume;
            });
            let what = format!("{io:?}, {resume:?}");
            let tls = assert_exact(&what, &r, &server, 120);
            assert_eq!(r.connections.opened, 120, "{what}");
            match resume {
                // The first connections find no ticket yet; later ones do.
                Resume::Tickets => assert!(tls.resumed > 60, "{what}: {tls:?}"),
                _ => assert_eq!(tls.resumed, 0, "{what}: {tls:?}"),
            }
        }
    }
}

#[test]
fn tls_12_resumes_by_session_id() {
    let pki = TestPki::new().unwrap();
    let tls12 = pki.client_config_for(&[&rustls::version::TLS12]).unwrap();
    for io in BACKENDS {
        let server = tls_server(&pki);
        let r = load(&server, tls12.clone(), 60, |c| {
            c.io = io;
            c.keepalive = false;
            c.tls.as_mut().unwrap().resume = Resume::Ids;
        });
        let what = format!("{io:?}, TLS 1.2 ids");
        let tls = assert_exact(&what, &r, &server, 60);
        assert!(tls.resumed > 30, "{what}: {tls:?}");
        let n = tls.negotiated.unwrap();
        assert_eq!(n.version, "TLS 1.2", "{what}");
    }
}

#[test]
fn every_pace_works_over_tls() {
    let pki = TestPki::new().unwrap();
    let config = pki.client_config().unwrap();
    for io in BACKENDS {
        // Open loop at a fixed rate and on a ramp, with and without keep-alive.
        for (rate, keepalive) in [("400", true), ("400", false), ("100,600:1s", true)] {
            let server = tls_server(&pki);
            let r = load(&server, config.clone(), 150, |c| {
                c.io = io;
                c.keepalive = keepalive;
                c.pace = Pace::Open(RateSchedule::parse(rate).unwrap());
            });
            let what = format!("{io:?}, rate {rate}, keep-alive {keepalive}");
            assert_exact(&what, &r, &server, 150);
            assert!(r.rate.is_some(), "{what}");
        }
        // Devices: each keeps one connection (one handshake) and sends its script.
        let server = tls_server(&pki);
        let count = RateSchedule::parse_device_count("8:1s").unwrap();
        let r = load(&server, config.clone(), 0, |c| {
            c.io = io;
            c.stop = Stop::After(Duration::from_secs(1));
            c.pace = Pace::Devices(DeviceScript {
                count: count.clone(),
                requests: 3,
                think: Duration::from_millis(20),
                jitter: 0.0,
            });
        });
        let what = format!("{io:?}, devices");
        let q = &r.requests;
        assert_eq!(q.errors(), 0, "{what}: {q:?}");
        assert!(q.ok >= 8, "{what}: {q:?}");
        // Devices come and go: the stop may catch the newest ones mid-handshake.
        let (tls, opened) = (r.tls.unwrap(), r.connections.opened);
        let unfinished = opened - tls.handshakes().min(opened);
        assert!(
            opened >= 8 && unfinished <= 8,
            "{what}: {opened} opened, {tls:?}"
        );
    }
}

/// The load's timeout against a server whose handshakes stall.
const STALL_TIMEOUT: Duration = Duration::from_millis(100);

/// A load shaped by `tweak` against a server that takes each ClientHello and says
/// nothing, without the pre-flight (it would refuse the server); interrupted, and the test
/// failed, if it has not ended a minute later.
fn stalled_load(pki: &TestPki, tweak: impl Fn(&mut LoadConfig)) -> LoadResult {
    let tls = Tls::new(pki.server_config().unwrap()).with_fault(TlsFault::StallHandshake);
    let server = TestServer::start_tls(Behavior::Hello, tls).unwrap();
    let mut c = LoadConfig::new(Target::parse(&format!("http://{}/", server.addr())).unwrap());
    c.connections = 4;
    c.threads = 1;
    c.timeout = STALL_TIMEOUT;
    c.tls = Some(TlsClient {
        config: pki.client_config().unwrap(),
        server_name: TestPki::server_name(),
        resume: Resume::Tickets,
        http2: false,
    });
    tweak(&mut c);
    let checked = engine::check_settings(&c).unwrap();
    let stop = AtomicBool::new(false);
    std::thread::scope(|s| {
        let (done, ended) = std::sync::mpsc::channel();
        // The sender moves in: a load that panics drops it and ends the waits below.
        let (checked, stop) = (&checked, &stop);
        s.spawn(move || {
            // Nobody left to receive only if the test already failed.
            let _ = done.send(engine::run_checked(checked, stop));
        });
        let within = ended.recv_timeout(Duration::from_secs(60));
        let hung = within.is_err();
        stop.store(true, Ordering::Relaxed);
        let r = within.or_else(|_| ended.recv()).unwrap().unwrap();
        assert!(!hung, "still running after a minute: {:?}", r.requests);
        r
    })
}

/// An open loop bounded by a request count ends though no handshake ever finishes: with
/// keep-alive its requests find no open connection and are dropped at the timeout, over
/// HTTP/1.1 and HTTP/2 alike.
#[test]
fn a_request_count_ends_while_no_handshake_finishes() {
    let pki = TestPki::new().unwrap();
    for io in BACKENDS {
        for http2 in [false, true] {
            let r = stalled_load(&pki, |c| {
                c.io = io;
                c.http2 = http2;
                if let Some(tls) = c.tls.as_mut() {
                    tls.http2 = http2;
                }
                c.stop = Stop::Requests(40);
                c.pace = Pace::Open(RateSchedule::parse("400").unwrap());
            });
            let (q, rate) = (&r.requests, r.rate.as_ref().expect("an open loop"));
            let what = format!("{io:?}, HTTP/2 {http2}");
            assert_eq!((q.dropped, q.total()), (40, 40), "{what}: {q:?}");
            assert_eq!(
                (rate.scheduled, rate.started, rate.still_due),
                (40, 0, 0),
                "{what}: {rate:?}"
            );
        }
    }
}

/// The TLS failure reasons of `r`.
fn failures(r: &LoadResult) -> std::collections::BTreeMap<String, u64> {
    r.tls.as_ref().expect("a TLS summary").failures.clone()
}

#[test]
fn a_stalled_handshake_ends_at_the_timeout_at_every_pace() {
    let pki = TestPki::new().unwrap();
    for io in BACKENDS {
        // A connection per request, due by the schedule: each request times out on its
        // connection's handshake, or, when the loop is late on a busy machine, waited for
        // a connection past its timeout and is dropped (CI once saw 7 and 1).
        let r = stalled_load(&pki, |c| {
            c.io = io;
            c.keepalive = false;
            c.stop = Stop::Requests(8);
            c.pace = Pace::Open(RateSchedule::parse("400").unwrap());
        });
        let q = &r.requests;
        assert_eq!((q.timeout + q.dropped, q.total()), (8, 8), "{io:?}: {q:?}");
        assert!(q.timeout > 0, "{io:?}: {q:?}");
        let given_up = failures(&r)["handshake_timeout"];
        assert!((q.timeout..=8).contains(&given_up), "{io:?}: {given_up}");
        // Keep-alive: requests start on open connections only, so none starts; each
        // connection's handshake is given up at the timeout (and counted), and tried
        // again. A request waits for a connection up to the timeout, then is dropped.
        let r = stalled_load(&pki, |c| {
            c.io = io;
            c.stop = Stop::After(Duration::from_millis(500));
            c.pace = Pace::Open(RateSchedule::parse("400").unwrap());
        });
        let q = &r.requests;
        assert!(
            q.dropped > 0 && q.total() == q.dropped,
            "{io:?}: none sent, some dropped: {q:?}"
        );
        let rate = r.rate.as_ref().expect("an open loop");
        assert_eq!(
            (rate.started, q.dropped + rate.still_due),
            (0, rate.scheduled),
            "{io:?}: {rate:?}"
        );
        let given_up = failures(&r)["handshake_timeout"];
        assert!(given_up >= 4, "{io:?}: {given_up} handshakes given up");
        // Those given up, and the last of each slot, whose connect may still be under way.
        let opened = r.connections.opened;
        assert!(
            (given_up..=given_up + 4).contains(&opened),
            "{io:?}: {opened} opened, {given_up} given up"
        );
    }
}
