//! What the thresholds came to: an experiment's judged per contestant and cell on the
//! report's medians, and a table of those crossed (threshold, measured, by how much in
//! the metric's unit and as a percentage of the limit), or one line when all held. A
//! capacity threshold (`capacity>30000/s`) is judged in the capacity cells on the
//! capacity table's figure; a bound that crosses it says it is a bound.

use crate::model::capacity::Answer;
use crate::model::RunRecord;
use crate::report::experiment::capacity::Searches;
use crate::report::experiment::cell_key::CellKey;
use crate::report::experiment::ranking;
use crate::report::experiment::row::Row;
use crate::report::table::columns::{Column, Design};
use crate::stats::median;
use crate::threshold::{Judgement, Metric, Threshold, Thresholds};

/// One contestant's threshold judged in one cell of the matrix.
#[derive(Debug, Clone)]
pub struct CellJudgement<'t, 'r> {
    pub contestant: &'r str,
    pub cell: CellKey,
    pub judgement: Judgement<'t>,
    /// What a reader must know of the measured value: a capacity that is only a bound.
    pub note: Option<String>,
}

// Here, not in threshold/: an experiment's thresholds are judged on the medians the
// report's tables show, over the same cells and rows.
impl Thresholds {
    /// Every contestant's thresholds in every cell of `runs` it ran in, in the report's
    /// order of cells and rows. A capacity threshold is judged in the capacity cells
    /// only, when there are any (elsewhere nothing searched, and it counts as crossed).
    pub fn judge<'g, 'r>(&'g self, runs: &'r [RunRecord]) -> Vec<CellJudgement<'g, 'r>> {
        let searched = runs.iter().any(RunRecord::is_capacity);
        let mut out = Vec::new();
        for (cell, rows) in ranking::cells(runs) {
            for row in &rows {
                let capacity_cell = row.runs.iter().all(|r| r.is_capacity());
                let applies =
                    |t: &&Threshold| t.metric != Metric::Capacity || capacity_cell || !searched;
                out.extend(self.of(row.contestant).filter(applies).map(|t| {
                    let (judgement, note) = match t.metric {
                        Metric::Capacity => judge_searches(t, row),
                        _ => (judge_row(t, row), None),
                    };
                    CellJudgement {
                        contestant: row.contestant,
                        cell: cell.clone(),
                        judgement,
                        note,
                    }
                }));
            }
        }
        out
    }
}

/// A capacity threshold on the row's valid searches taken together, as the capacity
/// table shows them (none when only disturbed runs searched: nothing valid to judge);
/// a bound's reason as the note.
fn judge_searches<'t>(threshold: &'t Threshold, row: &Row) -> (Judgement<'t>, Option<String>) {
    let searches = Searches::of(row.contestant, row.runs.clone());
    let answer = searches.answer().filter(|_| !searches.marked);
    let why = match &answer {
        Some(a) => a.reason().unwrap_or_default(),
        None if !row.runs.iter().any(|r| r.is_capacity()) => "not a capacity search".into(),
        None => match row.failure() {
            Some(label) => format!("no valid search ({})", label.word()),
            None => "no valid search".into(),
        },
    };
    let value = answer.as_ref().and_then(Answer::rate);
    let note = match &answer {
        Some(a @ Answer::AtLeast { .. }) => a.reason().map(|why| format!("at least: {why}")),
        _ => None,
    };
    (Judgement::of(threshold, value, &why), note)
}

/// `threshold` on the median of its metric over the row's valid runs, the median every
/// table of the report shows.
fn judge_row<'t>(threshold: &'t Threshold, row: &Row) -> Judgement<'t> {
    let values: Vec<f64> = row
        .ok_runs()
        .filter_map(|r| threshold.metric.of_run(r))
        .collect();
    let why = match (row.ok_runs().next(), row.failure()) {
        (Some(_), _) => "nothing measured".to_string(),
        (None, Some(label)) => format!("no valid run ({})", label.word()),
        (None, None) => "no valid run".to_string(),
    };
    Judgement::of(
        threshold,
        (!values.is_empty()).then(|| median(&values)),
        &why,
    )
}

