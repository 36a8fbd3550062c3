//! One request and its response over a socket, framed by the engine's parser (the one
//! the load uses): what verification's checks send and what they look at.

use super::connection::Connection;
use super::{VerifyError, PATIENCE};
use crate::model::endpoint::Endpoint;
use engine::{Framing, LineKind, ResponseParser, ResponseSink};
use http::header::{CONTENT_LENGTH, HOST};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};

/// What the checks look at in a response: the parser shows it the head and the body.
#[derive(Debug, Default)]
pub(super) struct Reply {
    pub status: u16,
    pub framing: Option<Framing>,
    /// The head's fields, names in lower case, values as sent (lossy UTF-8).
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// Where lines ended in a bare LF, each place once.
    pub bare_lf: Vec<LineKind>,
}

impl ResponseSink for Reply {
    const WANTS_HEAD_LINE_ENDS: bool = true;

    fn header(&mut self, name: &[u8], value: &[u8]) {
        let name = String::from_utf8_lossy(name).to_ascii_lowercase();
        let value = String::from_utf8_lossy(value).trim().to_string();
        self.headers.push((name, value));
    }

    fn framing(&mut self, framing: Framing) {
        self.framing = Some(framing);
    }

    fn body(&mut self, bytes: &[u8]) {
        self.body.extend_from_slice(bytes);
    }

    fn bare_lf(&mut self, line: LineKind) {
        if !self.bare_lf.contains(&line) {
            self.bare_lf.push(line);
        }
    }
}

impl Reply {
    /// The value of the field `name` (lower case), the first if sent twice.
    pub(super) fn header(&self, name: &str) -> Option<&str> {
        let found = self.headers.iter().find(|(n, _)| n == name);
        found.map(|(_, v)| v.as_str())
    }

    /// Whether it has a Date header.
    pub(super) fn dated(&self) -> bool {
        self.header("date").is_some()
    }

    /// What the parser accepted that a server should not send, as a note; None if nothing.
    pub(super) fn leniency(&self) -> Option<String> {
        let (first, rest) = self.bare_lf.split_first()?;
        let places = (rest.iter()).fold(first.to_string(), |all, l| format!("{all}, {l}"));
        Some(format!(
            "bare LF line endings ({places}; accepted, RFC 9112 §2.2)"
        ))
    }

    /// How the body was delimited, as the details name it.
    pub(super) fn framing_name(&self) -> &'static str {
        match self.framing {
            Some(Framing::Length(_)) => "content-length",
            Some(Framing::Chunked) => "chunked",
            Some(Framing::UntilEof) => "close",
            Some(Framing::Empty) | None => "no-body",
        }
    }
}

pub(super) fn connect(addr: SocketAddr) -> Result<TcpStream, VerifyError> {
    let s = TcpStream::connect_timeout(&addr, PATIENCE).map_err(VerifyError::Connect)?;
    s.set_read_timeout(Some(PATIENCE))
        .map_err(VerifyError::Socket)?;
    // A server that stops reading a large body must not hold a check for ever.
    s.set_write_timeout(Some(PATIENCE))
        .map_err(VerifyError::Socket)?;
    s.set_nodelay(true).map_err(VerifyError::Socket)?;
    Ok(s)
}

/// The request for `e` in `version`, as the load sends it (the user's Host header gives
/// way to the server's `host`); `extra` header lines go last.
pub(super) fn request(host: &str, e: &Endpoint, version: &str, extra: &str) -> Vec<u8> {
    let mut head = format!("{} {} {version}\r\nHost: {host}\r\n", e.method, e.path);
    for h in e.headers.iter().filter(|h| h.name != HOST) {
        head += &format!("{h}\r\n");
    }
    let has_length = e.headers.iter().any(|h| h.name == CONTENT_LENGTH);
    if !e.body.is_empty() && !has_length {
        head += &format!("Content-Length: {}\r\n", e.body.len());
    }
    head += extra;
    head += "\r\n";
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(&e.body);
    bytes
}

/// Writes `request` and reads one response (to a HEAD request when `head`), framed by
/// the engine's parser. Bytes after the response's end fail the exchange, as they would
/// fail the next request of a load.
pub(super) fn exchange(
    s: &mut Connection,
    request: &[u8],
    head: bool,
) -> Result<Reply, VerifyError> {
    s.write_all(request).map_err(VerifyError::Write)?;
    let mut parser = ResponseParser::new();
    parser.start(head);
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
