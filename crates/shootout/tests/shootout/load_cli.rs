//! `shootout load` as a user runs it: output formats, JSON schema, and one-line errors
//! with exit code 2 for bad input. Loads go to a local test server only.

use crate::checkout;
use crate::tls_test_kit;

use checkout::{assert_one_line_error, bare as shootout, REQUEST_CLASSES};
use std::io::Write;
use std::process::{Command, Output, Stdio};
use testserver::{Behavior, TestServer, WsBehavior};
use tls_test_kit::openssl::{Key, SServer, Serving, Workshop, LOCAL_NAMES};
use tls_test_kit::{Ca, ServerSetup};

#[test]
fn json_has_the_documented_fields_and_the_counts_add_up() {
    let server = TestServer::start(Behavior::Hello).unwrap();
    let url = server.url("/hello");
    let out = shootout(&["load", &url, "-c", "4", "-t", "1", "-n", "500", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");
    assert_eq!(v["schema"], "shootout.load/1");
    let q = &v["requests"];
    let sum: u64 = REQUEST_CLASSES
        .iter()
        .map(|k| q[k].as_u64().unwrap_or_else(|| panic!("requests.{k}")))
        .sum();
    assert_eq!(q["total"].as_u64(), Some(sum));
    assert_eq!(q["ok"].as_u64(), Some(500));
    for k in [
        "mean", "stdev", "min", "max", "p50", "p75", "p90", "p99", "p999",
    ] {
        assert!(v["latency_us"][k].is_number(), "latency_us.{k}");
        assert!(v["connect_us"][k].is_number(), "connect_us.{k}");
    }
    for k in ["cpu_seconds", "cpu_percent", "bound", "io", "threads"] {
        assert!(!v["generator"][k].is_null(), "generator.{k}");
    }
    assert!(v["rps"].as_f64().unwrap() > 0.0);
    assert!(v["bytes"]["read"].as_u64().unwrap() > 500 * 11);
    assert_eq!(v["status_codes"]["200"].as_u64(), Some(500));
    let second = &v["per_second"][0];
    for k in ["requests", "errors", "p50_us", "p90_us", "p99_us"] {
        assert!(second[k].is_number(), "per_second[0].{k}");
    }
}

/// A server that records the head of every request it reads, answers each with an empty
/// 200 and keeps the connection; it stops accepting when dropped.
struct RecordingServer {
    addr: std::net::SocketAddr,
    heads: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl RecordingServer {
    fn start() -> RecordingServer {
        use std::io::{BufRead, BufReader};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let heads = std::sync::Arc::<std::sync::Mutex<Vec<String>>>::default();
        let stop = std::sync::Arc::<std::sync::atomic::AtomicBool>::default();
        let (kept, stopped) = (heads.clone(), stop.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                if stopped.load(std::sync::atomic::Ordering::Relaxed) {
                    return;
                }
                let kept = kept.clone();
                std::thread::spawn(move || {
                    let mut answer = stream.try_clone().unwrap();
                    let mut lines = BufReader::new(stream);
                    let mut head = String::new();
                    // Until the client closes: a line at a time, a blank one ends a head.
                    while lines.read_line(&mut head).is_ok_and(|n| n > 0) {
                        if head.ends_with("\r\n\r\n") {
                            kept.lock().unwrap().push(std::mem::take(&mut head));
                            let ok = b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
                            if answer.write_all(ok).is_err() {
                                return;
                            }
                        }
                    }
                });
            }
        });
        RecordingServer { addr, heads, stop }
    }
}

impl Drop for RecordingServer {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        // Wakes the accept loop so that it sees the stop.
        let _ = std::net::TcpStream::connect(self.addr);
    }
}

/// Over HTTP/1.1 a header's name goes on the wire as the user wrote it, as wrk and curl
/// send it (HTTP/2 lowercases it: the engine's request tests); the Host line keeps its own.
#[test]
fn header_names_reach_the_server_as_written() {
    let server = RecordingServer::start();
    let url = format!("http://{}/case", server.addr);
    let headers = ["-H", "X-My-Header: v", "-H", "aCCept: */*"];
    let load = ["load", &url, "-c", "1", "-t", "1", "-n", "3"];
    let out = shootout(&[&load[..], &headers].concat());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let heads = server.heads.lock().unwrap().clone();
    assert!(heads.len() >= 3, "{heads:?}");
    for head in &heads {
        let lines: Vec<&str> = head.split("\r\n").collect();
        assert_eq!(lines[0], "GET /case HTTP/1.1", "{head:?}");
        assert_eq!(lines[1], format!("Host: {}", server.addr), "{head:?}");
        assert_eq!(lines[2..4], ["X-My-Header: v", "aCCept: */*"], "{head:?}");
    }
}

