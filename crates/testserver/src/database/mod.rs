//! TechEmpower's database endpoints against a real PostgreSQL (the one `DATABASE_URL`
//! names, as the harness gives a contestant): `/db`, `/queries?q=N`, `/fortunes`,
//! `/updates?q=N`, served honestly or with one cheat that verification must catch. Each
//! connection has its own database session (`session`), as each of its threads would in
//! a thread-per-connection server; the answers' bytes are made in `pages`.

mod pages;
mod session;

pub(crate) use session::Session;

use crate::reply::{self, Reply};
use crate::request::Request;
use crate::BehaviorError;
use std::fmt;
use std::str::FromStr;

/// How the database endpoints are served.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Database {
    /// Every row read (one SELECT each) and written (one UPDATE each) as asked.
    Honest,
    /// `/db` from the whole of World, read once per connection: one SELECT for many
    /// answers, which the query count catches.
    CachedDb,
    /// `/fortunes` in id order.
    UnsortedFortunes,
    /// `/fortunes` with the messages as stored, `<script>` and all.
    UnescapedFortunes,
    /// `/updates` answers every row with a new number but writes only the first.
    UpdatesWriteFewer,
}

impl Database {
    const NAMES: [(Database, &'static str); 5] = [
        (Database::Honest, "honest"),
        (Database::CachedDb, "cached-db"),
        (Database::UnsortedFortunes, "unsorted-fortunes"),
        (Database::UnescapedFortunes, "unescaped-fortunes"),
        (Database::UpdatesWriteFewer, "updates-write-fewer"),
    ];
}

impl FromStr for Database {
    type Err = BehaviorError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let found = Database::NAMES.iter().find(|(_, name)| *name == s);
        found
            .map(|(d, _)| *d)
            .ok_or_else(|| BehaviorError::Unknown(format!("database:{s}")))
    }
}

impl fmt::Display for Database {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = Database::NAMES.iter().find(|(d, _)| d == self);
        f.write_str(name.map_or("?", |(_, n)| n))
    }
}

/// The most rows `q` asks for, as TechEmpower caps it.
const MOST_ROWS: usize = 500;

/// `q` by TechEmpower's rule: missing, not a number or below 1 is 1; above 500 is 500.
fn rows_asked(target: &str) -> usize {
    let query = target.split_once('?').map_or("", |(_, q)| q);
    let q = query.split('&').find_map(|p| p.strip_prefix("q="));
    let n = q.and_then(|q| q.parse::<i64>().ok()).unwrap_or(1);
    n.clamp(1, MOST_ROWS as i64) as usize
}

/// A `status` answer of `body`, of the media type `content_type`, with a Date header.
fn typed(status: u16, content_type: &str, body: &[u8], req: &Request) -> Vec<u8> {
    let header = format!("Content-Type: {content_type}\r\n");
    reply::answer(status, &header, body, req, true)
}

/// The answer to `req` as `served` says, from the connection's `session` (opened at its
/// first request); a database that fails is a 500 that says why.
pub(crate) fn answer(served: Database, session: &mut Option<Session>, req: &Request) -> Reply {
    let bytes = match session_of(session) {
        Ok(s) => page(served, s, req),
        Err(e) => Err(e),
    };
    let bytes = bytes.unwrap_or_else(|e| typed(500, "text/plain", e.to_string().as_bytes(), req));
    Reply {
        parts: vec![bytes],
        after: reply::keep_or_close(req),
    }
}

fn session_of(session: &mut Option<Session>) -> Result<&mut Session, postgres::Error> {
    match session {
        Some(s) => Ok(s),
        None => Ok(session.insert(Session::open()?)),
    }
}

/// The bytes of the answer to `req`.
fn page(served: Database, s: &mut Session, req: &Request) -> Result<Vec<u8>, postgres::Error> {
    let path = req.target.split('?').next().unwrap_or_default();
    let json = |body: String| typed(200, "application/json", body.as_bytes(), req);
    Ok(match path {
        "/db" if served == Database::CachedDb => json(pages::row(s.cached_row()?)),
        "/db" => json(pages::row(s.row()?)),
        "/queries" => json(pages::rows(&s.rows(rows_asked(&req.target))?)),
        "/updates" => {
            let written = match served {
                Database::UpdatesWriteFewer => 1,
                _ => MOST_ROWS,
            };
            json(pages::rows(&s.updates(rows_asked(&req.target), written)?))
        }
        "/fortunes" => {
            let body = pages::fortunes(s.fortunes()?, served);
            typed(200, "text/html; charset=utf-8", body.as_bytes(), req)
        }
        _ => typed(404, "text/plain", b"not found", req),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn q_counts_as_techempower_says() {
        for (target, rows) in [
            ("/queries?q=7", 7),
            ("/queries?q=0", 1),
            ("/queries", 1),
            ("/queries?q=foo", 1),
            ("/queries?x=3&q=501", 500),
            ("/queries?q=-4", 1),
        ] {
            assert_eq!(rows_asked(target), rows, "{target}");
        }
    }

    #[test]
    fn each_name_reads_back() {
        for (d, name) in Database::NAMES {
            assert_eq!(d.to_string(), name);
            assert_eq!(name.parse::<Database>(), Ok(d));
        }
        assert!("cached".parse::<Database>().is_err());
    }
}
