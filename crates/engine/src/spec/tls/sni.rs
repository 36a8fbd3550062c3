//! The name sent as SNI and checked against the server's certificate: a DNS name, or an
//! IP address (which rustls checks but does not send, as RFC 6066 says).

use crate::spec::SpecError;
use rustls::pki_types::ServerName;
use serde::{Deserialize, Deserializer, Serializer};

/// `example.com` or `127.0.0.1`, or an error that quotes the text.
pub fn parse_sni(text: &str) -> Result<ServerName<'static>, SpecError> {
    ServerName::try_from(text.trim().to_string()).map_err(|_| SpecError::Sni(text.to_string()))
}

pub fn serialize<S: Serializer>(
    name: &Option<ServerName<'static>>,
    s: S,
) -> Result<S::Ok, S::Error> {
    match name {
        Some(name) => s.serialize_str(&name.to_str()),
        None => s.serialize_none(),
    }
}

pub fn deserialize<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<ServerName<'static>>, D::Error> {
    let text = String::deserialize(d)?;
    parse_sni(&text).map(Some).map_err(serde::de::Error::custom)
}
