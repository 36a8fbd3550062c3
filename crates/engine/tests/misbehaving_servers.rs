//! Every kind of server misbehaviour ends up in the right error class, the counts add up,
//! and nothing panics, on both event-loop kinds. Loads go to 127.0.0.1 only, and every
//! load is bounded by a request count (each request ends, at worst by its timeout) or a
//! short duration.

use engine::{IoChoice, LoadConfig, LoadResult, RunError, Stop, Target};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};
use testserver::{Behavior, TestServer};

const BACKENDS: [IoChoice; 2] = [IoChoice::Epoll, IoChoice::Uring];

/// Requests of a load unless a test says otherwise: a count, not a time, so that what a
/// test asserts of them does not depend on how many a busy machine gets through.
const REQUESTS: u64 = 40;

fn config(server: &TestServer, io: IoChoice) -> LoadConfig {
    let mut c = LoadConfig::new(Target::parse(&server.url("/hello")).unwrap());
    c.connections = 4;
    c.threads = 1;
    c.stop = Stop::Requests(REQUESTS);
    c.timeout = Duration::from_secs(2);
    c.io = io;
    c
}

fn run(c: &LoadConfig) -> LoadResult {
    let r = engine::run(c, &AtomicBool::new(false)).expect("load runs");
    let q = &r.requests;
    assert_eq!(
        q.total(),
        q.ok + q.status + q.timeout + q.connect + q.read + q.write + q.parse + q.in_flight
    );
    assert!(q.total() > 0, "{:?}: no request started", c.io);
    r
}

/// Runs `behavior` on each backend with `tweak` applied, and hands each result to `check`.
fn each_backend(
    behavior: Behavior,
    tweak: impl Fn(&mut LoadConfig),
    check: impl Fn(&LoadResult, &TestServer),
) {
    for io in BACKENDS {
        let server = TestServer::start(behavior.clone()).unwrap();
        let mut c = config(&server, io);
        tweak(&mut c);
        let r = run(&c);
        check(&r, &server);
    }
}

#[test]
fn well_behaved_server_every_request_counted_once() {
    each_backend(
        Behavior::Hello,
        |c| c.stop = Stop::Requests(2000),
        |r, s| {
            assert_eq!(r.requests.ok, 2000, "{:?}", r.requests);
            assert_eq!(r.requests.total(), 2000);
            assert_eq!(s.requests(), 2000);
            assert_eq!(r.status_codes.get("200"), Some(&2000));
            assert_eq!(r.connections.opened, 4);
            assert!(r.latency_us.p50 > 0.0 && r.latency_us.max >= r.latency_us.p99);
        },
    );
}

#[test]
fn pipelined_requests_are_answered_in_order() {
    each_backend(
        Behavior::Hello,
        |c| {
            c.pipeline = 8;
            c.stop = Stop::Requests(1000);
        },
        |r, s| {
            assert_eq!(r.requests.ok, 1000, "{:?}", r.requests);
            assert_eq!(s.requests(), 1000);
        },
    );
}

#[test]
fn no_keepalive_opens_a_connection_per_request() {
    each_backend(
        Behavior::Hello,
        |c| {
            c.keepalive = false;
            c.stop = Stop::Requests(300);
        },
        |r, s| {
            assert_eq!(r.requests.ok, 300, "{:?}", r.requests);
            assert_eq!(r.connections.opened, 300);
            // One more: the check, before the load, that the target answers at all.
            assert_eq!(s.connections(), 301);
        },
    );
}

#[test]
fn http10_close_delimited_bodies_end_at_close() {
    each_backend(
        Behavior::Http10CloseDelimited,
        |c| c.http10 = true,
        |r, _| {
            assert_eq!(r.requests.ok, REQUESTS, "{:?}", r.requests);
            assert_eq!(r.requests.errors(), 0, "{:?}", r.requests);
        },
    );
}

