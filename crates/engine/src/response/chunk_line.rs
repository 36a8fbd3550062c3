//! The rest of a chunk-size line after its hex digits, one byte at a time (RFC 9112 §7.1.1):
//!
//! ```text
//! chunk-ext      = *( BWS ";" BWS chunk-ext-name [ BWS "=" BWS chunk-ext-val ] )
//! chunk-ext-name = token
//! chunk-ext-val  = token / quoted-string
//! ```
//!
//! BWS (optional spaces and tabs) comes only before and after `;` and `=`, never before
//! the line end: `5 ;a`, `5; a = "b"` are legal, `5 `, `5;a ` and `5;a=b ` (whitespace,
//! then CRLF) are not, and neither is anything but `;` where an extension starts (`5x`).

use super::chunk_error::ChunkErrorKind;

/// Where in a chunk-size line, past the size's digits, the decoder is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Ext {
    /// Right after the size, a token value or a quoted-string: `;`, whitespace or the end.
    Ended,
    /// Whitespace after the size or a value: only `;` may follow it.
    Blank,
    /// After `;` (and any whitespace): an extension name must start.
    NameStart,
    Name,
    /// Whitespace after a name: `=` or `;` must follow it.
    BlankAfterName,
    /// After `=` (and any whitespace): a token or a quoted-string must start.
    ValueStart,
    Token,
    Quoted,
    /// After `\` in a quoted-string: any visible byte, space or tab.
    Escaped,
}

/// What a byte did to the line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Next {
    At(Ext),
    /// A CR: the line ends once LF follows.
    Cr,
    /// A bare LF ended the line (RFC 9112 §2.2 lets a recipient accept it).
    Lf,
}

/// The line's state after byte `b` at `at`, or the rule `b` breaks.
pub(super) fn next(at: Ext, b: u8) -> Result<Next, ChunkErrorKind> {
    use ChunkErrorKind as K;
    let blank = b == b' ' || b == b'\t';
    let to = |ext| Ok(Next::At(ext));
    match at {
        Ext::Ended => after_item(b, K::ExtensionWithoutSemicolon),
        Ext::Blank if blank => to(Ext::Blank),
        Ext::Blank if b == b';' => to(Ext::NameStart),
        Ext::Blank | Ext::BlankAfterName if is_line_end(b) => Err(K::TrailingWhitespace),
        Ext::Blank => Err(K::ExtensionWithoutSemicolon),
        Ext::NameStart if blank => to(Ext::NameStart),
        Ext::NameStart if is_tchar(b) => to(Ext::Name),
        Ext::NameStart => Err(K::EmptyExtensionName),
        Ext::Name if is_tchar(b) => to(Ext::Name),
        Ext::Name if blank => to(Ext::BlankAfterName),
        Ext::Name | Ext::BlankAfterName if b == b'=' => to(Ext::ValueStart),
        Ext::Name => after_item(b, K::BadExtensionByte),
        Ext::BlankAfterName if blank => to(Ext::BlankAfterName),
        Ext::BlankAfterName if b == b';' => to(Ext::NameStart),
        Ext::BlankAfterName => Err(K::ExtensionWithoutSemicolon),
        Ext::ValueStart => value_start(b),
        Ext::Token if is_tchar(b) => to(Ext::Token),
        Ext::Token => after_item(b, K::BadExtensionByte),
        Ext::Quoted => quoted(b),
        Ext::Escaped if is_line_end(b) => Err(K::UnterminatedQuote),
        Ext::Escaped if blank || is_visible(b) => to(Ext::Quoted),
        Ext::Escaped => Err(K::BadExtensionByte),
    }
}

/// After a size, a name or a value: another extension, whitespace before one, or the end;
/// any other byte breaks `stray`.
fn after_item(b: u8, stray: ChunkErrorKind) -> Result<Next, ChunkErrorKind> {
    match b {
        b';' => Ok(Next::At(Ext::NameStart)),
        b' ' | b'\t' => Ok(Next::At(Ext::Blank)),
        b'\r' => Ok(Next::Cr),
        b'\n' => Ok(Next::Lf),
        _ => Err(stray),
    }
}

