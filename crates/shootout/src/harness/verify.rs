//! Does a server speak HTTP? The checks `shootout verify` runs against a started
//! contestant: status, framing, Date, body, keep-alive, `Connection: close`, HTTP/1.0,
//! the `/app` delay, and whether it waits for a whole request before answering.
//!
//! Responses are framed by the engine's parser, the one the load uses, so that verify
//! and a load cannot judge one server's framing differently.

use engine::{Framing, ResponseError, ResponseParser, ResponseSink};
use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

/// Longest a check waits for a server.
const PATIENCE: Duration = Duration::from_secs(3);

/// One check's outcome.
#[derive(Debug, Clone)]
pub struct Check {
    pub name: &'static str,
    pub passed: bool,
    /// A finding that is reported but does not fail the contestant (declared deviations).
    pub flagged: bool,
    pub detail: String,
}

/// Why a check failed: its detail line.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    #[error("connect: {0}")]
    Connect(io::Error),
    #[error("{0}")]
    Socket(io::Error),
    #[error("write: {0}")]
    Write(io::Error),
    #[error("read: {0}")]
    Read(io::Error),
    #[error(transparent)]
    Response(#[from] ResponseError),
    #[error("sent {0} bytes beyond the response's framing")]
    BeyondFraming(usize),
    #[error("status {0} (want 200)")]
    Status(u16),
    #[error("body {0:?} (want \"Hello World\")")]
    Body(String),
    #[error("no Date header")]
    NoDate,
    #[error("body delimited by closing the connection on HTTP/1.1")]
    CloseDelimited,
    #[error("request {index} on one connection: {source}")]
    Exchange {
        index: usize,
        source: Box<VerifyError>,
    },
    #[error("request {index}: {source}")]
    Reply {
        index: usize,
        source: Box<VerifyError>,
    },
    #[error("sent more bytes after the response")]
    MoreAfterClose,
    #[error("did not close the connection: {0}")]
    StayedOpen(io::Error),
    #[error("status {status}, {body_bytes} body bytes (want 200, 1024)")]
    App { status: u16, body_bytes: usize },
    #[error("answered in {0:.0} ms (want ~100)")]
    Slow(f64),
    #[error("answered before the request was complete: it does not parse HTTP")]
    AnsweredEarly,
}

/// What the checks look at in a response: the parser shows it the head and the body.
#[derive(Debug, Default)]
struct Reply {
    status: u16,
    framing: Option<Framing>,
    date: bool,
    body: Vec<u8>,
}

impl ResponseSink for Reply {
    fn header(&mut self, name: &[u8], _value: &[u8]) {
        self.date |= name.eq_ignore_ascii_case(b"date");
    }

    fn framing(&mut self, framing: Framing) {
        self.framing = Some(framing);
    }

    fn body(&mut self, bytes: &[u8]) {
        self.body.extend_from_slice(bytes);
    }
}

impl Reply {
    /// How the body was delimited, as the details name it.
    fn framing_name(&self) -> &'static str {
        match self.framing {
            Some(Framing::Length(_)) => "content-length",
            Some(Framing::Chunked) => "chunked",
            Some(Framing::UntilEof) => "close",
            Some(Framing::Empty) | None => "no-body",
        }
    }
}

/// Runs every check against `addr`; `app` says whether /app is implemented,
/// `parses_http` whether the manifest claims a real HTTP parser.
pub fn run(addr: SocketAddr, app: bool, parses_http: bool) -> Vec<Check> {
    let mut checks = vec![
        hello(addr),
        keep_alive(addr),
        connection_close(addr),
        http10(addr),
        whole_request(addr, parses_http),
    ];
    if app {
        checks.push(app_delay(addr));
    }
    if !parses_http {
        // A server declared not to parse HTTP (the 2009 MINA one) answers once and
        // closes: that is its declared nature, flagged rather than failed.
        for c in checks
            .iter_mut()
            .filter(|c| c.name == "keep-alive" && !c.passed)
        {
            c.passed = true;
            c.flagged = true;
            c.detail = format!("{} (declared: parses_http = false)", c.detail);
        }
    }
    checks
}

fn check(name: &'static str, result: Result<String, VerifyError>) -> Check {
    Check {
        name,
        passed: result.is_ok(),
        flagged: false,
        detail: result.unwrap_or_else(|e| e.to_string()),
    }
}

