//! The kit as a separate process, for a test that needs one: `shootout-testserver
//! BEHAVIOR [--tls] --port 0` prints its URL once it listens, serves until killed, and
//! names behaviors (HTTP/2 ones as `h2:NAME`) as the library's `Display` does. Loopback
//! only.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use testserver::{Behavior, H2Behavior};

/// The server process, killed when dropped (a failed assertion included).
struct Process(Child);

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `shootout-testserver BEHAVIOR --port 0`; the process and the URL it printed.
fn spawn(behavior: &Behavior) -> (Process, String) {
    let (process, url) = spawn_with(&[behavior.to_string().as_str()]);
    assert!(url.starts_with("http://127.0.0.1:"), "printed {url:?}");
    (process, url)
}

/// Starts `shootout-testserver ARGS --port 0`; the process and the URL it printed.
fn spawn_with(args: &[&str]) -> (Process, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_shootout-testserver"))
        .args(args)
        .args(["--port", "0"])
        .stdout(Stdio::piped())
        .spawn()
        .expect("shootout-testserver starts");
    let stdout = child.stdout.take().expect("its stdout");
    let process = Process(child);
    // The line comes once it listens: reading it is the wait (a dead process ends it empty).
    let mut url = String::new();
    BufReader::new(stdout).read_line(&mut url).unwrap();
    (process, url.trim_end().to_string())
}

/// `127.0.0.1:PORT` of a URL the process printed.
fn addr_of(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    rest.trim_end_matches('/')
}

/// One `GET /` over a fresh connection that asks to close: the whole response.
fn get(url: &str) -> String {
    let mut c = TcpStream::connect(addr_of(url)).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    c.write_all(b"GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut response = String::new();
    c.read_to_string(&mut response).unwrap();
    response
}

#[test]
fn a_process_serves_the_behavior_named_on_its_command_line() {
    let (_server, url) = spawn(&Behavior::Status(503));
    let response = get(&url);
    assert!(
        response.starts_with("HTTP/1.1 503 Service Unavailable\r\n"),
        "{response:?}"
    );
    assert!(response.ends_with("\r\n\r\nHello World"), "{response:?}");
}

#[test]
fn a_process_serves_workers_named_workers_w_duration() {
    let (_server, url) = spawn(&Behavior::Workers {
        workers: 2,
        service: Duration::from_millis(1),
    });
    let response = get(&url);
    assert!(response.starts_with("HTTP/1.1 200 OK\r\n"), "{response:?}");
    assert!(response.ends_with("\r\n\r\nHello World"), "{response:?}");
}

#[test]
fn a_bad_behavior_is_refused_with_the_usage() {
    let out = Command::new(env!("CARGO_BIN_EXE_shootout-testserver"))
        .arg("nope")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("unknown behavior `nope`\nusage: "), "{err}");
}

#[test]
fn a_process_serves_http2_named_h2_name_in_clear_text_or_over_tls() {
    let (_server, url) = spawn_with(&[H2Behavior::MaxConcurrentStreams(7).to_string().as_str()]);
    assert!(url.starts_with("http://127.0.0.1:"), "printed {url:?}");
    let mut c = TcpStream::connect(addr_of(&url)).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    // The preface and an empty SETTINGS; the server's SETTINGS says its limit.
    c.write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\0\0\0\x04\0\0\0\0\0")
        .unwrap();
    let mut settings = [0u8; 15];
    c.read_exact(&mut settings).unwrap();
    assert_eq!(settings, *b"\0\0\x06\x04\0\0\0\0\0\0\x03\0\0\0\x07");

    let (_server, url) = spawn_with(&["h2:hello", "--tls"]);
    assert!(url.starts_with("https://127.0.0.1:"), "printed {url:?}");
    // h2load, where it is installed, speaks h2 to it over TLS (it verifies no
    // certificate); -T ends its connection after 30 s whatever happens.
    match Command::new("h2load")
        .args(["-n", "10", "-T", "30s", &url])
        .output()
    {
        Ok(out) => {
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(text.contains("Application protocol: h2\n"), "{text}");
            assert!(text.contains(" 10 succeeded,"), "{text}");
        }
        Err(e) => eprintln!("skipped the TLS load: h2load: {e} (nghttp2-client)"),
    }
}
