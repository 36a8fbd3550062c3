//! What each built-in endpoint sends and expects: one fixed request, which the framing
//! checks of verify send, and for the workloads the requests a load sends, varying per
//! request where a server could otherwise answer from a cache (docs/workloads.md).

use super::builtin::Builtin;
use super::endpoint::{BodyExpect, Endpoint, Expect};
use crate::workload::corpus;
use engine::{Header, VarySpec};
use http::Method;
use regex::bytes::Regex;

/// The most rows `queries:N` and `updates:N` ask for (TechEmpower's clamp).
pub const MOST_ROWS: u32 = 500;

/// The body a load of `upload` sends: 2 MB.
pub const UPLOAD_BYTES: usize = 2_000_000;

impl Endpoint {
    /// The built-in endpoint called `name`; `queries:N` and `updates:N` ask for N rows
    /// (1 to 500) where `queries` and `updates` ask for 20.
    pub fn builtin(name: &str) -> Option<Endpoint> {
        if let Some(b) = Builtin::named(name) {
            return Some(b.endpoint());
        }
        let (base, rows) = name.split_once(':')?;
        let b = Builtin::named(base).filter(|b| b.takes_rows())?;
        let rows: u32 = rows.parse().ok().filter(|n| (1..=MOST_ROWS).contains(n))?;
        Some(Endpoint {
            name: name.to_string(),
            path: format!("/{base}?q={rows}"),
            ..b.endpoint()
        })
    }

    /// The name a contestant's manifest lists it by: its built-in's (`queries` for
    /// `queries:1`), or its own.
    pub fn served_as(&self) -> &str {
        match self.builtin {
            Some(b) => b.name(),
            None => &self.name,
        }
    }

    /// `GET /hello`, 200 `Hello World`.
    pub fn hello() -> Endpoint {
        Builtin::Hello.endpoint()
    }
}

impl Builtin {
    /// The endpoint: its fixed request, its expected answer and its load's requests.
    pub fn endpoint(self) -> Endpoint {
        let fixed = Fixed::of(self);
        Endpoint {
            name: self.name().to_string(),
            method: fixed.method,
            path: fixed.path,
            headers: fixed.headers,
            body: fixed.body,
            expect: Expect {
                status: 200,
                body: fixed.answer,
            },
            builtin: Some(self),
            vary: self.vary(),
        }
    }

    /// The requests a load of it sends, when they vary: fresh numbers for `baseline`
    /// (each answer checked against their sum) and `json`, the corpus in turn for `static`.
    fn vary(self) -> Option<VarySpec> {
        let (line, expect) = match self {
            Builtin::Baseline => (
                "GET /baseline?a={a=rand:1-1000}&b={b=rand:1-1000}".to_string(),
                Some("{sum:a,b}"),
            ),
            Builtin::Json => ("GET /json/50?m={rand:1-10}".to_string(), None),
            Builtin::Static => {
                let names: Vec<&str> = corpus::FILES.iter().map(|f| f.name).collect();
                (format!("GET /static/{{list:{}}}", names.join(",")), None)
            }
            // The database endpoints' loads ask as TechEmpower's did, the same every time:
            // the server draws the rows.
            Builtin::Hello
            | Builtin::App
            | Builtin::Upload
            | Builtin::Db
            | Builtin::Queries
            | Builtin::Fortunes
            | Builtin::Updates
            | Builtin::WebSocket => return None,
        };
        Some(VarySpec {
            seed: None,
            requests: vec![line.parse().expect("a built-in request line parses")],
            expect: expect.map(|e| e.parse().expect("a built-in expectation parses")),
        })
    }
}

/// An endpoint's fixed request and its answer.
struct Fixed {
    method: Method,
    path: String,
    headers: Vec<Header>,
    body: Vec<u8>,
    answer: BodyExpect,
}