fn connect(addr: SocketAddr) -> Result<TcpStream, VerifyError> {
    let s = TcpStream::connect_timeout(&addr, PATIENCE).map_err(VerifyError::Connect)?;
    s.set_read_timeout(Some(PATIENCE))
        .map_err(VerifyError::Socket)?;
    s.set_nodelay(true).map_err(VerifyError::Socket)?;
    Ok(s)
}

fn get(path: &str, version: &str, extra: &str) -> Vec<u8> {
    format!("GET {path} {version}\r\nHost: 127.0.0.1\r\n{extra}\r\n").into_bytes()
}

/// Asserts the reply is a well-framed 200 "Hello World" with a Date header.
fn is_hello(r: &Reply) -> Result<String, VerifyError> {
    if r.status != 200 {
        return Err(VerifyError::Status(r.status));
    }
    if r.body != b"Hello World" {
        return Err(VerifyError::Body(
            String::from_utf8_lossy(&r.body).into_owned(),
        ));
    }
    if !r.date {
        return Err(VerifyError::NoDate);
    }
    Ok(format!("200, {} framing, Date present", r.framing_name()))
}

fn hello(addr: SocketAddr) -> Check {
    check(
        "hello",
        (|| {
            let mut s = connect(addr)?;
            let r = exchange(&mut s, &get("/hello", "HTTP/1.1", ""))?;
            if r.framing == Some(Framing::UntilEof) {
                return Err(VerifyError::CloseDelimited);
            }
            is_hello(&r)
        })(),
    )
}

fn keep_alive(addr: SocketAddr) -> Check {
    check(
        "keep-alive",
        (|| {
            let mut s = connect(addr)?;
            for index in 1..=3 {
                let r = exchange(&mut s, &get("/hello", "HTTP/1.1", "")).map_err(|e| {
                    VerifyError::Exchange {
                        index,
                        source: Box::new(e),
                    }
                })?;
                is_hello(&r).map_err(|e| VerifyError::Reply {
                    index,
                    source: Box::new(e),
                })?;
            }
            Ok("3 requests on one connection".into())
        })(),
    )
}

fn connection_close(addr: SocketAddr) -> Check {
    check(
        "connection-close",
        (|| {
            let mut s = connect(addr)?;
            let r = exchange(&mut s, &get("/hello", "HTTP/1.1", "Connection: close\r\n"))?;
            is_hello(&r)?;
            let mut byte = [0u8; 1];
            match s.read(&mut byte) {
                Ok(0) => Ok("answered, then closed".into()),
                Ok(_) => Err(VerifyError::MoreAfterClose),
                Err(e) => Err(VerifyError::StayedOpen(e)),
            }
        })(),
    )
}

fn http10(addr: SocketAddr) -> Check {
    check(
        "http/1.0",
        (|| {
            let mut s = connect(addr)?;
            let r = exchange(&mut s, &get("/hello", "HTTP/1.0", ""))?;
            is_hello(&r).map(|d| format!("HTTP/1.0 request: {d}"))
        })(),
    )
}

fn app_delay(addr: SocketAddr) -> Check {
    check(
        "app",
        (|| {
            let mut s = connect(addr)?;
            let t0 = Instant::now();
            let r = exchange(&mut s, &get("/app", "HTTP/1.1", ""))?;
            let ms = t0.elapsed().as_secs_f64() * 1000.0;
            if r.status != 200 || r.body.len() != 1024 {
                return Err(VerifyError::App {
                    status: r.status,
                    body_bytes: r.body.len(),
                });
            }
            if !(90.0..=250.0).contains(&ms) {
                return Err(VerifyError::Slow(ms));
            }
            Ok(format!("1024 bytes in {ms:.0} ms"))
        })(),
    )
}

