//! The capacity cells of an experiment, each with a line per contestant: its searches,
//! their answer, and its rank by the answer's interval (overlapping intervals share a
//! rank; a bound reaches up without end), best first; contestants without a search last,
//! in the experiment's order.

use super::searches::Searches;
use crate::model::capacity::Answer;
use crate::model::{LoadKind, RunRecord};
use crate::report::experiment::cell_key::CellKey;
use crate::report::experiment::marks::MARKED;
use crate::stats;

/// One capacity cell: where it ran, its objectives, and its lines ranked.
#[derive(Debug, Clone)]
pub struct Cell<'a> {
    pub key: CellKey,
    /// As its load wrote them: `p99<10ms, errors<0.1%`.
    pub objectives: String,
    pub lines: Vec<Line<'a>>,
}

/// One contestant in a capacity cell.
#[derive(Debug, Clone)]
pub struct Line<'a> {
    pub searches: Searches<'a>,
    /// The searches' answer; None without a search.
    pub answer: Option<Answer>,
    /// 1 = best; None without a search.
    pub rank: Option<usize>,
}

impl Line<'_> {
    /// `2`, `2†` for a line that rests on disturbed runs, `-` without a search.
    pub fn rank_text(&self) -> String {
        let mark = if self.searches.marked { MARKED } else { "" };
        self.rank.map_or("-".into(), |k| format!("{k}{mark}"))
    }
}

/// The capacity cells of `runs`, in the order they first appear.
pub fn cells(runs: &[RunRecord]) -> Vec<Cell<'_>> {
    let mut keys: Vec<CellKey> = Vec::new();
    for k in runs.iter().filter(|r| r.is_capacity()).map(CellKey::of) {
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    keys.into_iter().map(|k| cell(runs, k)).collect()
}

/// The cell `key` of `runs`.
fn cell(runs: &[RunRecord], key: CellKey) -> Cell<'_> {
    let these: Vec<&RunRecord> = (runs.iter())
        .filter(|r| r.is_capacity() && CellKey::of(r) == key)
        .collect();
    let mut names: Vec<&str> = Vec::new();
    for r in &these {
        if !names.contains(&r.coordinates.contestant.as_str()) {
            names.push(&r.coordinates.contestant);
        }
    }
    let mut lines: Vec<Line> = (names.into_iter())
        .map(|name| {
            let mine = these
                .iter()
                .copied()
                .filter(|r| r.coordinates.contestant == name);
            let searches = Searches::of(name, mine.collect());
            Line {
                answer: searches.answer(),
                searches,
                rank: None,
            }
        })
        .collect();
    rank(&mut lines);
    Cell {
        key,
        objectives: objectives(&these),
        lines,
    }
}

/// The objectives the cell's load wrote; empty when no run says.
fn objectives(runs: &[&RunRecord]) -> String {
    let objectives = runs.iter().find_map(|r| match &r.kind {
        LoadKind::Capacity { objectives } => Some(objectives.as_str()),
        _ => None,
    });
    objectives.unwrap_or_default().to_string()
}

/// Ranks the lines with a search by their spans, then sorts: by rank, then by the lower
/// end (highest first); those without a search last, in their order (the sort is stable).
fn rank(lines: &mut [Line]) {
    let spans: Vec<(usize, (f64, f64))> = (lines.iter().enumerate())
        .filter_map(|(i, l)| Some((i, l.searches.span()?)))
        .collect();
    let intervals: Vec<(f64, f64)> = spans.iter().map(|s| s.1).collect();
    for ((i, _), rank) in spans.iter().zip(stats::ranks(&intervals)) {
        lines[*i].rank = Some(rank);
    }
    let low = |l: &Line| l.answer.as_ref().map_or(0.0, Answer::low);
    lines.sort_by(|a, b| {
        let rank = |l: &Line| l.rank.unwrap_or(usize::MAX);
        rank(a).cmp(&rank(b)).then(low(b).total_cmp(&low(a)))
    });
}
