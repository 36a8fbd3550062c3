//! The database endpoints' checks, by TechEmpower's rules (docs/database.md): each sends
//! fresh random inputs on one kept-alive connection and compares every answer with what
//! the database the harness started holds, read by the harness itself ([`Tables`]), after
//! counting the SELECTs on World that the requests made (`pg_stat_statements`). A server
//! that answers from a cache, makes rows up, leaves rows unwritten, or sends fortunes
//! unsorted or unescaped fails with one line that says which request and what was wrong.

mod count;
mod fortunes;
mod page;
mod world;

pub use count::Selects;

use super::connection::Connection;
use super::exchange::Reply;
use super::{Check, Probe, VerifyError};
use crate::model::endpoint::{Builtin, Endpoint};
use std::collections::BTreeMap;

/// What the checks read from the database a server was given: its tables as they are,
/// and the statements it counted. The database the harness runs implements it
/// (`database::Database`, a later layer than verification).
pub trait Tables: std::fmt::Debug + Sync {
    /// Every row of World: id → randomNumber.
    fn world(&self) -> Result<BTreeMap<i32, i32>, TablesError>;
    /// Every row of Fortune: id and message, by id.
    fn fortunes(&self) -> Result<Vec<(i32, String)>, TablesError>;
    /// Forgets the statements counted so far.
    fn reset_statements(&self) -> Result<(), TablesError>;
    /// The SELECT statements on World that servers executed since the reset.
    fn world_selects(&self) -> Result<Selects, TablesError>;
}

/// Why the harness could not read its own database.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct TablesError(pub String);

/// What was wrong with a database endpoint: a check's detail line.
#[derive(Debug, thiserror::Error)]
pub(super) enum Wrong {
    #[error("needs the database, and none was started: verify starts one for a contestant whose contestant.toml says database = \"postgresql\"")]
    NoDatabase,
    #[error("the harness's database: {0}")]
    Tables(#[from] TablesError),
    #[error("GET {path}: {problem}")]
    Answer { path: String, problem: Problem },
    #[error(
        "{requests} requests made {} SELECTs on World returning {} rows (want at least \
         {requests} returning at least {rows}): answered without asking the database",
        got.calls, got.rows
    )]
    NotQueried {
        requests: u64,
        rows: u64,
        got: Selects,
    },
    #[error("all {rows} rows answered have id {id}: the ids are not random")]
    NotRandom { rows: usize, id: i32 },
    #[error("{changed} of {rows} rows answered have a new randomNumber (want at least 90%): not updated")]
    NotUpdated { changed: usize, rows: usize },
}

