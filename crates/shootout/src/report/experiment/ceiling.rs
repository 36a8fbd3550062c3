//! The reference server whose row every table measures the others against (issue 7):
//! the best this machine allows. Its columns: requests/s as a percentage of the
//! ceiling's, and server CPU per response as a multiple of the ceiling's.

use crate::model::RunRecord;
use crate::report::experiment::cell_key::CellKey;
use crate::report::experiment::marks::{BOUND_MARK, MARKED};
use crate::report::experiment::ranking;
use crate::report::experiment::row::{self, Row};
use crate::report::table::columns::{Column, Design};
use crate::report::table::Table;
use crate::stats::measures;
use crate::stats::median;

/// Where a table puts the ceiling's note among its own.
#[derive(Debug, Clone, Copy)]
pub enum NotePlace {
    First,
    Last,
}

/// One table per cell of `runs`: a row per contestant with `columns`, then the ceiling's
/// columns when it measured in the cell, then the notes.
pub fn ranked_tables<'a>(
    runs: &'a [RunRecord],
    columns: fn() -> Vec<Column<'a, Row<'a>>>,
    note_place: NotePlace,
) -> Vec<Table> {
    let table = |key: &CellKey, rows: &[Row<'a>]| {
        let top = find(rows);
        let mut all = columns();
        all.extend(top.into_iter().flat_map(self::columns));
        all.push(Column::name("notes", |r: &Row| r.notes()));
        let design = Design {
            title: key.title(),
            columns: all,
            marks: [vec![BOUND_MARK.into()], row::carried_marks(rows.iter())].concat(),
        };
        let mut t = design.draw(rows);
        match (top, note_place) {
            (None, _) => {}
            (Some(top), NotePlace::First) => t.notes.insert(0, note(top.contestant)),
            (Some(top), NotePlace::Last) => t.notes.push(note(top.contestant)),
        }
        t
    };
    ranking::cells(runs)
        .iter()
        .map(|(key, rows)| table(key, rows))
        .collect()
}

use crate::contestant::catalog::{CEILING, TLS_CEILING};

/// The ceiling's row in a cell, when it measured there (ok, generator-bound, or marked:
/// disturbed in every run).
pub fn find<'r, 'a>(rows: &'r [Row<'a>]) -> Option<&'r Row<'a>> {
    rows.iter()
        .find(|r| is_ceiling(r) && !top_values(r, measures::rps).is_empty())
}

/// Whether `row` is the ceiling of its cell: c-epoll in clear text, c-epoll-tls over TLS
/// (a cell's runs are all over TLS or all in clear text).
fn is_ceiling(row: &Row) -> bool {
    let over_tls = (row.runs.iter()).any(|r| r.result().is_some_and(|x| x.tls.is_some()));
    row.contestant == if over_tls { TLS_CEILING } else { CEILING }
}

/// What the ceiling's figure rests on: its ok and generator-bound runs, else its marked
/// ones.
fn top_values(top: &Row, m: measures::Measure) -> Vec<f64> {
    let measured = top.measured_values(m);
    match measured.is_empty() {
        true => top.marked_values(m),
        false => measured,
    }
}

/// A row's own figure for `m` and whether it is marked: its ok runs', else its marked
/// runs'; None for a row with neither.
fn row_values(row: &Row, m: measures::Measure) -> Option<(Vec<f64>, bool)> {
    match (row.is_measured(), row.is_marked()) {
        (true, _) => Some((row.values(m), false)),
        (false, true) => Some((row.marked_values(m), true)),
        (false, false) => None,
    }
}

/// The two "of ceiling" columns against `top`, the ceiling's row.
pub fn columns<'c, 'a: 'c>(top: &'c Row<'a>) -> [Column<'c, Row<'a>>; 2] {
    [
        Column::number("% of ceiling", move |r: &Row| percent_of(r, top)),
        Column::number("CPU/req vs ceiling", move |r: &Row| cpu_multiple(r, top)),
    ]
}

/// What the ceiling (`name`) is, under a table with its columns.
pub fn note(name: &str) -> String {
    let over_tls = if name == TLS_CEILING { " over TLS" } else { "" };
    format!(
        "ceiling: {name} (contestants/{name}), the best this machine allows{over_tls}; its \
         req/s counts its generator-bound runs too (a lower bound of what it can do)"
    )
}

