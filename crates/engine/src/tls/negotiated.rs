//! What a handshake settled on: protocol version, cipher suite, key exchange group, ALPN.

use rustls::{CommonState, ProtocolVersion};
use serde::{Deserialize, Serialize};
use std::fmt;

/// What the first handshake of a loop settled on. Merged over loops and shards, a field
/// on which they differ reads [`MIXED`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Negotiated {
    /// `TLS 1.3`, `TLS 1.2`.
    pub version: String,
    /// The IANA name: `TLS13_AES_128_GCM_SHA256`.
    pub suite: String,
    /// `X25519`, `secp256r1`; absent when no key was exchanged (a resumed TLS 1.2 session).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// The application protocol the server chose, if ALPN was offered and answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alpn: Option<String>,
}

/// A field whose value differed between the loops or shards merged.
pub const MIXED: &str = "mixed";

impl Negotiated {
    /// What `state`'s handshake settled on; None before the handshake is done.
    pub fn of(state: &CommonState) -> Option<Negotiated> {
        let version = match state.protocol_version()? {
            ProtocolVersion::TLSv1_3 => "TLS 1.3".to_string(),
            ProtocolVersion::TLSv1_2 => "TLS 1.2".to_string(),
            other => format!("{other:?}"),
        };
        let suite = state.negotiated_cipher_suite()?.suite();
        Some(Negotiated {
            version,
            suite: suite
                .as_str()
                .map_or_else(|| format!("{suite:?}"), str::to_string),
            group: state.negotiated_key_exchange_group().map(|g| {
                let name = g.name();
                name.as_str()
                    .map_or_else(|| format!("{name:?}"), str::to_string)
            }),
            alpn: state
                .alpn_protocol()
                .map(|p| String::from_utf8_lossy(p).into_owned()),
        })
    }

    /// One description of `all`: where they agree, their value; where not, [`MIXED`].
    pub fn merged<'a>(all: impl IntoIterator<Item = &'a Negotiated>) -> Option<Negotiated> {
        let mut all = all.into_iter();
        let mut merged = all.next()?.clone();
        for n in all {
            agree(&mut merged.version, &n.version);
            agree(&mut merged.suite, &n.suite);
            agree_optional(&mut merged.group, &n.group);
            agree_optional(&mut merged.alpn, &n.alpn);
        }
        Some(merged)
    }
}

fn agree(kept: &mut String, other: &str) {
    if kept != other {
        *kept = MIXED.to_string();
    }
}

fn agree_optional(kept: &mut Option<String>, other: &Option<String>) {
    if kept != other {
        *kept = Some(MIXED.to_string());
    }
}

impl fmt::Display for Negotiated {
    /// `TLS 1.3 TLS13_AES_128_GCM_SHA256 X25519, ALPN http/1.1`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.version, self.suite)?;
        if let Some(group) = &self.group {
            write!(f, " {group}")?;
        }
        match &self.alpn {
            Some(alpn) => write!(f, ", ALPN {alpn}"),
            None => write!(f, ", no ALPN"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tls13(alpn: Option<&str>) -> Negotiated {
        Negotiated {
            version: "TLS 1.3".into(),
            suite: "TLS13_AES_128_GCM_SHA256".into(),
            group: Some("X25519".into()),
            alpn: alpn.map(str::to_string),
        }
    }

    #[test]
    fn merged_keeps_what_agrees_and_marks_what_differs() {
        let a = tls13(Some("http/1.1"));
        assert_eq!(Negotiated::merged([&a, &a]), Some(a.clone()));
        let b = tls13(None);
        let m = Negotiated::merged([&a, &b]).unwrap();
        assert_eq!(m.alpn.as_deref(), Some(MIXED));
        assert_eq!(m.suite, a.suite);
        assert_eq!(Negotiated::merged([]), None);
        assert_eq!(
            a.to_string(),
            "TLS 1.3 TLS13_AES_128_GCM_SHA256 X25519, ALPN http/1.1"
        );
    }
}
