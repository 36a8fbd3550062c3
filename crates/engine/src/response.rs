//! Streaming HTTP/1.1 response framing (RFC 9112 §6.3), counting bodies without storing them.
//! HEAD, 1xx, 204 and 304 responses have no body; otherwise a final `chunked` transfer coding
//! wins over Content-Length, and a response with neither runs until the server closes.
//!
//! The load path only frames; a caller that must see a response (`shootout verify`) passes
//! a [`ResponseSink`] and gets the final head's headers and framing and the body's bytes.

mod chunk_error;
mod chunk_line;
mod chunked;

use crate::pool::Carries;
use std::fmt;
use std::mem::MaybeUninit;

use httparse::{ParserConfig, Status};

pub use chunk_error::{ChunkError, ChunkErrorKind, LineStart};
use chunked::ChunkDecoder;
#[cfg(test)]
use chunked::MAX_CHUNK_LINE;

/// Why a response could not be framed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResponseError {
    /// The status line or headers are malformed (or exceed 64 headers), so nothing can be framed.
    #[error("malformed response head: {0}")]
    Head(#[from] httparse::Error),
    /// A head or trailer section exceeded [`MAX_HEAD`]; bounding it bounds per-connection memory.
    #[error("response head or trailers longer than {} bytes", MAX_HEAD)]
    HeadTooLarge,
    /// Content-Length is unusable, so the body end cannot be trusted.
    #[error("invalid or conflicting Content-Length")]
    BadContentLength,
    /// The chunked framing breaks RFC 9112 §7.1, so the body end cannot be trusted.
    #[error("invalid chunked transfer coding: {0}")]
    BadChunk(ChunkError),
    /// The connection closed before the response ended; the engine counts it as a read error.
    #[error("connection closed before the response ended")]
    Truncated,
}

/// Longest response head (status line + headers, or trailers) accepted.
pub const MAX_HEAD: usize = 64 * 1024;

/// More headers than this fail the head; the array lives on the stack to avoid allocating.
const MAX_HEADERS: usize = 64;

/// A complete final response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Response {
    /// Status code of the final (non-interim) response.
    pub status: u16,
    /// Whether the connection may carry another request after this response.
    pub keep_alive: bool,
    /// Head bytes of the final response plus those of any interim 1xx responses before it.
    pub head_bytes: u64,
    /// Payload bytes; for chunked bodies only the chunk data, not the framing or trailers.
    pub body_bytes: u64,
}

/// How the body of a final response is delimited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// No body: the response to a HEAD request, or a 1xx, 204 or 304.
    Empty,
    /// Content-Length: this many bytes.
    Length(u64),
    /// Chunked transfer coding.
    Chunked,
    /// Until the server closes the connection.
    UntilEof,
}

/// What a caller sees of a response beyond the counts in [`Response`]: the final head's
/// headers and framing, and the body's bytes. Interim (1xx) heads are not shown.
pub trait ResponseSink {
    /// One header of the final response's head, as it arrived.
    fn header(&mut self, _name: &[u8], _value: &[u8]) {}
    /// The final response's head is complete; its body is delimited by `framing`.
    fn framing(&mut self, _framing: Framing) {}
    /// The next bytes of the body (for chunked bodies, chunk data without the framing).
    fn body(&mut self, _bytes: &[u8]) {}
    /// A line ended in a bare LF, not CRLF: accepted (RFC 9112 §2.2), told so a checker can
    /// say so. Chunked framing tells each time; the final head once, and only when
    /// [`WANTS_HEAD_LINE_ENDS`](Self::WANTS_HEAD_LINE_ENDS).
    fn bare_lf(&mut self, _line: LineKind) {}
    /// Whether to look for bare LFs in the final head: a second pass over its bytes, which
    /// the load's framing skips.
    const WANTS_HEAD_LINE_ENDS: bool = false;
}

/// Where a line ended in a bare LF.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    /// The status line or a header line of the final head.
    Head,
    /// A chunk-size line.
    ChunkSize,
    /// The line end after chunk data.
    ChunkDataEnd,
    /// A trailer line, or the empty line ending a chunked body.
    Trailer,
}

impl fmt::Display for LineKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LineKind::Head => "head",
            LineKind::ChunkSize => "chunk-size lines",
            LineKind::ChunkDataEnd => "after chunk data",
            LineKind::Trailer => "trailer section",
        })
    }
}

/// Sees nothing: what [`ResponseParser::feed`] passes, so framing alone costs nothing more.
#[derive(Debug, Clone, Copy, Default)]
struct Discard;

impl ResponseSink for Discard {}

/// Result of feeding bytes: how many were used, and the response if it completed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// Bytes of the fed slice that belong to this response; all of them unless `done` is set.
    pub consumed: usize,
    /// The response, once its last byte has been consumed.
    pub done: Option<Response>,
}

/// Frames one response at a time on a connection; reusable for the next response.
///
/// Once a response completes (from `feed` or `finish_eof`), the next `feed` without a
/// `start` call behaves as if `start(false)` had been called. After an error the connection
/// must be dropped; `start` makes the parser usable again.
#[derive(Debug)]
pub struct ResponseParser {
    state: State,
    head_request: bool,
    /// Partial head carried between feeds; unallocated whenever no head is split across feeds.
    buf: Vec<u8>,
    resp: Response,
    /// Where `buf` is lent from and goes back to, in an event loop (else it is made).
    carries: Option<Carries>,
}

