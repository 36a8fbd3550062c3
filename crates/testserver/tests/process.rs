//! The kit as a separate process, for a test that needs one: `shootout-testserver
//! BEHAVIOR --port 0` prints its URL once it listens, serves until killed, and names
//! behaviors as the library's `Display` does. Loopback only.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use testserver::Behavior;

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
    let mut child = Command::new(env!("CARGO_BIN_EXE_shootout-testserver"))
        .args([behavior.to_string().as_str(), "--port", "0"])
        .stdout(Stdio::piped())
        .spawn()
        .expect("shootout-testserver starts");
    let stdout = child.stdout.take().expect("its stdout");
    let process = Process(child);
    // The line comes once it listens: reading it is the wait (a dead process ends it empty).
    let mut url = String::new();
    BufReader::new(stdout).read_line(&mut url).unwrap();
    assert!(url.starts_with("http://127.0.0.1:"), "printed {url:?}");
    (process, url.trim_end().to_string())
}

/// One `GET /` over a fresh connection that asks to close: the whole response.
fn get(url: &str) -> String {
    let addr = url.trim_start_matches("http://").trim_end_matches('/');
    let mut c = TcpStream::connect(addr).unwrap();
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
fn a_bad_behavior_is_refused_with_the_usage() {
    let out = Command::new(env!("CARGO_BIN_EXE_shootout-testserver"))
        .arg("nope")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("unknown behavior `nope`\nusage: "), "{err}");
}
