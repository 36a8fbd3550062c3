//! One request header, `Name: value`: `http`'s name and value, checked where the text
//! enters (a flag, a file, a spec), and the name as it was written, which HTTP/1.1 sends.

use super::SpecError;
use http::{HeaderName, HeaderValue};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

/// A header sent after Host.
///
/// HTTP/1.1 names are case-insensitive, yet some servers and proxies treat them as
/// written, and wrk and curl send them as the user typed them: so does an HTTP/1.1 load
/// (`spelling`). `name` is the same name as `http` keeps it, lowercase: what names are
/// compared by, and what HTTP/2 sends (RFC 9113 §8.2.1 requires lowercase).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    pub name: HeaderName,
    /// The name as written (the same token as `name`, case aside).
    spelling: Box<str>,
    pub value: HeaderValue,
}

impl Header {
    /// The value as text: every value enters as text, so it is UTF-8.
    pub fn value_text(&self) -> String {
        String::from_utf8_lossy(self.value.as_bytes()).into_owned()
    }

    /// The name as it was written, for HTTP/1.1.
    pub fn spelling(&self) -> &str {
        &self.spelling
    }

    /// True when this is the header `name` (any case).
    pub fn is(&self, name: &str) -> bool {
        self.name.as_str().eq_ignore_ascii_case(name)
    }
}

impl FromStr for Header {
    type Err = SpecError;

    /// `Name: value`, blanks around the value trimmed; a line break is refused, never
    /// trimmed into a valid header (it would smuggle a second one).
    fn from_str(text: &str) -> Result<Header, SpecError> {
        let Some((name, value)) = text.split_once(':') else {
            return Err(SpecError::HeaderWithoutColon(text.to_string()));
        };
        let bad = |reason: &str| SpecError::Header {
            text: text.to_string(),
            reason: reason.to_string(),
        };
        let blank = |c: char| c.is_whitespace() && c != '\r' && c != '\n';
        let spelling = name.trim();
        let name = HeaderName::from_bytes(spelling.as_bytes())
            .map_err(|_| bad("the name is not a token"))?;
        let value = HeaderValue::from_str(value.trim_matches(blank))
            .map_err(|_| bad("the value has a line break or a control character"))?;
        Ok(Header {
            name,
            spelling: spelling.into(),
            value,
        })
    }
}

/// `Name: value` with the name as written: the HTTP/1.1 line, and the text a spec keeps.
impl fmt::Display for Header {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.spelling, self.value_text())
    }
}

impl Serialize for Header {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Read back from its text: a spec saved before names kept their case holds them in
/// lowercase, and reads so.
impl<'de> Deserialize<'de> for Header {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Header, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}
