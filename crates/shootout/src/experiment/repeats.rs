//! How many rounds an experiment runs: a fixed number, or rounds until every cell is sure
//! enough: its median requests/s known to within a target (the half-width of the median's
//! 95% interval over the median), between a least and a most number of rounds.

use super::error::{at, under, FieldError, FieldProblem, Segment};
use super::file::{RepeatsFile, UntilSureFile};
use super::percent;
use crate::stats;

/// The most rounds an experiment may ask for.
const MOST_ROUNDS: usize = 100;

/// The experiment's rounds, checked.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Repeats {
    /// Exactly this many rounds of every cell.
    Fixed(usize),
    /// Rounds until each cell converges.
    UntilSure(UntilSure),
}

/// `{ min, max, target }`: every cell runs `min` rounds; a cell then runs on while its
/// median's interval is wider than the target, up to `max` rounds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UntilSure {
    pub min: usize,
    pub max: usize,
    /// The widest half-width a cell may keep, in percent of its median.
    pub target_percent: f64,
}

impl Repeats {
    /// The rounds every cell runs.
    pub fn least(&self) -> usize {
        match self {
            Repeats::Fixed(n) => *n,
            Repeats::UntilSure(u) => u.min,
        }
    }

    /// The rounds a cell runs at most.
    pub fn most(&self) -> usize {
        match self {
            Repeats::Fixed(n) => *n,
            Repeats::UntilSure(u) => u.max,
        }
    }

    /// Whether a cell runs in round `round` (from 0), given the requests/s of its ok runs
    /// so far. A cell without an ok run stops after the least rounds: it failed, was
    /// skipped, or only measured the generator, and more rounds will not change that.
    pub fn runs_in(&self, round: usize, ok_rps: &[f64]) -> bool {
        match self {
            Repeats::Fixed(n) => round < *n,
            Repeats::UntilSure(u) => {
                round < u.min || (round < u.max && !ok_rps.is_empty() && !u.converged(ok_rps))
            }
        }
    }
}

impl UntilSure {
    /// Whether ok runs with these requests/s are sure enough (a single run never is).
    pub fn converged(&self, ok_rps: &[f64]) -> bool {
        stats::converged(ok_rps, self.target_percent)
    }
}

/// The file's `repeats`, checked: each mistake names the field.
pub(super) fn check(r: &RepeatsFile) -> Result<Repeats, FieldError> {
    match r {
        RepeatsFile::Rounds(n) => Ok(Repeats::Fixed(rounds(*n).map_err(at("repeats"))?)),
        RepeatsFile::UntilSure(u) => until_sure(u).map_err(under(Segment::Field("repeats"))),
    }
}

fn until_sure(u: &UntilSureFile) -> Result<Repeats, FieldError> {
    let min = rounds(u.min).map_err(at("min"))?;
    let max = rounds(u.max).map_err(at("max"))?;
    if min > max {
        return Err(FieldProblem::MinAboveMax { min, max }.into());
    }
    Ok(Repeats::UntilSure(UntilSure {
        min,
        max,
        target_percent: percent::parse(&u.target).map_err(at("target"))?,
    }))
}

/// A number of rounds, from 1 to [`MOST_ROUNDS`].
fn rounds(n: usize) -> Result<usize, FieldProblem> {
    match (1..=MOST_ROUNDS).contains(&n) {
        true => Ok(n),
        false => Err(FieldProblem::Rounds { most: MOST_ROUNDS }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SURE: Repeats = Repeats::UntilSure(UntilSure {
        min: 3,
        max: 6,
        target_percent: 1.0,
    });

    #[test]
    fn a_cell_runs_until_its_interval_is_within_the_target() {
        // ±0.2% (range 998..1002 over 1000): within 1% once the least rounds are done.
        let tight = [1000.0, 998.0, 1002.0];
        assert!(
            SURE.runs_in(2, &tight[..2]),
            "every cell runs the least rounds"
        );
        assert!(!SURE.runs_in(3, &tight));
        // ±5%: on, up to the most rounds.
        let wide = [1000.0, 950.0, 1050.0];
        assert!(SURE.runs_in(3, &wide));
        assert!(SURE.runs_in(5, &wide));
        assert!(!SURE.runs_in(6, &wide), "max stops it");
        // One ok run says nothing of spread; none at all will not change with more.
        assert!(SURE.runs_in(3, &[1000.0]));
        assert!(!SURE.runs_in(3, &[]));
    }

    #[test]
    fn a_fixed_number_runs_exactly_that() {
        let three = Repeats::Fixed(3);
        assert!(three.runs_in(2, &[]) && !three.runs_in(3, &[1.0, 1.0, 1.0]));
        assert_eq!((three.least(), three.most()), (3, 3));
        assert_eq!((SURE.least(), SURE.most()), (3, 6));
    }
}
