//! Endpoints: the request a run sends and the answer verification expects. `hello`, `app`
//! and the workloads are built in (model/builtin.rs); an experiment declares its own as
//! `[endpoint.NAME]` tables, checked once into this type (`experiment::endpoints`).

pub use super::builtin::Builtin;
use engine::{Header, LoadSpec, SpecError, VarySpec};
use http::Method;
use regex::bytes::Regex;

/// One endpoint, ready to request and to judge answers by. Its method and headers are
/// the load spec's own types, parsed where the experiment file was read.
#[derive(Debug, Clone)]
pub struct Endpoint {
    pub name: String,
    pub method: Method,
    /// Path and query, starting with `/`.
    pub path: String,
    /// Sent after Host.
    pub headers: Vec<Header>,
    pub body: Vec<u8>,
    pub expect: Expect,
    /// Which catalog endpoint it is: strict verification runs that one's own checks.
    pub builtin: Option<Builtin>,
    /// The requests a load sends, when they vary per request (the workloads'); None: the
    /// fixed request above, every time.
    pub vary: Option<VarySpec>,
}

/// What a good answer is.
#[derive(Debug, Clone)]
pub struct Expect {
    pub status: u16,
    pub body: BodyExpect,
}

/// What a good answer's body is.
#[derive(Debug, Clone)]
pub enum BodyExpect {
    /// Any body, or none.
    Any,
    /// Exactly these bytes.
    Exact(Vec<u8>),
    /// A body in which this regular expression matches (anchor it to match all of it).
    Pattern(Regex),
}

/// How an answer differs from what was expected: a check's detail line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Mismatch {
    #[error("status {got} (want {want})")]
    Status { got: u16, want: u16 },
    #[error("body {got:?} (want {want:?})")]
    Body { got: String, want: String },
    #[error("body {got:?} does not match {pattern:?}")]
    Pattern { got: String, pattern: String },
}

/// Longest part of a body a detail line quotes.
const QUOTED: usize = 80;

impl Endpoint {
    /// The load of this endpoint's request against `host` (`host:port`), the spec's
    /// defaults for everything else: the one way an endpoint becomes a load, both when an
    /// experiment file is checked and when a run sends it. Only the URL that `host` and
    /// the path make can be wrong.
    pub fn load_spec(&self, host: &str) -> Result<LoadSpec, SpecError> {
        self.load_spec_at(&format!("http://{host}"))
    }

    /// The same over TLS: `https://host`, its TLS settings the spec's defaults.
    pub fn load_spec_over_tls(&self, host: &str) -> Result<LoadSpec, SpecError> {
        self.load_spec_at(&format!("https://{host}"))
    }

    /// The load of this endpoint's request at `origin` (`scheme://host:port`).
    fn load_spec_at(&self, origin: &str) -> Result<LoadSpec, SpecError> {
        let mut spec = LoadSpec::new(engine::parse_url(&format!("{origin}{}", self.path))?);
        spec.method = self.method.clone();
        spec.headers = self.headers.clone();
        spec.body = self.body.clone();
        spec.vary = self.vary.clone();
        Ok(spec)
    }
}

impl Expect {
    /// Whether an answer with `status` and `body` is what was expected, or how it is not.
    pub fn judge(&self, status: u16, body: &[u8]) -> Result<(), Mismatch> {
        if status != self.status {
            return Err(Mismatch::Status {
                got: status,
                want: self.status,
            });
        }
        match &self.body {
            BodyExpect::Any => Ok(()),
            BodyExpect::Exact(want) if body == want.as_slice() => Ok(()),
            BodyExpect::Exact(want) => Err(Mismatch::Body {
                got: quoted(body),
                want: quoted(want),
            }),
            BodyExpect::Pattern(re) if re.is_match(body) => Ok(()),
            BodyExpect::Pattern(re) => Err(Mismatch::Pattern {
                got: quoted(body),
                pattern: re.as_str().to_string(),
            }),
        }
    }
}