/// What the `by` columns mean, under every table of crossed thresholds.
const BY: &str = "by: the measured value minus the limit, in the metric's unit and in % of \
                  the limit; a threshold that nothing measured counts as crossed";

/// A load's thresholds: the crossed ones as a table, or one line saying that all held.
pub fn load_text(judged: &[Judgement]) -> String {
    let crossed: Vec<&Judgement> = judged.iter().filter(|j| !j.held()).collect();
    if crossed.is_empty() {
        return format!("thresholds: {} held\n", all(judged.len()));
    }
    let design = Design {
        title: format!("thresholds crossed: {} of {}", crossed.len(), judged.len()),
        columns: judgement_columns(|j: &&Judgement| *j),
        marks: vec![BY.into()],
    };
    design.draw(&crossed).text()
}

/// An experiment's thresholds, judged per contestant and cell: the crossed ones as a
/// table, or one line saying that all held.
pub fn experiment_text(judged: &[CellJudgement]) -> String {
    let crossed: Vec<&CellJudgement> = judged.iter().filter(|c| !c.judgement.held()).collect();
    if crossed.is_empty() {
        return format!(
            "thresholds: {} held (each contestant's, in every cell it ran in)\n",
            all(judged.len())
        );
    }
    let mut columns = vec![
        Column::name("contestant", |c: &&CellJudgement| c.contestant.to_string()),
        Column::name("cell", |c: &&CellJudgement| c.cell.title()),
    ];
    columns.extend(judgement_columns(|c: &&CellJudgement| &c.judgement));
    if crossed.iter().any(|c| c.note.is_some()) {
        let note = |c: &&CellJudgement| c.note.clone().unwrap_or_default();
        columns.push(Column::name("notes", note));
    }
    let design = Design {
        title: format!(
            "thresholds crossed: {} of {} (contestant × cell × threshold; medians over valid runs)",
            crossed.len(),
            judged.len()
        ),
        columns,
        marks: vec![BY.into()],
    };
    design.draw(&crossed).text()
}

/// `all 3` or `the 1`.
fn all(n: usize) -> String {
    match n {
        1 => "the 1".into(),
        n => format!("all {n}"),
    }
}

