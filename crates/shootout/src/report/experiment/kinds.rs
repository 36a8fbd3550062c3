//! Which table shows a run: each kind of load has tables of its own, because what tells
//! servers apart differs. A closed loop ranks by requests/s; at a fixed rate every server
//! does the rate, so its cost ranks them; a capacity search ranks by capacity at
//! objective; a device ramp is drawn over time, not ranked.

use crate::model::RunRecord;

/// An experiment's runs, by the kind of table that shows them.
#[derive(Debug, Default)]
pub struct Kinds {
    pub closed: Vec<RunRecord>,
    pub rated: Vec<RunRecord>,
    pub capacity: Vec<RunRecord>,
    pub ramps: Vec<RunRecord>,
    /// The closed loops and fixed rates together, in the order given (their latency
    /// charts).
    pub requests: Vec<RunRecord>,
}

impl Kinds {
    /// `runs` sorted into their kinds, each in the order given.
    pub fn of(runs: &[RunRecord]) -> Kinds {
        let mut out = Kinds::default();
        for r in runs {
            let kind = match (r.is_ramp(), r.is_capacity(), r.rate().is_some()) {
                (true, _, _) => &mut out.ramps,
                (_, true, _) => &mut out.capacity,
                (_, _, true) => &mut out.rated,
                _ => &mut out.closed,
            };
            kind.push(r.clone());
            if !r.is_ramp() && !r.is_capacity() {
                out.requests.push(r.clone());
            }
        }
        out
    }
}