#[test]
fn warmup_requests_are_not_counted() {
    each_backend(
        Behavior::Hello,
        |c| {
            c.warmup = Duration::from_millis(200);
            c.stop = Stop::Requests(500);
        },
        |r, s| {
            assert_eq!(r.requests.total(), 500, "{:?}", r.requests);
            assert!(s.requests() > 500);
        },
    );
}

#[test]
fn error_statuses_are_counted_as_status() {
    each_backend(
        Behavior::Status(503),
        |_| {},
        |r, _| {
            assert_eq!(r.requests.ok, 0);
            assert_eq!(r.requests.status, REQUESTS);
            assert_eq!(r.requests.errors(), 0, "{:?}", r.requests);
            assert_eq!(r.status_codes.get("503"), Some(&r.requests.status));
        },
    );
}

#[test]
fn malformed_status_line_is_a_parse_error() {
    each_backend(
        Behavior::MalformedStatusLine,
        |_| {},
        |r, _| {
            assert_eq!(r.requests.ok, 0);
            assert!(r.requests.parse > 0, "{:?}", r.requests);
        },
    );
}

#[test]
fn body_shorter_than_content_length_then_close_is_a_read_error() {
    each_backend(
        Behavior::LongContentLength,
        |_| {},
        |r, _| {
            assert_eq!(r.requests.ok, 0);
            assert!(r.requests.read > 0, "{:?}", r.requests);
            assert_eq!(r.requests.parse, 0);
        },
    );
}

#[test]
fn body_longer_than_content_length_is_a_parse_error() {
    each_backend(
        Behavior::ShortContentLength,
        |_| {},
        |r, _| {
            assert!(r.requests.parse > 0, "{:?}", r.requests);
            assert!(r.warnings.iter().any(|w| w.contains("beyond a response")));
        },
    );
}

#[test]
fn reset_in_the_middle_of_a_response_is_a_read_error() {
    each_backend(
        Behavior::ResetMidResponse,
        |_| {},
        |r, _| {
            assert_eq!(r.requests.ok, 0);
            assert!(r.requests.read > 0, "{:?}", r.requests);
        },
    );
}

#[test]
fn invalid_chunk_size_is_a_parse_error() {
    each_backend(
        Behavior::InvalidChunkSize,
        |_| {},
        |r, _| {
            assert_eq!(r.requests.ok, 0);
            assert!(r.requests.parse > 0, "{:?}", r.requests);
        },
    );
}

#[test]
fn a_chunk_size_line_with_trailing_whitespace_is_a_parse_error() {
    // `5 \r\n`: RFC 9112 §7.1 lets whitespace come only before `;`.
    each_backend(
        Behavior::ChunkSizeTrailingSpace,
        |_| {},
        |r, _| {
            // Counted once each, under parse (`run` checks that the classes add up).
            assert_eq!((r.requests.ok, r.requests.status), (0, 0));
            assert!(r.requests.parse > 0, "{:?}", r.requests);
        },
    );
}

#[test]
fn chunked_bodies_with_bare_lf_line_ends_are_framed() {
    // RFC 9112 §2.2 lets a recipient accept a bare LF as a line end.
    each_backend(
        Behavior::ChunkedBareLf,
        |_| {},
        |r, _| {
            assert!(r.requests.ok > 10, "{:?}", r.requests);
            assert_eq!(r.requests.errors(), 0, "{:?}", r.requests);
        },
    );
}

#[test]
fn chunked_bodies_with_trailers_are_framed() {
    each_backend(
        Behavior::Chunked,
        |_| {},
        |r, _| {
            assert_eq!(r.requests.ok, REQUESTS, "{:?}", r.requests);
            assert_eq!(r.requests.errors(), 0, "{:?}", r.requests);
        },
    );
}

