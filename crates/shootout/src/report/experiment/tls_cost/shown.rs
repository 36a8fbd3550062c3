//! One contestant's figure in one column, as the table and its sentence show it: the
//! median CPU per response of the runs that count (marked when it rests on runs that do
//! not), or that the client asked to resume and nothing did, or nothing measured.

use super::figure::Figure;
use crate::report::experiment::efficiency::{costed_runs, Cost};
use crate::report::experiment::marks::MARKED;
use crate::report::experiment::row::Row;
use crate::stats::median;

/// A figure of a row.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Shown {
    /// Median server CPU µs per response; marked when no run counts.
    Us { us: f64, marked: bool },
    /// Resumption was asked and no handshake resumed: the figure would be a full
    /// handshake's, under the wrong name.
    NoneResumed,
    /// Nothing measured it.
    Nothing,
}

impl Shown {
    /// The figure of `row` (None: the contestant had no run in the cell) in `figure`'s
    /// column.
    pub fn of(figure: Figure, row: Option<&Row>) -> Shown {
        let Some(row) = row else {
            return Shown::Nothing;
        };
        if figure.resumes() && resumed_share(row) == Some(0.0) {
            return Shown::NoneResumed;
        }
        let cost = Cost::of(row);
        match cost.us.is_empty() {
            true => Shown::Nothing,
            false => Shown::Us {
                us: median(&cost.us),
                marked: cost.marked,
            },
        }
    }

    /// As a cell: `310`, `310†`, `none resumed`, `-`.
    pub fn cell(self, figure: Figure) -> String {
        match self {
            Shown::Us { us, marked } => format!("{}{}", figure.format(us), mark(marked)),
            Shown::NoneResumed => "none resumed".into(),
            Shown::Nothing => "-".into(),
        }
    }
}

/// What TLS adds per request: the request over TLS minus the one in clear text, `+6.1`
/// (`†` when either rests on marked runs); None without both.
pub fn added(tls: Shown, clear: Shown) -> Option<String> {
    match (tls, clear) {
        (
            Shown::Us { us, marked },
            Shown::Us {
                us: clear,
                marked: m,
            },
        ) => Some(format!("{:+.1}{}", us - clear, mark(marked || m))),
        _ => None,
    }
}

/// The share of handshakes that resumed in the runs `row`'s cost rests on; None without
/// a handshake.
pub fn resumed_share(row: &Row) -> Option<f64> {
    let (runs, _) = costed_runs(row);
    let tls = runs.iter().filter_map(|r| r.result()?.tls.as_ref());
    let (resumed, all) = tls.fold((0, 0), |(r, a), t| (r + t.resumed, a + t.handshakes()));
    (all > 0).then(|| resumed as f64 / all as f64)
}

fn mark(marked: bool) -> &'static str {
    if marked {
        MARKED
    } else {
        ""
    }
}
