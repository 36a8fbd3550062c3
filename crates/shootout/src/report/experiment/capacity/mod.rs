//! Capacity at objective (issue 24): for each capacity load of an experiment (a cell of
//! the matrix), a table of the highest rate each contestant answered while every
//! objective held, with the interval its search allows, ranked by the interval's lower
//! end; a bound ("at least R": the generator, not the server, ran out first) is marked and
//! says why; a contestant without a search keeps its row with the reason. Beside it, what
//! a response cost the server at the search's lowest step and at capacity: the two ends
//! of its cost curve. Several searches of one contestant (repeats) count as one answer
//! (`combined`); `searches` gathers them, `ranked` orders the rows, `shown` writes their
//! cells and `sentence` says each row again in words.

pub mod combined;
mod ranked;
pub mod searches;
mod sentence;
mod shown;

use crate::model::capacity::Answer;
use crate::model::RunRecord;
use crate::report::experiment::marks::MARKED;
use crate::report::table::columns::{Column, Design};
use crate::report::table::Table;
pub use combined::combined;
pub use ranked::{cells, Cell, Line};
pub use searches::Searches;

/// One table per capacity cell of `runs` (none without capacity runs).
pub fn tables(runs: &[RunRecord]) -> Vec<Table> {
    cells(runs).iter().map(table).collect()
}

/// `Capacity at objective — /hello, layout split, keep-alive, 50 connections: p99<10ms`.
fn title(cell: &Cell) -> String {
    format!(
        "Capacity at objective — {}: {}",
        cell.key.title(),
        cell.objectives
    )
}

fn table(cell: &Cell) -> Table {
    let several = cell.lines.iter().any(|l| l.searches.counted.len() > 1);
    let design = Design {
        title: title(cell),
        columns: columns(several),
        marks: marks(&cell.lines),
    };
    let mut t = design.draw(&cell.lines);
    t.notes
        .extend((cell.lines.iter()).filter_map(|l| sentence::sentence(l, &cell.objectives)));
    t
}

/// The columns; `several` adds how many searches each row rests on.
fn columns<'a>(several: bool) -> Vec<Column<'a, Line<'a>>> {
    let mut out = vec![
        Column::name("rank", Line::rank_text),
        Column::name("contestant", |l: &Line| l.searches.contestant.to_string()),
        Column::number("capacity/s", shown::capacity).meaning(
            "capacity: the highest offered rate whose judgements mostly met every objective \
             (the median over searches); ranked by the interval's lower end, overlapping \
             intervals share a rank",
        ),
        Column::number("interval/s", shown::interval).meaning(
            "interval: from the highest rate that never missed to the lowest above it that \
             never met (over several searches, the lowest low to the highest high)",
        ),
    ];
    if several {
        out.push(Column::number("searches", |l: &Line| {
            l.searches.counted.len().to_string()
        }));
    }
    out.extend([
        Column::number("steps", shown::steps),
        Column::number("CPU µs/resp at lowest step", shown::lowest_cost).meaning(
            "CPU µs/resp: the server's CPU per response at the search's lowest rate and at \
             the step at capacity (medians over searches): the two ends of its cost curve",
        ),
        Column::number("… at capacity", shown::cost_at_capacity),
        Column::name("notes", shown::notes),
    ]);
    out
}

/// What the marks of `lines` mean, those that occur.
fn marks(lines: &[Line]) -> Vec<String> {
    let bound = |f: fn(&Answer) -> bool| lines.iter().any(|l| l.answer.as_ref().is_some_and(f));
    let mut out = Vec::new();
    if bound(|a| matches!(a, Answer::AtLeast { .. }) && !combined::found_nothing(a)) {
        out.push(shown::AT_LEAST_MEANING.to_string());
    }
    if bound(|a| matches!(a, Answer::Below { .. })) {
        out.push(shown::BELOW_MEANING.to_string());
    }
    if lines.iter().any(|l| l.searches.marked) {
        out.push(format!(
            "{MARKED} no valid search: the searches of disturbed runs (notes say how)"
        ));
    }
    out
}

#[cfg(test)]
mod tests;
