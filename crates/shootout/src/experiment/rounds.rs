//! The rounds of an experiment, planned one at a time: which contestant × cell pairs run
//! in the next round (every pair for the least rounds, then those not yet sure enough,
//! and make-up runs for pairs that lack valid runs), and when no round starts any more
//! (done, the time budget spent, or Ctrl-C).

use super::{Experiment, MakeUp, Repeats};
use crate::contestant::catalog::{CEILING, TLS_CEILING};
use crate::model::standing::Standing;
use crate::model::{Label, RunRecord};
use crate::stats::measures;
use std::time::Duration;

/// What has run so far, and what may come.
#[derive(Debug)]
pub struct Rounds {
    repeats: Repeats,
    budget: Option<Duration>,
    make_up: MakeUp,
    /// Cells per contestant: pair `c × cells + i` is contestant c in cell i.
    cells: usize,
    /// The ceiling's place among the contestants, when it is one: its make-ups go first.
    ceiling: Option<usize>,
    pairs: Vec<Pair>,
    started: usize,
    /// Runs of the rounds started.
    planned: usize,
    /// Make-up runs of the rounds started.
    made_up: usize,
    /// When the least rounds were over (from the experiment's start), once they are.
    plan_took: Option<Duration>,
}

/// What one contestant × cell pair has run.
#[derive(Debug, Clone, Default)]
struct Pair {
    /// Requests/s of its ok runs (what "sure enough" is judged on).
    ok_rps: Vec<f64>,
    runs: usize,
    /// Runs that count for the cell's table.
    counted: usize,
    /// Generator-bound runs: when every run is, the load is beyond the generator here
    /// and a make-up would measure it again.
    bound: usize,
    /// Some run ended for a lasting reason: more runs change nothing.
    lasting: bool,
    make_ups: usize,
}

impl Pair {
    /// Make-up runs it is owed after its planned runs: as many as it lacks valid runs,
    /// while another run could count.
    fn owed(&self, least: usize) -> usize {
        let structural = self.runs > 0 && self.bound == self.runs;
        if self.runs < least || self.lasting || structural {
            return 0;
        }
        // At most as many make-ups as planned runs: a pair that fails that often says
        // something about the machine, which the marked figure and its reason tell.
        let lacking = least.saturating_sub(self.counted);
        lacking.min(least.saturating_sub(self.make_ups))
    }
}

/// One round: its number (from 0; the runs' repeat) and the pairs that run in it.
#[derive(Debug)]
pub struct Round {
    pub number: usize,
    due: Vec<Due>,
    cells: usize,
}

/// Whether a pair runs in a round, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Due {
    No,
    /// A planned repeat, or a round until sure.
    Planned,
    /// A make-up run: the pair lacks valid runs.
    MakeUp,
}

/// Why no further round starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// Every pair ran its rounds, or is sure enough, and has its valid runs or no
    /// make-up left to try.
    Done,
    /// The time budget is spent (the rounds started were finished).
    OutOfBudget,
    /// Ctrl-C: the rounds every pair was certain to run are over.
    Interrupted,
}

impl Round {
    /// Whether contestant `contestant` (its place in the experiment) runs in cell `cell`.
    pub fn runs(&self, contestant: usize, cell: usize) -> bool {
        self.due[contestant * self.cells + cell] != Due::No
    }

    /// Whether that run is a make-up run.
    pub fn makes_up(&self, contestant: usize, cell: usize) -> bool {
        self.due[contestant * self.cells + cell] == Due::MakeUp
    }
}

impl Rounds {
    /// The rounds of `exp`, none started; no round starts once `budget` is spent.
    pub fn new(exp: &Experiment, budget: Option<Duration>) -> Rounds {
        // In an experiment over TLS without c-epoll, the TLS ceiling's rows are the ones
        // every other row is set against.
        let place = |name: &str| exp.contestants.iter().position(|c| c == name);
        let ceiling = place(CEILING).or_else(|| place(TLS_CEILING));
        let mut rounds = Rounds::of(
            exp.repeats,
            exp.contestants.len(),
            exp.cells().len(),
            budget,
        );
        rounds.make_up = exp.make_up;
        rounds.ceiling = ceiling;
        rounds
    }