fn value_start(b: u8) -> Result<Next, ChunkErrorKind> {
    match b {
        b' ' | b'\t' => Ok(Next::At(Ext::ValueStart)),
        b'"' => Ok(Next::At(Ext::Quoted)),
        _ if is_tchar(b) => Ok(Next::At(Ext::Token)),
        b';' | b'\r' | b'\n' => Err(ChunkErrorKind::EmptyExtensionValue),
        _ => Err(ChunkErrorKind::BadExtensionByte),
    }
}

/// Inside a quoted-string: qdtext is tab, space, and visible bytes but `"` and `\`.
fn quoted(b: u8) -> Result<Next, ChunkErrorKind> {
    match b {
        b'"' => Ok(Next::At(Ext::Ended)),
        b'\\' => Ok(Next::At(Ext::Escaped)),
        b' ' | b'\t' => Ok(Next::At(Ext::Quoted)),
        _ if is_visible(b) => Ok(Next::At(Ext::Quoted)),
        b'\r' | b'\n' => Err(ChunkErrorKind::UnterminatedQuote),
        _ => Err(ChunkErrorKind::BadExtensionByte),
    }
}

fn is_line_end(b: u8) -> bool {
    b == b'\r' || b == b'\n'
}

/// VCHAR or obs-text: what field values and quoted-strings may hold besides blanks.
pub(super) fn is_visible(b: u8) -> bool {
    matches!(b, 0x21..=0x7e | 0x80..=0xff)
}

/// A token's bytes (RFC 9110 §5.6.2): letters, digits and ``!#$%&'*+-.^_`|~``.
pub(super) fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Walks `rest` (the line after its size) to its end; the end's kind, or the error.
    fn walk(rest: &[u8]) -> Result<Next, ChunkErrorKind> {
        let mut at = Ext::Ended;
        for &b in rest {
            match next(at, b)? {
                Next::At(ext) => at = ext,
                end => return Ok(end),
            }
        }
        panic!("{rest:?} has no line end");
    }

    #[test]
    fn whitespace_is_allowed_around_semicolon_and_equals_only() {
        for legal in [
            &b"\r"[..],
            b" ;a\r",
            b"\t;\ta\t=\tb\r",
            b";a=b;c;d=\"e f\"\r",
            b" ; a = \"q\\\"uote\\\\d\" ; b\r",
            b";!#$%&'*+-.^_`|~09azAZ\r",
            b";a=\"\x80\xff\t\"\n",
        ] {
            assert!(matches!(walk(legal), Ok(Next::Cr | Next::Lf)), "{legal:?}");
        }
    }

    #[test]
    fn each_illegal_form_names_its_rule() {
        use ChunkErrorKind as K;
        for (illegal, rule) in [
            (&b" \r"[..], K::TrailingWhitespace),
            (b";a \r", K::TrailingWhitespace),
            (b";a=b\t\n", K::TrailingWhitespace),
            (b" foo\r", K::ExtensionWithoutSemicolon),
            (b"x\r", K::ExtensionWithoutSemicolon),
            (b";a b\r", K::ExtensionWithoutSemicolon),
            (b";a=\"b\"c\r", K::ExtensionWithoutSemicolon),
            (b";\r", K::EmptyExtensionName),
            (b";=v\r", K::EmptyExtensionName),
            (b";;a\r", K::EmptyExtensionName),
            (b";a=\r", K::EmptyExtensionValue),
            (b";a=;b\r", K::EmptyExtensionValue),
            (b";a@\r", K::BadExtensionByte),
            (b";a=b\"\r", K::BadExtensionByte),
            (b";a=\"\x01\"\r", K::BadExtensionByte),
            (b";a=\"\\\x7f\"\r", K::BadExtensionByte),
            (b";a=\"open\r", K::UnterminatedQuote),
            (b";a=\"esc\\\n", K::UnterminatedQuote),
        ] {
            assert_eq!(walk(illegal), Err(rule), "{illegal:?}");
        }
    }
}
