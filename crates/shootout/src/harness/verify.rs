//! Does a server speak HTTP? The checks `shootout verify` runs against a started
//! contestant: status, framing, Date, body, keep-alive, `Connection: close`, HTTP/1.0,
//! the `/app` delay, and whether it waits for a whole request before answering.

use std::io::{Read, Write};
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

/// A parsed response.
#[derive(Debug, Default)]
struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    /// "content-length", "chunked" or "close".
    framing: &'static str,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Runs every check against 127.0.0.1:`port`; `app` says whether /app is implemented,
/// `parses_http` whether the manifest claims a real HTTP parser.
pub fn run(port: u16, app: bool, parses_http: bool) -> Vec<Check> {
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
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

fn check(name: &'static str, result: Result<String, String>) -> Check {
    let passed = result.is_ok();
    Check {
        name,
        passed,
        flagged: false,
        detail: result.unwrap_or_else(|e| e),
    }
}

fn connect(addr: SocketAddr) -> Result<TcpStream, String> {
    let s = TcpStream::connect_timeout(&addr, PATIENCE).map_err(|e| format!("connect: {e}"))?;
    s.set_read_timeout(Some(PATIENCE))
        .map_err(|e| e.to_string())?;
    s.set_nodelay(true).map_err(|e| e.to_string())?;
    Ok(s)
}

fn get(path: &str, version: &str, extra: &str) -> Vec<u8> {
    format!("GET {path} {version}\r\nHost: 127.0.0.1\r\n{extra}\r\n").into_bytes()
}

/// Asserts the reply is a well-framed 200 "Hello World" with a Date header.
fn is_hello(r: &Reply) -> Result<String, String> {
    if r.status != 200 {
        return Err(format!("status {} (want 200)", r.status));
    }
    if r.body != b"Hello World" {
        return Err(format!(
            "body {:?} (want \"Hello World\")",
            String::from_utf8_lossy(&r.body)
        ));
    }
    if r.header("date").is_none() {
        return Err("no Date header".into());
    }
    Ok(format!("200, {} framing, Date present", r.framing))
}

fn hello(addr: SocketAddr) -> Check {
    check(
        "hello",
        (|| {
            let mut s = connect(addr)?;
            let r = exchange(&mut s, &get("/hello", "HTTP/1.1", ""))?;
            if r.framing == "close" {
                return Err("body delimited by closing the connection on HTTP/1.1".into());
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
            for i in 1..=3 {
                let r = exchange(&mut s, &get("/hello", "HTTP/1.1", ""))
                    .map_err(|e| format!("request {i} on one connection: {e}"))?;
                is_hello(&r).map_err(|e| format!("request {i}: {e}"))?;
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
                Ok(_) => Err("sent more bytes after the response".into()),
                Err(e) => Err(format!("did not close the connection: {e}")),
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
                return Err(format!(
                    "status {}, {} body bytes (want 200, 1024)",
                    r.status,
                    r.body.len()
                ));
            }
            if !(90.0..=250.0).contains(&ms) {
                return Err(format!("answered in {ms:.0} ms (want ~100)"));
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
            .map_err(|e| e.to_string())?;
        s.set_read_timeout(Some(Duration::from_millis(300)))
            .map_err(|e| e.to_string())?;
        let mut buf = [0u8; 64];
        match s.read(&mut buf) {
            Ok(n) if n > 0 => {
                Err("answered before the request was complete: it does not parse HTTP".to_string())
            }
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

/// Writes `request` and reads one response, framed by its headers.
fn exchange(s: &mut TcpStream, request: &[u8]) -> Result<Reply, String> {
    s.write_all(request).map_err(|e| format!("write: {e}"))?;
    let mut buf = Vec::with_capacity(2048);
    let head_len = loop {
        if let Some(i) = find(&buf, b"\r\n\r\n") {
            break i + 4;
        }
        if buf.len() > 64 * 1024 {
            return Err("response head over 64 KiB".into());
        }
        fill(s, &mut buf)?
            .then_some(())
            .ok_or("closed before a response head")?;
    };
    let mut headers = [httparse::EMPTY_HEADER; 64];
    let mut resp = httparse::Response::new(&mut headers);
    resp.parse(&buf[..head_len])
        .map_err(|e| format!("malformed response head: {e}"))?;
    let mut reply = Reply {
        status: resp.code.unwrap_or(0),
        headers: resp
            .headers
            .iter()
            .map(|h| {
                (
                    h.name.to_string(),
                    String::from_utf8_lossy(h.value).into_owned(),
                )
            })
            .collect(),
        ..Reply::default()
    };
    let rest = buf.split_off(head_len);
    read_body(s, &mut reply, rest)?;
    Ok(reply)
}

fn read_body(s: &mut TcpStream, reply: &mut Reply, mut rest: Vec<u8>) -> Result<(), String> {
    let chunked = reply
        .header("transfer-encoding")
        .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"));
    if chunked {
        reply.framing = "chunked";
        reply.body = dechunk(s, rest)?;
    } else if let Some(len) = reply.header("content-length").map(str::to_string) {
        reply.framing = "content-length";
        let len: usize = len
            .trim()
            .parse()
            .map_err(|_| format!("bad Content-Length {len:?}"))?;
        while rest.len() < len {
            fill(s, &mut rest)?
                .then_some(())
                .ok_or("closed before the body ended")?;
        }
        rest.truncate(len);
        reply.body = rest;
    } else {
        reply.framing = "close";
        while fill(s, &mut rest)? {}
        reply.body = rest;
    }
    Ok(())
}

fn dechunk(s: &mut TcpStream, mut buf: Vec<u8>) -> Result<Vec<u8>, String> {
    let mut body = Vec::new();
    loop {
        let line_end = loop {
            if let Some(i) = find(&buf, b"\r\n") {
                break i;
            }
            fill(s, &mut buf)?
                .then_some(())
                .ok_or("closed inside chunked body")?;
        };
        let size_text = String::from_utf8_lossy(&buf[..line_end]);
        let size_hex = size_text.split(';').next().unwrap_or("").trim().to_string();
        let size = usize::from_str_radix(&size_hex, 16)
            .map_err(|_| format!("bad chunk size {size_hex:?}"))?;
        buf.drain(..line_end + 2);
        if size == 0 {
            return Ok(body);
        }
        while buf.len() < size + 2 {
            fill(s, &mut buf)?
                .then_some(())
                .ok_or("closed inside a chunk")?;
        }
        body.extend_from_slice(&buf[..size]);
        buf.drain(..size + 2);
    }
}

/// Reads more bytes into `buf`; false at end of stream.
fn fill(s: &mut TcpStream, buf: &mut Vec<u8>) -> Result<bool, String> {
    let mut chunk = [0u8; 16 * 1024];
    match s.read(&mut chunk) {
        Ok(0) => Ok(false),
        Ok(n) => {
            buf.extend_from_slice(&chunk[..n]);
            Ok(true)
        }
        Err(e) => Err(format!("read: {e}")),
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;
    use testserver::{Behavior, TestServer};

    fn verdicts(b: Behavior) -> Vec<(String, bool)> {
        let server = TestServer::start(b).unwrap();
        run(server.addr().port(), false, true)
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
        let caught = run(port, false, true)
            .into_iter()
            .find(|c| c.name == "parses-http")
            .unwrap();
        assert!(
            !caught.passed && caught.detail.contains("does not parse HTTP"),
            "{caught:?}"
        );
        let port = first_byte_server();
        let declared = run(port, false, false)
            .into_iter()
            .find(|c| c.name == "parses-http")
            .unwrap();
        assert!(declared.passed && declared.flagged, "{declared:?}");
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