#[test]
fn headers_larger_than_a_receive_buffer_are_reassembled() {
    each_backend(
        Behavior::HugeHeaders(40 * 1024),
        |_| {},
        |r, _| {
            assert_eq!(r.requests.ok, REQUESTS, "{:?}", r.requests);
            assert_eq!(r.requests.errors(), 0, "{:?}", r.requests);
        },
    );
}

#[test]
fn headers_beyond_the_head_limit_are_a_parse_error() {
    each_backend(
        Behavior::HugeHeaders(200 * 1024),
        |_| {},
        |r, _| {
            assert_eq!(r.requests.ok, 0);
            assert!(r.requests.parse > 0, "{:?}", r.requests);
        },
    );
}

#[test]
fn a_server_that_never_answers_times_out() {
    each_backend(
        Behavior::NeverAnswer,
        |c| {
            c.timeout = Duration::from_millis(100);
            c.stop = Stop::Requests(8);
        },
        |r, _| {
            assert_eq!(r.requests.ok, 0);
            assert_eq!(r.requests.timeout, 8, "{:?}", r.requests);
            assert_eq!(r.requests.errors(), r.requests.timeout);
        },
    );
}

#[test]
fn a_stalled_server_times_out_after_answering() {
    each_backend(
        Behavior::StallAfter(50),
        |c| {
            c.timeout = Duration::from_millis(100);
            c.stop = Stop::Requests(200);
        },
        |r, _| {
            assert_eq!(r.requests.ok, 50, "{:?}", r.requests);
            assert_eq!(r.requests.timeout, 150);
        },
    );
}

#[test]
fn connections_closed_without_warning_are_reopened() {
    each_backend(
        Behavior::CloseAfterResponses(3),
        |_| {},
        |r, _| {
            let q = &r.requests;
            // Each connection answers 3; at most the one request after them fails.
            assert!(q.ok > REQUESTS / 2, "{q:?}");
            assert_eq!(
                q.errors(),
                q.read + q.write,
                "{:?} {q:?} {:?}",
                r.generator.io,
                r.warnings
            );
            assert!(r.connections.opened > 4);
            assert!(r.connections.closed_by_server > 0);
        },
    );
}

#[test]
fn idle_connections_closed_by_the_server_are_reopened() {
    each_backend(
        Behavior::CloseIdle(Duration::from_millis(1)),
        |_| {},
        |r, _| {
            let q = &r.requests;
            // How many connections the server closes under a request depends on how soon
            // the loop reuses each (1 ms idle is enough): the loop goes on, and every
            // request ends ok or as the closed connection's error.
            assert!(q.ok > 0, "{q:?}");
            assert_eq!(
                q.errors(),
                q.read + q.write,
                "{:?} {q:?} {:?}",
                r.generator.io,
                r.warnings
            );
        },
    );
}

#[test]
fn interim_responses_are_skipped() {
    each_backend(
        Behavior::Interim,
        |_| {},
        |r, _| {
            assert_eq!(r.requests.ok, REQUESTS, "{:?}", r.requests);
            assert_eq!(r.requests.errors(), 0, "{:?}", r.requests);
            assert_eq!(r.status_codes.keys().collect::<Vec<_>>(), ["200"]);
        },
    );
}

#[test]
fn connection_close_on_every_response_is_not_an_error() {
    each_backend(
        Behavior::ConnectionClose,
        |c| c.stop = Stop::Requests(200),
        |r, _| {
            assert_eq!(r.requests.ok, 200, "{:?}", r.requests);
            assert_eq!(r.connections.opened, 200);
            assert_eq!(r.connections.closed_by_server, 200);
        },
    );
}

#[test]
fn head_requests_expect_no_body() {
    each_backend(
        Behavior::Hello,
        |c| {
            c.method = "HEAD".into();
            c.stop = Stop::Requests(100);
        },
        |r, _| assert_eq!(r.requests.ok, 100, "{:?}", r.requests),
    );
}