/// The columns of one judgement, for rows of type `R` that hold one.
fn judgement_columns<'a, R: 'a>(of: impl Fn(&R) -> &Judgement + Copy + 'a) -> Vec<Column<'a, R>> {
    vec![
        Column::name("threshold", move |r: &R| of(r).threshold.to_string()),
        Column::number("measured", move |r: &R| of(r).measured_text()),
        Column::number("by", move |r: &R| of(r).by_text()),
        Column::number("% of limit", move |r: &R| of(r).by_percent_text()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Label;
    use crate::report::fixture::{hello, hello_run, run};
    use std::collections::BTreeMap;

    fn table(entries: &[(&str, &[&str])]) -> BTreeMap<String, Vec<String>> {
        entries
            .iter()
            .map(|(k, v)| (k.to_string(), v.iter().map(|s| s.to_string()).collect()))
            .collect()
    }

    #[test]
    fn crossed_thresholds_make_a_table_held_ones_a_line() {
        let p99: Threshold = "p99<5ms".parse().unwrap();
        let rps: Threshold = "rps > 1000".parse().unwrap();
        let judged = [
            Judgement::of(&p99, Some(7200.0), "no response"),
            Judgement::of(&rps, Some(5000.0), "no response"),
        ];
        let text = load_text(&judged);
        assert_eq!(
            text,
            format!(
                "thresholds crossed: 1 of 2\n  \
                 threshold  measured       by  % of limit\n  \
                 p99<5ms      7.20ms  +2.20ms      +44.0%\n  {BY}\n"
            )
        );
        assert_eq!(load_text(&judged[1..]), "thresholds: the 1 held\n");
    }

    #[test]
    fn cells_are_judged_on_the_median_of_their_valid_runs() {
        let runs = vec![
            hello_run("a", Label::Ok, 1000.0, 1.0),
            hello_run("a", Label::Ok, 3000.0, 1.0),
            hello_run("a", Label::Ok, 2000.0, 1.0),
            // Not valid: left out of the median.
            hello_run("a", Label::GeneratorBound, 9000.0, 1.0),
            run("b", hello(50), 0, Label::ServerFailed, None),
        ];
        let g = Thresholds::parse(&table(&[("all", &["rps>1500"])])).unwrap();
        let judged = g.judge(&runs);
        assert_eq!(judged.len(), 2);
        let a = &judged[0];
        assert_eq!(a.contestant, "a");
        assert_eq!(a.judgement.measured_text(), "2,000 req/s");
        assert!(a.judgement.held());
        let b = &judged[1];
        assert_eq!(b.contestant, "b");
        assert!(
            !b.judgement.held(),
            "a cell with no valid run counts as crossed"
        );
        assert_eq!(b.judgement.by_text(), "no valid run (server-failed)");
        assert_eq!(
            b.cell.title(),
            "/hello, layout split, keep-alive, 50 connections"
        );
    }

    #[test]
    fn a_capacity_threshold_is_judged_on_the_capacity_table_s_figure_a_bound_said() {
        let mut runs = crate::report::fixture::capacity_document().runs;
        let closed = crate::report::fixture::At {
            load: "closed",
            ..hello(50)
        };
        let measured = crate::report::fixture::Measured {
            rps: 30_000.0,
            p99_ms: 1.0,
            server_cpu_s: 1.0,
            errors: 0,
        };
        runs.push(run("nginx-static", closed, 0, Label::Ok, Some(measured)));
        let g = Thresholds::parse(&table(&[("all", &["capacity>30000/s"])])).unwrap();
        let judged = g.judge(&runs);
        assert_eq!(
            judged.len(),
            8,
            "the capacity cells', not the closed cell's"
        );
        let of = |contestant: &str, load: &str| {
            let found = judged
                .iter()
                .find(|c| c.contestant == contestant && c.cell.load == load);
            found.unwrap()
        };
        let nginx = of("nginx-static", "keep-alive");
        assert!(nginx.judgement.held());
        assert_eq!(nginx.judgement.measured_text(), "47,300/s");
        assert!(
            of("c-epoll", "keep-alive").judgement.held(),
            "at least 64,000/s"
        );
        let go = &of("go-nethttp", "keep-alive").judgement;
        assert_eq!((go.held(), go.by_text()), (false, "-1,900/s".into()));
        let failed = &of("py-slow", "keep-alive").judgement;
        assert_eq!(failed.by_text(), "no valid search (server-failed)");
        let text = experiment_text(&judged);
        assert!(text.starts_with("thresholds crossed: 6 of 8"), "{text}");
        assert!(!text.contains("notes"), "no bound crossed: {text}");
        // A bound below the limit crosses it, and says it is only a bound.
        let high = Thresholds::parse(&table(&[("c-epoll", &["capacity>100k/s"])])).unwrap();
        let judged = high.judge(&runs);
        let text = experiment_text(&judged);
        assert!(
            text.contains("capacity>100k/s  64,000/s  -36,000/s"),
            "{text}"
        );
        assert!(
            text.contains("notes") && text.contains("at least: at 128,000/s the generator sent"),
            "{text}"
        );
    }

    #[test]
    fn a_capacity_threshold_without_a_search_counts_as_crossed() {
        let runs = vec![hello_run("a", Label::Ok, 50_000.0, 1.0)];
        let g = Thresholds::parse(&table(&[("all", &["capacity>30000/s"])])).unwrap();
        let judged = g.judge(&runs);
        assert_eq!(judged.len(), 1);
        assert!(!judged[0].judgement.held());
        assert_eq!(judged[0].judgement.by_text(), "not a capacity search");
    }
}
