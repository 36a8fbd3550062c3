//! The chunked transfer coding (RFC 9112 §7.1), walked byte by byte so that no chunk data
//! is ever buffered, and held to its grammar:
//!
//! ```text
//! chunked-body    = *chunk last-chunk trailer-section CRLF
//! chunk           = chunk-size [ chunk-ext ] CRLF chunk-data CRLF
//! last-chunk      = 1*("0") [ chunk-ext ] CRLF
//! trailer-section = *( field-line CRLF )
//! ```
//!
//! A line may end in a bare LF instead of CRLF (RFC 9112 §2.2 lets a recipient accept
//! it); the sink is told. A CR must be followed by LF. Extensions are checked by
//! [`chunk_line`](super::chunk_line), trailer lines as `token ":" value` with visible
//! bytes, spaces and tabs in the value (no whitespace before the colon, no obs-fold).

use super::chunk_error::{ChunkError, ChunkErrorKind, LineStart};
use super::chunk_line::{self, is_tchar, is_visible, Ext, Next};
use super::{as_u64, take_upto, LineKind, ResponseError, ResponseSink, MAX_HEAD};

/// Longest chunk-size line, extensions and line end included, so extensions cannot grow unbounded.
pub(super) const MAX_CHUNK_LINE: usize = 4096;

/// Position inside a chunked body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Chunk {
    /// Hex digits of a chunk-size line; `digits` tells whether one has been seen yet.
    Size {
        size: u64,
        digits: bool,
    },
    /// Past the size's digits, at `at` in its extensions.
    Ext {
        size: u64,
        at: Ext,
    },
    /// CR ended the size line; LF must follow.
    SizeLf {
        size: u64,
    },
    Data {
        left: u64,
    },
    /// Chunk data ended; its line end must follow.
    DataCr,
    DataLf,
    /// At the start of a trailer line, or of the empty line ending the body.
    TrailerStart,
    TrailerName,
    TrailerValue,
    /// CR ended a trailer line; LF must follow.
    TrailerLf,
    /// CR at the start of a line; LF ends the body.
    EndLf,
    Done,
}

/// Chunked body state machine that walks bytes, so no chunk data is ever buffered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct ChunkDecoder {
    step: Chunk,
    /// Bytes of the current size line, or of the whole trailer section, to bound them.
    line: usize,
    /// The current line's first bytes, for an error to show.
    seen: LineStart,
}

impl Default for ChunkDecoder {
    fn default() -> Self {
        Self {
            step: Chunk::Size {
                size: 0,
                digits: false,
            },
            line: 0,
            seen: LineStart::default(),
        }
    }
}

impl ChunkDecoder {
    /// The body's last byte has been consumed.
    pub(super) fn is_done(&self) -> bool {
        self.step == Chunk::Done
    }

    /// Consumes bytes until `data` runs out or the body ends; adds chunk data to `body`.
    pub(super) fn feed(
        &mut self,
        data: &[u8],
        body: &mut u64,
        sink: &mut impl ResponseSink,
    ) -> Result<usize, ResponseError> {
        let mut pos = 0;
        while let Some(rest @ [first, ..]) = data.get(pos..) {
            pos += match self.step {
                Chunk::Done => return Ok(pos),
                Chunk::Data { left } => self.data(rest, left, body, sink),
                _ => self.byte(*first, sink).map(|()| 1)?,
            };
        }
        Ok(pos)
    }

    /// Handles one byte of framing: a size line, the end of chunk data, or trailers.
    fn byte(&mut self, b: u8, sink: &mut impl ResponseSink) -> Result<(), ResponseError> {
        self.count(1)?;
        let next = match self.step {
            Chunk::Size { size, digits } => self.size_byte(size, digits, b, sink),
            Chunk::Ext { size, at } => self.ext_byte(size, at, b, sink),
            Chunk::SizeLf { size } if b == b'\n' => Ok(self.end_size_line(size)),
            Chunk::SizeLf { .. } => Err(ChunkErrorKind::BareCr),
            Chunk::DataCr | Chunk::DataLf => self.data_end(b, sink),
            _ => self.trailer_byte(b, sink),
        };
        self.step = next.map_err(|kind| self.error(kind, b))?;
        if b != b'\n' {
            self.seen.push(b);
        }
        Ok(())
    }

