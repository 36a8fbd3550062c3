//! Does a server speak HTTP? The checks `shootout verify` and `shootout run` make of a
//! started contestant before its loads, as strict as its level ([`VerifyLevel`]):
//!
//! - `strict`: each endpoint's expected answer with a Date header (for the built-in
//!   `app`, its 1,024 bytes after about 100 ms; for a workload, its own check with fresh
//!   random inputs and the header rules, and a Date that changes: `workload`),
//!   keep-alive, `Connection: close`, HTTP/1.0, and whether it waits for a whole request
//!   before answering;
//! - `http`: each endpoint's expected status and body (a workload's values), framing,
//!   keep-alive, `Connection: close` and HTTP/1.0;
//! - `none`: nothing.
//!
//! The keep-alive, close, HTTP/1.0 and whole-request checks send one endpoint's request
//! (`hello` when the run has it). Responses are framed by the engine's parser, the one
//! the load uses, so that verify and a load cannot judge one server's framing differently:
//! a framing error names the rule it breaks, and what RFC 9112 lets a client accept but a
//! server should not send (bare LF line ends) passes each endpoint's check flagged.

mod connection;
mod database;
mod exchange;
mod h2;
mod tls;
mod websocket;
mod workload;

pub use database::{Selects, Tables, TablesError};
pub use h2::run_h2;
pub use websocket::run_websocket;
pub use workload::Wrong;

use crate::contestant::certificates::{CertificateError, CertificateFiles};
use crate::model::endpoint::{Builtin, Endpoint, Mismatch};
use crate::model::VerifyLevel;
use connection::Connection;
use engine::{Framing, ResponseError};
use exchange::{connect, exchange, request, Reply};
use http::Method;
use std::io::{self, Read, Write};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

/// Longest a check waits for a server.
const PATIENCE: Duration = Duration::from_secs(3);

/// What to check of a contestant.
#[derive(Debug, Clone, Copy)]
pub struct Plan<'a> {
    pub level: VerifyLevel,
    /// The endpoints of the run that it serves, each checked for its expected answer.
    pub endpoints: &'a [Endpoint],
    /// Whether its manifest claims a real HTTP parser (the 2009 MINA server does not).
    pub parses_http: bool,
    /// The database its database endpoints (`db`, `queries`, `fortunes`, `updates`) read,
    /// which their checks compare answers with; without it, strict verification fails them.
    pub database: Option<&'a dyn Tables>,
}

/// One check's outcome.
#[derive(Debug, Clone)]
pub struct Check {
    /// An endpoint's name, or the check's: `keep-alive`, `connection-close`...
    pub name: String,
    pub passed: bool,
    /// A finding that is reported but does not fail the contestant: declared deviations,
    /// and what RFC 9112 lets a client accept (bare LF line ends).
    pub flagged: bool,
    pub detail: String,
}

/// Why a check failed: its detail line.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    #[error("connect: {0}")]
    Connect(io::Error),
    #[error("TLS: {0}")]
    Tls(rustls::Error),
    #[error("TLS handshake: {0}")]
    Handshake(io::Error),
    #[error("TLS handshake: {refusal} (it must serve {}, of the test CA)", serves.display())]
    Certificate {
        refusal: engine::CertificateRefusal,
        serves: std::path::PathBuf,
    },
    #[error("for {ip} (no SNI): {source}")]
    ForAddress {
        ip: String,
        source: Box<VerifyError>,
    },
    #[error("a second connection did a full handshake: no session resumed")]
    NotResumed,
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
    #[error(transparent)]
    Answer(#[from] Mismatch),
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
    /// A workload check's request, named, and what went wrong with it.
    #[error("{request}: {source}")]
    Asked {
        request: String,
        source: Box<VerifyError>,
    },
    #[error(transparent)]
    Workload(#[from] Wrong),
}

/// One server and how to judge it: where it is, at which level, by which endpoint's
/// request the framing checks go.
struct Probe<'a> {
    addr: SocketAddr,
    /// The Host header's value.
    host: &'a str,
    strict: bool,
    endpoint: &'a Endpoint,
    /// Over TLS when given.
    tls: Option<&'a tls::TlsProbe>,
}

/// Runs the checks of `plan` against the server at `addr`.
pub fn run(addr: SocketAddr, plan: &Plan) -> Vec<Check> {
    run_as(addr, &addr.to_string(), plan)
}

