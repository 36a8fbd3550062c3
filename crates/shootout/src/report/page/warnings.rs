//! What a reader checks before trusting the results, after them and folded (`<details>`,
//! no script): contestants that ran unverified, the runs by label and those that are not
//! ok, the generator's warnings, and the cells that did not converge. The summary of
//! each fold says how many, so a closed fold still tells whether to open it.

use crate::model::{Label, RunRecord};
use crate::report::document::Document;
use crate::report::table::columns::{Column, Design};
use crate::report::table::escape;
use crate::stats::measures;
use std::fmt::Write;

/// The folds, under their heading.
pub fn folded(d: &Document) -> String {
    let mut out =
        String::from("<div class=\"warnings\"><h3>Warnings and runs that did not count</h3>\n");
    out += &fold(
        &format!("{} ran unverified", count(d.warnings().len(), "contestant")),
        &paragraphs(&d.warnings()),
    );
    out += &not_ok(&d.runs);
    out += &generator_warnings(&d.runs);
    if let [first, rest @ ..] = &d.convergence()[..] {
        out += &fold(first, &paragraphs(rest));
    }
    out + "</div>\n"
}

/// `<details>` with `summary`, or nothing when there is nothing inside.
fn fold(summary: &str, inside: &str) -> String {
    match inside.is_empty() {
        true => String::new(),
        false => format!(
            "<details><summary>{}</summary>\n{inside}</details>\n",
            escape(summary)
        ),
    }
}

fn paragraphs(lines: &[String]) -> String {
    let mut out = String::new();
    for line in lines {
        let _ = writeln!(out, "<p class=\"warn\">{}</p>", escape(line));
    }
    out
}

/// `1 contestant`, `3 runs`.
fn count(n: usize, what: &str) -> String {
    match n {
        1 => format!("1 {what}"),
        _ => format!("{n} {what}s"),
    }
}

/// `34 runs by label: 23 ok, 4 generator-bound, 3 server-failed`.
fn by_label(runs: &[RunRecord]) -> String {
    let counts: Vec<String> = (Label::ALL.iter())
        .map(|l| (l, runs.iter().filter(|r| r.label() == *l).count()))
        .filter(|(_, n)| *n > 0)
        .map(|(l, n)| format!("{n} {}", l.word()))
        .collect();
    format!(
        "{} by label: {}",
        count(runs.len(), "run"),
        counts.join(", ")
    )
}

/// The runs by label, and the table of those that are not ok (with why) when some are.
fn not_ok(runs: &[RunRecord]) -> String {
    let flagged: Vec<&RunRecord> = runs.iter().filter(|r| r.label() != Label::Ok).collect();
    if flagged.is_empty() {
        return format!(
            "<p>{}: every run measured the server.</p>\n",
            by_label(runs)
        );
    }
    let design = Design {
        title: "Runs that are not ok".into(),
        columns: which_run_and(Column::name("reason", reason)),
        marks: vec![
            "generator-bound runs describe the generator, not the server: they are never ranked"
                .into(),
        ],
    };
    fold(&by_label(runs), &design.draw(&flagged).html())
}

/// The runs the generator warned about, each with its warnings.
fn generator_warnings(runs: &[RunRecord]) -> String {
    let warned: Vec<&RunRecord> = (runs.iter())
        .filter(|r| !measures::warnings(r).is_empty())
        .collect();
    let design = Design {
        title: "The generator's warnings".into(),
        columns: which_run_and(Column::name("warnings", |r: &&RunRecord| {
            measures::warnings(r).join("; ")
        })),
        marks: Vec::new(),
    };
    let summary = format!("The generator warned about {}", count(warned.len(), "run"));
    match warned.is_empty() {
        true => String::new(),
        false => fold(&summary, &design.draw(&warned).html()),
    }
}

/// Why a run is not ok, cut to a readable length.
fn reason(r: &&RunRecord) -> String {
    r.reason().chars().take(240).collect()
}

/// Contestant, cell, repeat and label (which run a row is), then `what` of it.
fn which_run_and<'a>(what: Column<'a, &'a RunRecord>) -> Vec<Column<'a, &'a RunRecord>> {
    vec![
        Column::name("contestant", |r: &&RunRecord| {
            r.coordinates.contestant.clone()
        }),
        Column::name("cell", |r: &&RunRecord| {
            format!(
                "/{} {} {} c={}{}",
                r.coordinates.endpoint,
                r.coordinates.layout,
                r.coordinates.load,
                r.coordinates.connections,
                r.coordinates.streams_text()
            )
        }),
        Column::number("repeat", |r: &&RunRecord| {
            (r.coordinates.repeat + 1).to_string()
        }),
        Column::name("label", |r: &&RunRecord| r.label().word().into()),
        what,
    ]
}