    fn size_byte(
        &mut self,
        size: u64,
        digits: bool,
        b: u8,
        sink: &mut impl ResponseSink,
    ) -> Result<Chunk, ChunkErrorKind> {
        if let Some(digit) = hex_value(b) {
            // Overflow past u64 rather than a digit count, so leading zeros stay legal.
            let size = size.checked_mul(16).and_then(|s| s.checked_add(digit));
            let size = size.ok_or(ChunkErrorKind::SizeOverflow)?;
            return Ok(Chunk::Size { size, digits: true });
        }
        match digits {
            false => Err(ChunkErrorKind::NoSize),
            true => self.ext_byte(size, Ext::Ended, b, sink),
        }
    }

    /// A byte of the size line past its digits, judged by the extension grammar.
    fn ext_byte(
        &mut self,
        size: u64,
        at: Ext,
        b: u8,
        sink: &mut impl ResponseSink,
    ) -> Result<Chunk, ChunkErrorKind> {
        Ok(match chunk_line::next(at, b)? {
            Next::At(at) => Chunk::Ext { size, at },
            Next::Cr => Chunk::SizeLf { size },
            Next::Lf => {
                sink.bare_lf(LineKind::ChunkSize);
                self.end_size_line(size)
            }
        })
    }

    /// The CRLF (or bare LF) that must follow chunk data, and nothing else.
    fn data_end(&mut self, b: u8, sink: &mut impl ResponseSink) -> Result<Chunk, ChunkErrorKind> {
        match (self.step, b) {
            (Chunk::DataCr, b'\r') => Ok(Chunk::DataLf),
            (Chunk::DataCr, b'\n') => {
                sink.bare_lf(LineKind::ChunkDataEnd);
                Ok(self.next_size_line())
            }
            (Chunk::DataLf, b'\n') => Ok(self.next_size_line()),
            _ => Err(ChunkErrorKind::DataNotFollowedByCrlf),
        }
    }

    /// A byte of the trailer section: field lines, then the empty line ending the body.
    fn trailer_byte(
        &mut self,
        b: u8,
        sink: &mut impl ResponseSink,
    ) -> Result<Chunk, ChunkErrorKind> {
        Ok(match (self.step, b) {
            (Chunk::TrailerStart, b'\r') => Chunk::EndLf,
            (Chunk::TrailerStart, b'\n') => {
                sink.bare_lf(LineKind::Trailer);
                Chunk::Done
            }
            (Chunk::EndLf, b'\n') => Chunk::Done,
            (Chunk::TrailerStart | Chunk::TrailerName, _) if is_tchar(b) => Chunk::TrailerName,
            (Chunk::TrailerName, b':') => Chunk::TrailerValue,
            (Chunk::TrailerValue, b' ' | b'\t') => Chunk::TrailerValue,
            (Chunk::TrailerValue, _) if is_visible(b) => Chunk::TrailerValue,
            (Chunk::TrailerValue, b'\r') => Chunk::TrailerLf,
            (Chunk::TrailerValue, b'\n') => {
                sink.bare_lf(LineKind::Trailer);
                self.next_trailer_line()
            }
            (Chunk::TrailerLf, b'\n') => self.next_trailer_line(),
            _ => return Err(ChunkErrorKind::BadTrailer),
        })
    }

    fn data(
        &mut self,
        data: &[u8],
        left: u64,
        body: &mut u64,
        sink: &mut impl ResponseSink,
    ) -> usize {
        let n = take_upto(left, data.len());
        *body = body.saturating_add(as_u64(n));
        sink.body(data.get(..n).unwrap_or_default());
        self.step = match left.saturating_sub(as_u64(n)) {
            0 => {
                self.seen = LineStart::default();
                Chunk::DataCr
            }
            left => Chunk::Data { left },
        };
        n
    }

    /// A zero size is the last chunk, which the trailer section follows.
    fn end_size_line(&mut self, size: u64) -> Chunk {
        self.line = 0;
        self.seen = LineStart::default();
        match size {
            0 => Chunk::TrailerStart,
            left => Chunk::Data { left },
        }
    }

