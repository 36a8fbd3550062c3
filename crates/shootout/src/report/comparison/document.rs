//! A comparison as one JSON document (schema `shootout.compare/1`, see docs/load.md):
//! what each side was, every cell with each measure's values, medians, change and
//! p-value (a capacity cell: each side's searches, their capacity, the change and the
//! test that judged it), the tables' notes, and the regressions `--fail-above` found.

use super::capacity::{CapacityChange, Test};
use super::{Change, Compared, ALPHA};
use crate::model::capacity::Answer;
use crate::report::side::Side;
use crate::stats::median;

/// The schema name and version of [`ComparisonDocument`].
pub const SCHEMA: &str = "shootout.compare/1";

/// `shootout compare --format json`.
#[derive(Debug, serde::Serialize)]
pub struct ComparisonDocument<'a> {
    pub schema: &'static str,
    pub before: SideSummary,
    pub after: SideSummary,
    /// The level below which a change is called significant.
    pub alpha: f64,
    pub cells: Vec<CellChange<'a>>,
    pub notes: &'a [String],
    /// `--fail-above`, and the cells significantly worse by more than it (`contestant
    /// cell`); both null without the flag.
    pub fail_above: Option<f64>,
    pub regressions: Option<&'a [String]>,
}

/// One side: its kind (`experiment`, `run`, `saved-load`, `file`), the word that named
/// it, and one line saying what it is.
#[derive(Debug, serde::Serialize)]
pub struct SideSummary {
    pub kind: &'static str,
    pub reference: String,
    pub title: String,
}

impl SideSummary {
    pub fn of(side: &Side, reference: &str) -> SideSummary {
        SideSummary {
            kind: side.kind(),
            reference: reference.to_string(),
            title: side.title(),
        }
    }
}

/// One cell compared.
#[derive(Debug, serde::Serialize)]
pub struct CellChange<'a> {
    pub contestant: &'a str,
    pub cell: &'a str,
    pub rps: MeasureChange<'a>,
    pub p99_ms: MeasureChange<'a>,
    pub cpu_ms_per_response: MeasureChange<'a>,
    /// A capacity cell's searches; absent for a cell of loads.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capacity: Option<CapacityCellChange<'a>>,
}

impl<'a> CellChange<'a> {
    pub fn of(c: &'a Compared) -> CellChange<'a> {
        CellChange {
            contestant: &c.contestant,
            cell: &c.cell,
            rps: MeasureChange::of(&c.rps),
            p99_ms: MeasureChange::of(&c.p99),
            cpu_ms_per_response: MeasureChange::of(&c.cpu),
            capacity: c.capacity.as_ref().map(CapacityCellChange::of),
        }
    }
}

/// A capacity cell, before and after: each search's answer, each side's capacity (the
/// median over its searches), the change, and how it was judged.
#[derive(Debug, serde::Serialize)]
pub struct CapacityCellChange<'a> {
    pub before: &'a [Answer],
    pub after: &'a [Answer],
    pub capacity_before: Option<f64>,
    pub capacity_after: Option<f64>,
    /// Change of the capacity, in percent of the capacity before.
    pub change_pct: Option<f64>,
    /// `mann-whitney` (three searches a side or more), `intervals` (fewer: significant
    /// when they do not overlap), or `none` (a side without a search).
    pub test: &'static str,
    /// Mann-Whitney U, two-sided, when that was the test.
    pub p: Option<f64>,
    pub significant: bool,
}

impl<'a> CapacityCellChange<'a> {
    fn of(c: &'a CapacityChange) -> CapacityCellChange<'a> {
        let [capacity_before, capacity_after] = c.rates();
        let test = c.test();
        CapacityCellChange {
            before: &c.before,
            after: &c.after,
            capacity_before,
            capacity_after,
            change_pct: c.percent(),
            test: test.word(),
            p: match test {
                Test::MannWhitney { p } => Some(p),
                Test::Intervals { .. } | Test::Nothing => None,
            },
            significant: test.significant(),
        }
    }
}

/// One measure of a cell, before and after; the computed numbers are null when a side
/// has no value (a saved load or file has no server CPU).
#[derive(Debug, serde::Serialize)]
pub struct MeasureChange<'a> {
    pub before: &'a [f64],
    pub after: &'a [f64],
    pub median_before: Option<f64>,
    pub median_after: Option<f64>,
    /// Change of the median, in percent of the median before.
    pub change_pct: Option<f64>,
    /// Mann-Whitney U, two-sided.
    pub p: Option<f64>,
    pub significant: bool,
    pub higher_is_better: bool,
}

impl<'a> MeasureChange<'a> {
    fn of(c: &'a Change) -> MeasureChange<'a> {
        let of_side = |xs: &[f64]| (!xs.is_empty()).then(|| median(xs));
        let known = c.is_known();
        let p = known.then(|| c.p());
        MeasureChange {
            before: &c.before,
            after: &c.after,
            median_before: of_side(&c.before),
            median_after: of_side(&c.after),
            change_pct: known.then(|| c.percent()),
            p,
            significant: p.is_some_and(|p| p < ALPHA),
            higher_is_better: c.higher_is_better,
        }
    }
}
