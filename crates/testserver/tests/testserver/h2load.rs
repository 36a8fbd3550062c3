//! The HTTP/2 mode driven by h2load, the reference HTTP/2 load client: what h2load
//! reports against what the server counted, for hello (h2c and TLS) and for each
//! misbehaviour. Each test skips, saying so, where h2load is not installed
//! (scripts/install-test-deps installs it: Debian's nghttp2-client). Loopback only; every
//! h2load run is bounded by a deadline.

use crate::counters;

use counters::wait_for;
use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use testserver::{H2Behavior, RstCode, TestPki, TestServer, Tls};

/// How long one h2load run may take before the test fails (they take milliseconds).
const RUN_DEADLINE: Duration = Duration::from_secs(60);

/// What h2load reported.
#[derive(Debug, Default, PartialEq, Eq)]
struct Report {
    started: u64,
    done: u64,
    succeeded: u64,
    failed: u64,
    errored: u64,
    timeout: u64,
    status_2xx: u64,
    status_5xx: u64,
    /// Octets of response bodies (DATA payloads).
    data: u64,
    /// The rest of what it printed, for failure messages and the protocol line.
    text: String,
}

/// Whether h2load is here; if not, the caller skips (and says so once here).
fn have_h2load() -> bool {
    let found = Command::new("h2load")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !found {
        eprintln!("skipped: h2load not found (Debian's nghttp2-client; scripts/install-test-deps)");
    }
    found
}

/// Runs `h2load ARGS URL` to its end (failing the test past [`RUN_DEADLINE`]).
fn h2load(url: &str, args: &[&str]) -> Report {
    let mut child = Command::new("h2load")
        .args(args)
        .arg(url)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("h2load starts");
    let mut stdout = child.stdout.take().expect("its stdout");
    // Read on a thread, so that a long output cannot fill the pipe and stall h2load.
    let reader = thread::spawn(move || {
        let mut text = String::new();
        let _ = stdout.read_to_string(&mut text);
        text
    });
    let end = Instant::now() + RUN_DEADLINE;
    while child.try_wait().expect("h2load waits").is_none() {
        if Instant::now() > end {
            let _ = child.kill();
            let _ = child.wait();
            panic!("h2load {args:?} {url} ran past {RUN_DEADLINE:?}");
        }
        // Between polls only.
        thread::sleep(Duration::from_millis(5));
    }
    parse(reader.join().expect("the reader thread"))
}

/// Reads the `requests:`, `status codes:` and `traffic:` lines.
fn parse(text: String) -> Report {
    // `requests: 1000 total, 1000 started, ...`: the first word of each item.
    let numbers = |prefix: &str| -> Vec<u64> {
        let line = text
            .lines()
            .find_map(|l| l.strip_prefix(prefix))
            .unwrap_or_else(|| panic!("no `{prefix}` line in h2load's output:\n{text}"));
        line.split(", ")
            .map(|item| item.split(' ').next().and_then(|n| n.parse().ok()))
            .map(|n| n.unwrap_or_else(|| panic!("`{prefix}{line}`: a count that is no number")))
            .collect()
    };
    let requests = numbers("requests: ");
    // `status codes: 0 2xx, 0 3xx, 0 4xx, 20 5xx`
    let status = numbers("status codes: ");
    // `traffic: 65.52KB (67096) total, 37.11KB (38000) headers (...), 10.74KB (11000) data`
    let data = text
        .lines()
        .find_map(|l| l.strip_prefix("traffic: "))
        .and_then(|l| l.rsplit_once(") data"))
        .and_then(|(before, _)| before.rsplit_once('('))
        .and_then(|(_, n)| n.parse().ok())
        .unwrap_or_else(|| panic!("no data octets in h2load's output:\n{text}"));
    Report {
        started: requests[1],
        done: requests[2],
        succeeded: requests[3],
        failed: requests[4],
        errored: requests[5],
        timeout: requests[6],
        status_2xx: status[0],
        status_5xx: status[3],
        data,
        text,
    }
}

fn start(behavior: H2Behavior) -> TestServer {
    TestServer::start_h2(behavior).unwrap()
}

/// A request body of `len` octets in a file of its own, removed when dropped.
struct BodyFile(PathBuf);

impl BodyFile {
    fn new(len: usize) -> BodyFile {
        let name = format!("testserver-h2-body-{}-{len}", std::process::id());
        let path = std::env::temp_dir().join(name);
        std::fs::write(&path, vec![b'b'; len]).unwrap();
        BodyFile(path)
    }

    fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for BodyFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[test]
fn hello_over_h2c_answers_every_stream_and_counts_each() {
    if !have_h2load() {
        return;
    }
    let server = start(H2Behavior::Hello);
    let r = h2load(&server.url("/"), &["-n", "1000", "-c", "4", "-m", "10"]);
    assert_eq!(
        (r.succeeded, r.status_2xx, r.data),
        (1000, 1000, 11_000),
        "{}",
        r.text
    );
    assert!(r.text.contains("Application protocol: h2c"), "{}", r.text);
    wait_for("responses", 1000, || server.responses());
    assert_eq!((server.requests(), server.connections()), (1000, 4));
    assert_eq!(
        (server.resets(), server.goaways(), server.pings()),
        (0, 0, 0)
    );
}

#[test]
fn hello_over_tls_negotiates_h2_and_answers_every_stream() {
    if !have_h2load() {
        return;
    }
    let pki = TestPki::new().unwrap();
    let tls = Tls::new(pki.server_config().unwrap());
    let server = TestServer::start_h2_tls(H2Behavior::Hello, tls).unwrap();
    let url = server.url("/");
    assert!(url.starts_with("https://"), "{url}");
    // h2load does not verify the certificate (it has no flag for a CA): the test CA does.
    let r = h2load(&url, &["-n", "1000", "-c", "4", "-m", "10"]);
    assert_eq!((r.succeeded, r.status_2xx), (1000, 1000), "{}", r.text);
    assert!(r.text.contains("Application protocol: h2\n"), "{}", r.text);
    wait_for("responses", 1000, || server.responses());
    assert_eq!((server.requests(), server.connections()), (1000, 4));
}

#[test]
fn a_body_past_the_clients_window_waits_for_its_window_updates() {
    if !have_h2load() {
        return;
    }
    let server = start(H2Behavior::Body(200_000));
    // -w 16 -W 16: windows of 65 535 octets for each stream and the connection.
    let args = ["-n", "20", "-c", "2", "-m", "5", "-w", "16", "-W", "16"];
    let r = h2load(&server.url("/"), &args);
    assert_eq!((r.succeeded, r.data), (20, 20 * 200_000), "{}", r.text);
    wait_for("responses", 20, || server.responses());
}

#[test]
fn request_bodies_are_read_and_their_window_granted_back() {
    if !have_h2load() {
        return;
    }
    let server = start(H2Behavior::Hello);
    let body = BodyFile::new(200_000);
    let args = ["-n", "20", "-c", "2", "-m", "5", "-d", body.path()];
    let r = h2load(&server.url("/"), &args);
    assert_eq!(r.succeeded, 20, "{}", r.text);
    wait_for("responses", 20, || server.responses());
}

#[test]
fn the_delay_holds_each_answer_and_the_status_knob_sets_it() {
    if !have_h2load() {
        return;
    }
    let delay = Duration::from_millis(200);
    let server = start(H2Behavior::Delay(delay));
    let t0 = Instant::now();
    let r = h2load(&server.url("/"), &["-n", "20", "-c", "1", "-m", "10"]);
    assert!(t0.elapsed() >= 2 * delay, "two rounds of 10 streams");
    assert_eq!(r.succeeded, 20, "{}", r.text);

    let server = start(H2Behavior::Status(503));
    let r = h2load(&server.url("/"), &["-n", "20", "-c", "2", "-m", "10"]);
    // h2load counts a 5xx as failed, not errored.
    assert_eq!(
        (r.status_5xx, r.failed, r.errored),
        (20, 20, 0),
        "{}",
        r.text
    );
}

#[test]
fn a_bad_preface_fails_every_request_before_any_stream_is_read() {
    if !have_h2load() {
        return;
    }
    let server = start(H2Behavior::BadPreface);
    let r = h2load(&server.url("/"), &["-n", "10", "-c", "1"]);
    assert_eq!((r.succeeded, r.errored), (0, 10), "{}", r.text);
    assert_eq!((server.connections(), server.requests()), (1, 0));
}

#[test]
fn an_oversized_frame_or_hpack_garbage_breaks_the_connection_after_n_answers() {
    if !have_h2load() {
        return;
    }
    for behavior in [
        H2Behavior::OversizedFrameAfter(3),
        H2Behavior::HpackGarbageAfter(3),
    ] {
        let server = start(behavior.clone());
        // One stream at a time: each connection answers 3, then breaks on the 4th.
        let r = h2load(&server.url("/"), &["-n", "100", "-c", "2", "-m", "1"]);
        assert_eq!((r.succeeded, r.errored), (6, 94), "{behavior}: {}", r.text);
        // The broken answers count as sent, as the HTTP/1.1 ones do.
        wait_for("responses", 8, || server.responses());
        assert_eq!(server.requests(), 8, "{behavior}");
    }
}

#[test]
fn a_window_never_opened_stalls_request_bodies_until_the_client_gives_up() {
    if !have_h2load() {
        return;
    }
    let server = start(H2Behavior::ZeroWindow);
    // Past 65 535 octets: more than the connection's window, which is never granted, so
    // not even a stream sent before the client saw SETTINGS_INITIAL_WINDOW_SIZE 0 ends.
    let body = BodyFile::new(70_000);
    let args = ["-n", "10", "-c", "1", "-N", "1s", "-d", body.path()];
    let r = h2load(&server.url("/"), &args);
    assert_eq!((r.succeeded, r.timeout), (0, 1), "{}", r.text);
    assert_eq!((server.requests(), server.responses()), (1, 0));
    // A request without a body needs no window.
    let r = h2load(&server.url("/"), &["-n", "10", "-c", "1"]);
    assert_eq!(r.succeeded, 10, "{}", r.text);
}

#[test]
fn a_connection_window_that_stops_lets_some_bodies_through_then_stalls() {
    if !have_h2load() {
        return;
    }
    let server = start(H2Behavior::WindowStopsAfter(100_000));
    let body = BodyFile::new(70_000);
    let args = ["-n", "10", "-c", "1", "-N", "1s", "-d", body.path()];
    let r = h2load(&server.url("/"), &args);
    // 65 535 octets free, then 100 000 and a frame's worth granted back: two bodies.
    assert!((1..10).contains(&r.succeeded), "{}", r.text);
    assert_eq!(r.timeout, 1, "{}", r.text);
    wait_for("responses", r.succeeded, || server.responses());
}

#[test]
fn goaway_mid_load_answers_up_to_its_last_stream_and_h2load_fails_the_rest() {
    if !have_h2load() {
        return;
    }
    let server = start(H2Behavior::GoawayAfter(10));
    let r = h2load(&server.url("/"), &["-n", "100", "-c", "2", "-m", "4"]);
    // h2load does not retry on a new connection: what the server did not take on fails.
    assert_eq!((r.succeeded, r.failed), (20, 80), "{}", r.text);
    wait_for("responses", 20, || server.responses());
    assert_eq!((server.requests(), server.goaways()), (20, 2));
}

#[test]
fn rst_stream_every_kth_stream_fails_those_streams_alone() {
    if !have_h2load() {
        return;
    }
    for (code, refused) in [(RstCode::Refused, 33), (RstCode::Internal, 0)] {
        let server = start(H2Behavior::RstEvery { every: 3, code });
        let r = h2load(&server.url("/"), &["-n", "99", "-c", "1", "-m", "10"]);
        assert_eq!((r.succeeded, r.errored), (66, 33), "{code:?}: {}", r.text);
        wait_for("responses", 66, || server.responses());
        assert_eq!(server.requests(), 99, "{code:?}");
        assert_eq!(
            (server.resets(), server.refused()),
            (33, refused),
            "{code:?}"
        );
    }
}

#[test]
fn max_concurrent_streams_1_refuses_the_first_flight_then_is_obeyed() {
    if !have_h2load() {
        return;
    }
    let server = start(H2Behavior::MaxConcurrentStreams(1));
    let r = h2load(&server.url("/"), &["-n", "100", "-c", "2", "-m", "10"]);
    // h2load opens its first 10 streams in its first write, before it reads SETTINGS:
    // those beyond the limit are refused and h2load fails them (9 on each connection,
    // seen here); then it keeps to one at a time.
    let refused = server.refused();
    assert!((1..=18).contains(&refused), "{refused} refused: {}", r.text);
    assert_eq!(
        (r.succeeded, r.errored),
        (100 - refused, refused),
        "{}",
        r.text
    );
    wait_for("responses", r.succeeded, || server.responses());
    assert_eq!((server.resets(), server.requests()), (refused, r.succeeded));
    // Asked for one stream at a time, h2load meets no refusal.
    let server = start(H2Behavior::MaxConcurrentStreams(1));
    let r = h2load(&server.url("/"), &["-n", "100", "-c", "2", "-m", "1"]);
    assert_eq!((r.succeeded, server.refused()), (100, 0), "{}", r.text);
}

#[test]
fn a_ping_flood_is_acked_and_the_load_goes_on() {
    if !have_h2load() {
        return;
    }
    let server = start(H2Behavior::PingFlood(3));
    let r = h2load(&server.url("/"), &["-n", "100", "-c", "2", "-m", "1"]);
    assert_eq!(r.succeeded, 100, "{}", r.text);
    wait_for("pings", 300, || server.pings());
    // h2load closes once its last response is in, without acking the PINGs that came
    // with it: up to 3 on each connection.
    let acks = server.ping_acks();
    assert!((294..=300).contains(&acks), "{acks} acks");
}

#[test]
fn a_protocol_error_goaway_or_a_bare_close_after_n_answers_fails_the_rest() {
    if !have_h2load() {
        return;
    }
    for (behavior, goaways) in [
        (H2Behavior::ProtocolErrorAfter(5), 2),
        (H2Behavior::CloseAfter(5), 0),
    ] {
        let server = start(behavior.clone());
        let r = h2load(&server.url("/"), &["-n", "100", "-c", "2", "-m", "4"]);
        assert_eq!((r.succeeded, r.failed), (10, 90), "{behavior}: {}", r.text);
        wait_for("responses", 10, || server.responses());
        assert_eq!(server.goaways(), goaways, "{behavior}");
    }
}

#[test]
fn a_response_without_status_is_an_error_on_every_stream() {
    if !have_h2load() {
        return;
    }
    let server = start(H2Behavior::NoStatus);
    let r = h2load(&server.url("/"), &["-n", "10", "-c", "1", "-m", "1"]);
    assert_eq!(
        (r.succeeded, r.errored, r.status_2xx),
        (0, 10, 0),
        "{}",
        r.text
    );
    wait_for("responses", 10, || server.responses());
}