/// `load --h2c --streams 10` as a user runs it: every stream counted once, as the server
/// counts it, the JSON says HTTP/2, its streams and the server's SETTINGS, and the text
/// says so too.
#[test]
fn an_h2c_load_says_http2_and_counts_every_stream() {
    let server = TestServer::start_h2(testserver::H2Behavior::Hello).unwrap();
    let url = server.url("/hello");
    let args = [
        "load",
        "--h2c",
        &url,
        "--streams",
        "10",
        "-c",
        "4",
        "-t",
        "1",
        "-n",
        "500",
    ];
    let out = shootout(&[&args[..], &["--json"]].concat());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");
    assert_eq!(v["requests"]["ok"].as_u64(), Some(500));
    assert_eq!(
        (
            v["config"]["http_version"].as_str(),
            v["config"]["streams"].as_u64()
        ),
        (Some("2"), Some(10))
    );
    assert_eq!(
        v["h2"]["settings"]["max_concurrent_streams"].as_u64(),
        Some(100)
    );
    let text = shootout(&args);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("4 connections at most (HTTP/2, 10 streams each"),
        "{text}"
    );
    assert!(
        text.contains("HTTP/2: the server allows 100 streams"),
        "{text}"
    );
    assert_eq!(server.requests(), 1000, "two loads of 500");
}

#[test]
fn text_ab_and_webbench_formats_print_their_key_lines() {
    let server = TestServer::start(Behavior::Hello).unwrap();
    let url = server.url("/hello");
    let base = ["load", url.as_str(), "-c", "2", "-t", "1", "-n", "200"];
    let text = shootout(&base);
    let text = String::from_utf8_lossy(&text.stdout);
    for line in [
        "Running 200 requests @",
        "Latency Distribution",
        "200 requests in",
        "Requests/sec:",
        "Transfer/sec:",
    ] {
        assert!(text.contains(line), "missing {line:?} in:\n{text}");
    }
    let ab = shootout(&[&base[..], &["--format", "ab", "--no-keepalive"]].concat());
    let ab = String::from_utf8_lossy(&ab.stdout);
    for line in [
        "Concurrency Level:      2",
        "Complete requests:      200",
        "Failed requests:        0",
        "Requests per second:",
        "  99% ",
        "(longest request)",
    ] {
        assert!(ab.contains(line), "missing {line:?} in:\n{ab}");
    }
    let wb = shootout(&[&base[..], &["--format", "webbench", "--http1.0"]].concat());
    let wb = String::from_utf8_lossy(&wb.stdout);
    assert!(wb.starts_with("Speed="), "{wb}");
    assert!(
        wb.contains(" pages/min, ") && wb.contains("Requests: 200 susceed, 0 failed."),
        "{wb}"
    );
}

#[test]
fn bad_flags_are_one_line_and_exit_2() {
    assert_one_line_error(
        &shootout(&["load", "http://127.0.0.1:1/", "--bogus"]),
        "--bogus",
    );
    assert_one_line_error(
        &shootout(&["load", "http://127.0.0.1:1/", "-d", "ten"]),
        "not a duration",
    );
    assert_one_line_error(
        &shootout(&["load", "http://127.0.0.1:1/", "-H", "NoColon"]),
        "has no ':'",
    );
    assert_one_line_error(
        &shootout(&[
            "load",
            "http://127.0.0.1:1/",
            "--pipeline",
            "2",
            "--no-keepalive",
        ]),
        "pipelining needs keep-alive",
    );
}

#[test]
fn malformed_requests_are_one_line_and_exit_2() {
    assert_one_line_error(
        &shootout(&["load", "http://127.0.0.1:1/", "-m", "GE T"]),
        "method \"GE T\" is not a valid HTTP method token",
    );
    assert_one_line_error(
        &shootout(&["load", "http://127.0.0.1:1/", "-H", "X: a\r\nY: b"]),
        "header \"X: a\\r\\nY: b\" is not a valid HTTP header",
    );
}