    fn next_size_line(&mut self) -> Chunk {
        self.line = 0;
        self.seen = LineStart::default();
        Chunk::Size {
            size: 0,
            digits: false,
        }
    }

    /// A new trailer line; `line` keeps counting, as it bounds the whole section.
    fn next_trailer_line(&mut self) -> Chunk {
        self.seen = LineStart::default();
        Chunk::TrailerStart
    }

    /// The error for `kind`, showing the line up to `b` (a line end left out).
    fn error(&self, kind: ChunkErrorKind, b: u8) -> ResponseError {
        let mut line = self.seen;
        if b != b'\r' && b != b'\n' {
            line.push(b);
        }
        ResponseError::BadChunk(ChunkError { kind, line })
    }

    /// Bounds the size line and the trailer section, the only parts a server could grow forever.
    fn count(&mut self, n: usize) -> Result<(), ResponseError> {
        self.line = self.line.saturating_add(n);
        match self.step {
            Chunk::Size { .. } | Chunk::Ext { .. } | Chunk::SizeLf { .. }
                if self.line > MAX_CHUNK_LINE =>
            {
                let kind = ChunkErrorKind::LineTooLong;
                Err(ResponseError::BadChunk(ChunkError {
                    kind,
                    line: self.seen,
                }))
            }
            Chunk::TrailerStart
            | Chunk::TrailerName
            | Chunk::TrailerValue
            | Chunk::TrailerLf
            | Chunk::EndLf
                if self.line > MAX_HEAD =>
            {
                Err(ResponseError::HeadTooLarge)
            }
            _ => Ok(()),
        }
    }
}

