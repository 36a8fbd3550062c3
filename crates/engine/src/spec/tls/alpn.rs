//! An ALPN protocol name offered in the handshake (RFC 7301), e.g. `http/1.1`.

use crate::spec::SpecError;
use serde::{Deserialize, Serialize};

/// One protocol name: 1 to 255 bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Alpn(String);

impl Alpn {
    /// HTTP/1.1's name.
    pub const HTTP_1_1: &'static str = "http/1.1";
    /// HTTP/2's name (over TLS).
    pub const H2: &'static str = "h2";

    pub fn http_1_1() -> Alpn {
        Alpn(Alpn::HTTP_1_1.to_string())
    }

    pub fn h2() -> Alpn {
        Alpn(Alpn::H2.to_string())
    }

    pub fn parse(name: &str) -> Result<Alpn, SpecError> {
        match (1..=255).contains(&name.len()) {
            true => Ok(Alpn(name.to_string())),
            false => Err(SpecError::Alpn(name.to_string())),
        }
    }

    /// A comma-separated list, `http/1.1,h2`; empty text is no protocol at all (no ALPN
    /// extension is sent, as wrk and ab do).
    pub fn parse_list(text: &str) -> Result<Vec<Alpn>, SpecError> {
        match text.trim() {
            "" => Ok(Vec::new()),
            list => list.split(',').map(|n| Alpn::parse(n.trim())).collect(),
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl From<Alpn> for String {
    fn from(alpn: Alpn) -> String {
        alpn.0
    }
}

impl TryFrom<String> for Alpn {
    type Error = SpecError;

    fn try_from(name: String) -> Result<Alpn, SpecError> {
        Alpn::parse(&name)
    }
}