/// Where in the current response the parser is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Waiting for a status line and headers, interim or final.
    Head,
    /// Content-Length body with this many bytes still to come (never zero).
    Length(u64),
    Chunked(ChunkDecoder),
    /// The body runs until the server closes the connection.
    UntilEof,
    /// The response is complete; the next feed starts another one.
    Done,
}

const EMPTY_RESPONSE: Response = Response {
    status: 0,
    keep_alive: false,
    head_bytes: 0,
    body_bytes: 0,
};

impl Default for ResponseParser {
    fn default() -> Self {
        Self::new()
    }
}

impl ResponseParser {
    /// A parser ready for the response to a non-HEAD request.
    pub fn new() -> Self {
        Self {
            state: State::Head,
            head_request: false,
            buf: Vec::new(),
            resp: EMPTY_RESPONSE,
            carries: None,
        }
    }

    /// Lends a split head's carry from `carries` (a loop's) rather than making one.
    pub fn lend_from(&mut self, carries: Carries) {
        self.carries = Some(carries);
    }

    /// The carry is done with: back to the loop's carries, or dropped.
    fn end_carry(&mut self) {
        let carry = std::mem::take(&mut self.buf);
        if let (Some(carries), true) = (&self.carries, carry.capacity() > 0) {
            carries.give(carry);
        }
    }

    /// Prepares for the response to the next request; `head_request` = the request was HEAD.
    pub fn start(&mut self, head_request: bool) {
        self.state = State::Head;
        self.head_request = head_request;
        self.end_carry();
        self.resp = EMPTY_RESPONSE;
    }

    /// Consumes bytes of the current response. Stops right after the response ends,
    /// leaving later bytes (the next pipelined response) unconsumed.
    ///
    /// Interim 1xx responses are consumed and skipped within the same call. When `done` is
    /// `None`, `consumed == data.len()`.
    pub fn feed(&mut self, data: &[u8]) -> Result<Progress, ResponseError> {
        self.feed_to(data, &mut Discard)
    }

    /// As [`feed`](Self::feed), also showing `sink` the final head and the body bytes.
    pub fn feed_to(
        &mut self,
        data: &[u8],
        sink: &mut impl ResponseSink,
    ) -> Result<Progress, ResponseError> {
        if matches!(self.state, State::Done) {
            self.start(false);
        }
        let mut pos = 0;
        loop {
            let rest = data.get(pos..).unwrap_or_default();
            pos += self.step(rest, sink)?;
            let done = matches!(self.state, State::Done).then_some(self.resp);
            if done.is_some() || pos >= data.len() {
                return Ok(Progress {
                    consumed: pos,
                    done,
                });
            }
        }
    }

    /// The peer closed the connection: completes a close-delimited body, else Truncated
    /// (also Truncated when nothing at all of this response arrived).
    pub fn finish_eof(&mut self) -> Result<Response, ResponseError> {
        let was = std::mem::replace(&mut self.state, State::Done);
        self.end_carry();
        match was {
            State::UntilEof => Ok(self.resp),
            _ => Err(ResponseError::Truncated),
        }
    }

    /// True when the current response's body runs until the connection closes.
    pub fn ends_at_eof(&self) -> bool {
        matches!(self.state, State::UntilEof)
    }

    /// True when no byte of the current response has arrived yet.
    ///
    /// Also true after a response completed, since the parser then waits for the next one.
    pub fn is_idle(&self) -> bool {
        match self.state {
            State::Done => true,
            State::Head => self.buf.is_empty() && self.resp.head_bytes == 0,
            _ => false,
        }
    }

    /// Advances by one framing step; returns how many bytes of `data` it used.
    fn step(&mut self, data: &[u8], sink: &mut impl ResponseSink) -> Result<usize, ResponseError> {
        match self.state {
            State::Head if self.buf.is_empty() => self.head_direct(data, sink),
            State::Head => self.head_buffered(data, sink),
            State::Length(left) => Ok(self.length_body(data, left, sink)),
            State::Chunked(mut dec) => {
                let used = dec.feed(data, &mut self.resp.body_bytes, sink)?;
                self.state = match dec.is_done() {
                    true => State::Done,
                    false => State::Chunked(dec),
                };
                Ok(used)
            }
            State::UntilEof => {
                self.add_body(data, sink);
                Ok(data.len())
            }
            State::Done => Ok(0),
        }
    }

    /// Parses a head straight from the caller's bytes, the allocation-free common case.
    fn head_direct(
        &mut self,
        data: &[u8],
        sink: &mut impl ResponseSink,
    ) -> Result<usize, ResponseError> {
        let window = data.get(..MAX_HEAD).unwrap_or(data);
        match parse_head(window, sink)? {
            Some(head) => {
                self.on_head(&head, sink)?;
                Ok(head.len)
            }
            None if window.len() >= MAX_HEAD => Err(ResponseError::HeadTooLarge),
            None => {
                if let Some(carries) = &self.carries {
                    self.buf = carries.take();
                }
                self.buf.extend_from_slice(window);
                Ok(window.len())
            }
        }
    }