#[test]
fn bad_urls_are_one_line_and_exit_2() {
    assert_one_line_error(&shootout(&["load", "ftp://127.0.0.1/"]), "scheme \"ftp\"");
    assert_one_line_error(&shootout(&["load", "127.0.0.1:8080"]), "missing scheme");
    assert_one_line_error(
        &shootout(&["load", "http://no-such-host.invalid/"]),
        "cannot resolve host \"no-such-host.invalid\"",
    );
}

#[test]
fn refused_connection_is_one_line_and_exit_2() {
    let addr = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let url = format!("http://{addr}/");
    assert_one_line_error(&shootout(&["load", &url, "-d", "1s"]), "refused");
}

#[test]
fn more_connections_than_files_is_refused_with_the_number_that_fits() {
    let server = TestServer::start(Behavior::Hello).unwrap();
    let url = server.url("/");
    assert_one_line_error(&shootout(&["load", &url, "-c", "5000000"]), "at most");
}

#[test]
fn shards_merge_into_one_result_and_bad_files_are_one_line() {
    let server = TestServer::start(Behavior::Hello).unwrap();
    let url = server.url("/hello");
    let dir = std::env::temp_dir().join(format!("shootout-merge-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut files = Vec::new();
    for i in 1..=2 {
        let shard = format!("{i}/2");
        let out = shootout(&[
            "load", &url, "-c", "4", "-t", "1", "-n", "300", "--shard", &shard, "--json",
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let path = dir.join(format!("shard{i}.json"));
        std::fs::write(&path, &out.stdout).unwrap();
        files.push(path.to_string_lossy().into_owned());
    }
    let log = dir.join("merged.hlog").to_string_lossy().into_owned();
    let out = shootout(&["merge", &files[0], &files[1], "--json", "--hdr-log", &log]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["requests"]["ok"].as_u64(), Some(300));
    assert_eq!(v["config"]["shard"], "merged 2");
    let hlog = std::fs::read_to_string(&log).unwrap();
    assert!(
        hlog.lines().any(|l| l.starts_with("0.000,1.000,")),
        "{hlog}"
    );

    std::fs::write(dir.join("bad.json"), "{}").unwrap();
    let bad = dir.join("bad.json").to_string_lossy().into_owned();
    assert_one_line_error(
        &shootout(&["merge", &files[0], &bad]),
        "not a shootout.load result",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_fixed_rate_without_keepalive_runs_one_connection_per_request() {
    let server = TestServer::start(Behavior::Hello).unwrap();
    let url = server.url("/hello");
    let args = ["load", &url, "--rate", "200", "--no-keepalive", "-d", "1s"];
    let out = shootout(&[&args[..], &["-c", "4", "-t", "1", "--json"]].concat());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");
    assert_eq!(v["config"]["keepalive"], false);
    // Every request due in the second started, but those due just before its end when
    // the loop woke only after it (by how much its duration says), and one either side.
    let started = v["rate"]["started"].as_u64().expect("rate.started") as f64;
    let overrun = (v["duration_s"].as_f64().expect("duration_s") - 1.0).max(0.0);
    let missed = 200.0 - started;
    assert!(
        (-2.0..=200.0 * overrun + 2.0).contains(&missed),
        "{started} started in {} s",
        1.0 + overrun
    );
    let opened = v["connections"]["opened"]
        .as_u64()
        .expect("connections.opened");
    assert!(
        opened.abs_diff(started as u64) <= 2,
        "{opened} opened, {started} started"
    );
}

/// `shootout load` of a test server with `behavior`: 200 requests, then `extra` flags.
fn load_with(behavior: Behavior, extra: &[&str]) -> Output {
    let server = TestServer::start(behavior).unwrap();
    let url = server.url("/hello");
    let base = ["load", url.as_str(), "-c", "2", "-t", "1", "-n", "200"];
    shootout(&[&base[..], extra].concat())
}

/// An open loop whose one connection cannot keep up: 100 requests/s to a server that
/// takes 50 ms each (20/s), 150 ms timeout. Those that wait past it are dropped: the
/// summary, the JSON and the thresholds say so, and every request is accounted for.
#[test]
fn an_open_loop_says_what_it_dropped_and_thresholds_judge_it() {
    let delay = std::time::Duration::from_millis(50);
    let server = TestServer::start(Behavior::Delay(delay)).unwrap();
    let url = server.url("/hello");
    let pace = ["--rate", "100", "-n", "30", "--timeout", "150ms"];
    let load = [&["load", url.as_str(), "-c", "1", "-t", "1"][..], &pace].concat();
    let judged = ["--threshold", "dropped<1%", "--threshold", "errors<=0"];
    let out = shootout(&[&load[..], &judged].concat());
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(99), "{text}");
    assert!(
        text.contains("  Dropped (due, no connection within the timeout, never sent): "),
        "{text}"
    );
    assert!(text.contains("thresholds crossed: 2 of 2"), "{text}");
    assert!(
        text.contains("WARNING: ") && text.contains(" were dropped"),
        "{text}"
    );
    let out = shootout(&[&load[..], &["--json"]].concat());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");
    let count = |v: &serde_json::Value| v.as_u64().unwrap_or_else(|| panic!("{v}"));
    let (q, rate) = (&v["requests"], &v["rate"]);
    let dropped = count(&q["dropped"]);
    assert!(dropped > 0 && count(&q["ok"]) > 0, "{q}");
    assert_eq!(count(&q["total"]), 30, "{q}");
    assert_eq!(
        count(&rate["started"]) + dropped + count(&rate["still_due"]),
        count(&rate["scheduled"]),
        "{rate}"
    );
}

/// Requests that vary, checked against the answer their values call for: a server that
/// caches its first answer gets every other request counted wrong, in the summary and in
/// the JSON.
#[test]
fn varying_requests_count_wrong_answers() {
    let server = TestServer::start(Behavior::SumCached).unwrap();
    let url = server.url("/");
    let load = [
        "load",
        url.as_str(),
        "-c",
        "2",
        "-t",
        "1",
        "-n",
        "200",
        "--request",
        "GET /sum?a={a=seq}&b={b=seq}",
        "--expect",
        "{sum:a,b}",
    ];
    let out = shootout(&load);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("  Wrong answers (not the expected body): 199"),
        "{text}"
    );
    assert!(!text.contains("Socket errors"), "{text}");
    let out = shootout(&[&load[..], &["--json"]].concat());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");
    let q = &v["requests"];
    assert_eq!(
        (q["ok"].as_u64(), q["wrong"].as_u64()),
        (Some(1), Some(199)),
        "{q}"
    );
    let targets: std::collections::HashSet<String> =
        server.seen().into_iter().map(|s| s.target).collect();
    // Each request of a load its own number; the second load numbers from 0 again.
    assert_eq!(targets.len(), 200, "{targets:?}");
}

#[test]
fn a_crossed_threshold_prints_its_table_and_exits_99() {
    let out = load_with(
        Behavior::Hello,
        &[
            "--threshold",
            "p99<1us",
            "--threshold",
            "rps >= 1000M",
            "--threshold",
            "errors<=0",
        ],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(99), "{text}");
    let table = text
        .split_once("thresholds crossed: 2 of 3\n")
        .expect(&text)
        .1;
    let rows: Vec<&str> = table.lines().collect();
    assert!(
        rows[0].contains("threshold") && rows[0].contains("% of limit"),
        "{text}"
    );
    // The latency row: measured in its unit, above the limit by a positive amount.
    assert!(rows[1].trim_start().starts_with("p99<1us"), "{text}");
    assert!(rows[1].contains(" +") && rows[1].ends_with('%'), "{text}");
    assert!(rows[2].trim_start().starts_with("rps >= 1000M"), "{text}");
    assert!(
        rows[2].contains(" req/s") && rows[2].contains(" -"),
        "{text}"
    );
    assert!(
        !table.contains("errors<=0"),
        "held thresholds are not listed: {text}"
    );
    assert!(
        text.contains("Requests/sec:"),
        "the summary comes first: {text}"
    );
}

#[test]
fn held_thresholds_say_so_in_one_line_and_exit_0_in_every_format() {
    let held = ["--threshold", "p99<10s", "--threshold", "errors<1%"];
    let out = load_with(Behavior::Hello, &held);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.ends_with("\nthresholds: all 2 held\n"), "{text}");

    let ab = load_with(Behavior::Hello, &[&held[..], &["--format", "ab"]].concat());
    let text = String::from_utf8_lossy(&ab.stdout);
    assert_eq!(ab.status.code(), Some(0), "{text}");
    assert!(text.contains("Requests per second:"), "{text}");
    assert!(text.ends_with("\nthresholds: all 2 held\n"), "{text}");
}

#[test]
fn with_json_the_thresholds_go_to_stderr_and_stdout_stays_json() {
    let out = load_with(Behavior::Hello, &["--json", "--threshold", "p99<1us"]);
    assert_eq!(out.status.code(), Some(99));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");
    assert_eq!(v["requests"]["ok"].as_u64(), Some(200));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("thresholds crossed: 1 of 1"), "{err}");
    assert!(err.contains("p99<1us"), "{err}");
}

#[test]
fn a_load_where_no_request_succeeds_exits_1_and_says_how_they_ended() {
    // Every response is a 503: answered, framed, and failed. The threshold is crossed
    // too, and the exit status says the worse: nothing succeeded.
    let out = load_with(Behavior::Status(503), &["--threshold", "errors<1%"]);
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{text}{err}");
    assert!(
        text.contains("Requests/sec:"),
        "the summary still prints: {text}"
    );
    assert!(text.contains("thresholds crossed: 1 of 1"), "{text}");
    assert!(text.contains("100%"), "every request failed: {text}");
    assert_eq!(
        err.trim_end(),
        "no request succeeded (of 200 requests: status 200)"
    );
}

#[test]
fn a_bad_threshold_is_one_line_naming_it_and_nothing_is_sent() {
    // Port 1 refuses connections: were a load started, the error would say so instead.
    let url = "http://127.0.0.1:1/";
    let out = shootout(&["load", url, "--threshold", "p99<5xs"]);
    assert_one_line_error(&out, "--threshold");
    assert_one_line_error(&out, "'p99<5xs'");
    assert_one_line_error(&out, "unknown unit \"xs\"");
    let out = shootout(&["load", url, "--threshold", "p95<5ms"]);
    assert_one_line_error(&out, "unknown metric \"p95\"");
    let out = shootout(&["load", url, "--threshold", "cpu<40us"]);
    assert_one_line_error(&out, "only `shootout run` measures");
}

/// A TLS server whose certificate is for "localhost" only, signed by a CA written to
/// `dir/ca.pem`: its address and the CA file.
fn localhost_tls_server(dir: &std::path::Path) -> (std::net::SocketAddr, String) {
    let ca = Ca::new("test CA");
    let addr = ServerSetup::new(&ca.issue(&["localhost"])).start();
    let file = dir.join("ca.pem");
    std::fs::write(&file, &ca.pem).unwrap();
    (addr, file.display().to_string())
}

#[test]
fn a_certificate_that_fails_verification_is_one_line_and_exit_2() {
    let dir = checkout::temp_folder("tls-preflight");
    let (addr, ca) = localhost_tls_server(dir.path());
    let url = format!("https://{addr}/");
    let out = shootout(&["load", &url, "--cacert", &ca, "-n", "10"]);
    assert_one_line_error(
        &out,
        &format!(
            "load: {url}: certificate not valid for name \"127.0.0.1\", only for \"localhost\" \
             (use --sni NAME, or --insecure to skip verification)"
        ),
    );
    // Without --cacert the system's CAs do not know the test CA.
    let out = shootout(&["load", &url, "-n", "10"]);
    assert_one_line_error(
        &out,
        &format!(
            "load: {url}: certificate issued by \"CN=test CA\", which is not trusted, and the \
             server sent no chain from it to a trusted CA (use --cacert FILE with its CA, or \
             --insecure to skip verification)"
        ),
    );
}

/// The certificate most guides make (`openssl req -x509 -newkey ec ... -subj /CN=localhost
/// -addext subjectAltName=DNS:localhost,IP:127.0.0.1`, CA:TRUE with OpenSSL 3), served by
/// `openssl s_server`: `--cacert` with it passes, as with curl; without, one line says
/// it is self-signed and what helps.
#[test]
fn a_self_signed_openssl_certificate_passes_with_cacert_and_says_so_without() {
    let shop = Workshop::new();
    let ca_true = ["basicConstraints=critical,CA:TRUE", LOCAL_NAMES];
    let made = shop.self_signed("cert", Key::P256, &ca_true);
    let server = SServer::start(&Serving {
        made: &made,
        chain: None,
        tls12_only: false,
    });
    let url = format!("https://{}/", server.addr);
    let cacert = made.cert.to_str().unwrap();
    let quick = ["-n", "2", "-c", "1", "-t", "1"];
    let out = shootout(&[&["load", &url, "--cacert", cacert][..], &quick].concat());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "with --cacert itself: {stderr}");
    let out = shootout(&[&["load", &url][..], &quick].concat());
    assert_one_line_error(
        &out,
        &format!(
            "load: {url}: self-signed certificate \"CN=localhost\", not a trusted one (use \
             --cacert FILE with it, or --insecure to skip verification)"
        ),
    );
}

/// A shard runs the same check on the spec it reads (certificates in it as PEM text).
#[test]
fn a_shard_checks_the_certificate_too() {
    let dir = checkout::temp_folder("tls-shard");
    let (addr, ca) = localhost_tls_server(dir.path());
    let pem = std::fs::read_to_string(&ca).unwrap();
    let spec = serde_json::json!({
        "url": format!("https://{addr}/"),
        "stop": {"requests": 10},
        "tls": {"cacert": pem}
    });
    assert_one_line_error(
        &shard(&spec),
        "certificate not valid for name \"127.0.0.1\"",
    );
    // A self-signed certificate of openssl's (CA:TRUE) in the spec's cacert: trusted as
    // the load itself trusts it.
    let shop = Workshop::new();
    let ca_true = ["basicConstraints=critical,CA:TRUE", LOCAL_NAMES];
    let made = shop.self_signed("cert", Key::P256, &ca_true);
    let server = SServer::start(&Serving {
        made: &made,
        chain: None,
        tls12_only: false,
    });
    let spec = serde_json::json!({
        "url": format!("https://{}/", server.addr),
        "stop": {"requests": 4},
        "connections": 2,
        "threads": 1,
        "tls": {"cacert": std::fs::read_to_string(&made.cert).unwrap()}
    });
    let out = shard(&spec);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the shard trusts it: {stderr}");
}

/// `shootout load --spec - --shard 1/2 --json`, `spec` on its standard input.
fn shard(spec: &serde_json::Value) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_shootout"))
        .args(["load", "--spec", "-", "--shard", "1/2", "--json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the shootout binary runs");
    let mut input = child.stdin.take().unwrap();
    input.write_all(spec.to_string().as_bytes()).unwrap();
    drop(input);
    child.wait_with_output().unwrap()
}

#[test]
fn bad_tls_flags_are_one_line_and_exit_2() {
    let url = "https://127.0.0.1:1/";
    assert_one_line_error(
        &shootout(&["load", url, "--tls-version", "1.4"]),
        "load: --tls-version: TLS version \"1.4\" is not one (expected 1.2, 1.3 or a range 1.2-1.3)",
    );
    assert_one_line_error(
        &shootout(&["load", url, "--ciphers", "RC4"]),
        "load: --ciphers: cipher suite \"RC4\" is not one this build offers",
    );
    assert_one_line_error(
        &shootout(&["load", url, "--cacert", "/no/such/ca.pem"]),
        "load: --cacert /no/such/ca.pem: No such file or directory",
    );
    assert_one_line_error(
        &shootout(&["load", "http://127.0.0.1:1/", "--insecure"]),
        "load: TLS setting tls.insecure (--insecure) given for an http:// URL: TLS needs https://",
    );
    // -k is ab's keep-alive, never --insecure.
    let out = shootout(&["load", url, "-k", "--tls-version", "1.3", "-n", "1"]);
    assert_one_line_error(&out, "cannot connect to 127.0.0.1:1");
}

/// Every other TLS flag a user can get wrong is one line naming the flag (and the file),
/// exit 2, before anything is sent (port 1 refuses: a load would say so instead).
#[test]
fn each_tls_flag_mistake_names_its_flag() {
    let dir = checkout::temp_folder("tls-flags");
    let ca = Ca::new("test CA");
    let (mine, other) = (ca.issue(&["client.test"]), ca.issue(&["other.test"]));
    let file = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    };
    let (cert, key) = (file("cert.pem", &mine.cert), file("key.pem", &mine.key));
    let other_key = file("other.key", &other.key);
    let url = "https://127.0.0.1:1/";
    let cases: [(&[&str], String); 9] = [
        (
            &["--tls-groups", "X448"],
            "load: --tls-groups: key exchange group \"X448\" is not one this build offers".into(),
        ),
        (
            &["--key", &key],
            "the following required arguments were not provided: --cert <FILE> \
             (see shootout load --help)"
                .into(),
        ),
        (
            &["--cert", &cert],
            format!("load: --cert {cert} (no --key): no private key in it"),
        ),
        (
            &["--cert", &key, "--key", &key],
            format!("load: --cert {key}: no certificate in it"),
        ),
        (
            &["--cacert", &key],
            format!("load: --cacert {key}: no certificate in it"),
        ),
        (
            &["--cert", &cert, "--key", &other_key],
            "load: --key is not the key of --cert: their public keys differ".into(),
        ),
        (
            &[
                "--tls-version",
                "1.2",
                "--ciphers",
                "TLS13_AES_128_GCM_SHA256",
            ],
            "load: --ciphers: none is for TLS 1.2 (--tls-version; TLS 1.3 suites are named \
             TLS13_*)"
                .into(),
        ),
        (
            &["--sni", "a b"],
            "load: --sni: SNI name \"a b\" is neither a DNS name nor an IP address".into(),
        ),
        (
            &["--tls-resume", "maybe"],
            "invalid value 'maybe' for '--tls-resume <HOW>' (one of 'off', 'tickets', 'ids';"
                .into(),
        ),
    ];
    for (flags, needle) in cases {
        let out = shootout(&[&["load", url, "-n", "1"], flags].concat());
        assert_one_line_error(&out, &needle);
    }
}