#[test]
fn refused_connection_is_an_error_before_any_load() {
    let addr = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let c = LoadConfig::new(Target::parse(&format!("http://{addr}/")).unwrap());
    let e = engine::run(&c, &AtomicBool::new(false)).unwrap_err();
    assert!(matches!(e, RunError::Unreachable { .. }), "{e}");
    assert!(e.to_string().contains(&addr.to_string()), "{e}");
}

#[test]
fn too_many_connections_are_refused_with_the_number_that_fits() {
    let server = TestServer::start(Behavior::Hello).unwrap();
    let mut c = config(&server, IoChoice::Epoll);
    c.connections = 10_000_000;
    let e = engine::run(&c, &AtomicBool::new(false)).unwrap_err();
    match e {
        RunError::TooManyConnections { fits, limit, .. } => assert!(fits > 0 && fits < limit),
        other => panic!("unexpected {other}"),
    }
}

/// Polls `done` until it holds, for at most a minute (a busy machine is slow, not
/// stuck); fails naming `what`.
fn wait_until(what: &str, done: impl Fn() -> bool) {
    let until = Instant::now() + Duration::from_secs(60);
    while !done() {
        assert!(Instant::now() < until, "waited a minute for {what}");
        // Between polls only.
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn interrupt_stops_the_load_and_keeps_the_counts() {
    let server = TestServer::start(Behavior::Hello).unwrap();
    let mut c = config(&server, IoChoice::Auto);
    c.stop = Stop::After(Duration::from_secs(120));
    let load = engine::check(&c).expect("load checks");
    let (stop, live) = (AtomicBool::new(false), engine::Live::new());
    let r = std::thread::scope(|s| {
        let h = s.spawn(|| engine::run_watched(&load, &stop, &live));
        // Interrupted once it has counted a response (no warm-up: it is measured).
        wait_until("the load to count a response", || live.responses() > 0);
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        h.join().unwrap().unwrap()
    });
    assert!(r.interrupted);
    assert!(r.duration_s < 120.0, "ran to its end: {}", r.duration_s);
    assert!(r.requests.ok > 0);
}

#[test]
fn live_count_sees_every_response_warm_up_included() {
    for io in BACKENDS {
        let server = TestServer::start(Behavior::Hello).unwrap();
        let mut c = config(&server, io);
        // Long enough that a busy machine answers something in it (the warm-up is a time).
        c.warmup = Duration::from_secs(1);
        let live = engine::Live::new();
        let load = engine::check(&c).expect("load checks");
        let r = engine::run_watched(&load, &AtomicBool::new(false), &live).expect("load runs");
        let measured = r.requests.ok + r.requests.status;
        assert!(live.responses() > measured, "{:?}: warm-up not seen", io);
        // The server also counts the requests still in flight when the load stopped.
        let unanswered = server.requests() - live.responses();
        assert!(
            unanswered <= r.requests.in_flight,
            "{io:?}: {unanswered} unanswered"
        );
    }
}

#[test]
fn live_counts_match_the_result_errors_included() {
    for (io, behavior) in [
        (IoChoice::Epoll, Behavior::Hello),
        (IoChoice::Uring, Behavior::Status(503)),
        (IoChoice::Epoll, Behavior::MalformedStatusLine),
    ] {
        let server = TestServer::start(behavior.clone()).unwrap();
        let mut c = config(&server, io);
        c.warmup = Duration::from_millis(100);
        let live = engine::Live::new();
        let load = engine::check(&c).expect("load checks");
        let r = engine::run_watched(&load, &AtomicBool::new(false), &live).expect("load runs");
        // The last publication comes after the last request ended: the counts are exact.
        let q = &r.requests;
        assert_eq!(live.finished(), q.finished(), "{io:?} {behavior:?}");
        assert_eq!(live.failed(), q.finished() - q.ok, "{io:?} {behavior:?}");
        assert!(live.finished() > 0, "{io:?} {behavior:?}");
    }
}
