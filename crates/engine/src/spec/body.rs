//! The request body: any bytes, written as base64 (standard alphabet, padded), so that
//! JSON and TOML carry a binary body exactly.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde::{Deserialize, Deserializer, Serializer};

pub fn serialize<S: Serializer>(body: &[u8], s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&STANDARD.encode(body))
}

pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
    let text = String::deserialize(d)?;
    STANDARD
        .decode(text.as_bytes())
        .map_err(|e| serde::de::Error::custom(format!("body is not base64: {e}")))
}
