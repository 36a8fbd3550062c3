//! rust-may-minihttp: the shootout hello/app server on may_minihttp (stackful coroutines
//! from the `may` crate), the reachable stand-in for the 2017 article's tokio-minihttp.
//!
//! GET /hello -> 200 "Hello World" (11 bytes)
//! GET /app   -> may::coroutine::sleep for 100 ms ±5% (uniform; parks only this
//!               connection's coroutine), then 200 with 1024 bytes
//!
//! Usage: server --listen 127.0.0.1:PORT --threads N   (N = may worker threads)
//!
//! may_minihttp itself never closes a connection after a response (it has no notion of
//! `Connection: close` or HTTP/1.0), so the service does it: for such a request it adds
//! `Connection: close` and shuts the socket's read side; may_minihttp then writes the
//! response, reads end-of-stream and closes the connection.

use std::io;
use std::time::Duration;

use may_minihttp::{HttpService, HttpServiceFactory, Request, Response};

const APP_BYTES: [u8; 1024] = [b'a'; 1024];
const APP: &str = match std::str::from_utf8(&APP_BYTES) {
    Ok(s) => s,
    Err(_) => panic!("ascii"),
};

struct Service {
    /// The connection's socket (may_minihttp passes its fd as the service id).
    fd: libc::c_int,
}

/// Whether the connection must close after this response (RFC 9112 §9.3).
fn wants_close(req: &Request) -> bool {
    let mut close = false;
    let mut keep_alive = false;
    for h in req.headers() {
        if h.name.eq_ignore_ascii_case("connection") {
            for token in h.value.split(|&b| b == b',') {
                let t = token.trim_ascii();
                close |= t.eq_ignore_ascii_case(b"close");
                keep_alive |= t.eq_ignore_ascii_case(b"keep-alive");
            }
        }
    }
    // version(): 1 for HTTP/1.1, 0 for HTTP/1.0 (keep-alive only when asked for).
    close || (req.version() == 0 && !keep_alive)
}

impl HttpService for Service {
    fn call(&mut self, req: Request, rsp: &mut Response) -> io::Result<()> {
        let close = wants_close(&req);
        if close {
            rsp.header("Connection: close");
        } else if req.version() == 0 {
            rsp.header("Connection: keep-alive");
        }
        match (req.method(), req.path()) {
            ("GET", "/hello") => {
                rsp.header("Content-Type: text/plain");
                rsp.body("Hello World");
            }
            ("GET", "/app") => {
                let us = fastrand::u64(95_000..=105_000);
                may::coroutine::sleep(Duration::from_micros(us));
                rsp.header("Content-Type: text/plain");
                rsp.body(APP);
            }
            _ => {
                rsp.status_code(404, "Not Found");
                rsp.header("Content-Type: text/plain");
                rsp.body("Not Found");
            }
        }
        if close {
            // SAFETY: fd is this connection's open socket, owned by may_minihttp for at
            // least as long as this service; shutdown() does not close it.
            unsafe { libc::shutdown(self.fd, libc::SHUT_RD) };
        }
        Ok(())
    }
}

struct Factory;

impl HttpServiceFactory for Factory {
    type Service = Service;
    fn new_service(&self, id: usize) -> Service {
        Service {
            fd: id as libc::c_int,
        }
    }
}

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let listen = arg(&args, "--listen").unwrap_or_else(|| "127.0.0.1:8080".into());
    let threads: usize = arg(&args, "--threads")
        .map(|t| t.parse().expect("--threads must be a positive integer"))
        .unwrap_or(1)
        .max(1);

    // Must come before the first coroutine starts the scheduler.
    may::config().set_workers(threads);

    let server = Factory.start(listen.as_str()).expect("bind");
    server.join().expect("server coroutine");
}