/// What was wrong with one answer.
#[derive(Debug, thiserror::Error)]
pub(super) enum Problem {
    #[error(transparent)]
    Exchange(#[from] VerifyError),
    #[error("status {0} (want 200)")]
    Status(u16),
    #[error("Content-Type {got:?} (want {want})")]
    ContentType { got: String, want: &'static str },
    #[error("not {want}: {error}")]
    Json { want: &'static str, error: String },
    #[error("{got} rows (want {want}{why})")]
    Rows {
        got: usize,
        want: usize,
        why: &'static str,
    },
    #[error("row id {0} is not in World")]
    NoSuchRow(i32),
    #[error("row id {id} has randomNumber {answered}, World holds {holds}")]
    Differs { id: i32, answered: i32, holds: i32 },
    #[error("row id {id} has randomNumber {answered} (want 1 to 10000)")]
    OutOfRange { id: i32, answered: i32 },
    #[error("row id {id} answered randomNumber {answered}, World holds {holds}: not written back")]
    NotWritten { id: i32, answered: i32, holds: i32 },
    #[error("not UTF-8 (byte {0})")]
    NotUtf8(usize),
    #[error("{0}")]
    Page(String),
}

/// Whether `e` is a database endpoint, whose answers only the database can judge.
pub(super) fn reads_database(e: &Endpoint) -> bool {
    e.builtin.is_some_and(Builtin::needs_database)
}

/// The check of database endpoint `e`, against `tables` (a failure without them).
pub(super) fn check(probe: &Probe, e: &Endpoint, tables: Option<&dyn Tables>) -> Check {
    let result = tables.ok_or(Wrong::NoDatabase).and_then(|tables| {
        let ask = &mut Asker::new(probe, e)?;
        match e.builtin {
            Some(Builtin::Db) => world::db(ask, tables),
            Some(Builtin::Queries) => world::queries(ask, tables),
            Some(Builtin::Updates) => world::updates(ask, tables),
            _ => fortunes::fortunes(ask, tables),
        }
    });
    let base = e.path.split('?').next().unwrap_or_default();
    let detail = |w: Wrong| match w {
        Wrong::NotQueried { .. } | Wrong::NotRandom { .. } | Wrong::NotUpdated { .. } => {
            format!("GET {base}: {w}")
        }
        w => w.to_string(),
    };
    Check {
        name: e.name.clone(),
        passed: result.is_ok(),
        flagged: false,
        detail: result.unwrap_or_else(detail),
    }
}

/// Requests to one endpoint, each with a path of its own, on one kept-alive connection:
/// a server that caches per connection answers them all from its cache.
pub(super) struct Asker<'a> {
    probe: &'a Probe<'a>,
    endpoint: &'a Endpoint,
    connection: Connection,
}

impl<'a> Asker<'a> {
    fn new(probe: &'a Probe<'a>, endpoint: &'a Endpoint) -> Result<Asker<'a>, Wrong> {
        let connection = probe.connect().map_err(|e| Wrong::Answer {
            path: endpoint.path.clone(),
            problem: e.into(),
        })?;
        Ok(Asker {
            probe,
            endpoint,
            connection,
        })
    }

    /// The body of the answer to `GET path`, which must be 200 with a Date header when
    /// strict, and of the media type `want` (with its parameters, when it has them).
    fn get(&mut self, path: &str, want: &'static str) -> Result<Vec<u8>, Wrong> {
        let answer = self.answer(path, want);
        answer.map_err(|problem| Wrong::Answer {
            path: path.to_string(),
            problem,
        })
    }

    fn answer(&mut self, path: &str, want: &'static str) -> Result<Vec<u8>, Problem> {
        let mut e = self.endpoint.clone();
        e.path = path.to_string();
        let reply = (self.probe).exchange(&mut self.connection, &e, "HTTP/1.1", "")?;
        if reply.status != 200 {
            return Err(Problem::Status(reply.status));
        }
        if self.probe.strict && !reply.dated() {
            return Err(VerifyError::NoDate.into());
        }
        let got = content_type(&reply);
        match media(&got) == media(want) {
            true => Ok(reply.body),
            false => Err(Problem::ContentType { got, want }),
        }
    }
}

/// The answer's Content-Type as sent ("" without one).
fn content_type(reply: &Reply) -> String {
    reply.header("content-type").unwrap_or_default().to_string()
}

/// A media type with its parameters, compared as RFC 9110 says they compare: the type
/// and parameter names in any case, spaces around `;` and quotes around values aside;
/// `charset` in any case too (its registry's names are), but present or not as sent.
fn media(text: &str) -> Vec<String> {
    let mut parts = text.split(';').map(|p| {
        let p = p.trim().to_ascii_lowercase();
        match p.split_once('=') {
            Some((name, value)) => format!("{}={}", name.trim(), value.trim().trim_matches('"')),
            None => p,
        }
    });
    let kind = parts.next().unwrap_or_default();
    // JSON has no charset parameter (RFC 8259): one sent is ignored.
    let params = parts.filter(|p| kind != "application/json" || !p.starts_with("charset="));
    std::iter::once(kind.clone()).chain(params).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contestant::verify::{run, Plan};
    use crate::model::VerifyLevel;
    use testserver::{Behavior, TestServer};

    #[test]
    fn without_a_database_strict_fails_and_http_looks_for_json() {
        let server = TestServer::start(Behavior::Hello).unwrap();
        let endpoints = [Endpoint::builtin("db").unwrap()];
        let db = |level| {
            let plan = Plan {
                level,
                endpoints: &endpoints,
                parses_http: true,
                database: None,
            };
            let checks = run(server.addr(), &plan);
            checks.into_iter().find(|c| c.name == "db").unwrap()
        };
        let strict = db(VerifyLevel::Strict);
        assert!(!strict.passed);
        assert!(strict
            .detail
            .starts_with("needs the database, and none was started"));
        let http = db(VerifyLevel::Http);
        assert!(!http.passed);
        assert!(
            http.detail
                .starts_with("body \"Hello World\" does not match"),
            "{http:?}"
        );
    }

    #[test]
    fn media_types_compare_as_rfc_9110_says() {
        let same = |a: &str, b: &str| media(a) == media(b);
        assert!(same(
            "text/html; charset=utf-8",
            "Text/HTML;Charset=\"UTF-8\""
        ));
        assert!(!same("text/html", "text/html; charset=utf-8"));
        assert!(!same(
            "text/plain; charset=utf-8",
            "text/html; charset=utf-8"
        ));
        assert!(same("application/json", "application/json; charset=UTF-8"));
        assert!(!same("text/json", "application/json"));
    }
}