impl Fixed {
    fn of(b: Builtin) -> Fixed {
        let get = |path: &str, answer| Fixed {
            method: Method::GET,
            path: path.to_string(),
            headers: Vec::new(),
            body: Vec::new(),
            answer,
        };
        let header = |line: &str| line.parse::<Header>().expect("a built-in header parses");
        match b {
            Builtin::Hello => get("/hello", BodyExpect::Exact(b"Hello World".to_vec())),
            // Its length and delay are strict verification's own check of /app.
            Builtin::App => get("/app", BodyExpect::Any),
            Builtin::Baseline => get("/baseline?a=13&b=42", BodyExpect::Exact(b"55".to_vec())),
            // Its values are the json check's to compare (verify/workload/json.rs).
            Builtin::Json => get("/json/50?m=3", BodyExpect::Any),
            Builtin::Upload => Fixed {
                method: Method::POST,
                headers: vec![header("Content-Type: application/octet-stream")],
                body: upload_body(UPLOAD_BYTES),
                answer: BodyExpect::Exact(UPLOAD_BYTES.to_string().into_bytes()),
                ..get("/upload", BodyExpect::Any)
            },
            // Gzip, which every server of precompressed files serves (nginx has no br).
            Builtin::Static => Fixed {
                headers: vec![header("Accept-Encoding: gzip")],
                ..get("/static/index.html", BodyExpect::Any)
            },
            // Their answers are strict verification's database checks (verify/database/);
            // a load asks for 20 rows, as TechEmpower's multiple-queries test did.
            Builtin::Db => get("/db", world_json('{', '}')),
            Builtin::Queries => get("/queries?q=20", world_json('[', ']')),
            Builtin::Fortunes => get("/fortunes", BodyExpect::Any),
            Builtin::Updates => get("/updates?q=20", world_json('[', ']')),
            // Each contestant's `[websocket]` path, where a run loads it (the catalog's
            // all say /ws); its checks are verify's WebSocket rows, not an answer's.
            Builtin::WebSocket => get("/ws", BodyExpect::Any),
        }
    }
}

/// A JSON object (`{`, `}`) or array (`[`, `]`) that names `randomNumber`: what `http`
/// verification asks of a database endpoint when no database is there to compare with.
fn world_json(open: char, close: char) -> BodyExpect {
    let pattern = format!(r#"(?s)^\s*\{open}.*"randomNumber".*\{close}\s*$"#);
    BodyExpect::Pattern(Regex::new(&pattern).expect("a built-in pattern compiles"))
}

/// `len` bytes of a fixed pattern that is not text: what a load uploads.
fn upload_body(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 7 % 251) as u8).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_and_updates_take_a_row_count() {
        let one = Endpoint::builtin("queries:1").unwrap();
        assert_eq!(
            (one.name.as_str(), one.path.as_str()),
            ("queries:1", "/queries?q=1")
        );
        assert_eq!(
            (one.builtin, one.served_as()),
            (Some(Builtin::Queries), "queries")
        );
        assert_eq!(
            Endpoint::builtin("updates:500").unwrap().path,
            "/updates?q=500"
        );
        for wrong in [
            "queries:0",
            "queries:501",
            "queries:x",
            "db:1",
            "fortunes:2",
        ] {
            assert!(Endpoint::builtin(wrong).is_none(), "{wrong}");
        }
    }

    #[test]
    fn every_builtin_load_resolves() {
        for b in Builtin::ALL {
            let e = b.endpoint();
            let spec = e.load_spec("127.0.0.1:8080").unwrap();
            let config = spec.resolve().unwrap();
            assert_eq!(config.vary.is_some(), e.vary.is_some(), "{}", b.name());
        }
    }

    #[test]
    fn the_database_endpoints_ask_for_20_rows_and_look_for_json_without_a_database() {
        let app = Endpoint::builtin("app").unwrap();
        // The database endpoints: a load asks for 20 rows; without a database, `http`
        // verification looks for TechEmpower's JSON.
        let queries = Endpoint::builtin("queries").unwrap();
        assert_eq!(queries.path, "/queries?q=20");
        assert!(queries.builtin.is_some_and(Builtin::needs_database));
        let row = br#"[{"id":3,"randomNumber":7}]"#;
        assert_eq!(queries.expect.judge(200, row), Ok(()));
        let db = Endpoint::builtin("db").unwrap();
        assert!(db.expect.judge(200, &row[1..row.len() - 1]).is_ok());
        assert!(db.expect.judge(200, row).is_err());
        assert!(!app.builtin.is_some_and(Builtin::needs_database));
    }

    #[test]
    fn the_baseline_load_varies_and_checks_each_sum() {
        let spec = Builtin::Baseline
            .endpoint()
            .load_spec("127.0.0.1:8080")
            .unwrap();
        let vary = spec.vary.unwrap();
        assert_eq!(vary.expect.unwrap().text(), "{sum:a,b}");
        assert!(vary.requests[0].to_string().contains("a={a=rand:1-1000}"));
    }
}
