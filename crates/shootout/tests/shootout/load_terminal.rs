//! `shootout load` as typed at a terminal: the live status line on stderr (shown only on
//! a terminal, silenced by -q), and the flags ab and wrk users type by habit. Loads go to
//! a local test server only.

use std::process::{Command, Output};
use std::time::Duration;
use testserver::{Behavior, TestServer};

const BIN: &str = env!("CARGO_BIN_EXE_shootout");

/// Text every status line of a measured load has.
const STATUS: &str = " left | ";

fn shootout(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .output()
        .expect("the shootout binary runs")
}

/// `shootout ARGS` under a pseudo terminal (util-linux's `script`): stdout and stderr
/// both go to the terminal, whose bytes come back on `script`'s stdout.
fn at_a_terminal(args: &[&str]) -> String {
    let quoted: Vec<String> = std::iter::once(BIN)
        .chain(args.iter().copied())
        .map(|a| format!("'{}'", a.replace('\'', r"'\''")))
        .collect();
    let out = Command::new("script")
        .args(["-q", "-e", "-c", &quoted.join(" "), "/dev/null"])
        // A terminal that can redraw a line; cargo may run tests without TERM.
        .env("TERM", "xterm")
        .output()
        .expect("script (bsdutils; scripts/install-test-deps) runs");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{args:?}: {text}");
    text
}

#[test]
fn a_terminal_sees_the_status_line_and_then_the_summary() {
    let server = TestServer::start(Behavior::Hello).unwrap();
    let url = server.url("/hello");
    let shown = at_a_terminal(&["load", &url, "-c", "2", "-t", "1", "-d", "2s"]);
    let last = shown.rfind(STATUS).unwrap_or_else(|| panic!("{shown}"));
    assert!(shown.contains("req/s | 0 errors"), "{shown}");
    assert!(shown.contains("of 2.0s, "), "{shown}");
    // The line is cleared before the summary prints below it.
    let summary = shown
        .find("Requests/sec:")
        .unwrap_or_else(|| panic!("{shown}"));
    assert!(last < summary, "{shown}");
    assert!(shown[last..summary].contains("\x1b[2K"), "{shown}");
}

#[test]
fn a_request_count_shows_the_requests_left() {
    // 100 ms a response, 2 connections, 30 requests: at least 1.5 s, three redraws.
    let server = TestServer::start(Behavior::Delay(Duration::from_millis(100))).unwrap();
    let url = server.url("/hello");
    let shown = at_a_terminal(&["load", &url, "-c", "2", "-t", "1", "-n", "30"]);
    assert!(shown.contains(" of 30 requests left | "), "{shown}");
    assert!(shown.contains("30 requests in"), "{shown}");
}

#[test]
fn quiet_or_no_terminal_means_no_status_line() {
    let server = TestServer::start(Behavior::Hello).unwrap();
    let url = server.url("/hello");
    let base = ["load", url.as_str(), "-c", "2", "-t", "1", "-d", "1s"];
    let quiet = at_a_terminal(&[&base[..], &["-q"]].concat());
    assert!(!quiet.contains(STATUS), "{quiet}");
    assert!(quiet.contains("Requests/sec:"), "{quiet}");

    for format in [&["--format", "text"][..], &["--json"]] {
        let out = shootout(&[&base[..], format].concat());
        assert!(out.status.success());
        assert!(out.stderr.is_empty(), "{format:?}: stderr {:?}", out.stderr);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(!stdout.contains(['\r', '\x1b']), "{format:?}: {stdout}");
    }
}

#[test]
fn ab_keepalive_and_wrk_latency_are_accepted() {
    let server = TestServer::start(Behavior::Hello).unwrap();
    let url = server.url("/hello");
    let base = ["load", url.as_str(), "-c", "2", "-t", "1", "-n", "200"];
    let keep = shootout(&[&base[..], &["-k"]].concat());
    let text = String::from_utf8_lossy(&keep.stdout);
    assert!(
        keep.status.success(),
        "{}",
        String::from_utf8_lossy(&keep.stderr)
    );
    assert!(text.contains("connections at most (keep-alive,"), "{text}");

    let latency = shootout(&[&base[..], &["--latency"]].concat());
    let text = String::from_utf8_lossy(&latency.stdout);
    assert!(
        latency.status.success(),
        "{}",
        String::from_utf8_lossy(&latency.stderr)
    );
    assert!(text.contains("Latency Distribution"), "{text}");
    assert!(text.contains("99.9%"), "{text}");

    let both = shootout(&[&base[..], &["-k", "--no-keepalive"]].concat());
    let err = String::from_utf8_lossy(&both.stderr);
    assert_eq!(both.status.code(), Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.contains("--keepalive") && err.contains("--no-keepalive"),
        "{err}"
    );
    assert!(both.stdout.is_empty());

    let help = String::from_utf8_lossy(&shootout(&["load", "--help"]).stdout).into_owned();
    for text in ["--keepalive", "--latency", "ab -k", "wrk --latency"] {
        assert!(help.contains(text), "{text}: {help}");
    }
}
