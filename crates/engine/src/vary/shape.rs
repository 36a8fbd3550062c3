//! One request shape compiled for the wire: its values' sources, its HTTP/1.1 bytes
//! (head, Content-Length, body) and HTTP/2 fields as templates over those values, and the
//! answer expected for them.

use super::answer::MAX_ANSWER;
use super::braced::{Placeholder, Source, MAX_VALUES};
use super::compiled::{Compiled, Part};
use super::request_line::RequestLine;
use super::template::{Piece, Template};
use super::VaryError;
use crate::spec::Header;
use http::Method;
use std::collections::HashMap;

/// What every shape of a load shares: where it goes and how it is sent.
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    pub host: &'a str,
    pub http10: bool,
    pub keepalive: bool,
    pub https: bool,
    pub headers: &'a [Header],
    pub expect: Option<&'a Template>,
}

/// A shape as written: method, target, body and how often it is sent.
#[derive(Debug, Clone, Copy)]
pub struct Written<'a> {
    pub weight: u32,
    pub method: &'a Method,
    pub target: &'a Template,
    pub body: &'a Template,
}

impl<'a> From<&'a RequestLine> for Written<'a> {
    fn from(r: &'a RequestLine) -> Self {
        Written {
            weight: r.weight,
            method: &r.method,
            target: &r.target,
            body: &r.body,
        }
    }
}

/// A request shape ready to draw and render.
#[derive(Debug, Clone)]
pub struct Shape {
    pub weight: u32,
    pub sources: Vec<Source>,
    /// HTTP/1.1: the bytes up to the Content-Length's digits (`length`), or up to the
    /// body (the head's blank line included).
    pub head: Compiled,
    pub length: bool,
    pub body: Compiled,
    /// HTTP/2: the fields, in order (pseudo-headers first), names lowercase.
    pub fields: Vec<(Vec<u8>, Compiled)>,
    /// The exact body a right answer has.
    pub expect: Option<Compiled>,
}

impl Shape {
    pub fn compile(w: Written, cx: Context) -> Result<Shape, VaryError> {
        let label = format!("{} {}", w.method, w.target);
        let bad = |reason: String| VaryError::Shape {
            shape: label.clone(),
            reason,
        };
        if w.method == Method::HEAD {
            return Err(bad(
                "HEAD cannot vary (its answers have no body to frame by)".into(),
            ));
        }
        let values: Vec<Template> = (cx.headers.iter())
            .map(|h| h.value_text().parse())
            .collect::<Result<_, _>>()?;
        let mut binder = Binder::default();
        for t in [w.target].into_iter().chain(&values).chain([w.body]) {
            binder.define(t).map_err(&bad)?;
        }
        let target = binder.compile(w.target).map_err(&bad)?;
        let values: Vec<Compiled> = (values.iter())
            .map(|t| binder.compile(t))
            .collect::<Result<_, _>>()
            .map_err(&bad)?;
        let body = binder.compile(w.body).map_err(&bad)?;
        let expect = match cx.expect {
            Some(t) => Some(binder.expectation(t).map_err(&bad)?),
            None => None,
        };
        if (expect.as_ref()).is_some_and(|e| e.max_len(&binder.sources) > MAX_ANSWER) {
            return Err(bad(format!(
                "the expected answer may be longer than {MAX_ANSWER} bytes"
            )));
        }
        let has = |name: &str| cx.headers.iter().any(|h| h.is(name));
        let length = !w.body.is_empty() && !has("content-length");
        Ok(Shape {
            weight: w.weight,
            head: h1_head(w.method, &target, &values, length, cx),
            length,
            fields: h2_fields(w.method, &target, &values, cx),
            body,
            expect,
            sources: binder.sources,
        })
    }
}

/// The HTTP/1.1 request up to its Content-Length's digits, or its body.
fn h1_head(
    method: &Method,
    target: &Compiled,
    values: &[Compiled],
    length: bool,
    cx: Context,
) -> Compiled {
    let version = if cx.http10 { "HTTP/1.0" } else { "HTTP/1.1" };
    let mut head = Compiled::text(format!("{method} ").as_bytes());
    head.extend(target);
    head.push_text(format!(" {version}\r\nHost: {}\r\n", cx.host).as_bytes());
    for (h, value) in cx.headers.iter().zip(values) {
        if !h.is("host") {
            head.push_text(format!("{}: ", h.spelling()).as_bytes());
            head.extend(value);
            head.push_text(b"\r\n");
        }
    }
    if !cx.headers.iter().any(|h| h.is("connection")) {
        match (cx.http10, cx.keepalive) {
            (true, true) => head.push_text(b"Connection: keep-alive\r\n"),
            (false, false) => head.push_text(b"Connection: close\r\n"),
            _ => {}
        }
    }
    match length {
        true => head.push_text(b"Content-Length: "),
        false => head.push_text(b"\r\n"),
    }
    head
}

