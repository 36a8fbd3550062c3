//! The workload endpoints (shootout's docs/workloads.md), served from a folder that
//! shootout's `workload::ensure` wrote (`items.json`, `static/`): `/baseline`, `/json/N`,
//! `/upload` and `/static/NAME`, besides `/hello`; honestly, or with one [`Cheat`] that
//! shootout's verify must catch.

use crate::reply::{self, Reply};
use crate::request::Request;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::OnceLock;

/// The workload endpoints from the data in `dir`, served as `cheat` says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Workloads {
    pub dir: PathBuf,
    pub cheat: Option<Cheat>,
}

/// How a workload server cheats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cheat {
    /// `/baseline` answers the first sum it computed, whatever it is asked.
    Cached,
    /// `/upload` answers the request's Content-Length (0 without one) instead of counting.
    EchoLength,
    /// `/json/N` answers the items priced once at start (m = 1), whatever `m` is.
    Preserialised,
    /// Every answer says `Content-Type: text/html`.
    WrongType,
    /// No answer has a Date header.
    NoDate,
}

impl Cheat {
    const ALL: [Cheat; 5] = [
        Cheat::Cached,
        Cheat::EchoLength,
        Cheat::Preserialised,
        Cheat::WrongType,
        Cheat::NoDate,
    ];

    fn name(self) -> &'static str {
        match self {
            Cheat::Cached => "cached",
            Cheat::EchoLength => "echo-length",
            Cheat::Preserialised => "preserialised",
            Cheat::WrongType => "wrong-type",
            Cheat::NoDate => "no-date",
        }
    }
}

impl Workloads {
    /// `workloads` or `workloads-CHEAT`, the name before `:DIR`; None for another name.
    pub(crate) fn parse(name: &str, dir: &str) -> Option<Workloads> {
        let cheat = match name.strip_prefix("workloads")? {
            "" => None,
            rest => Some(
                Cheat::ALL
                    .into_iter()
                    .find(|c| rest == format!("-{}", c.name()))?,
            ),
        };
        Some(Workloads {
            dir: PathBuf::from(dir),
            cheat,
        })
    }
}

impl fmt::Display for Workloads {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let cheat = self
            .cheat
            .map_or(String::new(), |c| format!("-{}", c.name()));
        write!(f, "workloads{cheat}:{}", self.dir.display())
    }
}

impl FromStr for Cheat {
    type Err = ();

    fn from_str(s: &str) -> Result<Cheat, ()> {
        Cheat::ALL.into_iter().find(|c| c.name() == s).ok_or(())
    }
}

/// The answer to `req`; `first_sum` is the cached sum of [`Cheat::Cached`].
pub(crate) fn reply(w: &Workloads, first_sum: &OnceLock<u64>, req: &Request) -> Reply {
    let path = req.target.split('?').next().unwrap_or_default();
    let answer = match path {
        "/hello" => Answer::text(200, "text/plain", reply::BODY.to_vec()),
        "/baseline" => baseline(w, first_sum, req),
        "/upload" => upload(w, req),
        _ if path.starts_with("/json/") => json(w, &path["/json/".len()..], req),
        _ if path.starts_with("/static/") => file(&w.dir, &path["/static/".len()..], req),
        _ => Answer::not_found(),
    };
    answer.reply(w.cheat, req)
}

/// An answer before the cheats that touch every answer.
struct Answer {
    status: u16,
    content_type: &'static str,
    encoding: Option<&'static str>,
    body: Vec<u8>,
}

impl Answer {
    fn text(status: u16, content_type: &'static str, body: Vec<u8>) -> Answer {
        Answer {
            status,
            content_type,
            encoding: None,
            body,
        }
    }

    fn not_found() -> Answer {
        Answer::text(404, "text/plain", b"not found".to_vec())
    }

