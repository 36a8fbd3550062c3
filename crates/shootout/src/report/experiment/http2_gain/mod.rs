//! What HTTP/2 gains or costs each server (issue 23): for an experiment with loads over
//! HTTP/2, one table per endpoint and layout, a row per contestant, each HTTP/2 figure
//! beside the HTTP/1.1 figure it is set against: keep-alive capacity (requests/s, and in
//! percent of HTTP/1.1's) at each stream count, the server's CPU per request at a fixed
//! rate (as the efficiency tables compute it, and what HTTP/2 adds), in clear text (h2c)
//! and over TLS (h2). Which load gives which figure comes from the stored plan
//! ([`figure`]). Under the table each row is said in a sentence ([`sentence`]), with where
//! HTTP/2 broke down in its runs ([`breakdown`]: failed requests, resets and GOAWAYs by
//! code).

mod breakdown;
mod figure;
mod sentence;
mod shown;

use crate::model::RunRecord;
use crate::report::experiment::efficiency::why_not_counted;
use crate::report::experiment::ranking::{self, RankedCell};
use crate::report::experiment::row::Row;
use crate::report::table::columns::{Column, Design};
use crate::report::table::Table;
use crate::store::Plan;
use breakdown::Breakdown;
use figure::Planned;
use sentence::Entry;
use shown::Shown;

/// One table per endpoint and layout of `plan` when it has loads over HTTP/2; none
/// otherwise.
pub fn tables(plan: &Plan, runs: &[RunRecord]) -> Vec<Table> {
    let planned = Planned::of(plan);
    if planned.is_empty() {
        return Vec::new();
    }
    let cells = ranking::cells(runs);
    let places = (plan.endpoints.iter())
        .flat_map(|e| plan.layouts.iter().map(move |l| (e.as_str(), l.as_str())));
    places
        .map(|place| table(&plan.contestants, &planned, &cells, place))
        .collect()
}

/// One contestant's rows in the cells of the table's figures (`Planned::of`'s order).
struct Line<'r, 'a> {
    contestant: &'r str,
    rows: Vec<Option<&'r Row<'a>>>,
}

impl Line<'_, '_> {
    /// Its figure in column `i`.
    fn shown(&self, planned: &[Planned], i: usize) -> Shown {
        Shown::of(planned[i].figure, self.rows[i])
    }

    /// Each column's entry: the figure, HTTP/1.1's beside an HTTP/2 one, and where HTTP/2
    /// broke down.
    fn entries<'p>(&self, planned: &[Planned<'p>]) -> Vec<Entry<'p>> {
        (planned.iter().enumerate())
            .map(|(i, p)| Entry {
                planned: *p,
                shown: self.shown(planned, i),
                http11: p.against(planned).map(|j| self.shown(planned, j)),
                breakdown: (p.figure.streams.is_some())
                    .then_some(self.rows[i])
                    .flatten()
                    .map(Breakdown::of),
            })
            .collect()
    }
}

/// The table of one endpoint and layout (`place`).
fn table(
    contestants: &[String],
    planned: &[Planned],
    cells: &[RankedCell],
    place: (&str, &str),
) -> Table {
    let at: Vec<Option<&RankedCell>> = (planned.iter())
        .map(|p| cells.iter().find(|(k, _)| *k == p.cell_key(place)))
        .collect();
    let lines = lines(contestants, planned, &at);
    let design = Design {
        title: format!(
            "What HTTP/2 gains or costs each server — /{}, layout {}",
            place.0, place.1
        ),
        columns: columns(planned),
        marks: MARKS.iter().map(|m| m.to_string()).collect(),
    };
    let mut t = design.draw(&lines);
    let sentences =
        (lines.iter()).filter_map(|l| sentence::sentence(l.contestant, &l.entries(planned)));
    t.notes.extend(sentences);
    t
}

/// Each contestant's rows in the cells `at` (None where it has none), the most requests/s
/// over HTTP/2 first (at the first stream count the table shows).
fn lines<'r, 'a>(
    contestants: &'r [String],
    planned: &[Planned],
    at: &[Option<&'r RankedCell<'a>>],
) -> Vec<Line<'r, 'a>> {
    let row = |cell: &Option<&'r RankedCell<'a>>, name: &str| {
        cell.and_then(|(_, rows)| rows.iter().find(|r| r.contestant == name))
    };
    let mut lines: Vec<Line> = (contestants.iter())
        .map(|name| Line {
            contestant: name,
            rows: at.iter().map(|cell| row(cell, name)).collect(),
        })
        .collect();
    let first = planned.iter().position(|p| p.figure.streams.is_some());
    let most = |l: &Line| first.and_then(|i| l.shown(planned, i).value());
    lines.sort_by(|a, b| (most(b).unwrap_or(-1.0)).total_cmp(&most(a).unwrap_or(-1.0)));
    lines
}

/// What the marks on figures mean.
const MARKS: [&str; 3] = [
    "≥ both sides were saturated: a lower bound of the server's capacity",
    "* generator-bound runs only: the generator's figure, not the server's",
    "† no run counts: the median of runs disturbed or off the schedule by the \
     generator's doing (the load's own table says how)",
];

/// The contestant, a column per figure (an HTTP/2 one with its change from HTTP/1.1's),
/// and the notes.
fn columns<'c, 'a: 'c>(planned: &'c [Planned]) -> Vec<Column<'c, Line<'c, 'a>>> {
    let mut out = vec![Column::name("contestant", |l: &Line| l.contestant.into())];
    for (i, p) in planned.iter().enumerate() {
        let against = p.against(planned);
        let cell = move |l: &Line| {
            let shown = l.shown(planned, i);
            match against {
                Some(j) => shown.cell_against(p.figure, l.shown(planned, j)),
                None => shown.cell(p.figure),
            }
        };
        out.push(Column::number(p.figure.header(), cell).meaning(p.meaning(planned)));
    }
    out.push(Column::name("notes", move |l: &Line| notes(planned, l)));
    out
}

/// Why figures are missing or rest on runs that do not count (each reason once, after
/// the columns it concerns).
fn notes(planned: &[Planned], line: &Line) -> String {
    let mut why: Vec<(String, Vec<String>)> = Vec::new();
    for (i, p) in planned.iter().enumerate() {
        let counts = line.shown(planned, i).counts();
        let Some(text) = (line.rows[i])
            .filter(|_| !counts)
            .map(why_not_counted)
            .filter(|t| !t.is_empty())
        else {
            continue;
        };
        match why.iter_mut().find(|(t, _)| *t == text) {
            Some((_, columns)) => columns.push(p.figure.header()),
            None => why.push((text, vec![p.figure.header()])),
        }
    }
    (why.into_iter())
        .map(|(text, columns)| format!("{}: {text}", columns.join(", ")))
        .collect::<Vec<String>>()
        .join("; ")
}

#[cfg(test)]
mod tests;