    fn of(repeats: Repeats, contestants: usize, cells: usize, budget: Option<Duration>) -> Rounds {
        Rounds {
            repeats,
            budget,
            make_up: MakeUp::default(),
            cells,
            ceiling: None,
            pairs: vec![Pair::default(); contestants * cells],
            started: 0,
            planned: 0,
            made_up: 0,
            plan_took: None,
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
        let mut due: Vec<Due> = (self.pairs.iter())
            .map(|p| match self.repeats.runs_in(number, &p.ok_rps) {
                true => Due::Planned,
                false => Due::No,
            })
            .collect();
        if number >= self.repeats.least() {
            let took = *self.plan_took.get_or_insert(spent);
            if self.make_up.allows(spent.saturating_sub(took), took) {
                self.add_make_ups(&mut due);
            }
        }
        let runs = due.iter().filter(|d| **d != Due::No).count();
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

    /// Marks the pairs owed a make-up run in `due`, within the runs left: the ceiling's
    /// first (every row of a table is set against it), then the others in order.
    fn add_make_ups(&mut self, due: &mut [Due]) {
        let least = self.repeats.least();
        let ceiling = |pair: usize| Some(pair / self.cells.max(1)) == self.ceiling;
        let mut order: Vec<usize> = (0..self.pairs.len()).collect();
        order.sort_by_key(|&p| !ceiling(p));
        let cap = self
            .make_up
            .runs_for(self.repeats.least() * self.pairs.len());
        for p in order {
            if self.made_up >= cap {
                break;
            }
            if due[p] == Due::No && self.pairs[p].owed(least) > 0 {
                due[p] = Due::MakeUp;
                self.pairs[p].make_ups += 1;
                self.made_up += 1;
            }
        }
    }

    /// Counts the run `r` of contestant `contestant` in cell `cell`.
    pub fn record(&mut self, contestant: usize, cell: usize, r: &RunRecord) {
        let ok = (r.label() == Label::Ok).then(|| measures::rps(r)).flatten();
        let bound = r.label() == Label::GeneratorBound;
        self.add(contestant * self.cells + cell, Standing::of(r), ok, bound);
    }

    fn add(&mut self, pair: usize, standing: Standing, ok_rps: Option<f64>, bound: bool) {
        let Some(p) = self.pairs.get_mut(pair) else {
            return;
        };
        p.runs += 1;
        p.ok_rps.extend(ok_rps);
        p.bound += usize::from(bound);
        match standing {
            Standing::Counts => p.counted += 1,
            Standing::Retry => {}
            Standing::Final => p.lasting = true,
        }
    }

    /// The runs known to come in all: those of the rounds started, and every pair's in
    /// the least rounds not started yet. It grows as rounds beyond the least start.
    pub fn total(&self) -> usize {
        self.planned + self.repeats.least().saturating_sub(self.started) * self.pairs.len()
    }

    /// Rounds started so far.
    pub fn started(&self) -> usize {
        self.started
    }

    /// Make-up runs started so far.
    pub fn made_up(&self) -> usize {
        self.made_up
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::UntilSure;

    const SOON: Duration = Duration::from_secs(1);

    fn until_sure(min: usize, max: usize, target_percent: f64) -> Repeats {
        Repeats::UntilSure(UntilSure {
            min,
            max,
            target_percent,
        })
    }

    /// What pair p's run in a round came to: its standing and requests/s.
    type Outcome = (Standing, Option<f64>);

    fn counts(rps: f64) -> Outcome {
        (Standing::Counts, Some(rps))
    }

    const DISTURBED: Outcome = (Standing::Retry, None);

    /// Runs rounds with pair p's run coming to `outcome(p, round)`, until they stop; the
    /// pairs that ran in each round (a make-up marked by `+ 100`).
    fn drive(rounds: &mut Rounds, outcome: impl Fn(usize, usize) -> Outcome) -> Vec<Vec<usize>> {
        let mut ran = Vec::new();
        while let Ok(round) = rounds.next(SOON, false) {
            let mut these = Vec::new();
            for p in (0..rounds.pairs.len()).filter(|p| round.due[*p] != Due::No) {
                let (standing, rps) = outcome(p, round.number);
                rounds.add(p, standing, rps, false);
                these.push(p + 100 * usize::from(round.due[p] == Due::MakeUp));
            }
            ran.push(these);
        }
        ran
    }

    #[test]
    fn a_pair_stops_once_sure_the_others_go_on_to_max() {
        // Pair 0 is steady (±0.1%), pair 1 swings ±10%, pair 2 never counts, for a
        // lasting reason (its server fails).
        let mut rounds = Rounds::of(until_sure(3, 5, 1.0), 3, 1, None);
        assert_eq!(rounds.total(), 9, "the least rounds are certain");
        let ran = drive(&mut rounds, |p, r| match p {
            0 => counts(1000.0 + r as f64),
            1 => counts(if r % 2 == 0 { 900.0 } else { 1100.0 }),
            _ => (Standing::Final, None),
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
        let ran = drive(&mut rounds, |_, _| counts(1.0));
        assert_eq!(ran, [vec![0, 1, 2, 3], vec![0, 1, 2, 3]]);
        assert_eq!(rounds.total(), 8);
        assert_eq!(rounds.made_up(), 0);
    }

    #[test]
    fn pairs_lacking_valid_runs_are_made_up_until_they_have_their_repeats() {
        // Pair 0 counts every time; pair 1 is disturbed in rounds 0 and 3 (a make-up);
        // pair 2 is disturbed always: it gets as many make-ups as repeats, no more.
        let mut rounds = Rounds::of(Repeats::Fixed(3), 3, 1, None);
        let ran = drive(&mut rounds, |p, r| match (p, r) {
            (0, _) => counts(1.0),
            (1, 0 | 3) => DISTURBED,
            (1, _) => counts(1.0),
            _ => DISTURBED,
        });
        assert_eq!(
            ran,
            [
                vec![0, 1, 2],
                vec![0, 1, 2],
                vec![0, 1, 2],
                vec![101, 102],
                vec![101, 102],
                vec![102]
            ]
        );
        assert_eq!(rounds.made_up(), 5);
        assert_eq!(rounds.total(), 14, "the planned 9 and 5 make-ups");
    }

    #[test]
    fn make_ups_stop_at_the_run_cap_the_ceiling_first() {
        // Three contestants, the ceiling second; all disturbed in every run. Half the
        // plan (3 × 2 = 6 runs) allows 3 make-ups: the ceiling's two cells first.
        let mut rounds = Rounds::of(Repeats::Fixed(1), 3, 2, None);
        rounds.ceiling = Some(1);
        let ran = drive(&mut rounds, |_, _| DISTURBED);
        assert_eq!(
            ran[1],
            [100, 102, 103],
            "ceiling's pairs 2 and 3, then pair 0"
        );
        assert_eq!(rounds.made_up(), 3);
        assert_eq!(ran.len(), 2, "the cap is spent: no further round");
    }

    #[test]
    fn make_ups_stop_at_the_time_cap() {
        let mut rounds = Rounds::of(Repeats::Fixed(2), 1, 1, None);
        rounds.make_up.time = Some(SOON * 10);
        for _ in 0..2 {
            assert!(rounds.next(SOON, false).is_ok());
            rounds.add(0, Standing::Retry, None, false);
        }
        // The plan ended at 20 s: make-ups may start until 30 s, though the pair is
        // owed two.
        assert!(rounds.next(SOON * 20, false).is_ok());
        rounds.add(0, Standing::Retry, None, false);
        assert_eq!(rounds.next(SOON * 30, false).unwrap_err(), Stop::Done);
        assert_eq!(rounds.made_up(), 1);
    }

    #[test]
    fn no_make_up_for_a_lasting_reason_or_a_load_beyond_the_generator() {
        let mut rounds = Rounds::of(Repeats::Fixed(2), 2, 1, None);
        for _ in 0..2 {
            assert!(rounds.next(SOON, false).is_ok());
            rounds.add(0, Standing::Final, None, false);
            // Generator-bound in every run: the load needs more generator than there is.
            rounds.add(1, Standing::Retry, None, true);
        }
        assert_eq!(rounds.next(SOON, false).unwrap_err(), Stop::Done);
        let mut turned_off = Rounds::of(Repeats::Fixed(1), 1, 1, None);
        turned_off.make_up.runs = Some(0);
        assert!(turned_off.next(SOON, false).is_ok());
        turned_off.add(0, Standing::Retry, None, false);
        assert_eq!(turned_off.next(SOON, false).unwrap_err(), Stop::Done);
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
        rounds.add(0, Standing::Counts, Some(1000.0), false);
        assert!(
            rounds.next(SOON, true).is_ok(),
            "round 2 of the least still comes"
        );
        rounds.add(0, Standing::Counts, Some(2000.0), false);
        assert_eq!(rounds.next(SOON, true).unwrap_err(), Stop::Interrupted);
        assert!(
            rounds.next(SOON, false).is_ok(),
            "without Ctrl-C it would go on"
        );
    }
}