    fn reply(self, cheat: Option<Cheat>, req: &Request) -> Reply {
        let content_type = match cheat {
            Some(Cheat::WrongType) => "text/html",
            _ => self.content_type,
        };
        let mut extra = format!("Content-Type: {content_type}\r\n");
        if let Some(e) = self.encoding {
            extra += &format!("Content-Encoding: {e}\r\n");
        }
        let dated = cheat != Some(Cheat::NoDate);
        Reply {
            parts: vec![reply::answer(self.status, &extra, &self.body, req, dated)],
            after: reply::keep_or_close(req),
        }
    }
}

/// The sum of every number in the query and the body; the first ever when cached.
fn baseline(w: &Workloads, first_sum: &OnceLock<u64>, req: &Request) -> Answer {
    let mut total = reply::sum_of(&req.target, &req.body);
    if w.cheat == Some(Cheat::Cached) {
        total = *first_sum.get_or_init(|| total);
    }
    Answer::text(200, "text/plain", total.to_string().into_bytes())
}

/// The body's length, or when echoing, what the head said it was.
fn upload(w: &Workloads, req: &Request) -> Answer {
    let counted = match w.cheat {
        Some(Cheat::EchoLength) => req.content_length as usize,
        _ => req.body.len(),
    };
    Answer::text(200, "text/plain", counted.to_string().into_bytes())
}

/// The first `count` items of the dataset, each with `total = price * quantity * m`.
fn json(w: &Workloads, count: &str, req: &Request) -> Answer {
    let m: f64 = query(&req.target, "m")
        .and_then(|m| m.parse().ok())
        .unwrap_or(1.0);
    let m = if w.cheat == Some(Cheat::Preserialised) {
        1.0
    } else {
        m
    };
    let (Ok(count), Ok(text)) = (
        count.parse::<usize>(),
        std::fs::read_to_string(w.dir.join("items.json")),
    ) else {
        return Answer::not_found();
    };
    let Ok(serde_json::Value::Array(items)) = serde_json::from_str(&text) else {
        return Answer::text(500, "text/plain", b"items.json is not a list".to_vec());
    };
    let priced: Vec<serde_json::Value> = (items.into_iter().take(count))
        .map(|mut item| {
            let price = item["price"].as_f64().unwrap_or_default();
            let quantity = item["quantity"].as_f64().unwrap_or_default();
            item["total"] = serde_json::json!(price * quantity * m);
            item
        })
        .collect();
    let body = serde_json::json!({"count": priced.len(), "items": priced});
    Answer::text(200, "application/json", body.to_string().into_bytes())
}

/// The value of the query parameter `name` in `target`.
fn query<'a>(target: &'a str, name: &str) -> Option<&'a str> {
    let query = target.split_once('?')?.1;
    query
        .split('&')
        .find_map(|p| p.strip_prefix(name)?.strip_prefix('='))
}

/// `static/NAME` of `dir`, its `.br` or `.gz` sibling when the request accepts it.
fn file(dir: &Path, name: &str, req: &Request) -> Answer {
    if name.is_empty() || name.contains('/') || name.starts_with('.') {
        return Answer::not_found();
    }
    let path = dir.join("static").join(name);
    let accepts = |e: &str| {
        let header = req.header("accept-encoding").unwrap_or_default();
        header
            .split(',')
            .any(|t| t.trim().split(';').next() == Some(e))
    };
    for (encoding, ext) in [("br", "br"), ("gzip", "gz")] {
        let sibling = path.with_file_name(format!("{name}.{ext}"));
        if let (true, Ok(body)) = (accepts(encoding), std::fs::read(sibling)) {
            return Answer {
                encoding: Some(encoding),
                ..Answer::text(200, content_type(name), body)
            };
        }
    }
    match std::fs::read(&path) {
        Ok(body) => Answer::text(200, content_type(name), body),
        Err(_) => Answer::not_found(),
    }
}

/// The media type of a file by its extension.
fn content_type(name: &str) -> &'static str {
    match name.rsplit('.').next().unwrap_or_default() {
        "html" => "text/html",
        "css" => "text/css",
        "js" => "text/javascript",
        "json" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" => "image/jpeg",
        "woff2" => "font/woff2",
        _ => "text/plain",
    }
}