/// The start of `body` as text, for a one-line detail.
fn quoted(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    match text.char_indices().nth(QUOTED) {
        Some((end, _)) => format!("{}...", &text[..end]),
        None => text.into_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expect(body: BodyExpect) -> Expect {
        Expect { status: 200, body }
    }

    #[test]
    fn an_exact_body_must_match_byte_for_byte() {
        let e = expect(BodyExpect::Exact(b"hi".to_vec()));
        assert_eq!(e.judge(200, b"hi"), Ok(()));
        let wrong = e.judge(200, b"hi\n").unwrap_err();
        assert_eq!(wrong.to_string(), r#"body "hi\n" (want "hi")"#);
        assert!(e.judge(200, b"").is_err());
    }

    #[test]
    fn a_pattern_matches_anywhere_unless_anchored() {
        let e = expect(BodyExpect::Pattern(Regex::new(r#""id":\s*\d+"#).unwrap()));
        assert_eq!(e.judge(200, br#"{"id": 42, "name": "x"}"#), Ok(()));
        let wrong = e.judge(200, br#"{"id": "x"}"#).unwrap_err();
        assert_eq!(
            wrong.to_string(),
            r#"body "{\"id\": \"x\"}" does not match "\"id\":\\s*\\d+""#
        );
        let whole = expect(BodyExpect::Pattern(Regex::new("^ok$").unwrap()));
        assert_eq!(whole.judge(200, b"ok"), Ok(()));
        assert!(whole.judge(200, b"ok, fine").is_err());
        // A body that is not UTF-8 is searched all the same.
        let tail = expect(BodyExpect::Pattern(Regex::new("ok$").unwrap()));
        assert_eq!(tail.judge(200, b"\xffok"), Ok(()));
    }

    #[test]
    fn any_body_passes_but_the_status_is_always_checked() {
        let e = expect(BodyExpect::Any);
        assert_eq!(e.judge(200, b""), Ok(()));
        assert_eq!(e.judge(200, &[0u8; 4096]), Ok(()));
        assert_eq!(
            e.judge(404, b"").unwrap_err(),
            Mismatch::Status {
                got: 404,
                want: 200
            }
        );
    }

    #[test]
    fn long_bodies_are_quoted_short() {
        let e = expect(BodyExpect::Exact(b"short".to_vec()));
        let detail = e.judge(200, "é".repeat(500).as_bytes()).unwrap_err();
        assert!(detail.to_string().len() < 250, "{detail}");
        assert!(detail.to_string().contains("..."), "{detail}");
    }

    #[test]
    fn a_load_spec_sends_the_endpoints_request_and_only_its_url_can_be_wrong() {
        let mut greet = Endpoint::hello();
        greet.method = Method::POST;
        greet.path = "/greet?x=1".into();
        greet.headers = vec!["X-Token: t".parse().unwrap()];
        greet.body = b"who?".to_vec();
        let spec = greet.load_spec("127.0.0.1:8080").unwrap();
        assert_eq!(spec.url.as_str(), "http://127.0.0.1:8080/greet?x=1");
        assert_eq!(
            (&spec.method, &spec.headers),
            (&Method::POST, &greet.headers)
        );
        assert_eq!(spec.body, b"who?");
        let wrong = greet.load_spec("127.0.0.1:0").unwrap_err();
        assert!(matches!(wrong, SpecError::Url { .. }), "{wrong}");
    }

    #[test]
    fn the_built_in_endpoints() {
        let hello = Endpoint::hello();
        assert_eq!(
            (hello.method.as_str(), hello.path.as_str()),
            ("GET", "/hello")
        );
        assert_eq!(hello.expect.judge(200, b"Hello World"), Ok(()));
        assert!(hello.expect.judge(200, b"Hello world").is_err());
        let app = Endpoint::builtin("app").unwrap();
        assert_eq!(app.builtin, Some(Builtin::App));
        assert!(Endpoint::builtin("greet").is_none());
    }
}