/// Runs the checks of `plan` against the server at `addr`, naming it `host` (`host` or
/// `host:port`) in the Host header: a server already running, known by its URL's name.
pub fn run_as(addr: SocketAddr, host: &str, plan: &Plan) -> Vec<Check> {
    match probe(addr, host, plan, None) {
        Some(probe) => http_checks(&probe, plan),
        None => Vec::new(),
    }
}

/// Runs the checks of `plan` over TLS against the server at `addr`, which serves
/// `certificate`: first the TLS checks (the chain, what it negotiates), then the HTTP ones
/// over TLS, as `localhost:PORT`. An error when the certificate's CA cannot be read.
pub fn run_over_tls(
    addr: SocketAddr,
    plan: &Plan,
    certificate: &CertificateFiles,
) -> Result<Vec<Check>, CertificateError> {
    let client = tls::TlsProbe::new(certificate)?;
    let host = format!("localhost:{}", addr.port());
    let Some(probe) = probe(addr, &host, plan, Some(&client)) else {
        return Ok(Vec::new());
    };
    let mut checks = tls::checks(&probe, &client);
    checks.extend(http_checks(&probe, plan));
    Ok(checks)
}

/// How to judge the server at `addr`; None when `plan` checks nothing.
fn probe<'a>(
    addr: SocketAddr,
    host: &'a str,
    plan: &Plan<'a>,
    tls: Option<&'a tls::TlsProbe>,
) -> Option<Probe<'a>> {
    let strict = match plan.level {
        VerifyLevel::None => return None,
        VerifyLevel::Strict => true,
        VerifyLevel::Http => false,
    };
    Some(Probe {
        addr,
        host,
        strict,
        endpoint: framing_endpoint(plan.endpoints)?,
        tls,
    })
}

