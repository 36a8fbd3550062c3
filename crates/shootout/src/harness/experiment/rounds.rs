//! The rounds of an experiment, planned one at a time: which contestant × cell pairs run
//! in the next round (every pair for the least rounds, then those not yet sure enough),
//! and when no round starts any more (done, the time budget spent, or Ctrl-C).

use super::{Experiment, Repeats};
use crate::record::{Label, RunRecord};
use crate::report::stats::measures;
use std::time::Duration;

/// What has run so far, and what may come.
#[derive(Debug)]
pub struct Rounds {
    repeats: Repeats,
    budget: Option<Duration>,
    /// Cells per contestant: pair `c × cells + i` is contestant c in cell i.
    cells: usize,
    /// Requests/s of each pair's ok runs.
    ok_rps: Vec<Vec<f64>>,
    started: usize,
    /// Runs of the rounds started.
    planned: usize,
}

/// One round: its number (from 0; the runs' repeat) and the pairs that run in it.
#[derive(Debug)]
pub struct Round {
    pub number: usize,
    due: Vec<bool>,
    cells: usize,
}

/// Why no further round starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// Every pair ran its rounds, or is sure enough.
    Done,
    /// The time budget is spent (the rounds started were finished).
    OutOfBudget,
    /// Ctrl-C: the rounds every pair was certain to run are over.
    Interrupted,
}

impl Round {
    /// Whether contestant `contestant` (its place in the experiment) runs in cell `cell`.
    pub fn runs(&self, contestant: usize, cell: usize) -> bool {
        self.due[contestant * self.cells + cell]
    }
}

impl Rounds {
    /// The rounds of `exp`, none started; no round starts once `budget` is spent.
    pub fn new(exp: &Experiment, budget: Option<Duration>) -> Rounds {
        Rounds::of(
            exp.repeats,
            exp.contestants.len(),
            exp.cells().len(),
            budget,
        )
    }

    fn of(repeats: Repeats, contestants: usize, cells: usize, budget: Option<Duration>) -> Rounds {
        Rounds {
            repeats,
            budget,
            cells,
            ok_rps: vec![Vec::new(); contestants * cells],
            started: 0,
            planned: 0,
        }
    }

    /// The next round, after `spent` since the experiment began. After Ctrl-C the rounds
    /// every pair was certain to run still come (their runs are recorded as interrupted,
    /// as a fixed number of rounds always was); no round beyond them starts.
    pub fn next(&mut self, spent: Duration, interrupted: bool) -> Result<Round, Stop> {
        let number = self.started;
        if interrupted && number >= self.repeats.least() {
            return Err(Stop::Interrupted);
        }
        if self.budget.is_some_and(|b| spent >= b) {
            return Err(Stop::OutOfBudget);
        }
        let due: Vec<bool> = (self.ok_rps.iter())
            .map(|ok| self.repeats.runs_in(number, ok))
            .collect();
        let runs = due.iter().filter(|d| **d).count();
        if runs == 0 {
            return Err(Stop::Done);
        }
        self.started += 1;
        self.planned += runs;
        Ok(Round {
            number,
            due,
            cells: self.cells,
        })
    }

    /// Counts the run `r` of contestant `contestant` in cell `cell`.
    pub fn record(&mut self, contestant: usize, cell: usize, r: &RunRecord) {
        let ok = (r.label() == Label::Ok).then(|| measures::rps(r)).flatten();
        self.add(contestant * self.cells + cell, ok);
    }

    fn add(&mut self, pair: usize, ok_rps: Option<f64>) {
        if let (Some(v), Some(rps)) = (self.ok_rps.get_mut(pair), ok_rps) {
            v.push(rps);
        }
    }

    /// The runs known to come in all: those of the rounds started, and every pair's in
    /// the least rounds not started yet. It grows as rounds beyond the least start.
    pub fn total(&self) -> usize {
        self.planned + self.repeats.least().saturating_sub(self.started) * self.ok_rps.len()
    }

    /// Rounds started so far.
    pub fn started(&self) -> usize {
        self.started
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::experiment::UntilSure;

    const SOON: Duration = Duration::from_secs(1);

    fn until_sure(min: usize, max: usize, target_percent: f64) -> Repeats {
        Repeats::UntilSure(UntilSure {
            min,
            max,
            target_percent,
        })
    }

    /// Runs rounds with pair p measuring `rps(p, round)`, until they stop; the pairs that
    /// ran in each round, and why it stopped.
    fn drive(rounds: &mut Rounds, rps: impl Fn(usize, usize) -> Option<f64>) -> Vec<Vec<usize>> {
        let mut ran = Vec::new();
        while let Ok(round) = rounds.next(SOON, false) {
            let due: Vec<usize> = (0..rounds.ok_rps.len()).filter(|p| round.due[*p]).collect();
            for &p in &due {
                rounds.add(p, rps(p, round.number));
            }
            ran.push(due);
        }
        ran
    }

    #[test]
    fn a_pair_stops_once_sure_the_others_go_on_to_max() {
        // Pair 0 is steady (±0.1%), pair 1 swings ±10%, pair 2 never has an ok run.
        let mut rounds = Rounds::of(until_sure(3, 5, 1.0), 3, 1, None);
        assert_eq!(rounds.total(), 9, "the least rounds are certain");
        let ran = drive(&mut rounds, |p, r| match p {
            0 => Some(1000.0 + r as f64),
            1 => Some(if r % 2 == 0 { 900.0 } else { 1100.0 }),
            _ => None,
        });
        assert_eq!(
            ran,
            [
                vec![0, 1, 2],
                vec![0, 1, 2],
                vec![0, 1, 2],
                vec![1],
                vec![1]
            ]
        );
        assert_eq!(
            rounds.total(),
            11,
            "the total grew by the rounds beyond the least"
        );
        assert_eq!(rounds.next(SOON, false).unwrap_err(), Stop::Done);
    }

    #[test]
    fn a_fixed_number_of_rounds_runs_every_pair_in_each() {
        let mut rounds = Rounds::of(Repeats::Fixed(2), 2, 2, None);
        let ran = drive(&mut rounds, |_, _| Some(1.0));
        assert_eq!(ran, [vec![0, 1, 2, 3], vec![0, 1, 2, 3]]);
        assert_eq!(rounds.total(), 8);
    }

    #[test]
    fn the_budget_stops_new_rounds() {
        let mut rounds = Rounds::of(until_sure(2, 10, 0.0001), 1, 1, Some(SOON * 60));
        assert!(rounds.next(SOON * 59, false).is_ok());
        assert_eq!(
            rounds.next(SOON * 60, false).unwrap_err(),
            Stop::OutOfBudget
        );
        assert_eq!(rounds.started(), 1);
        let mut fixed = Rounds::of(Repeats::Fixed(3), 1, 1, Some(SOON));
        assert_eq!(fixed.next(SOON * 2, false).unwrap_err(), Stop::OutOfBudget);
    }

    #[test]
    fn after_ctrl_c_only_the_certain_rounds_come() {
        let mut rounds = Rounds::of(until_sure(2, 10, 0.0001), 1, 1, None);
        assert!(rounds.next(SOON, true).is_ok());
        rounds.add(0, Some(1000.0));
        assert!(
            rounds.next(SOON, true).is_ok(),
            "round 2 of the least still comes"
        );
        rounds.add(0, Some(2000.0));
        assert_eq!(rounds.next(SOON, true).unwrap_err(), Stop::Interrupted);
        assert!(
            rounds.next(SOON, false).is_ok(),
            "without Ctrl-C it would go on"
        );
    }
}