/// The ceiling's median requests/s over the runs its figure rests on, and whether they
/// are marked, when `row` can be set against it (it has a figure and the ceiling a
/// positive rate).
fn top_rps(row: &Row, top: &Row) -> Option<(f64, bool)> {
    let rps = median(&top_values(top, measures::rps));
    let marked = top.is_marked();
    (row_values(row, measures::rps).is_some() && rps > 0.0).then_some((rps, marked))
}

/// `†` when either side of a comparison rests on marked runs.
fn mark(either: bool) -> &'static str {
    if either {
        MARKED
    } else {
        ""
    }
}

/// Median requests/s of `row` in percent of the ceiling's, `86%` (`86%†` when either
/// rests on marked runs); blank without a figure.
pub fn percent_of(row: &Row, top: &Row) -> String {
    if row.contestant == top.contestant {
        return "100%".into();
    }
    let (Some((top, top_marked)), Some((rps, marked))) =
        (top_rps(row, top), row_values(row, measures::rps))
    else {
        return String::new();
    };
    let m = mark(top_marked || marked);
    format!("{:.0}%{m}", 100.0 * median(&rps) / top)
}

/// Median server CPU per response of `row` as a multiple of the ceiling's, `×1.59`;
/// blank without a figure, `-` when the ceiling's is zero.
pub fn cpu_multiple(row: &Row, top: &Row) -> String {
    if row.contestant == top.contestant {
        return "×1.00".into();
    }
    let cpu = measures::cpu_ms_per_response;
    let (Some(_), Some((mine, marked))) = (top_rps(row, top), row_values(row, cpu)) else {
        return String::new();
    };
    let top_cpu = median(&top_values(top, cpu));
    match top_cpu > 0.0 && !mine.is_empty() {
        true => format!(
            "×{:.2}{}",
            median(&mine) / top_cpu,
            mark(marked || top.is_marked())
        ),
        false => "-".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Label, RunRecord};
    use crate::report::experiment::ranking;
    use crate::report::fixture::{hello, hello_run, run};

    /// The row of `name` and the ceiling's, set against each other.
    fn against(runs: &[RunRecord], name: &str) -> (String, String) {
        let cells = ranking::cells(runs);
        let rows = &cells[0].1;
        let top = find(rows).expect("the ceiling measured");
        let row = rows.iter().find(|r| r.contestant == name).unwrap();
        (percent_of(row, top), cpu_multiple(row, top))
    }

    #[test]
    fn rows_are_set_against_the_ceiling() {
        let runs = vec![
            hello_run(CEILING, Label::Ok, 20_000.0, 2.0),
            hello_run(CEILING, Label::Ok, 20_000.0, 2.0),
            hello_run("half", Label::Ok, 10_000.0, 2.0),
        ];
        // Half the rate on the same CPU: twice the CPU per response.
        assert_eq!(against(&runs, "half"), ("50%".into(), "×2.00".into()));
        assert_eq!(against(&runs, CEILING), ("100%".into(), "×1.00".into()));
    }

    #[test]
    fn a_generator_bound_ceiling_bounds_from_below() {
        let runs = vec![
            hello_run(CEILING, Label::GeneratorBound, 40_000.0, 1.0),
            hello_run("other", Label::Ok, 20_000.0, 1.0),
            hello_run("bound", Label::GeneratorBound, 30_000.0, 1.0),
        ];
        assert_eq!(against(&runs, "other"), ("50%".into(), "×2.00".into()));
        // Against itself always 100%, even with generator-bound runs only.
        assert_eq!(against(&runs, CEILING), ("100%".into(), "×1.00".into()));
        // A row without ok runs is not set against it.
        assert_eq!(against(&runs, "bound"), (String::new(), String::new()));
    }

    #[test]
    fn a_ceiling_without_cpu_or_without_a_measurement() {
        let runs = vec![
            hello_run(CEILING, Label::Ok, 20_000.0, 0.0),
            hello_run("other", Label::Ok, 10_000.0, 1.0),
        ];
        assert_eq!(against(&runs, "other"), ("50%".into(), "-".into()));
        let failed = vec![
            run(CEILING, hello(50), 0, Label::ServerFailed, None),
            hello_run("other", Label::Ok, 10_000.0, 1.0),
        ];
        assert!(find(&ranking::cells(&failed)[0].1).is_none());
    }
}