    /// Continues a head split across feeds. httparse is not incremental, so this copies bytes
    /// only up to the next blank line (never body bytes) and re-parses only there.
    fn head_buffered(
        &mut self,
        data: &[u8],
        sink: &mut impl ResponseSink,
    ) -> Result<usize, ResponseError> {
        let window = data
            .get(..MAX_HEAD.saturating_sub(self.buf.len()))
            .unwrap_or(data);
        let end = blank_line_end(&self.buf, window);
        let take = end.unwrap_or(window.len());
        let old = self.buf.len();
        self.buf
            .extend_from_slice(window.get(..take).unwrap_or_default());
        let head = match end {
            Some(_) => parse_head(&self.buf, sink)?,
            None => None,
        };
        match head {
            Some(head) => {
                self.end_carry();
                self.on_head(&head, sink)?;
                Ok(head.len.saturating_sub(old))
            }
            None if self.buf.len() >= MAX_HEAD => Err(ResponseError::HeadTooLarge),
            // A blank line before the status line is skipped by httparse, so keep going.
            None => Ok(take),
        }
    }

    /// Skips an interim head, or records a final one and picks the body framing.
    fn on_head(&mut self, head: &Head, sink: &mut impl ResponseSink) -> Result<(), ResponseError> {
        self.resp.head_bytes = self.resp.head_bytes.saturating_add(as_u64(head.len));
        if head.is_interim() {
            return Ok(());
        }
        let framing = head.framing(self.head_request)?;
        sink.framing(framing);
        self.resp.status = head.status;
        self.resp.keep_alive = head.keep_alive(framing);
        self.state = match framing {
            Framing::Empty | Framing::Length(0) => State::Done,
            Framing::Length(n) => State::Length(n),
            Framing::Chunked => State::Chunked(ChunkDecoder::default()),
            Framing::UntilEof => State::UntilEof,
        };
        Ok(())
    }

    /// Counts Content-Length body bytes, never past the declared end.
    fn length_body(&mut self, data: &[u8], left: u64, sink: &mut impl ResponseSink) -> usize {
        let n = take_upto(left, data.len());
        self.add_body(data.get(..n).unwrap_or_default(), sink);
        let left = left.saturating_sub(as_u64(n));
        self.state = match left {
            0 => State::Done,
            _ => State::Length(left),
        };
        n
    }

    fn add_body(&mut self, bytes: &[u8], sink: &mut impl ResponseSink) {
        self.resp.body_bytes = self.resp.body_bytes.saturating_add(as_u64(bytes.len()));
        sink.body(bytes);
    }
}

/// What the Content-Length headers said, all of them combined.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum ContentLength {
    #[default]
    Absent,
    Valid(u64),
    Invalid,
}

/// The parts of a parsed head that framing needs, owned so the parse buffer can be released.
#[derive(Debug, Default)]
struct Head {
    len: usize,
    status: u16,
    http10: bool,
    conn_close: bool,
    conn_keep_alive: bool,
    transfer_encoding: bool,
    chunked: bool,
    content_length: ContentLength,
}

/// Parses a complete head from `buf`, or returns `None` if more bytes are needed; shows
/// `sink` the headers of a final head.
fn parse_head<S: ResponseSink>(buf: &[u8], sink: &mut S) -> Result<Option<Head>, ResponseError> {
    // Uninitialised slots spare a 2 KiB memset per response; httparse only reads what it wrote.
    let mut headers = [MaybeUninit::uninit(); MAX_HEADERS];
    let mut res = httparse::Response::new(&mut []);
    let parsed =
        ParserConfig::default().parse_response_with_uninit_headers(&mut res, buf, &mut headers);
    let Status::Complete(len) = parsed? else {
        return Ok(None);
    };
    let status = res.code.unwrap_or(0);
    if status < 100 {
        return Err(ResponseError::Head(httparse::Error::Status));
    }
    let http10 = res.version == Some(0);
    let mut head = Head {
        len,
        status,
        http10,
        ..Head::default()
    };
    let interim = head.is_interim();
    for h in res.headers.iter() {
        head.add_header(h.name.as_bytes(), h.value);
        if !interim {
            sink.header(h.name.as_bytes(), h.value);
        }
    }
    if S::WANTS_HEAD_LINE_ENDS && !interim && has_bare_lf(buf.get(..len).unwrap_or(buf)) {
        sink.bare_lf(LineKind::Head);
    }
    Ok(Some(head))
}

/// Whether a line of `head` ends in LF without CR before it.
fn has_bare_lf(head: &[u8]) -> bool {
    head.first() == Some(&b'\n') || head.windows(2).any(|w| w[1] == b'\n' && w[0] != b'\r')
}

impl Head {
    fn add_header(&mut self, name: &[u8], value: &[u8]) {
        if is_lower(name, b"content-length") {
            self.add_content_length(value);
        } else if is_lower(name, b"transfer-encoding") {
            self.transfer_encoding = true;
            if let Some(last) = list_items(value).last() {
                self.chunked = is_lower(last, b"chunked");
            }
        } else if is_lower(name, b"connection") {
            for token in list_items(value) {
                self.conn_close |= is_lower(token, b"close");
                self.conn_keep_alive |= is_lower(token, b"keep-alive");
            }
        }
    }