/// `--messages-per-connection` churns a WebSocket load's connections, each closed with
/// the close handshake, and says so; `--devices` over `ws://` holds a connection per
/// device, a message every think time.
#[test]
fn a_websocket_load_churns_its_connections_and_devices_hold_theirs() {
    let server = TestServer::start_ws(WsBehavior::Echo).unwrap();
    let url = server.url("/echo");
    let json = |args: &[&str]| {
        let out = shootout(&[&["load", url.as_str(), "-t", "1", "--json"], args].concat());
        let text = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(out.status.success(), "{args:?}: {text}");
        serde_json::from_slice::<serde_json::Value>(&out.stdout).expect("stdout is JSON")
    };
    let v = json(&["-c", "2", "-n", "100", "--messages-per-connection", "10"]);
    assert_eq!(
        v["config"]["websocket"]["messages_per_connection"], 10,
        "{v}"
    );
    assert_eq!(v["requests"]["ok"], 100, "{v}");
    let opened = v["connections"]["opened"].as_u64().unwrap();
    assert!(
        (10..=12).contains(&opened),
        "{opened} connections for 100 messages, 10 each"
    );
    assert_eq!(v["ws"]["upgrades"], opened, "{v}");
    assert_eq!(v["ws"]["closes_sent"], opened, "{v}");
    assert_eq!(v["ws"]["closes_answered"], opened, "{v}");
    let out = shootout(&[
        "load",
        &url,
        "-c",
        "2",
        "-t",
        "1",
        "-n",
        "40",
        "--messages-per-connection",
        "10",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("in flight each, a new connection every 10"),
        "{text}"
    );
    assert!(text.contains("the client's closes: "), "{text}");
    let v = json(&[
        "--devices",
        "0,6:0.3s,6:0.5s",
        "--think",
        "50ms",
        "--device-requests",
        "3",
    ]);
    let q = &v["requests"];
    let ok = q["ok"].as_u64().unwrap();
    assert!(ok > 0, "{v}");
    // A device's message may be on its way at the end.
    assert_eq!(ok + q["in_flight"].as_u64().unwrap(), q["total"], "{v}");
    let opened = &v["connections"]["opened"];
    assert_eq!(&v["ws"]["upgrades"], opened, "{v}");
    assert_eq!(&v["ws"]["closes_answered"], opened, "{v}");
    let devices =
        (v["per_second"].as_array().unwrap().iter()).filter_map(|s| s["devices"].as_u64());
    assert!(devices.max().unwrap_or(0) >= 4, "{v}");
    let out = shootout(&["load", &url, "--devices", "5:1s", "--in-flight", "2"]);
    assert_one_line_error(
        &out,
        "devices send one message at a time: --in-flight must be 1",
    );
}
