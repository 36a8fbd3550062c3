//! One request header, `Name: value`: `http`'s name and value, checked where the text
//! enters (a flag, a file, a spec), written back as the same text.

use super::SpecError;
use http::{HeaderName, HeaderValue};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

/// A header sent after Host. The name is as `http` keeps it: lowercase (HTTP/1.1 names
/// are case-insensitive, HTTP/2 requires lowercase).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    pub name: HeaderName,
    pub value: HeaderValue,
}

impl Header {
    /// The value as text: every value enters as text, so it is UTF-8.
    pub fn value_text(&self) -> String {
        String::from_utf8_lossy(self.value.as_bytes()).into_owned()
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
        let name = HeaderName::from_bytes(name.trim().as_bytes())
            .map_err(|_| bad("the name is not a token"))?;
        let value = HeaderValue::from_str(value.trim_matches(blank))
            .map_err(|_| bad("the value has a line break or a control character"))?;
        Ok(Header { name, value })
    }
}

impl fmt::Display for Header {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.name, self.value_text())
    }
}

impl Serialize for Header {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Header {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Header, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}
