//! The target: a `url::Url` whose scheme is http or https (ws or wss for WebSocket) and
//! which has a host, checked where the text enters.

use super::SpecError;
use serde::{Deserialize, Deserializer, Serializer};
use url::Url;

/// `http[s]://host[:port][/path][?query]` (https's port 443 by default), or `ws[s]://`
/// for WebSocket, or an error that quotes the text and says why.
pub fn parse_url(text: &str) -> Result<Url, SpecError> {
    let bad = |reason: String| SpecError::Url {
        url: text.to_string(),
        reason,
    };
    let url = Url::parse(text).map_err(|e| match e {
        url::ParseError::RelativeUrlWithoutBase => {
            bad("missing scheme (expected http[s]://host[:port]/path)".into())
        }
        e => bad(e.to_string()),
    })?;
    if !matches!(url.scheme(), "http" | "https" | "ws" | "wss") {
        let scheme = url.scheme();
        return Err(bad(format!(
            "scheme {scheme:?} is not supported (only http, https, ws and wss)"
        )));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(bad("user info in the URL is not supported".into()));
    }
    match url.host_str() {
        None | Some("") => Err(bad("missing host".into())),
        Some(_) if url.port() == Some(0) => Err(bad("bad port \"0\"".into())),
        Some(_) => Ok(url),
    }
}

pub fn serialize<S: Serializer>(url: &Url, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(url.as_str())
}

pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Url, D::Error> {
    let text = String::deserialize(d)?;
    parse_url(&text).map_err(serde::de::Error::custom)
}