/// Sends a request in two parts: a server that parses HTTP waits for the blank line.
fn whole_request(addr: SocketAddr, parses_http: bool) -> Check {
    let result = (|| {
        let mut s = connect(addr)?;
        s.write_all(b"GET /hello HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            .map_err(VerifyError::Write)?;
        s.set_read_timeout(Some(Duration::from_millis(300)))
            .map_err(VerifyError::Socket)?;
        let mut buf = [0u8; 64];
        match s.read(&mut buf) {
            Ok(n) if n > 0 => Err(VerifyError::AnsweredEarly),
            _ => Ok("waited for the whole request".to_string()),
        }
    })();
    let mut c = check("parses-http", result);
    if !c.passed && !parses_http {
        // Declared in the manifest (the 2009 MINA server): flagged, not hidden.
        c.passed = true;
        c.flagged = true;
        c.detail = format!("{} (declared: parses_http = false)", c.detail);
    }
    c
}

/// Writes `request` and reads one response, framed by the engine's parser. Bytes after
/// the response's end fail the exchange, as they would fail the next request of a load.
fn exchange(s: &mut TcpStream, request: &[u8]) -> Result<Reply, VerifyError> {
    s.write_all(request).map_err(VerifyError::Write)?;
    let mut parser = ResponseParser::new();
    let mut reply = Reply::default();
    let mut buf = [0u8; 16 * 1024];
    let response = loop {
        let n = s.read(&mut buf).map_err(VerifyError::Read)?;
        if n == 0 {
            break parser.finish_eof()?;
        }
        let progress = parser.feed_to(&buf[..n], &mut reply)?;
        if let Some(response) = progress.done {
            let beyond = n - progress.consumed;
            if beyond > 0 {
                return Err(VerifyError::BeyondFraming(beyond));
            }
            break response;
        }
    };
    reply.status = response.status;
    Ok(reply)
}

#[cfg(test)]
mod tests {
    use super::*;
    use testserver::{Behavior, TestServer};

    fn verdicts(b: Behavior) -> Vec<(String, bool)> {
        let server = TestServer::start(b).unwrap();
        run(server.addr(), false, true)
            .into_iter()
            .map(|c| (c.name.to_string(), c.passed))
            .collect()
    }

    #[test]
    fn a_correct_server_passes_every_check() {
        for (name, passed) in verdicts(Behavior::Hello) {
            assert!(passed, "{name}");
        }
    }

    /// A server in the style of the 2009 MINA one: answers on the first byte, unparsed.
    fn first_byte_server() -> u16 {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        std::thread::spawn(move || {
            // Bounded: the checks make a handful of connections.
            for mut s in l.incoming().take(8).flatten() {
                let mut b = [0u8; 1];
                if s.read(&mut b).is_ok() {
                    let _ =
                        s.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\nHello World");
                }
            }
        });
        port
    }

    #[test]
    fn a_server_that_does_not_parse_http_is_caught_or_flagged_as_declared() {
        let port = first_byte_server();
        let caught = run(([127, 0, 0, 1], port).into(), false, true)
            .into_iter()
            .find(|c| c.name == "parses-http")
            .unwrap();
        assert!(
            !caught.passed && caught.detail.contains("does not parse HTTP"),
            "{caught:?}"
        );
        let port = first_byte_server();
        let declared = run(([127, 0, 0, 1], port).into(), false, false)
            .into_iter()
            .find(|c| c.name == "parses-http")
            .unwrap();
        assert!(declared.passed && declared.flagged, "{declared:?}");
    }

    #[test]
    fn framing_is_judged_as_the_load_judges_it() {
        // Interim responses and big heads are framed as the load frames them: fine.
        for b in [Behavior::Interim, Behavior::HugeHeaders(40_000)] {
            let verdicts = verdicts(b.clone());
            assert!(verdicts.iter().all(|(_, p)| *p), "{b:?}: {verdicts:?}");
        }
        // What the load counts as parse errors fails here too.
        for b in [
            Behavior::ShortContentLength,
            Behavior::InvalidChunkSize,
            Behavior::MalformedStatusLine,
        ] {
            let hello = verdicts(b.clone()).into_iter().find(|(n, _)| n == "hello");
            assert_eq!(hello, Some(("hello".to_string(), false)), "{b:?}");
        }
    }

    #[test]
    fn broken_servers_fail_the_right_checks() {
        let chunked = verdicts(Behavior::Chunked);
        assert!(
            chunked.iter().all(|(_, p)| *p),
            "chunked framing is fine: {chunked:?}"
        );
        let failed = |b| {
            verdicts(b)
                .into_iter()
                .filter(|(_, p)| !p)
                .map(|(n, _)| n)
                .collect::<Vec<_>>()
        };
        assert!(failed(Behavior::Status(500)).contains(&"hello".to_string()));
        assert!(failed(Behavior::ConnectionClose).contains(&"keep-alive".to_string()));
        assert!(failed(Behavior::Http10CloseDelimited).contains(&"hello".to_string()));
    }
}
