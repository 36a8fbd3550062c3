//! Two experiments side by side (before and after a change): per cell and contestant,
//! the change in requests/s, p99 and server CPU per request, and whether it is
//! significant given the repeats (Mann-Whitney U, two-sided, 5%); in a capacity cell,
//! the change of the capacity at objective ([`capacity`]), in a table of its own. Two
//! single loads (saved, from files, or one run each) are one cell of one run a side.

pub mod capacity;
pub mod document;

use crate::model::{LoadKind, RunRecord};
use crate::report::experiment::ranking;
use crate::report::experiment::row::Row;
use crate::report::side::Single;
use crate::report::table::columns::{Column, Design};
use crate::report::table::Table;
use crate::stats::measures::{self, Measure};
use crate::stats::median;
use crate::stats::significance::mann_whitney;
use crate::units;
use capacity::CapacityChange;

/// The level below which a difference is called significant.
pub const ALPHA: f64 = 0.05;

/// One measure of one cell, before and after.
#[derive(Debug, Clone)]
pub struct Change {
    pub before: Vec<f64>,
    pub after: Vec<f64>,
    /// True when higher is better (requests/s), false for latency and CPU.
    pub higher_is_better: bool,
}

impl Change {
    /// Change of the median, in percent of the median before.
    pub fn percent(&self) -> f64 {
        let (a, b) = (median(&self.before), median(&self.after));
        if a == 0.0 {
            0.0
        } else {
            100.0 * (b - a) / a
        }
    }

    pub fn p(&self) -> f64 {
        mann_whitney(&self.before, &self.after)
    }

    /// Whether the change is significant at 5% (the one place that asks).
    pub fn significant(&self) -> bool {
        self.p() < ALPHA
    }

    /// Whether both sides have values (a file or saved load has no server CPU).
    pub fn is_known(&self) -> bool {
        !self.before.is_empty() && !self.after.is_empty()
    }

    /// Significantly worse by more than `pct` percent.
    pub fn regressed(&self, pct: f64) -> bool {
        let worse = if self.higher_is_better {
            -self.percent()
        } else {
            self.percent()
        };
        worse > pct && self.significant()
    }

    fn text(&self) -> String {
        if !self.is_known() {
            return "-".into();
        }
        let p = self.p();
        let mark = if p < ALPHA { " *" } else { "" };
        format!("{:+.1}% (p={p:.3}){mark}", self.percent())
    }
}

/// A cell present on both sides.
#[derive(Debug, Clone)]
pub struct Compared {
    /// The contestant; for single loads, their names (`a → b`).
    pub contestant: String,
    /// The cell's title; for single loads, what was loaded.
    pub cell: String,
    pub rps: Change,
    pub p99: Change,
    pub cpu: Change,
    /// A capacity cell's searches (then the other measures have no values: the step at
    /// capacity's rate, latency and cost are the search's, not a load's to compare).
    pub capacity: Option<CapacityChange>,
}

impl Compared {
    /// Significantly worse by more than `pct` percent: requests/s or the capacity down,
    /// p99 or CPU per request up.
    pub fn regressed(&self, pct: f64) -> bool {
        let capacity = self.capacity.as_ref().is_some_and(|c| c.regressed(pct));
        capacity || self.rps.regressed(pct) || self.p99.regressed(pct) || self.cpu.regressed(pct)
    }
}

/// Matches the cells of `before` and `after` by contestant and cell.
pub fn compare(before: &[RunRecord], after: &[RunRecord]) -> Vec<Compared> {
    let old = ranking::cells(before);
    let mut out = Vec::new();
    for (key, rows) in ranking::cells(after) {
        for row in &rows {
            let Some(prev) = old
                .iter()
                .filter(|(k, _)| *k == key)
                .flat_map(|(_, r)| r.iter())
                .find(|r| r.contestant == row.contestant)
            else {
                continue;
            };
            let searched = |r: &Row| r.runs.iter().all(|x| x.is_capacity());
            match (searched(prev), searched(row)) {
                (true, true) => out.push(searched_cell(prev, row, key.title())),
                (false, false) => out.push(Compared {
                    contestant: row.contestant.to_string(),
                    cell: key.title(),
                    rps: change(prev, row, true, measures::rps),
                    p99: change(prev, row, false, measures::p99_ms),
                    cpu: change(prev, row, false, measures::cpu_ms_per_response),
                    capacity: None,
                }),
                // A search on one side and a load on the other measure different things.
                _ => {}
            }
        }
    }
    out
}

