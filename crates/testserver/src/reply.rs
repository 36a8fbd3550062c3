//! The bytes of each reply: a pure function of the behavior and the request.

use std::time::SystemTime;

use crate::request::Request;
use crate::Behavior;

/// The body of every well-formed response.
pub(crate) const BODY: &[u8] = b"Hello World";

/// What to do with the connection once a reply is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum After {
    /// Wait for the next request.
    KeepOpen,
    /// Send FIN (after draining what the client still sends).
    Close,
    /// Abort with RST.
    Reset,
}

/// A reply: the parts are written with one `write` each, so the client sees them apart.
#[derive(Debug)]
pub(crate) struct Reply {
    pub parts: Vec<Vec<u8>>,
    pub after: After,
}

/// Builds the reply to `req`. Behaviors that never answer are handled by the caller.
pub(crate) fn build(behavior: &Behavior, req: &Request) -> Reply {
    let keep = keep_or_close(req);
    let one = |bytes: Vec<u8>, after| Reply {
        parts: vec![bytes],
        after,
    };
    match behavior {
        Behavior::Status(code) => one(hello(*code, req, ""), keep),
        Behavior::MalformedStatusLine => one(b"HTTX/1.1 abc\r\n\r\n".to_vec(), keep),
        Behavior::LongContentLength => {
            one(framed(200, "Content-Length: 100\r\n", BODY), After::Close)
        }
        Behavior::ShortContentLength => one(framed(200, "Content-Length: 5\r\n", BODY), keep),
        Behavior::ResetMidResponse => one(
            framed(200, "Content-Length: 11\r\n", b"Hello"),
            After::Reset,
        ),
        Behavior::InvalidChunkSize => one(
            framed(
                200,
                "Transfer-Encoding: chunked\r\n",
                b"zz\r\nHello World\r\n0\r\n\r\n",
            ),
            keep,
        ),
        Behavior::ChunkSizeTrailingSpace => one(
            framed(
                200,
                "Transfer-Encoding: chunked\r\n",
                b"5 \r\nhello\r\n0\r\n\r\n",
            ),
            keep,
        ),
        Behavior::Chunked => chunked(req, keep, "\r\n"),
        Behavior::ChunkedBareLf => chunked(req, keep, "\n"),
        Behavior::HugeHeaders(size) => one(hello(200, req, &padding(*size)), keep),
        Behavior::Interim => interim(req, keep),
        Behavior::ConnectionClose => one(hello_closing(req), After::Close),
        Behavior::Http10CloseDelimited => one(http10(req), After::Close),
        // Hello, and the behaviors that answer like Hello when they answer at all.
        Behavior::Hello
        | Behavior::Delay(_)
        | Behavior::NeverAnswer
        | Behavior::AnswerBeforeBody
        | Behavior::CloseAfterResponses(_)
        | Behavior::CloseIdle(_)
        | Behavior::StallAfter(_)
        | Behavior::PauseAfter { .. }
        | Behavior::Workers { .. } => one(hello(200, req, ""), keep),
        Behavior::Sum | Behavior::SumCached => one(sum(sum_of(&req.target, &req.body), req), keep),
        // Answered from the connection's database session (conn.rs): not a pure function.
        Behavior::Database(_) => one(answer(500, "", b"no database session", req, true), keep),
        // The server answers these with its shared cache (conn.rs); here, uncached.
        Behavior::Workloads(w) => crate::workloads::reply(w, &std::sync::OnceLock::new(), req),
    }
}

/// The request's own keep-alive wish.
pub(crate) fn keep_or_close(req: &Request) -> After {
    if req.keep_alive {
        After::KeepOpen
    } else {
        After::Close
    }
}

/// The well-formed "Hello World" response with `extra` header lines.
fn hello(status: u16, req: &Request, extra: &str) -> Vec<u8> {
    // These statuses never have a body (RFC 9110 §6.4.1), so no Content-Length either.
    let bodyless = status < 200 || status == 204 || status == 304;
    let mut head = status_and_date("HTTP/1.1", status);
    head.push_str(extra);
    if !bodyless {
        head.push_str("Content-Length: 11\r\n");
    }
    head.push_str(connection_header(req));
    head.push_str("\r\n");
    with_body(head, if bodyless { b"" } else { BODY }, req)
}

/// The sum of every run of digits in the query of `target` and in `body`.
pub(crate) fn sum_of(target: &str, body: &[u8]) -> u64 {
    let query = target.split_once('?').map_or("", |(_, q)| q);
    let numbers = |bytes: &[u8]| -> u64 {
        (bytes.split(|b| !b.is_ascii_digit()))
            .filter_map(|run| std::str::from_utf8(run).ok()?.parse::<u64>().ok())
            .fold(0, u64::saturating_add)
    };
    numbers(query.as_bytes()).saturating_add(numbers(body))
}

/// `total` as a text/plain answer.
pub(crate) fn sum(total: u64, req: &Request) -> Vec<u8> {
    let body = total.to_string();
    answer(
        200,
        "Content-Type: text/plain\r\n",
        body.as_bytes(),
        req,
        true,
    )
}

