//! One contestant's searches in one capacity cell: which count (its ok runs', or its
//! disturbed runs', marked, when it has no ok one), their answer taken together, how
//! many steps they took, and what a response cost the server at the lowest rate they
//! judged and at capacity.

use super::combined::{combined, found_nothing};
use crate::model::capacity::{Answer, CapacityResult, Step};
use crate::model::{Label, RunRecord};
use crate::report::experiment::row::Row;
use crate::stats::median;

/// One contestant's searches in one cell.
#[derive(Debug, Clone)]
pub struct Searches<'a> {
    pub contestant: &'a str,
    /// Every run of the contestant in the cell, searched or not.
    pub runs: Vec<&'a RunRecord>,
    /// The searches the figures are drawn from.
    pub counted: Vec<&'a CapacityResult>,
    /// True when they are disturbed runs' (no ok run searched).
    pub marked: bool,
}

impl<'a> Searches<'a> {
    /// The searches of `contestant`'s `runs` in one cell.
    pub fn of(contestant: &'a str, runs: Vec<&'a RunRecord>) -> Searches<'a> {
        let of_label = |label: Label| -> Vec<&'a CapacityResult> {
            (runs.iter())
                .filter(|r| r.label() == label)
                .filter_map(|r| r.capacity.as_ref())
                .collect()
        };
        let ok = of_label(Label::Ok);
        let disturbed = of_label(Label::Disturbed);
        let marked = ok.is_empty() && !disturbed.is_empty();
        Searches {
            contestant,
            counted: if marked { disturbed } else { ok },
            runs,
            marked,
        }
    }

    /// The counted searches' answer taken together; None without one.
    pub fn answer(&self) -> Option<Answer> {
        let answers: Vec<&Answer> = self.counted.iter().map(|s| &s.answer).collect();
        combined(&answers)
    }

    /// What the ranking goes by: the answer's lower end and its upper end (unbounded for
    /// a bound); None for searches that found nothing, which are not ranked.
    pub fn span(&self) -> Option<(f64, f64)> {
        let a = self.answer().filter(|a| !found_nothing(a))?;
        Some((a.low(), a.high().unwrap_or(f64::INFINITY)))
    }

    /// How many steps each counted search took.
    pub fn steps(&self) -> Vec<usize> {
        self.counted.iter().map(|s| s.steps.len()).collect()
    }

    /// The lowest rate any counted search judged with the server's CPU known, and the
    /// median CPU µs per response at each search's lowest such step.
    pub fn lowest_cost(&self) -> Option<(f64, f64)> {
        let lowest: Vec<(f64, f64)> = (self.counted.iter())
            .filter_map(|s| {
                (s.steps.iter())
                    .filter_map(cost)
                    .min_by(|a, b| a.0.total_cmp(&b.0))
            })
            .collect();
        let rate = lowest.iter().map(|c| c.0).min_by(f64::total_cmp)?;
        let us: Vec<f64> = lowest.iter().map(|c| c.1).collect();
        Some((rate, median(&us)))
    }

    /// The median CPU µs per response at each counted search's step at capacity.
    pub fn cost_at_capacity(&self) -> Option<f64> {
        let us: Vec<f64> = (self.counted.iter())
            .filter_map(|s| s.at_capacity()?.server_cpu_us_per_response)
            .collect();
        (!us.is_empty()).then(|| median(&us))
    }

    /// The runs that are not ok, as the other tables say them (`1 server-failed: ...`).
    pub fn notes(&self) -> String {
        let row = Row {
            contestant: self.contestant,
            runs: self.runs.clone(),
            rank: None,
        };
        row.notes()
    }
}

/// A step's rate and server CPU µs per response, when the server was watched.
fn cost(s: &Step) -> Option<(f64, f64)> {
    Some((s.rate, s.server_cpu_us_per_response?))
}