/// A capacity cell compared: the ok runs' searches a side; the cell named with its
/// objectives (and the earlier ones, when they changed).
fn searched_cell(before: &Row, after: &Row, cell: String) -> Compared {
    let answers = |r: &Row| -> Vec<crate::model::capacity::Answer> {
        (r.ok_runs().filter_map(|x| x.capacity.as_ref()))
            .map(|c| c.answer.clone())
            .collect()
    };
    let objectives = |r: &Row| {
        r.runs.iter().find_map(|x| match &x.kind {
            LoadKind::Capacity { objectives } => Some(objectives.clone()),
            _ => None,
        })
    };
    let (was, now) = (objectives(before), objectives(after));
    let earlier = match was != now {
        true => format!(" (before: {})", was.unwrap_or_default()),
        false => String::new(),
    };
    let none = |higher_is_better| Change {
        before: Vec::new(),
        after: Vec::new(),
        higher_is_better,
    };
    Compared {
        contestant: after.contestant.to_string(),
        cell: format!("{cell}: {}{earlier}", now.unwrap_or_default()),
        rps: none(true),
        p99: none(false),
        cpu: none(false),
        capacity: Some(CapacityChange {
            before: answers(before),
            after: answers(after),
        }),
    }
}

fn change(a: &Row, b: &Row, higher_is_better: bool, m: Measure) -> Change {
    Change {
        before: a.values(m),
        after: b.values(m),
        higher_is_better,
    }
}

/// Two single loads as one cell, whatever their names: one value a side of requests/s
/// and p99, and of server CPU per request where the harness measured it.
pub fn singles(before: &Single, after: &Single) -> Compared {
    let either = |a: String, b: String| if a == b { a } else { format!("{a} → {b}") };
    let one =
        |s: &Single, m: fn(&Single) -> Option<f64>| -> Vec<f64> { m(s).into_iter().collect() };
    let change = |m: fn(&Single) -> Option<f64>, higher_is_better| Change {
        before: one(before, m),
        after: one(after, m),
        higher_is_better,
    };
    let contestant = either(before.name.clone(), after.name.clone());
    let cell = either(before.shape(), after.shape());
    if let (Some(a), Some(b)) = (&before.capacity, &after.capacity) {
        let objectives = either(a.objectives.join(", "), b.objectives.join(", "));
        return Compared {
            contestant,
            cell: format!("{cell}: {objectives}"),
            rps: change(|_| None, true),
            p99: change(|_| None, false),
            cpu: change(|_| None, false),
            capacity: Some(CapacityChange {
                before: vec![a.answer.clone()],
                after: vec![b.answer.clone()],
            }),
        };
    }
    Compared {
        contestant,
        cell,
        rps: change(|s| Some(s.result.rps), true),
        p99: change(|s| Some(s.result.latency_us.p99 / 1000.0), false),
        cpu: change(|s| s.cpu_ms_per_response, false),
        capacity: None,
    }
}

/// The tables of a comparison of experiments: the cells of loads (when there are
/// any), then the capacity cells (when there are any).
pub fn tables(rows: &[Compared]) -> Vec<Table> {
    let (searched, loads): (Vec<Compared>, Vec<Compared>) =
        rows.iter().cloned().partition(|c| c.capacity.is_some());
    let mut out = Vec::new();
    if !loads.is_empty() || searched.is_empty() {
        out.push(table(&loads));
    }
    if !searched.is_empty() {
        out.push(capacity_table(&searched));
    }
    out
}

