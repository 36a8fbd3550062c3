//! The one line that says how an experiment went, printed at its end and on the report's
//! first screen: `72 runs: 66 valid, 9 re-run, 2 marked (steal)`. Valid runs are those
//! whose verdict says something about the server; re-run, the make-up runs; marked, the
//! table rows whose figure rests on runs that did not count (`†`), with what kept their
//! runs from counting.

use crate::model::standing::Standing;
use crate::model::{Label, RunRecord};
use crate::report::experiment::capacity;
use crate::report::experiment::efficiency::Cost;
use crate::report::experiment::kinds::Kinds;
use crate::report::experiment::ranking;
use crate::report::experiment::row::Row;

/// What kept a marked row's runs from counting, as the summary names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum MarkedBy {
    /// Disturbed, more by the hypervisor's steal than by other work.
    Steal,
    /// Disturbed, more by other processes' CPU than by steal.
    ForeignCpu,
    /// The generator saturated, started late, or a shard of it failed.
    Generator,
}

impl MarkedBy {
    fn word(self) -> &'static str {
        match self {
            MarkedBy::Steal => "steal",
            MarkedBy::ForeignCpu => "foreign CPU",
            MarkedBy::Generator => "generator",
        }
    }

    /// What kept `r` from counting, for a run that may count another time.
    fn of(r: &RunRecord) -> Option<MarkedBy> {
        if Standing::of(r) != Standing::Retry {
            return None;
        }
        match (r.label(), r.verdict()) {
            (Label::Disturbed, Some(v)) if v.foreign > v.steal => Some(MarkedBy::ForeignCpu),
            (Label::Disturbed, _) => Some(MarkedBy::Steal),
            _ => Some(MarkedBy::Generator),
        }
    }

    /// What most of a row's runs that may count another time were kept by.
    fn of_row(runs: &[&RunRecord]) -> MarkedBy {
        let kinds: Vec<MarkedBy> = runs.iter().filter_map(|r| MarkedBy::of(r)).collect();
        let count = |k: MarkedBy| kinds.iter().filter(|x| **x == k).count();
        [MarkedBy::Steal, MarkedBy::ForeignCpu, MarkedBy::Generator]
            .into_iter()
            .max_by_key(|k| (count(*k), std::cmp::Reverse(*k)))
            .unwrap_or(MarkedBy::Steal)
    }
}

/// How an experiment's runs went.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    pub runs: usize,
    /// Runs whose verdict says something about the server (label `ok`).
    pub valid: usize,
    /// Make-up runs.
    pub re_run: usize,
    /// One entry per table row whose figure is marked.
    pub marked: Vec<MarkedBy>,
    /// Runs that measured nothing of the server for a lasting reason (failed, refused,
    /// skipped, interrupted).
    pub failed: usize,
}

impl Summary {
    /// The summary of an experiment's `runs`.
    pub fn of(runs: &[RunRecord]) -> Summary {
        let count = |f: &dyn Fn(&RunRecord) -> bool| runs.iter().filter(|r| f(r)).count();
        Summary {
            runs: runs.len(),
            valid: count(&|r| r.label() == Label::Ok),
            re_run: count(&|r| r.make_up),
            marked: marked_rows(runs),
            failed: count(&|r| r.label() != Label::Ok && Standing::of(r) == Standing::Final),
        }
    }

    /// `72 runs: 66 valid, 9 re-run, 2 marked (steal)`; `, 3 failed` when some did.
    pub fn line(&self) -> String {
        let mut line = format!(
            "{} runs: {} valid, {} re-run, {} marked",
            self.runs,
            self.valid,
            self.re_run,
            self.marked.len()
        );
        if !self.marked.is_empty() {
            line += &format!(" ({})", self.marked_by());
        }
        if self.failed > 0 {
            line += &format!(", {} failed", self.failed);
        }
        line
    }

    /// `steal` when one kind marked every row, else `3 steal, 1 generator`.
    fn marked_by(&self) -> String {
        let mut kinds = self.marked.clone();
        kinds.sort();
        kinds.dedup();
        if kinds.len() == 1 {
            return kinds[0].word().into();
        }
        let count = |k: &MarkedBy| self.marked.iter().filter(|m| *m == k).count();
        let parts: Vec<String> = (kinds.iter())
            .map(|k| format!("{} {}", count(k), k.word()))
            .collect();
        parts.join(", ")
    }
}

/// What marked each marked row of the tables: the capacity tables' rows that rest on
/// disturbed runs, the efficiency tables' that rest on runs that did not count, the
/// capacity at objective tables' that rest on disturbed runs' searches. The
/// device ramps are drawn, not ranked: none of theirs is marked.
fn marked_rows(runs: &[RunRecord]) -> Vec<MarkedBy> {
    let kinds = Kinds::of(runs);
    let mut out = Vec::new();
    for (_, rows) in ranking::cells(&kinds.closed) {
        let marked = rows.iter().filter(|row| row.is_marked());
        out.extend(marked.map(|row: &Row| MarkedBy::of_row(&row.runs)));
    }
    for (_, rows) in ranking::cells(&kinds.rated) {
        let marked = rows.iter().filter(|row| Cost::of(row).marked);
        out.extend(marked.map(|row: &Row| MarkedBy::of_row(&row.runs)));
    }
    for cell in capacity::cells(runs) {
        let marked = cell.lines.iter().filter(|l| l.searches.marked);
        out.extend(marked.map(|l| MarkedBy::of_row(&l.searches.runs)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixture::{disturb, hello_run, runs};

    #[test]
    fn the_line_counts_runs_valid_re_run_marked_and_failed() {
        let line = Summary::of(&runs()).line();
        assert!(line.contains(" valid, 0 re-run, 0 marked"), "{line}");
        let mut all = vec![hello_run("a", Label::Ok, 1000.0, 1.0)];
        for steal in [0.2, 0.3] {
            let mut r = hello_run("b", Label::Ok, 900.0, 1.0);
            disturb(&mut r, steal);
            all.push(r);
        }
        all[2].make_up = true;
        all.push(hello_run("c", Label::ServerFailed, 0.0, 0.0));
        let s = Summary::of(&all);
        assert_eq!(
            s.line(),
            "4 runs: 1 valid, 1 re-run, 1 marked (steal), 1 failed"
        );
    }

    #[test]
    fn rows_marked_for_different_reasons_are_counted_by_reason() {
        let s = Summary {
            runs: 10,
            valid: 7,
            re_run: 2,
            marked: vec![MarkedBy::Generator, MarkedBy::Steal, MarkedBy::Steal],
            failed: 0,
        };
        assert_eq!(
            s.line(),
            "10 runs: 7 valid, 2 re-run, 3 marked (2 steal, 1 generator)"
        );
    }
}
