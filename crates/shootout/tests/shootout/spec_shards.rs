//! A load's spec travels whole to its shards: `shootout load --body-file` with a binary
//! body (every byte value, NUL and invalid UTF-8 among them) over `--generators local:2`
//! sends those exact bytes from both shard processes, as a server on 127.0.0.1 that keeps
//! every request body it received sees; and `load --spec -` reads the same load as JSON.
//! A client certificate and its key travel in the spec too (to shards on this machine).

use crate::checkout;
use crate::mtls;

use checkout::{bare as shootout, PATIENCE};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// An HTTP/1.1 server on 127.0.0.1 that answers every request `200 ok` (keep-alive) and
/// keeps its body; its threads end with their connections, the listener's with the test.
struct BodyServer {
    port: u16,
    bodies: Arc<Mutex<Vec<Vec<u8>>>>,
}

impl BodyServer {
    fn start() -> BodyServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a port on loopback");
        let port = listener.local_addr().unwrap().port();
        let bodies = Arc::new(Mutex::new(Vec::new()));
        let kept = Arc::clone(&bodies);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let kept = Arc::clone(&kept);
                std::thread::spawn(move || serve(stream, &kept));
            }
        });
        BodyServer { port, bodies }
    }

    fn bodies(&self) -> Vec<Vec<u8>> {
        self.bodies.lock().unwrap().clone()
    }
}

/// Requests on one connection until it closes or one is malformed.
fn serve(stream: TcpStream, bodies: &Mutex<Vec<Vec<u8>>>) {
    let mut out = stream.try_clone().expect("a second handle");
    let mut input = BufReader::new(stream);
    while let Some(length) = head(&mut input) {
        let mut body = vec![0; length];
        if input.read_exact(&mut body).is_err() {
            return;
        }
        bodies.lock().unwrap().push(body);
        let answer = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
        if out.write_all(answer).is_err() {
            return;
        }
    }
}

/// Reads a request head; its Content-Length (0 without one), or None at the end.
fn head(input: &mut impl BufRead) -> Option<usize> {
    let mut length = 0;
    let mut line = String::new();
    loop {
        line.clear();
        if input.read_line(&mut line).ok()? == 0 {
            return None;
        }
        if line == "\r\n" {
            return Some(length);
        }
        if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().ok()?;
            }
        }
    }
}

fn temp_dir(tag: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("shootout-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Every byte value once: NUL, ASCII, and bytes that are no UTF-8.
fn binary_body() -> Vec<u8> {
    (0..=255).collect()
}

/// Every body the server received is `want`, there is one per request the load counts,
/// and each shard sent some.
fn assert_exact_bodies(server: &BodyServer, result: &serde_json::Value, shards: usize) {
    let ok = result["requests"]["ok"].as_u64().expect("requests.ok");
    assert_eq!(result["requests"]["total"].as_u64(), Some(ok), "{result}");
    let bodies = server.bodies();
    assert_eq!(bodies.len() as u64, ok, "one body per request");
    let want = binary_body();
    assert!(
        bodies.iter().all(|b| *b == want),
        "every body is the 256 bytes"
    );
    let parts = result["shards"]
        .as_array()
        .expect("shards in a merged result");
    assert_eq!(parts.len(), shards);
    for part in parts {
        assert!(part["requests"]["ok"].as_u64() > Some(0), "{part}");
    }
}

#[test]
fn a_binary_body_file_reaches_the_server_exactly_from_both_shards() {
    let server = BodyServer::start();
    let dir = temp_dir("spec-body");
    let file = dir.join("body.bin");
    std::fs::write(&file, binary_body()).unwrap();
    let url = format!("http://127.0.0.1:{}/upload", server.port);
    let started = Instant::now();
    let out = shootout(&[
        "load",
        &url,
        "-m",
        "POST",
        "--body-file",
        &file.display().to_string(),
        "--generators",
        "local:2",
        "-c",
        "4",
        "-n",
        "400",
        "--json",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(started.elapsed() < PATIENCE, "the load ended in time");
    let result: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(result["requests"]["ok"].as_u64(), Some(400), "{result}");
    assert_exact_bodies(&server, &result, 2);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_spec_on_standard_input_is_the_same_load() {
    let server = BodyServer::start();
    let spec = serde_json::json!({
        "url": format!("http://127.0.0.1:{}/upload", server.port),
        "method": "PUT",
        "body": "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vMDEyMzQ1Njc4OTo7PD0+P0BBQkNERUZHSElKS0xNTk9QUVJTVFVWV1hZWltcXV5fYGFiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHl6e3x9fn+AgYKDhIWGh4iJiouMjY6PkJGSk5SVlpeYmZqbnJ2en6ChoqOkpaanqKmqq6ytrq+wsbKztLW2t7i5uru8vb6/wMHCw8TFxsfIycrLzM3Oz9DR0tPU1dbX2Nna29zd3t/g4eLj5OXm5+jp6uvs7e7v8PHy8/T19vf4+fr7/P3+/w==",
        "connections": 2,
        "threads": 1,
        "stop": {"requests": 50}
    });
    let mut child = Command::new(env!("CARGO_BIN_EXE_shootout"))
        .args(["load", "--spec", "-", "--generators", "local:2", "--json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the shootout binary runs");
    let mut input = child.stdin.take().unwrap();
    input.write_all(spec.to_string().as_bytes()).unwrap();
    drop(input);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let result: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(result["requests"]["ok"].as_u64(), Some(50), "{result}");
    assert_eq!(result["config"]["method"], "PUT");
    assert_exact_bodies(&server, &result, 2);
}

/// `--cert`/`--key` become PEM text in the spec, which local shards read on their
/// standard input (this machine): both present the certificate to a server that requires
/// one, and no file name travels.
#[test]
fn a_client_certificate_reaches_both_local_shards_in_the_spec() {
    let dir = temp_dir("spec-mtls");
    let m = mtls::Setup::new(&dir);
    let shards = ["--generators", "local:2", "-c", "4", "-n", "200", "--json"];
    let out = shootout(&[&["load", &m.url][..], &m.flags(), &shards].concat());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let result: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(result["requests"]["ok"].as_u64(), Some(200), "{result}");
    assert_eq!(
        result["shards"].as_array().map(Vec::len),
        Some(2),
        "{result}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_spec_with_load_flags_or_a_bad_field_is_refused_in_one_line() {
    let out = shootout(&["load", "--spec", "-", "-c", "3"]);
    checkout::assert_one_line_error(&out, "'--spec <FILE|->' cannot be used with");
    let dir = temp_dir("spec-bad");
    let file = dir.join("spec.json");
    std::fs::write(&file, r#"{"url": "http://127.0.0.1:1/", "method": "G T"}"#).unwrap();
    let out = shootout(&["load", "--spec", &file.display().to_string()]);
    checkout::assert_one_line_error(&out, "method \"G T\" is not a valid HTTP method token");
    let _ = std::fs::remove_dir_all(&dir);
}