/// The HTTP/2 fields: pseudo-headers, then the headers HTTP/2 allows (Host becomes
/// :authority); content-length is added when the request is sent.
fn h2_fields(
    method: &Method,
    target: &Compiled,
    values: &[Compiled],
    cx: Context,
) -> Vec<(Vec<u8>, Compiled)> {
    let scheme = if cx.https { "https" } else { "http" };
    let mut fields = vec![
        (
            b":method".to_vec(),
            Compiled::text(method.as_str().as_bytes()),
        ),
        (b":scheme".to_vec(), Compiled::text(scheme.as_bytes())),
        (b":path".to_vec(), target.clone()),
        (b":authority".to_vec(), Compiled::text(cx.host.as_bytes())),
    ];
    for (h, value) in cx.headers.iter().zip(values) {
        if crate::request::h2_allows(h) {
            fields.push((h.name.as_str().as_bytes().to_vec(), value.clone()));
        }
    }
    fields
}

/// The values a shape draws, in the order its templates name them.
#[derive(Debug, Default)]
struct Binder {
    sources: Vec<Source>,
    names: HashMap<String, u8>,
    /// Draws compiled so far: the next draw's number.
    compiled: u8,
}

impl Binder {
    /// Takes the values `t` draws.
    fn define(&mut self, t: &Template) -> Result<(), String> {
        for piece in t.pieces() {
            let Piece::Hole(Placeholder::Draw { name, source }) = piece else {
                continue;
            };
            if self.sources.len() == MAX_VALUES {
                return Err(format!("more than {MAX_VALUES} values drawn per request"));
            }
            let n = self.sources.len() as u8;
            if let Some(name) = name {
                if self.names.insert(name.clone(), n).is_some() {
                    return Err(format!("the value {name:?} is drawn twice"));
                }
            }
            self.sources.push(source.clone());
        }
        Ok(())
    }

    /// `t` against the values (defined first, in the same order).
    fn compile(&mut self, t: &Template) -> Result<Compiled, String> {
        let mut c = Compiled::default();
        for piece in t.pieces() {
            match piece {
                Piece::Text(text) => c.push_text(text),
                Piece::Hole(Placeholder::Draw { .. }) => {
                    c.parts.push(Part::Value(self.compiled));
                    self.compiled += 1;
                }
                Piece::Hole(hole) => c.parts.push(self.reference(hole)?),
            }
        }
        Ok(c)
    }

    /// An expected answer: text, names and sums of the values the request drew.
    fn expectation(&mut self, t: &Template) -> Result<Compiled, String> {
        let mut c = Compiled::default();
        for piece in t.pieces() {
            match piece {
                Piece::Text(text) => c.push_text(text),
                Piece::Hole(Placeholder::Draw { .. }) => {
                    return Err(format!(
                        "the expected answer {t:?} draws a value: it may only name the \
                         request's ({{a}}, {{sum:a,b}})"
                    ))
                }
                Piece::Hole(hole) => c.parts.push(self.reference(hole)?),
            }
        }
        Ok(c)
    }

    fn reference(&self, hole: &Placeholder) -> Result<Part, String> {
        match hole {
            Placeholder::Refer(name) => self.number_of(name).map(Part::Value),
            Placeholder::Sum(names) => {
                let mut ns = Vec::with_capacity(names.len());
                for name in names {
                    let n = self.number_of(name)?;
                    if self.sources[n as usize].max_number().is_none() {
                        return Err(format!("{{sum:...}} of {name:?}, a list of non-numbers"));
                    }
                    ns.push(n);
                }
                Ok(Part::Sum(ns))
            }
            Placeholder::Draw { .. } => Err("a value is drawn where one is named".into()),
        }
    }

    fn number_of(&self, name: &str) -> Result<u8, String> {
        self.names.get(name).copied().ok_or_else(|| {
            format!("no value is named {name:?} (name one where it is drawn: {{{name}=seq}})")
        })
    }
}
