//! The request method: `http::Method`, any token (RFC 9110), written as its text.

use super::SpecError;
use http::Method;
use serde::{Deserialize, Deserializer, Serializer};

/// `GET`, `POST`, `M-SEARCH`: a method token, or an error that quotes the text.
pub fn parse_method(text: &str) -> Result<Method, SpecError> {
    Method::from_bytes(text.as_bytes()).map_err(|_| SpecError::Method(text.to_string()))
}

pub fn serialize<S: Serializer>(method: &Method, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(method.as_str())
}

pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Method, D::Error> {
    let text = String::deserialize(d)?;
    parse_method(&text).map_err(serde::de::Error::custom)
}
