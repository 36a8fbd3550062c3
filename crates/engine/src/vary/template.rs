//! A text with placeholders, as written in a spec or a flag: `/sum?a={a=rand:1-9}`.
//! `{{` and `}}` are literal braces. Kept with its text, so a spec writes it back as given.

use super::braced::Placeholder;
use super::VaryError;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

/// A template, parsed: literal bytes and placeholders in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    text: String,
    pieces: Vec<Piece>,
}

/// One piece of a template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    Text(Vec<u8>),
    Hole(Placeholder),
}

impl Template {
    /// Literal bytes, no placeholder (a header or body sent as written).
    pub fn literal(bytes: &[u8]) -> Template {
        Template {
            text: String::from_utf8_lossy(bytes).into_owned(),
            pieces: vec![Piece::Text(bytes.to_vec())],
        }
    }

    /// The pieces in order.
    pub fn pieces(&self) -> &[Piece] {
        &self.pieces
    }

    /// True when the template renders nothing.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// The template as written.
    pub fn text(&self) -> &str {
        &self.text
    }
}

impl FromStr for Template {
    type Err = VaryError;

    fn from_str(text: &str) -> Result<Template, VaryError> {
        let bad = |reason: &str| VaryError::Template {
            text: text.to_string(),
            reason: reason.to_string(),
        };
        let mut pieces = Vec::new();
        let mut literal = Vec::new();
        let mut rest = text;
        while let Some(at) = rest.find(['{', '}']) {
            literal.extend_from_slice(&rest.as_bytes()[..at]);
            let (brace, after) = (rest.as_bytes()[at], &rest[at + 1..]);
            if after.as_bytes().first() == Some(&brace) {
                literal.push(brace);
                rest = &after[1..];
                continue;
            }
            if brace == b'}' {
                return Err(bad("a '}' without its '{' (write }} for a literal brace)"));
            }
            let Some(end) = after.find('}') else {
                return Err(bad("a '{' without its '}' (write {{ for a literal brace)"));
            };
            if !literal.is_empty() {
                pieces.push(Piece::Text(std::mem::take(&mut literal)));
            }
            pieces.push(Piece::Hole(Placeholder::parse(&after[..end])?));
            rest = &after[end + 1..];
        }
        literal.extend_from_slice(rest.as_bytes());
        if !literal.is_empty() {
            pieces.push(Piece::Text(literal));
        }
        Ok(Template {
            text: text.to_string(),
            pieces,
        })
    }
}

impl fmt::Display for Template {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl Serialize for Template {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.text)
    }
}

impl<'de> Deserialize<'de> for Template {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Template, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_braces_and_holes() {
        let t: Template = "/a?x={seq}&y={{z}}".parse().unwrap();
        assert_eq!(t.pieces().len(), 3);
        assert_eq!(t.pieces()[0], Piece::Text(b"/a?x=".to_vec()));
        assert_eq!(t.pieces()[2], Piece::Text(b"&y={z}".to_vec()));
        assert_eq!(t.to_string(), "/a?x={seq}&y={{z}}");
    }

    #[test]
    fn unmatched_braces_are_named() {
        for text in ["/a{seq", "/a}b", "{rand:5}"] {
            let e = text.parse::<Template>().unwrap_err().to_string();
            assert!(e.contains(text.trim_matches(['{', '}'])), "{e}");
        }
    }
}