/// The HTTP checks of `plan`, in clear text or over TLS as `probe` speaks.
fn http_checks(probe: &Probe, plan: &Plan) -> Vec<Check> {
    let strict = probe.strict;
    let app = |e: &&Endpoint| strict && e.builtin == Some(Builtin::App);
    let checked = |e: &Endpoint| database::reads_database(e) && (strict || plan.database.is_some());
    let mut checks: Vec<Check> = (plan.endpoints.iter().filter(|e| !app(e)))
        .map(
            |e| match (checked(e), e.builtin.filter(|b| b.is_workload())) {
                (true, _) => database::check(probe, e, plan.database),
                (false, Some(b)) => workload::workload_check(probe, b),
                (false, None) => answer(probe, e),
            },
        )
        .collect();
    checks.extend([keep_alive(probe), connection_close(probe), http10(probe)]);
    if strict {
        checks.push(whole_request(probe, plan.parses_http));
    }
    let workloads = plan.endpoints.iter().filter_map(|e| e.builtin);
    if strict && workloads.clone().any(Builtin::is_workload) {
        checks.push(workload::date_changes(probe));
    }
    checks.extend(
        plan.endpoints
            .iter()
            .filter(app)
            .map(|e| app_delay(probe, e)),
    );
    if !plan.parses_http {
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

/// The endpoint whose request the framing checks send: hello when there, else the first
/// that answers at once (the built-in app sleeps).
fn framing_endpoint(endpoints: &[Endpoint]) -> Option<&Endpoint> {
    let hello = endpoints.iter().find(|e| e.builtin == Some(Builtin::Hello));
    let quick = || endpoints.iter().find(|e| e.builtin != Some(Builtin::App));
    hello.or_else(quick).or(endpoints.first())
}

fn check(name: &str, result: Result<String, VerifyError>) -> Check {
    Check {
        name: name.to_string(),
        passed: result.is_ok(),
        flagged: false,
        detail: result.unwrap_or_else(|e| e.to_string()),
    }
}

impl Probe<'_> {
    /// A new connection to the server, its TLS handshake done when over TLS.
    fn connect(&self) -> Result<Connection, VerifyError> {
        match self.tls {
            None => connect(self.addr).map(Connection::Plain),
            Some(tls) => tls.connect(self.addr),
        }
    }

    /// One exchange of `e`'s request on `s`.
    fn exchange(
        &self,
        s: &mut Connection,
        e: &Endpoint,
        version: &str,
        extra: &str,
    ) -> Result<Reply, VerifyError> {
        let head = e.method == Method::HEAD;
        exchange(s, &request(self.host, e, version, extra), head)
    }

    /// Asserts the reply is `e`'s expected answer, with a Date header when strict.
    fn judge(&self, e: &Endpoint, r: &Reply) -> Result<String, VerifyError> {
        e.expect.judge(r.status, &r.body)?;
        if self.strict && !r.dated() {
            return Err(VerifyError::NoDate);
        }
        let date = if r.dated() { ", Date present" } else { "" };
        Ok(format!("{}, {} framing{date}", r.status, r.framing_name()))
    }
}

/// `e` answers as expected, on a body HTTP/1.1 can frame without closing; flagged when
/// the parser had to be lenient.
fn answer(p: &Probe, e: &Endpoint) -> Check {
    let reply = (|| {
        let mut s = p.connect()?;
        let r = p.exchange(&mut s, e, "HTTP/1.1", "")?;
        match r.framing {
            Some(Framing::UntilEof) => Err(VerifyError::CloseDelimited),
            _ => Ok(r),
        }
    })();
    let note = reply.as_ref().ok().and_then(Reply::leniency);
    let mut c = check(&e.name, reply.and_then(|r| p.judge(e, &r)));
    if let Some(note) = note.filter(|_| c.passed) {
        c.flagged = true;
        c.detail = format!("{}; {note}", c.detail);
    }
    c
}

fn keep_alive(p: &Probe) -> Check {
    check(
        "keep-alive",
        (|| {
            let mut s = p.connect()?;
            for index in 1..=3 {
                let r = p
                    .exchange(&mut s, p.endpoint, "HTTP/1.1", "")
                    .map_err(|e| VerifyError::Exchange {
                        index,
                        source: Box::new(e),
                    })?;
                p.judge(p.endpoint, &r).map_err(|e| VerifyError::Reply {
                    index,
                    source: Box::new(e),
                })?;
            }
            Ok("3 requests on one connection".into())
        })(),
    )
}

fn connection_close(p: &Probe) -> Check {
    check(
        "connection-close",
        (|| {
            let mut s = p.connect()?;
            let r = p.exchange(&mut s, p.endpoint, "HTTP/1.1", "Connection: close\r\n")?;
            p.judge(p.endpoint, &r)?;
            let mut byte = [0u8; 1];
            match s.read(&mut byte) {
                Ok(0) => Ok("answered, then closed".into()),
                Ok(_) => Err(VerifyError::MoreAfterClose),
                // The response was framed whole: a truncation cannot hide in it.
                Err(e) if s.closed_without_notify(&e) => {
                    Ok("answered, then closed (without a TLS close_notify)".into())
                }
                Err(e) => Err(VerifyError::StayedOpen(e)),
            }
        })(),
    )
}

fn http10(p: &Probe) -> Check {
    check(
        "http/1.0",
        (|| {
            let mut s = p.connect()?;
            let r = p.exchange(&mut s, p.endpoint, "HTTP/1.0", "")?;
            p.judge(p.endpoint, &r)
                .map(|d| format!("HTTP/1.0 request: {d}"))
        })(),
    )
}

fn app_delay(p: &Probe, app: &Endpoint) -> Check {
    check(
        "app",
        (|| {
            let mut s = p.connect()?;
            let t0 = Instant::now();
            let r = exchange(&mut s, &request(p.host, app, "HTTP/1.1", ""), false)?;
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

/// Sends a request without the blank line that ends its head: a server that parses HTTP
/// waits for it.
fn whole_request(p: &Probe, parses_http: bool) -> Check {
    let result = (|| {
        let mut s = p.connect()?;
        let whole = request(p.host, p.endpoint, "HTTP/1.1", "");
        let head_end = whole
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .map_or(whole.len(), |i| i + 2);
        s.write_all(&whole[..head_end])
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpStream;
    use testserver::{Behavior, TestServer};

    fn strict(endpoints: &[Endpoint], parses_http: bool) -> Plan<'_> {
        Plan {
            level: VerifyLevel::Strict,
            endpoints,
            parses_http,
            database: None,
        }
    }

    fn verdicts(b: Behavior) -> Vec<(String, bool)> {
        let server = TestServer::start(b).unwrap();
        run(server.addr(), &strict(&[Endpoint::hello()], true))
            .into_iter()
            .map(|c| (c.name, c.passed))
            .collect()
    }

    #[test]
    fn a_correct_server_passes_every_check() {
        for (name, passed) in verdicts(Behavior::Hello) {
            assert!(passed, "{name}");
        }
    }

    /// A server in the style of the 2009 MINA one: answers on the first byte, unparsed.
    fn first_byte_server() -> SocketAddr {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
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
        addr
    }

    #[test]
    fn a_server_that_does_not_parse_http_is_caught_or_flagged_as_declared() {
        let hello = [Endpoint::hello()];
        let caught = run(first_byte_server(), &strict(&hello, true))
            .into_iter()
            .find(|c| c.name == "parses-http")
            .unwrap();
        assert!(
            !caught.passed && caught.detail.contains("does not parse HTTP"),
            "{caught:?}"
        );
        let declared = run(first_byte_server(), &strict(&hello, false))
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

    /// The `hello` check of a strict verify against `addr`.
    fn hello_check(addr: SocketAddr) -> Check {
        let checks = run(addr, &strict(&[Endpoint::hello()], true));
        checks.into_iter().find(|c| c.name == "hello").unwrap()
    }

    /// A server that answers each request head (of a few connections, one at a time) with
    /// `reply`, then closes.
    fn canned_server(reply: &'static [u8]) -> SocketAddr {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        std::thread::spawn(move || {
            // Bounded: the checks make a handful of connections.
            for mut s in l.incoming().take(8).flatten() {
                let _ = s.set_read_timeout(Some(PATIENCE));
                let mut head = Vec::new();
                let mut chunk = [0u8; 1024];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    match s.read(&mut chunk) {
                        Ok(n) if n > 0 => head.extend_from_slice(&chunk[..n]),
                        _ => break,
                    }
                }
                let _ = s.write_all(reply);
            }
        });
        addr
    }

    #[test]
    fn a_chunk_framing_error_is_named_with_its_line_and_rule() {
        let server = TestServer::start(Behavior::ChunkSizeTrailingSpace).unwrap();
        let hello = hello_check(server.addr());
        assert!(!hello.passed);
        assert_eq!(
            hello.detail,
            "invalid chunked transfer coding: \
             chunk-size line `5 ` has trailing whitespace (RFC 9112 §7.1)"
        );
        let nameless = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\
            b;=v\r\nHello World\r\n0\r\n\r\n";
        let hello = hello_check(canned_server(nameless));
        assert!(!hello.passed);
        assert!(
            hello.detail.ends_with(
                "chunk-size line `b;=` has ';' without an extension name (RFC 9112 §7.1.1)"
            ),
            "{hello:?}"
        );
    }

    #[test]
    fn bare_lf_line_ends_pass_flagged_and_crlf_ones_pass_plain() {
        let server = TestServer::start(Behavior::ChunkedBareLf).unwrap();
        let checks = run(server.addr(), &strict(&[Endpoint::hello()], true));
        assert!(checks.iter().all(|c| c.passed), "{checks:?}");
        let hello = checks.iter().find(|c| c.name == "hello").unwrap();
        assert!(hello.flagged);
        assert_eq!(
            hello.detail,
            "200, chunked framing, Date present; bare LF line endings \
             (chunk-size lines, after chunk data, trailer section; accepted, RFC 9112 §2.2)"
        );
        let head_lf = b"HTTP/1.1 200 OK\nDate: Thu, 01 Jan 1970 00:00:00 GMT\n\
            Content-Length: 11\n\nHello World";
        let hello = hello_check(canned_server(head_lf));
        assert!(hello.passed && hello.flagged, "{hello:?}");
        assert!(
            hello.detail.contains("bare LF line endings (head; "),
            "{hello:?}"
        );
        let server = TestServer::start(Behavior::Chunked).unwrap();
        let checks = run(server.addr(), &strict(&[Endpoint::hello()], true));
        assert!(checks.iter().all(|c| c.passed && !c.flagged), "{checks:?}");
    }

    /// A keep-alive server that answers each request, after reading its body, `200 hi`
    /// without a Date header (as many small servers do).
    fn dateless_server() -> SocketAddr {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        std::thread::spawn(move || {
            // Bounded: the checks make a handful of connections.
            for s in l.incoming().take(16).flatten() {
                std::thread::spawn(move || answer_hi(s));
            }
        });
        addr
    }

    fn answer_hi(mut s: TcpStream) {
        let _ = s.set_read_timeout(Some(PATIENCE));
        let mut buf = Vec::new();
        let more = |buf: &mut Vec<u8>, s: &mut TcpStream| {
            let mut chunk = [0u8; 4096];
            let n = s.read(&mut chunk).unwrap_or(0);
            buf.extend_from_slice(&chunk[..n]);
            n > 0
        };
        loop {
            let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") else {
                if more(&mut buf, &mut s) {
                    continue;
                }
                return;
            };
            let head = String::from_utf8_lossy(&buf[..end]).to_lowercase();
            let length: usize = (head.lines())
                .find_map(|l| l.strip_prefix("content-length:"))
                .map_or(0, |v| v.trim().parse().unwrap());
            while buf.len() < end + 4 + length {
                if !more(&mut buf, &mut s) {
                    return;
                }
            }
            buf.drain(..end + 4 + length);
            let _ = s.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi");
            if head.contains("connection: close") || head.lines().next().unwrap().ends_with("1.0") {
                return;
            }
        }
    }

    /// `POST /greet` with a body and a header, expecting `hi`.
    fn greet(body: &str) -> Endpoint {
        Endpoint {
            name: "greet".into(),
            method: http::Method::POST,
            path: "/greet".into(),
            headers: vec!["Content-Type: text/plain".parse().unwrap()],
            body: b"who?".to_vec(),
            expect: crate::model::endpoint::Expect {
                status: 200,
                body: crate::model::endpoint::BodyExpect::Exact(body.into()),
            },
            builtin: None,
            vary: None,
        }
    }

    fn at(level: VerifyLevel, endpoints: &[Endpoint], addr: SocketAddr) -> Vec<Check> {
        let plan = Plan {
            level,
            endpoints,
            parses_http: true,
            database: None,
        };
        run(addr, &plan)
    }

    #[test]
    fn the_level_decides_what_is_checked() {
        let greet = [greet("hi")];
        let http = at(VerifyLevel::Http, &greet, dateless_server());
        let names: Vec<&str> = http.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            ["greet", "keep-alive", "connection-close", "http/1.0"]
        );
        assert!(http.iter().all(|c| c.passed), "{http:?}");
        // Strict also wants a Date header, and a server that waits for a whole request.
        let strict = at(VerifyLevel::Strict, &greet, dateless_server());
        let failed: Vec<&str> = (strict.iter().filter(|c| !c.passed))
            .map(|c| c.name.as_str())
            .collect();
        assert_eq!(failed, names, "{strict:?}");
        assert!(strict
            .iter()
            .all(|c| c.passed || c.detail.ends_with("no Date header")));
        assert!(strict.iter().any(|c| c.name == "parses-http" && c.passed));
        assert!(at(VerifyLevel::None, &greet, dateless_server()).is_empty());
    }

    #[test]
    fn a_server_known_by_name_is_asked_for_by_that_name() {
        let request = request("app.test:8080", &greet("hi"), "HTTP/1.1", "");
        let head = String::from_utf8(request).unwrap();
        // Headers as the load writes them (names as written), the body framed.
        assert_eq!(
            head,
            "POST /greet HTTP/1.1\r\nHost: app.test:8080\r\nContent-Type: text/plain\r\n\
             Content-Length: 4\r\n\r\nwho?"
        );
        let plan = Plan {
            level: VerifyLevel::Http,
            endpoints: &[greet("hi")],
            parses_http: true,
            database: None,
        };
        let checks = run_as(dateless_server(), "app.test:8080", &plan);
        assert!(checks.iter().all(|c| c.passed), "{checks:?}");
    }

    #[test]
    fn a_wrong_expectation_fails_with_a_one_line_reason() {
        let checks = at(VerifyLevel::Http, &[greet("hello")], dateless_server());
        let greet = checks.iter().find(|c| c.name == "greet").unwrap();
        assert!(!greet.passed);
        assert_eq!(greet.detail, r#"body "hi" (want "hello")"#);
        // A declared endpoint of a catalog server: its expectation, not Hello World's.
        let server = TestServer::start(Behavior::Hello).unwrap();
        let mut mine = Endpoint::hello();
        (mine.name, mine.builtin) = ("mine".into(), None);
        mine.expect.body = crate::model::endpoint::BodyExpect::Any;
        let checks = at(VerifyLevel::Strict, &[mine], server.addr());
        assert!(checks.iter().all(|c| c.passed), "{checks:?}");
    }
}
