//! The 2009 article's layout: a row per contestant and layout, a column per concurrency
//! level; one table of requests/s and one of "99% of requests within (ms)".

use crate::model::RunRecord;
use crate::report::experiment::cell_key::CellKey;
use crate::report::experiment::marks::{LOWER_BOUND_MARK, MARKED, RPS_SPREAD};
use crate::report::experiment::ranking::{self, RankedCell};
use crate::report::experiment::row::{self, Row};
use crate::report::table::columns::{Column, Design};
use crate::report::table::Table;
use crate::stats::measures::{self, Measure};
use crate::stats::median;
use crate::units;

/// The two tables for each endpoint × load (× HTTP/2 streams × rate) of `runs`.
pub fn tables(runs: &[RunRecord]) -> Vec<Table> {
    let cells = ranking::cells(runs);
    let groups = ranking::group_by(&cells, |k| {
        (
            k.endpoint.clone(),
            k.load.clone(),
            k.streams,
            k.rate.clone(),
        )
    });
    let mut out = Vec::new();
    for ((endpoint, load, streams, _), these) in groups {
        let streams = streams.map_or(String::new(), |n| format!(", {n} streams"));
        let title = format!("/{endpoint}, {load}{streams}");
        out.push(table(
            format!("Requests per second — {title}"),
            &these,
            rps_cell,
            true,
        ));
        out.push(table(
            format!("99% of requests within (ms) — {title}"),
            &these,
            p99_cell,
            false,
        ));
    }
    out
}

/// One line of the matrix: a contestant in a layout.
struct Line<'a> {
    contestant: &'a str,
    layout: &'a str,
}

type CellText = fn(&Row) -> String;

/// A matrix of `text` per line and level; `bounds` says whether its cells can read `≥`.
fn table(title: String, cells: &[&RankedCell], text: CellText, bounds: bool) -> Table {
    let mut lines: Vec<(&str, &str)> = Vec::new();
    for (k, rows) in cells {
        for r in rows {
            if !lines.contains(&(r.contestant, k.layout.as_str())) {
                lines.push((r.contestant, k.layout.as_str()));
            }
        }
    }
    // The article's order: each server's rows together (1C, then multi-core).
    lines.sort();
    let lines: Vec<Line> = lines
        .into_iter()
        .map(|(contestant, layout)| Line { contestant, layout })
        .collect();
    let mut layouts: Vec<&str> = lines.iter().map(|l| l.layout).collect();
    layouts.sort_unstable();
    layouts.dedup();
    let several = layouts.len() > 1;
    let server = Column::name("server", move |l: &Line| match several {
        true => format!("{} ({})", l.contestant, l.layout),
        false => l.contestant.to_string(),
    });
    let mut marks = vec![
        RPS_SPREAD.into(),
        "* generator-bound: the generator was saturated, the number describes it \
         (not ranked)"
            .into(),
    ];
    let carried = row::carried_marks(cells.iter().flat_map(|(_, rows)| rows.iter()));
    // A latency is no lower bound of anything.
    marks.extend(
        carried
            .into_iter()
            .filter(|m| bounds || m != LOWER_BOUND_MARK),
    );
    let design = Design {
        title,
        columns: [server].into_iter().chain(levels(cells, text)).collect(),
        marks,
    };
    design.draw(&lines)
}

/// A column per concurrency level, lowest first: `text` of the line's row there.
fn levels<'c>(
    cells: &'c [&'c RankedCell<'c>],
    text: CellText,
) -> impl Iterator<Item = Column<'c, Line<'c>>> + 'c {
    ranking::levels(cells).into_iter().map(move |c| {
        Column::number(units::grouped(c as f64), move |l: &Line| {
            let at = |k: &CellKey| k.layout == l.layout && k.connections == c;
            ranking::find_row(cells, at, l.contestant).map_or(String::new(), text)
        })
    })
}

/// Requests/s of a cell: `25,809 ±1.2%` (`≥ 25,809 ±1.2%` for a lower bound), or the
/// generator-bound median marked `*`, or why there is no number.
fn rps_cell(r: &Row) -> String {
    if r.is_measured() {
        return r.rps_or_bound_text();
    }
    bound_or_failure(r, measures::rps, units::grouped)
}

fn p99_cell(r: &Row) -> String {
    let ok = r.values(measures::p99_ms);
    if !ok.is_empty() {
        return short_ms(median(&ok));
    }
    bound_or_failure(r, measures::p99_ms, short_ms)
}

/// Milliseconds: whole from 10 up, one decimal below.
fn short_ms(v: f64) -> String {
    if v >= 10.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

/// The generator-bound runs' median of `m` marked `*`, else the disturbed runs' marked
/// `†`, else the worst label, else blank.
fn bound_or_failure(r: &Row, m: Measure, show: fn(f64) -> String) -> String {
    let bound = r.bound_values(m);
    if !bound.is_empty() {
        return format!("{}*", show(median(&bound)));
    }
    let marked = r.marked_values(m);
    if r.is_marked() && !marked.is_empty() {
        return format!("{} {MARKED}", show(median(&marked)));
    }
    r.failure().map_or(String::new(), |l| l.word().to_string())
}