    /// Merges one Content-Length value; repeats of the same number are tolerated (RFC 9110 §8.6).
    fn add_content_length(&mut self, value: &[u8]) {
        for item in value.split(|&b| b == b',') {
            self.content_length = match (self.content_length, parse_decimal(item.trim_ascii())) {
                (ContentLength::Absent, Some(n)) => ContentLength::Valid(n),
                (ContentLength::Valid(a), Some(n)) if a == n => ContentLength::Valid(a),
                _ => ContentLength::Invalid,
            };
        }
    }

    /// 101 is final: after it the connection speaks another protocol.
    fn is_interim(&self) -> bool {
        (100..200).contains(&self.status) && self.status != 101
    }

    /// RFC 9112 §6.3, in its order; Content-Length is only checked when it frames the body.
    fn framing(&self, head_request: bool) -> Result<Framing, ResponseError> {
        if head_request || self.status < 200 || self.status == 204 || self.status == 304 {
            return Ok(Framing::Empty);
        }
        if self.transfer_encoding {
            // A final coding other than chunked can only be delimited by the close.
            return Ok(if self.chunked {
                Framing::Chunked
            } else {
                Framing::UntilEof
            });
        }
        match self.content_length {
            ContentLength::Absent => Ok(Framing::UntilEof),
            ContentLength::Valid(n) => Ok(Framing::Length(n)),
            ContentLength::Invalid => Err(ResponseError::BadContentLength),
        }
    }

    fn keep_alive(&self, framing: Framing) -> bool {
        let wanted = !self.conn_close && (self.conn_keep_alive || !self.http10);
        // Chunked with Content-Length, or chunked in HTTP/1.0, is faulty framing (RFC 9112 §6.1).
        let faulty = framing == Framing::Chunked
            && (self.http10 || self.content_length != ContentLength::Absent);
        wanted && !faulty && self.status != 101 && framing != Framing::UntilEof
    }
}

/// Where in `new` the first blank line (`\n\n` or `\n\r\n`) ends, looking back into `buf`
/// for the bytes before `new`: a head can only end there.
fn blank_line_end(buf: &[u8], new: &[u8]) -> Option<usize> {
    let before = |i: usize, back: usize| match i.checked_sub(back) {
        Some(j) => new.get(j).copied(),
        None => buf
            .len()
            .checked_sub(back - i)
            .and_then(|j| buf.get(j).copied()),
    };
    let ends_blank = |i: usize| match before(i, 1) {
        Some(b'\n') => true,
        Some(b'\r') => before(i, 2) == Some(b'\n'),
        _ => false,
    };
    let lf = new
        .iter()
        .enumerate()
        .find(|&(i, &b)| b == b'\n' && ends_blank(i))?;
    Some(lf.0 + 1)
}

/// Case-insensitive match against a lowercase letters-and-hyphens literal, cheaper than
/// `eq_ignore_ascii_case`: OR-ing 0x20 folds only letters here, as httparse never leaves CR
/// (the one byte that folds to `-`) inside a header.
fn is_lower(bytes: &[u8], lower: &[u8]) -> bool {
    bytes.len() == lower.len() && bytes.iter().zip(lower).all(|(&b, &l)| b | 0x20 == l)
}

/// Non-empty elements of a comma-separated header list, whitespace trimmed.
fn list_items(value: &[u8]) -> impl Iterator<Item = &[u8]> {
    value
        .split(|&b| b == b',')
        .map(<[u8]>::trim_ascii)
        .filter(|item| !item.is_empty())
}

/// Strict decimal: `str::parse` would also accept a leading `+`.
fn parse_decimal(digits: &[u8]) -> Option<u64> {
    if digits.is_empty() {
        return None;
    }
    digits.iter().try_fold(0u64, |acc, &b| match b {
        b'0'..=b'9' => acc.checked_mul(10)?.checked_add(u64::from(b - b'0')),
        _ => None,
    })
}

