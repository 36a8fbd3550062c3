//! What a search found, read from its steps: the highest rate that met the objectives,
//! with the interval the boundary's repeats allow, or a bound when the search could not
//! say more.

use super::ending::Ending;
use super::step::Step;
use super::tally::Tally;
use crate::units::grouped;

/// A search's answer.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Answer {
    /// The capacity: the highest rate whose judgements mostly met, between the highest
    /// rate that never missed (`low`) and the lowest above it that never met (`high`).
    Interval { estimate: f64, low: f64, high: f64 },
    /// At least `rate` (0 when no step met): the search could not go higher, and why.
    AtLeast { rate: f64, reason: String },
    /// Every step missed, down to `rate`.
    Below { rate: f64 },
}

impl Answer {
    /// The answer from the steps and how the search ended.
    pub fn of(steps: &[Step], ending: &Ending) -> Answer {
        let judged = Tally::of(steps);
        let at_least = |reason: String| Answer::AtLeast {
            rate: judged.estimate().unwrap_or(0.0),
            reason,
        };
        let none_met = judged.estimate().is_none();
        match ending {
            Ending::Generator { rate, reason } if none_met => at_least(format!(
                "at {}/s, before any step met, {reason}: start lower",
                grouped(*rate)
            )),
            Ending::Generator { rate, reason } => {
                at_least(format!("at {}/s {reason}", grouped(*rate)))
            }
            Ending::Ceiling { rate } => at_least(format!(
                "every step met, up to the search's highest rate ({}/s)",
                grouped(*rate)
            )),
            Ending::Interrupted => {
                at_least("the search was cut short (Ctrl-C, or a step that could not run)".into())
            }
            Ending::Floor { rate } => Answer::Below { rate: *rate },
            Ending::Found | Ending::OutOfSteps { .. } => match interval(&judged) {
                Some(found) => found,
                None if none_met => Answer::Below {
                    rate: judged.lowest().unwrap_or(0.0),
                },
                None => at_least(format!("the search's {} steps ran out", steps.len())),
            },
        }
    }

    /// The rate it stands for (the estimate, or the bound); None below every rate tried.
    pub fn rate(&self) -> Option<f64> {
        match self {
            Answer::Interval { estimate, .. } => Some(*estimate),
            Answer::AtLeast { rate, .. } => Some(*rate),
            Answer::Below { .. } => None,
        }
    }

    /// The lower end, which rankings go by (a bound is its own lower end).
    pub fn low(&self) -> f64 {
        match self {
            Answer::Interval { low, .. } => *low,
            Answer::AtLeast { rate, .. } => *rate,
            Answer::Below { .. } => 0.0,
        }
    }

    /// The upper end, when the search found one.
    pub fn high(&self) -> Option<f64> {
        match self {
            Answer::Interval { high, .. } => Some(*high),
            Answer::AtLeast { .. } => None,
            Answer::Below { rate } => Some(*rate),
        }
    }

    /// `41,200/s [39,800 - 42,500]`, `at least 64,000/s`, `below 4/s`.
    pub fn short(&self) -> String {
        match self {
            Answer::Interval {
                estimate,
                low,
                high,
            } => format!(
                "{}/s [{} - {}]",
                grouped(*estimate),
                grouped(*low),
                grouped(*high)
            ),
            Answer::AtLeast { rate, .. } if *rate == 0.0 => "no capacity found".into(),
            Answer::AtLeast { rate, .. } => format!("at least {}/s", grouped(*rate)),
            Answer::Below { rate } => format!("below {}/s", grouped(*rate)),
        }
    }

    /// Why a bound is only a bound; None for an interval.
    pub fn reason(&self) -> Option<String> {
        match self {
            Answer::Interval { .. } => None,
            Answer::AtLeast { reason, .. } => Some(reason.clone()),
            Answer::Below { rate } => {
                Some(format!("every step missed, down to {}/s", grouped(*rate)))
            }
        }
    }
}

/// The estimate between the highest rate at or below it that never missed and the
/// lowest above it that never met; None without a rate that met and one above it.
fn interval(judged: &Tally) -> Option<Answer> {
    let estimate = judged.estimate()?;
    let low = (judged.rates().rev())
        .find(|(r, _, missed)| *r <= estimate && *missed == 0)
        .map_or(estimate, |r| r.0);
    let above = || judged.rates().filter(move |(r, ..)| *r > estimate);
    let high = above()
        .find(|(_, met, _)| *met == 0)
        .or_else(|| above().next_back())?
        .0;
    Some(Answer::Interval {
        estimate,
        low,
        high,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::capacity::step;

    fn judged(pairs: &[(f64, bool)]) -> Vec<Step> {
        pairs.iter().map(|(rate, met)| step(*rate, *met)).collect()
    }

    #[test]
    fn a_clean_boundary_is_its_own_interval() {
        let steps = judged(&[
            (1e3, true),
            (2e3, false),
            (1.5e3, true),
            (2e3, false),
            (1.5e3, true),
        ]);
        let a = Answer::of(&steps, &Ending::Found);
        assert_eq!(a.short(), "1,500/s [1,500 - 2,000]");
        assert_eq!(
            (a.low(), a.rate(), a.reason()),
            (1500.0, Some(1500.0), None)
        );
    }

    #[test]
    fn a_boundary_that_wavers_widens_the_interval() {
        // 1,500 met twice of three, 2,000 met once of three: the estimate stays at 1,500,
        // the interval runs from 1,000 (never missed) to 4,000 (never met).
        let steps = judged(&[
            (1e3, true),
            (4e3, false),
            (1.5e3, true),
            (2e3, false),
            (1.5e3, false),
            (2e3, true),
            (1.5e3, true),
            (2e3, false),
        ]);
        let a = Answer::of(&steps, &Ending::Found);
        assert_eq!(a.short(), "1,500/s [1,000 - 4,000]");
    }

    #[test]
    fn bounds_say_why() {
        let steps = judged(&[(1e3, true), (2e3, true)]);
        let generator = Ending::Generator {
            rate: 4000.0,
            reason: "the generator sent 12.0% of the requests late".into(),
        };
        let a = Answer::of(&steps, &generator);
        assert_eq!(a.short(), "at least 2,000/s");
        assert_eq!(
            a.reason().unwrap(),
            "at 4,000/s the generator sent 12.0% of the requests late"
        );
        let a = Answer::of(&steps, &Ending::Ceiling { rate: 2000.0 });
        assert!(a.reason().unwrap().starts_with("every step met"));
        let first = Ending::Generator {
            rate: 1000.0,
            reason: "the generator sent 30.0% of the requests late".into(),
        };
        let a = Answer::of(&[], &first);
        assert_eq!(
            (a.short(), a.rate()),
            ("no capacity found".into(), Some(0.0))
        );
        let why = "at 1,000/s, before any step met, the generator sent 30.0% of the requests \
                   late: start lower";
        assert_eq!(a.reason().unwrap(), why);
        let a = Answer::of(&judged(&[(1e3, false)]), &Ending::Floor { rate: 1.0 });
        assert_eq!(
            (a.short(), a.rate(), a.low()),
            ("below 1/s".into(), None, 0.0)
        );
    }
}
