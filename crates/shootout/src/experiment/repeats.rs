//! How many rounds an experiment runs: a fixed number, or rounds until every cell is sure
//! enough: its median requests/s known to within a target (the half-width of the median's
//! 95% interval over the median), between a least and a most number of rounds.

use super::file::{RepeatsFile, UntilSureFile};
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
pub(super) fn check(r: &RepeatsFile) -> Result<Repeats, String> {
    let rounds = |field: &str, n: usize| match (1..=MOST_ROUNDS).contains(&n) {
        true => Ok(n),
        false => Err(format!("{field}: between 1 and {MOST_ROUNDS}")),
    };
    match r {
        RepeatsFile::Rounds(n) => Ok(Repeats::Fixed(rounds("repeats", *n)?)),
        RepeatsFile::UntilSure(UntilSureFile { min, max, target }) => {
            let min = rounds("repeats: min", *min)?;
            let max = rounds("repeats: max", *max)?;
            if min > max {
                return Err(format!("repeats: min ({min}) is above max ({max})"));
            }
            let target_percent = percent(target).map_err(|w| format!("repeats: target: {w}"))?;
            Ok(Repeats::UntilSure(UntilSure {
                min,
                max,
                target_percent,
            }))
        }
    }
}

/// `"5%"` → 5.
pub(super) fn percent(text: &str) -> Result<f64, String> {
    let number = text.trim().strip_suffix('%');
    match number.map(|n| n.trim().parse::<f64>()) {
        Some(Ok(p)) if p.is_finite() && p > 0.0 => Ok(p),
        Some(Ok(_)) => Err(format!("{text:?} must be above 0%")),
        _ => Err(format!("{text:?} is not a percentage like \"5%\"")),
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

    #[test]
    fn targets_are_percentages() {
        assert_eq!(percent("5%"), Ok(5.0));
        assert_eq!(percent(" 0.5 % "), Ok(0.5));
        assert_eq!(
            percent("x%"),
            Err("\"x%\" is not a percentage like \"5%\"".into())
        );
        assert!(percent("5").is_err());
        assert_eq!(percent("0%"), Err("\"0%\" must be above 0%".into()));
    }
}