fn hex_value(b: u8) -> Option<u64> {
    match b {
        b'0'..=b'9' => Some(u64::from(b - b'0')),
        b'a'..=b'f' => Some(u64::from(b - b'a' + 10)),
        b'A'..=b'F' => Some(u64::from(b - b'A' + 10)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Progress, ResponseParser};
    use super::*;

    const HEAD: &[u8] = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";

    /// What a sink is told of a body: its bytes and where lines ended in a bare LF.
    #[derive(Debug, Default, PartialEq)]
    struct Told {
        body: Vec<u8>,
        bare_lf: Vec<LineKind>,
    }

    impl ResponseSink for Told {
        fn body(&mut self, bytes: &[u8]) {
            self.body.extend_from_slice(bytes);
        }
        fn bare_lf(&mut self, line: LineKind) {
            if !self.bare_lf.contains(&line) {
                self.bare_lf.push(line);
            }
        }
    }

    /// Frames `body` after a chunked head, fed in `pieces` of this size; what the sink was
    /// told, and the body's length, or the error.
    fn frame_in(body: &[u8], piece: usize) -> (Told, Result<u64, ResponseError>) {
        let bytes = [HEAD, body].concat();
        let mut parser = ResponseParser::new();
        let mut told = Told::default();
        for piece in bytes.chunks(piece) {
            match parser.feed_to(piece, &mut told) {
                Ok(Progress { done: Some(r), .. }) => return (told, Ok(r.body_bytes)),
                Ok(_) => {}
                Err(e) => return (told, Err(e)),
            }
        }
        let end = parser.finish_eof().map(|r| r.body_bytes);
        (told, end)
    }

    /// Frames `body` whole and byte by byte: both must agree, to the error's shown line.
    fn frame(body: &[u8]) -> (Told, Result<u64, ResponseError>) {
        let whole = frame_in(body, body.len() + HEAD.len());
        let bytewise = frame_in(body, 1);
        assert_eq!(whole, bytewise, "{}", body.escape_ascii());
        whole
    }

    /// The rule `body` breaks, and the line its error shows.
    fn broken(body: &[u8]) -> (ChunkErrorKind, String) {
        match frame(body).1 {
            Err(ResponseError::BadChunk(e)) => (e.kind, e.line.to_string()),
            other => panic!("{} framed as {other:?}", body.escape_ascii()),
        }
    }

    #[test]
    fn each_illegal_form_is_refused_naming_its_rule_and_line() {
        use ChunkErrorKind as K;
        let cases: [(&[u8], K, &str); 16] = [
            (b"5 \r\nhello\r\n0\r\n\r\n", K::TrailingWhitespace, "5 "),
            (b"5\t\r\nhello\r\n0\r\n\r\n", K::TrailingWhitespace, "5\\t"),
            (b"5;a \r\nhello\r\n0\r\n\r\n", K::TrailingWhitespace, "5;a "),
            (b"0 \r\n\r\n", K::TrailingWhitespace, "0 "),
            (
                b"5 foo\r\nhello\r\n0\r\n\r\n",
                K::ExtensionWithoutSemicolon,
                "5 f",
            ),
            (
                b"5x\r\nhello\r\n0\r\n\r\n",
                K::ExtensionWithoutSemicolon,
                "5x",
            ),
            (b"5;\r\nhello\r\n0\r\n\r\n", K::EmptyExtensionName, "5;"),
            (b"5;=v\r\nhello\r\n0\r\n\r\n", K::EmptyExtensionName, "5;="),
            (
                b"5;a=\r\nhello\r\n0\r\n\r\n",
                K::EmptyExtensionValue,
                "5;a=",
            ),
            (
                b"5;a=\"b\r\nhello\r\n0\r\n\r\n",
                K::UnterminatedQuote,
                "5;a=\"b",
            ),
            (b"5\rX", K::BareCr, "5\\rX"),
            (b"5\r\nhelloX\r\n0\r\n\r\n", K::DataNotFollowedByCrlf, "X"),
            (b"5\r\nhello\rX", K::DataNotFollowedByCrlf, "\\rX"),
            (b"0\r\nX-T : 1\r\n\r\n", K::BadTrailer, "X-T "),
            (b"0\r\nX-T: 1\r\n folded\r\n\r\n", K::BadTrailer, " "),
            (b"0\r\nX-T: 1\x01\r\n\r\n", K::BadTrailer, "X-T: 1\\x01"),
        ];
        for (body, rule, line) in cases {
            assert_eq!(
                broken(body),
                (rule, line.to_string()),
                "{}",
                body.escape_ascii()
            );
        }
        assert_eq!(broken(b"0\r\n\rX").0, K::BadTrailer);
        assert_eq!(broken(b"0\r\nX-T: 1\rX").0, K::BadTrailer);
        let overflow = (K::SizeOverflow, "123456789abcde…".to_string());
        assert_eq!(broken(b"123456789abcdef01"), overflow);
    }

    #[test]
    fn each_legal_form_is_framed() {
        let cases: [&[u8]; 9] = [
            b"5\r\nhello\r\n0\r\n\r\n",
            b"5 ;a\r\nhello\r\n0\r\n\r\n",
            b"5\t; a = b ;c\r\nhello\r\n0\r\n\r\n",
            b"5;a=\"q \\\"x\\\\ y\"\r\nhello\r\n0\r\n\r\n",
            b"5;a=\"\x80\xff\"\r\nhello\r\n0;last\r\n\r\n",
            b"0005\r\nhello\r\n000\r\n\r\n",
            b"5\r\nhello\r\n0\r\nX-T: 1\r\nY:\r\nZ: a  b \r\n\r\n",
            b"5;a=b\r\nhello\r\n0 ; end = \"x\"\r\n\r\n",
            b"5\r\nhello\r\n0\r\nX-T: \xff\t!\r\n\r\n",
        ];
        for body in cases {
            let (told, framed) = frame(body);
            assert_eq!(framed, Ok(5), "{}", body.escape_ascii());
            assert_eq!(told.body, b"hello");
            assert!(told.bare_lf.is_empty(), "{}", body.escape_ascii());
        }
    }

    #[test]
    fn bare_lf_line_ends_are_accepted_and_told() {
        let (told, framed) = frame(b"5;a=b\nhello\n0\nX-T: 1\n\n");
        assert_eq!(framed, Ok(5));
        let all = [
            LineKind::ChunkSize,
            LineKind::ChunkDataEnd,
            LineKind::Trailer,
        ];
        assert_eq!(told.bare_lf, all);
        let (told, framed) = frame(b"5\nhello\r\n0\r\n\r\n");
        assert_eq!((told.bare_lf, framed), (vec![LineKind::ChunkSize], Ok(5)));
    }
}
