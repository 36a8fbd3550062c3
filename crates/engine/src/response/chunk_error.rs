//! What exactly is wrong with a chunked body (RFC 9112 §7.1), as a value: the load counts
//! every kind as `parse`, `shootout verify` names it in its one-line reason.

use std::fmt;

/// A chunked body the decoder refused: which rule it broke, and the line that broke it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.describe())]
pub struct ChunkError {
    pub kind: ChunkErrorKind,
    /// The offending line's first bytes, up to and including the byte that broke it
    /// (a line end is left out). For [`ChunkErrorKind::DataNotFollowedByCrlf`], the bytes
    /// after the chunk data.
    pub line: LineStart,
}

/// Which rule of the chunked coding a body broke.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChunkErrorKind {
    /// A chunk-size line that does not start with a hex digit.
    NoSize,
    /// A chunk size beyond 64 bits.
    SizeOverflow,
    /// A chunk-size line longer than the decoder's bound (4 KiB).
    LineTooLong,
    /// Whitespace, then the line end: BWS may only come before `;` or `=`.
    TrailingWhitespace,
    /// Something other than `;` after the size or a value (`5 foo`, `5x`).
    ExtensionWithoutSemicolon,
    /// A `;` with no extension name after it (`5;`, `5;=v`).
    EmptyExtensionName,
    /// An `=` with no value after it (`5;a=`).
    EmptyExtensionValue,
    /// A byte no extension name, token or quoted-string may hold.
    BadExtensionByte,
    /// The line ended inside a quoted-string.
    UnterminatedQuote,
    /// A CR not followed by LF.
    BareCr,
    /// Chunk data followed by something other than CRLF (or LF).
    DataNotFollowedByCrlf,
    /// A trailer line that is not `name: value` (whitespace before the colon, obs-fold,
    /// a control byte, a bare CR).
    BadTrailer,
}

impl ChunkError {
    fn describe(&self) -> String {
        use ChunkErrorKind as K;
        let line = self.line;
        let size_line = |what: &str, section: &str| {
            format!("chunk-size line `{line}` {what} (RFC 9112 {section})")
        };
        match self.kind {
            K::NoSize => size_line("does not start with a hex digit", "§7.1"),
            K::SizeOverflow => size_line("has a size beyond 64 bits", "§7.1"),
            K::LineTooLong => size_line("is longer than 4096 bytes", "§7.1.1"),
            K::TrailingWhitespace => size_line("has trailing whitespace", "§7.1"),
            K::ExtensionWithoutSemicolon => {
                size_line("has an extension not introduced by ';'", "§7.1.1")
            }
            K::EmptyExtensionName => size_line("has ';' without an extension name", "§7.1.1"),
            K::EmptyExtensionValue => size_line("has '=' without a value", "§7.1.1"),
            K::BadExtensionByte => size_line("has a byte no chunk extension may hold", "§7.1.1"),
            K::UnterminatedQuote => size_line("ends inside a quoted-string", "§7.1.1"),
            K::BareCr => size_line("has a CR not followed by LF", "§2.2"),
            K::DataNotFollowedByCrlf => {
                format!("chunk data followed by `{line}` instead of CRLF (RFC 9112 §7.1)")
            }
            K::BadTrailer => {
                format!("trailer line `{line}` is not a field line (RFC 9112 §7.1.2, §5)")
            }
        }
    }
}

/// Room for the start of a line, enough for every short broken chunk-size line; fixed so
/// that keeping it never allocates.
const KEPT: usize = 14;

/// The first bytes of a line, kept as they arrive so an error can show them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LineStart {
    bytes: [u8; KEPT],
    len: u8,
    /// More bytes came than were kept.
    cut: bool,
}

impl LineStart {
    pub(super) fn push(&mut self, b: u8) {
        match self.bytes.get_mut(usize::from(self.len)) {
            Some(slot) => {
                *slot = b;
                self.len += 1;
            }
            None => self.cut = true,
        }
    }

    /// The kept bytes.
    pub fn bytes(&self) -> &[u8] {
        self.bytes.get(..usize::from(self.len)).unwrap_or_default()
    }
}

/// Printable ASCII as is, other bytes escaped (`\r`, `\t`, `\x01`), `…` when cut.
impl fmt::Display for LineStart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for &b in self.bytes() {
            match b {
                b' '..=b'~' => write!(f, "{}", char::from(b))?,
                _ => write!(f, "{}", b.escape_ascii())?,
            }
        }
        if self.cut {
            f.write_str("…")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(bytes: &[u8]) -> LineStart {
        let mut l = LineStart::default();
        bytes.iter().for_each(|&b| l.push(b));
        l
    }

    #[test]
    fn a_line_shows_printables_as_they_are_and_escapes_the_rest() {
        assert_eq!(line(b"5 ").to_string(), "5 ");
        assert_eq!(line(b"5;a=\"x\\\"").to_string(), "5;a=\"x\\\"");
        assert_eq!(line(b"5\r\x01\t").to_string(), "5\\r\\x01\\t");
        assert_eq!(line(b"0123456789abcdef").to_string(), "0123456789abcd…");
    }

    #[test]
    fn the_reason_names_the_rule_the_line_and_the_section() {
        let e = ChunkError {
            kind: ChunkErrorKind::TrailingWhitespace,
            line: line(b"5 "),
        };
        assert_eq!(
            e.to_string(),
            "chunk-size line `5 ` has trailing whitespace (RFC 9112 §7.1)"
        );
    }
}
