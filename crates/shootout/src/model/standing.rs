//! Whether a run counts for its cell's table, and when it does not, whether running the
//! cell again could change that. The harness asks it to plan make-up runs; the tables
//! ask it to choose the runs they rank. One judgement, so the two cannot disagree.

use super::{Label, LoadKind, RunRecord};

/// Requests started more than 1 ms after they were due, above this share of those
/// scheduled: the generator did not keep the schedule (or, when they waited for a free
/// connection, the server held them back). Measured here (docs/verdicts.md): runs the
/// generator kept started 0.03–1.8% of requests over 1 ms late, with no bearing on the
/// server's CPU per response; a server that fell behind held back 8.7–13.2%.
pub const LATE_LIMIT: f64 = 0.05;
/// Requests answered (or still being answered at the end: a response takes its latency)
/// below this share of those scheduled: the server did not keep up.
pub const KEPT_RATE: f64 = 0.95;

/// What a run is to its table.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Standing {
    /// Valid, and (at a fixed rate) at its rate: the table ranks it.
    Counts,
    /// Does not count, for a reason of the moment: disturbed, the generator saturated or
    /// late. Another run of the cell may count.
    Retry,
    /// Does not count, for a lasting reason (the server failed, fell behind the rate or
    /// is blocked; the load was refused; Ctrl-C): running it again changes nothing.
    Final,
}

impl Standing {
    /// The standing of `r` in its table.
    pub fn of(r: &RunRecord) -> Standing {
        match r.label() {
            Label::Ok => match off_rate(r) {
                None => Standing::Counts,
                Some(OffRate::GeneratorLate(_)) => Standing::Retry,
                Some(OffRate::ServerBehind(_) | OffRate::BelowRate { .. }) => Standing::Final,
            },
            Label::Disturbed | Label::GeneratorBound | Label::GeneratorFailed => Standing::Retry,
            Label::ServerFailed
            | Label::VerifyFailed
            | Label::Timeout
            | Label::Interrupted
            | Label::LoadRefused
            | Label::Skipped => Standing::Final,
        }
    }
}

/// Why a valid rate run does not count for efficiency (said in words by the efficiency
/// tables, which format its numbers).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum OffRate {
    /// This share of requests started late with a connection free: the generator's doing.
    GeneratorLate(f64),
    /// This share waited for a free connection: the server held them back.
    ServerBehind(f64),
    /// The server answered `did` of the `asked` requests/s.
    BelowRate { did: f64, asked: f64 },
}

impl OffRate {
    /// Which kind of reason, for grouping runs in a note.
    pub fn kind(&self) -> u8 {
        match self {
            OffRate::GeneratorLate(_) => 0,
            OffRate::ServerBehind(_) => 1,
            OffRate::BelowRate { .. } => 2,
        }
    }
}

/// Why a rate run does not count for efficiency, or None when it does (and for a run
/// that is not at a fixed rate). A capacity search's result is its step at capacity,
/// which the search judged by its own lines (`capacity::judge`): None for it too.
pub fn off_rate(r: &RunRecord) -> Option<OffRate> {
    if let LoadKind::Capacity { .. } = r.kind {
        return None;
    }
    let x = r.result()?;
    let rate = x.rate.as_ref()?;
    let share = |n: u64| n as f64 / rate.scheduled.max(1) as f64;
    if share(rate.late) > LATE_LIMIT {
        return Some(OffRate::GeneratorLate(share(rate.late)));
    }
    if share(rate.waited) > LATE_LIMIT {
        return Some(OffRate::ServerBehind(share(rate.waited)));
    }
    let q = &x.requests;
    (share(q.ok + q.status + q.in_flight) < KEPT_RATE).then_some(OffRate::BelowRate {
        did: x.rps,
        asked: rate.target_rps,
    })
}
