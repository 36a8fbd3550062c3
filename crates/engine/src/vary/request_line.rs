//! One request shape as a line of text, in a spec or after `--request`:
//! `[WEIGHT*]METHOD TARGET[ BODY]`, e.g. `3*GET /sum?a={a=rand:1-9}` or
//! `POST /sum a={a=rand:1-9}&b={b=seq}`. Target and body are templates.

use super::{Template, VaryError};
use http::Method;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

/// One request shape of a varying load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestLine {
    /// How many of each round of the weights' sum are this shape.
    pub weight: u32,
    pub method: Method,
    /// Path and query, starting with `/`.
    pub target: Template,
    pub body: Template,
}

impl FromStr for RequestLine {
    type Err = VaryError;

    fn from_str(text: &str) -> Result<RequestLine, VaryError> {
        let bad = |reason: &str| VaryError::RequestLine {
            text: text.to_string(),
            reason: reason.to_string(),
        };
        let (weight, rest) = match text.split_once('*') {
            Some((w, rest)) if !w.contains(' ') => {
                let w = w.trim().parse().ok().filter(|&w: &u32| w > 0);
                (
                    w.ok_or_else(|| bad("the weight before '*' is not 1 or more"))?,
                    rest,
                )
            }
            _ => (1, text),
        };
        let mut words = rest.trim_start().splitn(3, ' ');
        let method = words.next().unwrap_or_default();
        let method = Method::from_bytes(method.as_bytes())
            .map_err(|_| bad("expected [WEIGHT*]METHOD TARGET [BODY]: no method"))?;
        let target = words.next().unwrap_or_default();
        if !target.starts_with('/') {
            return Err(bad(
                "the target is a path starting with '/' (the URL gives the host)",
            ));
        }
        Ok(RequestLine {
            weight,
            method,
            target: target.parse()?,
            body: words.next().unwrap_or_default().parse()?,
        })
    }
}

impl fmt::Display for RequestLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.weight != 1 {
            write!(f, "{}*", self.weight)?;
        }
        write!(f, "{} {}", self.method, self.target)?;
        if !self.body.is_empty() {
            write!(f, " {}", self.body)?;
        }
        Ok(())
    }
}

impl Serialize for RequestLine {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for RequestLine {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<RequestLine, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weight_method_target_body() {
        let r: RequestLine = "3*POST /sum a={a=seq} b".parse().unwrap();
        assert_eq!((r.weight, r.method.as_str()), (3, "POST"));
        assert_eq!((r.target.text(), r.body.text()), ("/sum", "a={a=seq} b"));
        assert_eq!(r.to_string(), "3*POST /sum a={a=seq} b");
        let r: RequestLine = "GET /x?n={seq}".parse().unwrap();
        assert_eq!((r.weight, r.body.is_empty()), (1, true));
        assert_eq!(r.to_string(), "GET /x?n={seq}");
    }

    #[test]
    fn mistakes_are_named() {
        for text in ["0*GET /", "GET", "GET x", "x*GET /"] {
            let e = text.parse::<RequestLine>().unwrap_err().to_string();
            assert!(e.contains(text), "{e}");
        }
    }
}