fn as_u64(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

/// How many of `avail` bytes a body with `left` bytes to go may take.
fn take_upto(left: u64, avail: usize) -> usize {
    usize::try_from(left).map_or(avail, |left| left.min(avail))
}

#[cfg(test)]
mod tests {
    use super::*;

    const CL: &[u8] = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nServer: t\r\n\r\nhello";
    const CHUNKED: &[u8] = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n\
        5;name=value;x=\"q\"\r\nhello\r\n\
        1A\r\nabcdefghijklmnopqrstuvwxyz\r\n\
        0;last\r\nExpires: never\r\nX-Trailer: 1\r\n\r\n";

    fn resp(status: u16, keep_alive: bool, head_bytes: usize, body_bytes: u64) -> Response {
        let head_bytes = as_u64(head_bytes);
        Response {
            status,
            keep_alive,
            head_bytes,
            body_bytes,
        }
    }

    /// Feeds the pieces in order; returns the response and the bytes left unconsumed.
    fn frame_pieces(pieces: &[&[u8]], head: bool) -> Result<(Response, usize), ResponseError> {
        let mut p = ResponseParser::new();
        p.start(head);
        for (i, piece) in pieces.iter().enumerate() {
            let prog = p.feed(piece)?;
            assert!(prog.consumed <= piece.len());
            if let Some(r) = prog.done {
                let later: usize = pieces.iter().skip(i + 1).map(|x| x.len()).sum();
                return Ok((r, piece.len() - prog.consumed + later));
            }
            assert_eq!(
                prog.consumed,
                piece.len(),
                "unfinished feed must use everything"
            );
        }
        p.finish_eof().map(|r| (r, 0))
    }

    fn frame(bytes: &[u8], head: bool) -> Result<Response, ResponseError> {
        frame_pieces(&[bytes], head).map(|(r, _)| r)
    }

    fn frame_bytewise(bytes: &[u8], head: bool) -> Result<Response, ResponseError> {
        let pieces: Vec<&[u8]> = bytes.chunks(1).collect();
        frame_pieces(&pieces, head).map(|(r, _)| r)
    }

    fn head_len(bytes: &[u8]) -> usize {
        bytes.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4
    }

    #[test]
    fn a_split_head_borrows_the_loops_carry_and_gives_it_back() {
        let carries = Carries::new(MAX_HEAD, 1, 1);
        let mut p = ResponseParser::new();
        p.lend_from(carries.clone());
        let (a, b) = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi".split_at(10);
        for _ in 0..3 {
            p.start(false);
            assert!(p.feed(a).unwrap().done.is_none());
            assert_eq!(carries.free(), 0, "lent while the head is split");
            assert_eq!(p.feed(b).unwrap().done.map(|r| r.status), Some(200));
            assert_eq!(carries.free(), 1, "given back once the head is whole");
        }
    }

    #[test]
    fn content_length_one_feed() {
        let r = frame(CL, false).unwrap();
        assert_eq!(r, resp(200, true, head_len(CL), 5));
        let mut p = ResponseParser::new();
        assert_eq!(p.feed(CL).unwrap().consumed, CL.len());
        assert!(
            p.buf.capacity() == 0,
            "whole head in one feed must not allocate"
        );
    }

    #[test]
    fn content_length_byte_by_byte_matches() {
        assert_eq!(frame_bytewise(CL, false), frame(CL, false));
    }

    #[test]
    fn idle_until_first_byte_and_after_completion() {
        let mut p = ResponseParser::new();
        assert!(p.is_idle());
        p.feed(b"H").unwrap();
        assert!(!p.is_idle());
        p.feed(&CL[1..]).unwrap();
        assert!(p.is_idle());
        assert_eq!(
            p.buf.capacity(),
            0,
            "completed head must release its buffer"
        );
    }

    #[test]
    fn pipelined_responses_stop_at_boundary() {
        let second = b"HTTP/1.1 404 Not Found\r\nContent-Length: 3\r\n\r\nnop";
        let both = [CL, &second[..]].concat();
        let mut p = ResponseParser::new();
        let first = p.feed(&both).unwrap();
        assert_eq!(first.consumed, CL.len());
        assert_eq!(first.done.unwrap().status, 200);
        p.start(false);
        let next = p.feed(&both[first.consumed..]).unwrap();
        assert_eq!(next.consumed, second.len());
        assert_eq!(next.done, Some(resp(404, true, head_len(second), 3)));
    }

    #[test]
    fn feed_without_start_acts_like_start_false() {
        let both = [CL, CL].concat();
        let mut p = ResponseParser::new();
        p.start(true);
        let first = p.feed(&both).unwrap();
        assert_eq!(
            first.done.unwrap().body_bytes,
            0,
            "HEAD response has no body"
        );
        // The "hello" body is now parsed as a head and rejected.
        assert!(matches!(
            p.feed(&both[first.consumed..]),
            Err(ResponseError::Head(_))
        ));
        let mut p = ResponseParser::new();
        let first = p.feed(&both).unwrap();
        let second = p.feed(&both[first.consumed..]).unwrap();
        assert_eq!(second.done, first.done);
    }

    #[test]
    fn chunked_with_extensions_and_trailers() {
        let r = frame(CHUNKED, false).unwrap();
        assert_eq!(r, resp(200, true, head_len(CHUNKED), 31));
        assert_eq!(frame_bytewise(CHUNKED, false), Ok(r));
    }

    #[test]
    fn chunked_stops_at_pipelined_boundary() {
        let both = [CHUNKED, CL].concat();
        let (r, left) = frame_pieces(&[&both], false).unwrap();
        assert_eq!(r.body_bytes, 31);
        assert_eq!(left, CL.len());
    }

    #[test]
    fn chunked_bare_lf_and_leading_zeros() {
        let bytes = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\
            0003\nabc\n00000000000000000000\n\n";
        assert_eq!(frame(bytes, false).unwrap().body_bytes, 3);
    }

    /// The rule a chunked response broke, if it broke one.
    fn chunk_rule(framed: Result<Response, ResponseError>) -> Option<ChunkErrorKind> {
        match framed {
            Err(ResponseError::BadChunk(e)) => Some(e.kind),
            _ => None,
        }
    }

    #[test]
    fn chunked_invalid_size() {
        let bytes = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n";
        assert_eq!(
            chunk_rule(frame(bytes, false)),
            Some(ChunkErrorKind::NoSize)
        );
        let empty = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\r\n";
        assert_eq!(
            chunk_rule(frame(empty, false)),
            Some(ChunkErrorKind::NoSize)
        );
        let no_digits = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n;x\r\n";
        assert_eq!(
            chunk_rule(frame(no_digits, false)),
            Some(ChunkErrorKind::NoSize)
        );
    }

    #[test]
    fn chunked_size_overflow() {
        let bytes = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1ffffffffffffffff\r\n";
        let overflow = Some(ChunkErrorKind::SizeOverflow);
        assert_eq!(chunk_rule(frame(bytes, false)), overflow);
        assert_eq!(chunk_rule(frame_bytewise(bytes, false)), overflow);
    }

    #[test]
    fn chunked_missing_crlf_after_data() {
        let bytes = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX\r\n0\r\n\r\n";
        let missing = Some(ChunkErrorKind::DataNotFollowedByCrlf);
        assert_eq!(chunk_rule(frame(bytes, false)), missing);
        let cr_only = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\rX";
        assert_eq!(chunk_rule(frame(cr_only, false)), missing);
    }

    #[test]
    fn chunked_extension_line_too_long() {
        let mut bytes = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1;".to_vec();
        bytes.extend_from_slice(&[b'x'; MAX_CHUNK_LINE]);
        let too_long = Some(ChunkErrorKind::LineTooLong);
        assert_eq!(chunk_rule(frame(&bytes, false)), too_long);
        assert_eq!(chunk_rule(frame_bytewise(&bytes, false)), too_long);
    }

    #[test]
    fn chunked_trailers_bounded() {
        let mut bytes = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n".to_vec();
        for _ in 0..MAX_HEAD / 16 {
            bytes.extend_from_slice(b"X-Trailer: 123\r\n");
        }
        bytes.extend_from_slice(b"\r\n");
        assert_eq!(frame(&bytes, false), Err(ResponseError::HeadTooLarge));
    }

    #[test]
    fn chunked_truncated() {
        let cut = &CHUNKED[..CHUNKED.len() - 2];
        assert_eq!(frame(cut, false), Err(ResponseError::Truncated));
    }

    #[test]
    fn continue_then_ok() {
        let interim = b"HTTP/1.1 100 Continue\r\n\r\n";
        let bytes = [&interim[..], CL].concat();
        let r = frame(&bytes, false).unwrap();
        assert_eq!(r, resp(200, true, interim.len() + head_len(CL), 5));
        assert_eq!(frame_bytewise(&bytes, false), Ok(r));
    }

    #[test]
    fn several_interim_then_no_content() {
        let bytes = b"HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n\
            HTTP/1.1 102 Processing\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n";
        let mut p = ResponseParser::new();
        let prog = p.feed(bytes).unwrap();
        assert_eq!(prog.consumed, bytes.len());
        assert_eq!(prog.done, Some(resp(204, true, bytes.len(), 0)));
    }

    #[test]
    fn interim_alone_is_not_idle_and_eof_truncates() {
        let mut p = ResponseParser::new();
        let prog = p.feed(b"HTTP/1.1 100 Continue\r\n\r\n").unwrap();
        assert_eq!(prog.done, None);
        assert!(!p.is_idle());
        assert_eq!(p.finish_eof(), Err(ResponseError::Truncated));
    }

    #[test]
    fn switching_protocols_is_final_without_body() {
        let bytes = b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n\x81\x05";
        let (r, left) = frame_pieces(&[bytes], false).unwrap();
        assert_eq!((r.status, r.keep_alive, r.body_bytes), (101, false, 0));
        assert_eq!(left, 2);
    }

    #[test]
    fn head_response_has_no_body() {
        let bytes = b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n";
        let r = frame(bytes, true).unwrap();
        assert_eq!(r, resp(200, true, bytes.len(), 0));
    }

    #[test]
    fn not_modified_has_no_body() {
        let bytes = b"HTTP/1.1 304 Not Modified\r\nContent-Length: 42\r\nETag: \"x\"\r\n\r\n";
        assert_eq!(frame(bytes, false), Ok(resp(304, true, bytes.len(), 0)));
    }

    #[test]
    fn close_delimited_http10_completed_by_eof() {
        let bytes = b"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\n\r\nuntil the end";
        let mut p = ResponseParser::new();
        let prog = p.feed(bytes).unwrap();
        assert_eq!(
            prog,
            Progress {
                consumed: bytes.len(),
                done: None
            }
        );
        assert_eq!(p.finish_eof(), Ok(resp(200, false, head_len(bytes), 13)));
        assert_eq!(
            frame_bytewise(bytes, false),
            Ok(resp(200, false, head_len(bytes), 13))
        );
    }

    #[test]
    fn close_delimited_with_empty_body() {
        let bytes = b"HTTP/1.1 200 OK\r\n\r\n";
        assert_eq!(frame(bytes, false), Ok(resp(200, false, bytes.len(), 0)));
    }

    #[test]
    fn non_chunked_transfer_coding_is_close_delimited() {
        let bytes =
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\nContent-Length: 2\r\n\r\nabcd";
        assert_eq!(
            frame(bytes, false),
            Ok(resp(200, false, head_len(bytes), 4))
        );
    }

    #[test]
    fn content_length_beyond_data_truncates() {
        let bytes = b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort";
        assert_eq!(frame(bytes, false), Err(ResponseError::Truncated));
    }

    #[test]
    fn eof_before_anything_truncates() {
        let mut p = ResponseParser::new();
        assert_eq!(p.finish_eof(), Err(ResponseError::Truncated));
        assert_eq!(
            frame(b"HTTP/1.1 200 O", false),
            Err(ResponseError::Truncated)
        );
    }

    #[test]
    fn content_length_conflicts_and_duplicates() {
        let conflict = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!";
        assert_eq!(frame(conflict, false), Err(ResponseError::BadContentLength));
        for bad in ["5, 6", "-5", "+5", "5x", "", "5,", "99999999999999999999"] {
            let bytes = format!("HTTP/1.1 200 OK\r\nContent-Length: {bad}\r\n\r\nhello");
            assert_eq!(
                frame(bytes.as_bytes(), false),
                Err(ResponseError::BadContentLength),
                "{bad}"
            );
        }
        let same = b"HTTP/1.1 200 OK\r\nContent-Length: 5, 5\r\ncontent-length: 5\r\n\r\nhello";
        assert_eq!(frame(same, false).unwrap().body_bytes, 5);
    }

    #[test]
    fn chunked_wins_over_content_length_and_closes() {
        let bytes = b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n\
            2\r\nhi\r\n0\r\n\r\n";
        assert_eq!(
            frame(bytes, false),
            Ok(resp(200, false, head_len(bytes), 2))
        );
    }

    #[test]
    fn forty_kib_header_in_16_kib_pieces() {
        let mut bytes = b"HTTP/1.1 200 OK\r\nX-Big: ".to_vec();
        bytes.extend_from_slice(&[b'a'; 40 * 1024]);
        bytes.extend_from_slice(b"\r\nContent-Length: 3\r\n\r\nabcHTTP/1.1");
        let pieces: Vec<&[u8]> = bytes.chunks(16 * 1024).collect();
        let (r, left) = frame_pieces(&pieces, false).unwrap();
        assert_eq!(r, resp(200, true, bytes.len() - 11, 3));
        assert_eq!(left, 8);
    }

    #[test]
    fn hundred_kib_head_is_too_large() {
        let mut bytes = b"HTTP/1.1 200 OK\r\nX-Big: ".to_vec();
        bytes.extend_from_slice(&[b'a'; 100 * 1024]);
        bytes.extend_from_slice(b"\r\n\r\n");
        assert_eq!(frame(&bytes, false), Err(ResponseError::HeadTooLarge));
        let pieces: Vec<&[u8]> = bytes.chunks(16 * 1024).collect();
        assert_eq!(
            frame_pieces(&pieces, false),
            Err(ResponseError::HeadTooLarge)
        );
        let pieces: Vec<&[u8]> = bytes.chunks(1000).collect();
        assert_eq!(
            frame_pieces(&pieces, false),
            Err(ResponseError::HeadTooLarge)
        );
    }

    #[test]
    fn garbage_status_line() {
        assert!(matches!(
            frame(b"garbage\r\n\r\n", false),
            Err(ResponseError::Head(_))
        ));
        assert!(matches!(
            frame_bytewise(b"garbage\r\n\r\n", false),
            Err(ResponseError::Head(_))
        ));
        let low = b"HTTP/1.1 099 Odd\r\n\r\n";
        assert!(matches!(frame(low, false), Err(ResponseError::Head(_))));
    }

    #[test]
    fn split_head_errors_surface_at_the_blank_line() {
        let bad = b"HTTP/1.1 200 OK\r\nBad Header\r\nContent-Length: 0\r\n\r\n";
        assert!(matches!(
            frame_bytewise(bad, false),
            Err(ResponseError::Head(_))
        ));
        let (a, b) = bad.split_at(20);
        assert!(matches!(
            frame_pieces(&[a, b], false),
            Err(ResponseError::Head(_))
        ));
    }

    #[test]
    fn blank_lines_before_the_status_line_are_skipped() {
        let bytes = [&b"\r\n\n"[..], CL].concat();
        let r = frame(&bytes, false).unwrap();
        assert_eq!(r, resp(200, true, head_len(CL) + 3, 5));
        assert_eq!(frame_bytewise(&bytes, false), Ok(r));
    }

    #[test]
    fn too_many_headers() {
        let mut bytes = b"HTTP/1.1 200 OK\r\n".to_vec();
        for i in 0..=MAX_HEADERS {
            bytes.extend_from_slice(format!("X-H{i}: v\r\n").as_bytes());
        }
        bytes.extend_from_slice(b"Content-Length: 0\r\n\r\n");
        let err = Err(ResponseError::Head(httparse::Error::TooManyHeaders));
        assert_eq!(frame(&bytes, false), err);
    }

    #[test]
    fn connection_close_disables_keep_alive() {
        let bytes = b"HTTP/1.1 200 OK\r\nConnection: Upgrade, CLOSE\r\nContent-Length: 0\r\n\r\n";
        assert_eq!(frame(bytes, false), Ok(resp(200, false, bytes.len(), 0)));
    }

    #[test]
    fn http10_keep_alive_with_content_length() {
        let bytes = b"HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 2\r\n\r\nok";
        assert_eq!(frame(bytes, false), Ok(resp(200, true, head_len(bytes), 2)));
        let plain = b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok";
        assert_eq!(
            frame(plain, false),
            Ok(resp(200, false, head_len(plain), 2))
        );
    }

    /// Keeps what a sink is shown.
    #[derive(Debug, Default, PartialEq)]
    struct Kept {
        headers: Vec<(Vec<u8>, Vec<u8>)>,
        framing: Option<Framing>,
        body: Vec<u8>,
        bare_lf: Vec<LineKind>,
    }

    impl ResponseSink for Kept {
        const WANTS_HEAD_LINE_ENDS: bool = true;
        fn header(&mut self, name: &[u8], value: &[u8]) {
            self.headers.push((name.to_vec(), value.to_vec()));
        }
        fn framing(&mut self, framing: Framing) {
            self.framing = Some(framing);
        }
        fn body(&mut self, bytes: &[u8]) {
            self.body.extend_from_slice(bytes);
        }
        fn bare_lf(&mut self, line: LineKind) {
            self.bare_lf.push(line);
        }
    }

    /// Feeds `pieces` to a parser showing a sink, to the end of the response or the input.
    fn keep(pieces: &[&[u8]], head: bool) -> (Kept, Result<Response, ResponseError>) {
        let mut p = ResponseParser::new();
        p.start(head);
        let mut kept = Kept::default();
        for piece in pieces {
            match p.feed_to(piece, &mut kept) {
                Err(e) => return (kept, Err(e)),
                Ok(Progress { done: Some(r), .. }) => return (kept, Ok(r)),
                Ok(_) => {}
            }
        }
        let end = p.finish_eof();
        (kept, end)
    }

    #[test]
    fn a_sink_sees_the_final_head_and_the_body() {
        let (kept, r) = keep(&[CL], false);
        assert_eq!(kept.body, b"hello");
        assert_eq!(kept.framing, Some(Framing::Length(5)));
        let names: Vec<&[u8]> = kept.headers.iter().map(|(n, _)| &n[..]).collect();
        assert_eq!(names, [&b"Content-Length"[..], b"Server"]);
        assert_eq!(r.unwrap().body_bytes, 5);

        let (kept, _) = keep(&[CHUNKED], false);
        assert_eq!(kept.body, b"helloabcdefghijklmnopqrstuvwxyz");
        assert_eq!(kept.framing, Some(Framing::Chunked));

        let interim = [&b"HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n"[..], CL].concat();
        let (kept, _) = keep(&[&interim], false);
        assert!(kept.headers.iter().all(|(n, _)| n != b"Link"), "{kept:?}");

        let (kept, r) = keep(&[b"HTTP/1.0 200 OK\r\n\r\nto the end"], false);
        assert_eq!(
            (kept.body, kept.framing),
            (b"to the end".to_vec(), Some(Framing::UntilEof))
        );
        assert_eq!(r.unwrap().body_bytes, 10);

        let (kept, _) = keep(&[b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n"], true);
        assert_eq!((kept.body.len(), kept.framing), (0, Some(Framing::Empty)));
    }

    #[test]
    fn a_sink_that_asks_is_told_of_bare_lf_in_the_final_head() {
        let bare = b"HTTP/1.1 200 OK\nContent-Length: 2\r\n\r\nhi";
        let (kept, r) = keep(&[bare], false);
        assert_eq!(
            (kept.bare_lf, r.map(|r| r.body_bytes)),
            (vec![LineKind::Head], Ok(2))
        );
        let pieces: Vec<&[u8]> = bare.chunks(1).collect();
        assert_eq!(keep(&pieces, false).0.bare_lf, [LineKind::Head]);
        let (kept, _) = keep(&[CL], false);
        assert!(kept.bare_lf.is_empty());
        // An interim head is not the final one: not told.
        let interim = [&b"HTTP/1.1 100 Continue\n\n"[..], CL].concat();
        assert!(keep(&[&interim], false).0.bare_lf.is_empty());
    }

    #[test]
    fn a_sink_sees_the_same_however_the_bytes_are_split() {
        for bytes in [CL, CHUNKED] {
            let (whole, _) = keep(&[bytes], false);
            let pieces: Vec<&[u8]> = bytes.chunks(1).collect();
            assert_eq!(keep(&pieces, false).0, whole);
            for cut in 0..=bytes.len() {
                let (a, b) = bytes.split_at(cut);
                assert_eq!(keep(&[a, b], false).0, whole, "cut at {cut}");
            }
        }
    }

    #[test]
    fn every_two_way_split_gives_the_same_response() {
        let interim = [&b"HTTP/1.1 100 Continue\r\n\r\n"[..], CL].concat();
        let cases: [(&[u8], bool); 5] = [
            (CL, false),
            (CHUNKED, false),
            (&interim, false),
            (b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n", true),
            (b"HTTP/1.0 200 OK\r\n\r\nbody to eof", false),
        ];
        for (bytes, head) in cases {
            let whole = frame(bytes, head).unwrap();
            for cut in 0..=bytes.len() {
                let (a, b) = bytes.split_at(cut);
                assert_eq!(frame_pieces(&[a, b], head), Ok((whole, 0)), "cut at {cut}");
            }
        }
    }
}