/// A `status` answer with `extra` header lines and `body` framed by its length, with a
/// Date header when `dated`.
pub(crate) fn answer(status: u16, extra: &str, body: &[u8], req: &Request, dated: bool) -> Vec<u8> {
    let mut head = match dated {
        true => status_and_date("HTTP/1.1", status),
        false => format!("HTTP/1.1 {status} {}\r\n", reason(status)),
    };
    head.push_str(extra);
    head.push_str(&format!("Content-Length: {}\r\n", body.len()));
    head.push_str(connection_header(req));
    head.push_str("\r\n");
    with_body(head, body, req)
}

/// Like `hello`, but announcing the close whatever the request asked.
fn hello_closing(req: &Request) -> Vec<u8> {
    let mut head = status_and_date("HTTP/1.1", 200);
    head.push_str("Content-Length: 11\r\nConnection: close\r\n\r\n");
    with_body(head, BODY, req)
}

/// The `Connection` header line that echoes the request's wish where needed.
fn connection_header(req: &Request) -> &'static str {
    match (req.keep_alive, req.http10) {
        (false, _) => "Connection: close\r\n",
        // HTTP/1.0 closes by default, so a kept connection must say so.
        (true, true) => "Connection: keep-alive\r\n",
        (true, false) => "",
    }
}

/// A head with the given framing header line and raw body bytes, whatever the method.
fn framed(status: u16, framing: &str, raw_body: &[u8]) -> Vec<u8> {
    let mut bytes = status_and_date("HTTP/1.1", status);
    bytes.push_str(framing);
    bytes.push_str("\r\n");
    let mut bytes = bytes.into_bytes();
    bytes.extend_from_slice(raw_body);
    bytes
}

/// A valid chunked "Hello World" in four writes: three chunks and a trailer, their lines
/// ending in `eol` (the head's in CRLF).
fn chunked(req: &Request, after: After, eol: &str) -> Reply {
    let mut head = status_and_date("HTTP/1.1", 200);
    head.push_str("Transfer-Encoding: chunked\r\nTrailer: X-Trailer\r\n");
    head.push_str(connection_header(req));
    head.push_str("\r\n");
    let mut parts = vec![head.into_bytes()];
    if !req.head {
        for part in [
            "5;ext=1\r\nHello\r\n",
            "1\r\n \r\n",
            "5;name=\"quoted value\"\r\nWorld\r\n",
            "0\r\nX-Trailer: done\r\n\r\n",
        ] {
            parts.push(part.replace("\r\n", eol).into_bytes());
        }
    }
    Reply { parts, after }
}

/// `100 Continue` and `103 Early Hints`, each in its own write, then the 200.
fn interim(req: &Request, after: After) -> Reply {
    let parts = vec![
        b"HTTP/1.1 100 Continue\r\n\r\n".to_vec(),
        b"HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n".to_vec(),
        hello(200, req, ""),
    ];
    Reply { parts, after }
}

/// An HTTP/1.0 response whose body ends when the connection closes.
fn http10(req: &Request) -> Vec<u8> {
    let mut head = status_and_date("HTTP/1.0", 200);
    head.push_str("\r\n");
    with_body(head, BODY, req)
}

/// X-Pad header lines adding up to about `size` bytes (within one line's length).
/// Lines of ~1 KiB keep the header count small: the point is a large head, not many fields.
fn padding(size: usize) -> String {
    let mut out = String::with_capacity(size + 1100);
    let mut i = 0;
    while out.len() < size {
        out.push_str(&format!("X-Pad-{i}: {}\r\n", "a".repeat(1000)));
        i += 1;
    }
    out
}

/// The status line and the Date header line.
fn status_and_date(version: &str, status: u16) -> String {
    let date = http_date(SystemTime::now());
    format!("{version} {status} {}\r\nDate: {date}\r\n", reason(status))
}

/// Appends the body unless the request was HEAD.
fn with_body(head: String, body: &[u8], req: &Request) -> Vec<u8> {
    let mut bytes = head.into_bytes();
    if !req.head {
        bytes.extend_from_slice(body);
    }
    bytes
}

/// The reason phrase of common status codes; others get a generic one.
fn reason(status: u16) -> &'static str {
    match status {
        100 => "Continue",
        200 => "OK",
        201 => "Created",
        204 => "No Content",
        301 => "Moved Permanently",
        302 => "Found",
        304 => "Not Modified",
        400 => "Bad Request",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "Status",
    }
}

/// Formats a time as an IMF-fixdate, e.g. `Sun, 06 Nov 1994 08:49:37 GMT`.
pub(crate) fn http_date(t: SystemTime) -> String {
    httpdate::fmt_http_date(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    fn at(secs: u64) -> String {
        http_date(UNIX_EPOCH + Duration::from_secs(secs))
    }

    #[test]
    fn formats_imf_fixdate() {
        assert_eq!(at(0), "Thu, 01 Jan 1970 00:00:00 GMT");
        assert_eq!(at(784_111_777), "Sun, 06 Nov 1994 08:49:37 GMT");
        assert_eq!(at(951_782_400), "Tue, 29 Feb 2000 00:00:00 GMT");
        assert_eq!(at(1_709_251_199), "Thu, 29 Feb 2024 23:59:59 GMT");
    }

    #[test]
    fn padding_is_about_the_asked_size() {
        for size in [0, 1, 1000, 40_000] {
            let len = padding(size).len();
            assert!(len >= size && len < size + 1100, "{size} -> {len}");
        }
    }
}