/// The capacity cells compared, a row each.
pub fn capacity_table(rows: &[Compared]) -> Table {
    let of = |c: &Compared| {
        c.capacity.clone().unwrap_or(CapacityChange {
            before: Vec::new(),
            after: Vec::new(),
        })
    };
    let columns = vec![
        Column::name("contestant", |c: &Compared| c.contestant.clone()),
        Column::name("cell", |c: &Compared| c.cell.clone()),
        Column::number("searches", move |c: &Compared| of(c).counts()),
        Column::number("capacity before", move |c: &Compared| {
            CapacityChange::side_text(&of(c).sides()[0])
        }),
        Column::number("capacity after", move |c: &Compared| {
            CapacityChange::side_text(&of(c).sides()[1])
        }),
        Column::number("change", move |c: &Compared| of(c).percent_text()),
        Column::number("significant?", move |c: &Compared| of(c).test().text()),
    ];
    let design = Design {
        title: "Capacity at objective, before → after".into(),
        columns,
        marks: vec![capacity::legend()],
    };
    design.draw(rows)
}

/// The comparison of experiments as a table.
pub fn table(rows: &[Compared]) -> Table {
    let title = "Before → after (medians of ok runs; * significant at 5%, Mann-Whitney U)";
    let mut t = design(title, "contestant").draw(rows);
    let fewest = rows
        .iter()
        .map(|c| c.rps.before.len().min(c.rps.after.len()))
        .min()
        .unwrap_or(0);
    if fewest < 4 {
        t.notes.push(format!(
            "with {fewest} ok run(s) on a side no difference can be significant at 5% \
             (the exact test needs 4 against 4: p = 0.029 at best); use repeats = 5"
        ));
    }
    t
}

/// The comparison of two single loads as a table: their capacities when both were
/// searches.
pub fn single_table(row: &Compared) -> Table {
    if row.capacity.is_some() {
        return capacity_table(std::slice::from_ref(row));
    }
    let mut t = design("Before → after (one load a side)", "loads").draw([row]);
    t.notes.push(
        "one load a side: no difference can be significant (the exact test needs 4 runs \
         against 4), so --fail-above never fails on it; to know, run an experiment with \
         repeats = 5"
            .into(),
    );
    t
}

/// The columns of a comparison under `title`, the first named `first`.
fn design<'a>(title: &str, first: &str) -> Design<'a, Compared> {
    Design {
        title: title.into(),
        columns: vec![
            Column::name(first, |c: &Compared| c.contestant.clone()),
            Column::name("cell", |c: &Compared| c.cell.clone()),
            Column::number("runs", |c: &Compared| {
                format!("{}→{}", c.rps.before.len(), c.rps.after.len())
            }),
            Column::number("req/s before", |c: &Compared| {
                units::grouped(median(&c.rps.before))
            }),
            Column::number("req/s after", |c: &Compared| {
                units::grouped(median(&c.rps.after))
            }),
            Column::number("req/s", |c: &Compared| c.rps.text()),
            Column::number("p99", |c: &Compared| c.p99.text()),
            Column::number("CPU/request", |c: &Compared| c.cpu.text()),
        ],
        marks: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_regression_is_significant_and_beyond_the_threshold() {
        let slower = Change {
            before: vec![100.0, 101.0, 102.0, 103.0, 104.0],
            after: vec![80.0, 81.0, 82.0, 83.0, 84.0],
            higher_is_better: true,
        };
        assert!((slower.percent() + 19.6).abs() < 0.1);
        assert!(slower.regressed(10.0) && !slower.regressed(25.0));
        let cpu_down = Change {
            higher_is_better: false,
            ..slower.clone()
        };
        assert!(!cpu_down.regressed(10.0), "less CPU is better");
        let noisy = Change {
            before: vec![100.0, 80.0],
            after: vec![70.0, 60.0],
            higher_is_better: true,
        };
        assert!(
            !noisy.regressed(5.0),
            "two runs a side cannot be significant"
        );
    }
}
