//! The workload endpoints' checks (docs/workloads.md): each asks with fresh random inputs
//! every time (numbers, counts, body sizes and bytes, which files), so that no answer can
//! be cached, echoed or pre-serialised, compares values rather than bytes where a server
//! may format them its own way, and (when strict) holds every answer to the header rules:
//! the exact `Content-Type` of its kind and a `Date` that is now.

mod ask;
mod baseline;
mod json;
mod rules;
mod static_files;
mod upload;
mod wrong;

pub(super) use rules::date_changes;
pub use wrong::Wrong;

use super::exchange::{exchange, Reply};
use super::{check, Check, Probe, VerifyError};
use crate::model::endpoint::{BodyExpect, Builtin, Expect};
use ask::Ask;

/// What a workload check found when it passed: its detail, and a note that flags it.
struct Passed {
    detail: String,
    note: Option<String>,
}

impl From<String> for Passed {
    fn from(detail: String) -> Passed {
        Passed { detail, note: None }
    }
}

/// The check of the workload `b`, under its name.
pub(super) fn workload_check(p: &Probe, b: Builtin) -> Check {
    let mut rng = fastrand::Rng::new();
    let result = match b {
        Builtin::Baseline => baseline::check(p, &mut rng).map(Passed::from),
        Builtin::Json => json::check(p, &mut rng).map(Passed::from),
        Builtin::Upload => upload::check(p, &mut rng).map(Passed::from),
        Builtin::Static => static_files::check(p, &mut rng),
        Builtin::Hello
        | Builtin::App
        | Builtin::Db
        | Builtin::Queries
        | Builtin::Fortunes
        | Builtin::Updates
        | Builtin::WebSocket => unreachable!("{} is no workload", b.name()),
    };
    let note = result.as_ref().ok().and_then(|r| r.note.clone());
    let mut c = check(b.name(), result.map(|r| r.detail));
    if let Some(note) = note {
        c.flagged = true;
        c.detail = format!("{}; {note}", c.detail);
    }
    c
}

/// Sends `ask` on a connection of its own and reads the answer; an error names the request.
fn send(p: &Probe, ask: &Ask) -> Result<Reply, VerifyError> {
    let asked = |e: VerifyError| VerifyError::Asked {
        request: ask.to_string(),
        source: Box::new(e),
    };
    let mut s = p.connect().map_err(asked)?;
    exchange(&mut s, &ask.bytes(p.host), false).map_err(asked)
}

/// Sends `ask` and holds its answer to `judge` and, when strict, to the header rules of a
/// `content_type` answer; an error names the request.
fn answered<T>(
    p: &Probe,
    ask: &Ask,
    content_type: &[&str],
    judge: impl FnOnce(&Reply) -> Result<T, VerifyError>,
) -> Result<T, VerifyError> {
    let reply = send(p, ask)?;
    let judged = (|| {
        if p.strict {
            rules::hold(&reply, content_type)?;
        }
        judge(&reply)
    })();
    judged.map_err(|e| VerifyError::Asked {
        request: ask.to_string(),
        source: Box::new(e),
    })
}

/// Sends `ask`, whose answer is `want` as text/plain: 200 with exactly its digits.
fn number(p: &Probe, ask: &Ask, want: u64) -> Result<(), VerifyError> {
    let want = Expect {
        status: 200,
        body: BodyExpect::Exact(want.to_string().into_bytes()),
    };
    answered(p, ask, &["text/plain"], |r| {
        Ok(want.judge(r.status, &r.body)?)
    })
}
