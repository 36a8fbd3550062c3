//! The search itself, apart from any load: which rate to try next given the verdicts so
//! far. A coarse climb (×2 from the start rate, or ÷4 down when the start misses), then
//! a bisection between the highest rate that met and the lowest that missed, until they
//! are within the plan's precision; then both boundary rates are judged again, so that
//! the answer carries an interval. A step the generator could not keep ends the search.

use crate::model::capacity::{Ending, SearchPlan, StepVerdict, Tally};

/// Where a search is.
#[derive(Debug, Clone, PartialEq)]
enum Phase {
    /// Up from the start while steps meet.
    Climb,
    /// Down from a start that missed, until a step meets.
    Descend,
    /// Between `met` and `missed`.
    Bisect,
    /// The boundary rates judged again, one after the other.
    Confirm(Vec<f64>),
    Done(Ending),
}

/// The search's state: the highest rate that met and the lowest that missed so far.
#[derive(Debug, Clone)]
pub struct Search {
    plan: SearchPlan,
    phase: Phase,
    next: f64,
    met: Option<f64>,
    missed: Option<f64>,
    steps: usize,
    /// Judgements so far at each rate.
    tally: Tally,
}

/// Below this, a descent stops: no server worth a search misses at 1 request/s.
const FLOOR: f64 = 1.0;

impl Search {
    pub fn new(plan: SearchPlan) -> Search {
        let next = round(plan.start.min(plan.max));
        Search {
            plan,
            phase: Phase::Climb,
            next,
            met: None,
            missed: None,
            steps: 0,
            tally: Tally::default(),
        }
    }

    /// The rate of the next step, or None when the search is over.
    pub fn next_rate(&self) -> Option<f64> {
        match self.phase {
            Phase::Done(_) => None,
            _ => Some(self.next),
        }
    }

    /// Why it stopped, once it has.
    pub fn ending(&self) -> Option<&Ending> {
        match &self.phase {
            Phase::Done(e) => Some(e),
            _ => None,
        }
    }

    /// Stops the search where it is (Ctrl-C, or a step that could not run).
    pub fn stop(&mut self) {
        self.phase = Phase::Done(Ending::Interrupted);
    }

    /// Takes the verdict of the step at [`Search::next_rate`] and chooses the next.
    pub fn record(&mut self, verdict: &StepVerdict) {
        let rate = self.next;
        self.steps += 1;
        self.tally.record(rate, verdict);
        let phase = std::mem::replace(&mut self.phase, Phase::Climb);
        self.phase = match verdict {
            StepVerdict::GeneratorMissed { reason } => Phase::Done(Ending::Generator {
                rate,
                reason: reason.clone(),
            }),
            _ if self.steps >= self.plan.max_steps => {
                Phase::Done(Ending::OutOfSteps { steps: self.steps })
            }
            v => self.after(phase, rate, v.met()),
        };
    }

    /// The phase after a step at `rate` in `phase` that met or missed.
    fn after(&mut self, phase: Phase, rate: f64, met: bool) -> Phase {
        match (phase, met) {
            (Phase::Confirm(queue), _) => self.confirm(queue),
            (Phase::Climb, true) if rate >= self.plan.max => Phase::Done(Ending::Ceiling { rate }),
            (Phase::Climb, true) => {
                self.met = Some(rate);
                self.go(
                    round((rate * self.plan.climb).min(self.plan.max)),
                    Phase::Climb,
                )
            }
            (Phase::Climb | Phase::Descend, false) if self.met.is_none() => {
                self.missed = Some(rate);
                match rate / 4.0 {
                    r if r < FLOOR => Phase::Done(Ending::Floor { rate }),
                    r => self.go(round(r.max(FLOOR)), Phase::Descend),
                }
            }
            (_, met) => {
                *(if met { &mut self.met } else { &mut self.missed }) = Some(rate);
                self.bisect()
            }
        }
    }

    /// The next bisection step, or the confirmation once met and missed are close.
    fn bisect(&mut self) -> Phase {
        let (Some(lo), Some(hi)) = (self.met, self.missed) else {
            unreachable!("a bisection starts with a rate that met and one that missed");
        };
        let mid = round((lo * hi).sqrt());
        if hi / lo <= 1.0 + self.plan.precision || mid <= lo || mid >= hi {
            let wanted = |rate: f64| {
                let (met, missed) = self.tally.at(rate);
                vec![rate; self.plan.boundary_judgements.saturating_sub(met + missed)]
            };
            // Judged alternately, the lower first: lo, hi, lo, hi.
            let (mut low, mut high) = (wanted(lo), wanted(hi));
            let mut queue = Vec::new();
            while !low.is_empty() || !high.is_empty() {
                queue.extend(low.pop());
                queue.extend(high.pop());
            }
            queue.reverse();
            return self.confirm(queue);
        }
        self.go(mid, Phase::Bisect)
    }

    /// The next boundary rate to judge again, or, once both are judged enough, the end.
    fn confirm(&mut self, mut queue: Vec<f64>) -> Phase {
        match queue.pop() {
            Some(rate) => self.go(rate, Phase::Confirm(queue)),
            None => self.settle(),
        }
    }

    /// After the confirmations: the end when the boundary held (the rate below mostly
    /// met, the one above did not), else the search goes on where the majority now
    /// puts the boundary. A first step that met by luck at a rate the server cannot
    /// hold (its queue had not grown yet) would otherwise stand as the capacity.
    fn settle(&mut self) -> Phase {
        let (Some(lo), Some(hi)) = (self.met, self.missed) else {
            return Phase::Done(Ending::Found);
        };
        if !self.tally.mostly_met(lo) {
            self.missed = Some(lo);
            let below = (self.tally.rates().rev()).find(|&(r, met, missed)| r < lo && met > missed);
            self.met = below.map(|r| r.0);
            return match self.met {
                Some(_) => self.bisect(),
                None => match round(lo / 4.0) {
                    r if r < FLOOR => Phase::Done(Ending::Floor { rate: lo }),
                    r => self.go(r, Phase::Descend),
                },
            };
        }
        if self.tally.mostly_met(hi) {
            self.met = Some(hi);
            let above = self
                .tally
                .rates()
                .find(|&(r, met, missed)| r > hi && met <= missed);
            self.missed = above.map(|r| r.0);
            return match self.missed {
                Some(_) => self.bisect(),
                None => self.go(
                    round((hi * self.plan.climb).min(self.plan.max)),
                    Phase::Climb,
                ),
            };
        }
        Phase::Done(Ending::Found)
    }

    fn go(&mut self, rate: f64, phase: Phase) -> Phase {
        self.next = rate;
        phase
    }
}

/// `rate` to three significant figures (41,237 → 41,200): steps read as round numbers,
/// and no precision is claimed that the steps cannot give.
pub fn round(rate: f64) -> f64 {
    if rate <= 0.0 {
        return 0.0;
    }
    let scale = 10f64.powi(rate.log10().floor() as i32 - 2).max(1.0);
    (rate / scale).round() * scale
}

#[cfg(test)]
mod tests {
    use super::*;

    fn met() -> StepVerdict {
        StepVerdict::Met
    }
    fn missed() -> StepVerdict {
        StepVerdict::Missed { crossed: vec![] }
    }

    /// The rates a search tries against a server that meets below `capacity`.
    fn rates(plan: SearchPlan, capacity: f64) -> (Vec<f64>, Ending) {
        let mut search = Search::new(plan);
        let mut tried = Vec::new();
        while let Some(rate) = search.next_rate() {
            tried.push(rate);
            search.record(&if rate <= capacity { met() } else { missed() });
        }
        (tried, search.ending().cloned().unwrap())
    }

    #[test]
    fn climbs_bisects_then_judges_both_boundaries_twice_more() {
        let (tried, ending) = rates(SearchPlan::default(), 41_237.0);
        assert_eq!(ending, Ending::Found);
        let climb = [1e3, 2e3, 4e3, 8e3, 16e3, 32e3, 64e3];
        assert_eq!(tried[..7], climb);
        let last = &tried[tried.len() - 4..];
        let (met, missed) = (last[0], last[1]);
        assert_eq!(last, [met, missed, met, missed], "{tried:?}");
        assert!(
            met <= 41_237.0 && missed > 41_237.0 && missed / met <= 1.05,
            "{tried:?}"
        );
        assert!(tried.len() <= 15, "{tried:?}");
    }

    #[test]
    fn a_start_that_misses_descends() {
        let (tried, ending) = rates(SearchPlan::default(), 180.0);
        assert_eq!(ending, Ending::Found);
        assert_eq!(tried[..3], [1000.0, 250.0, 63.0], "{tried:?}");
        let last = &tried[tried.len() - 4..];
        assert!(
            last[0] <= 180.0 && last[1] > 180.0 && last[1] / last[0] <= 1.06,
            "{tried:?}"
        );
    }

    #[test]
    fn a_server_that_always_meets_stops_at_the_ceiling_and_one_that_never_does_at_the_floor() {
        let plan = SearchPlan {
            max: 50_000.0,
            ..SearchPlan::default()
        };
        let (tried, ending) = rates(plan, f64::INFINITY);
        assert_eq!(ending, Ending::Ceiling { rate: 50_000.0 });
        assert_eq!(*tried.last().unwrap(), 50_000.0);
        let (_, ending) = rates(SearchPlan::default(), 0.0);
        assert_eq!(ending, Ending::Floor { rate: 1.0 });
    }

    #[test]
    fn the_generator_missing_ends_the_search_and_steps_are_bounded() {
        let mut search = Search::new(SearchPlan::default());
        search.record(&met());
        let reason = "late".to_string();
        search.record(&StepVerdict::GeneratorMissed {
            reason: reason.clone(),
        });
        let rate = 2000.0;
        assert_eq!(search.ending(), Some(&Ending::Generator { rate, reason }));
        let plan = SearchPlan {
            max_steps: 4,
            ..SearchPlan::default()
        };
        let (tried, ending) = rates(plan, 41_237.0);
        assert_eq!((tried.len(), ending), (4, Ending::OutOfSteps { steps: 4 }));
    }

    #[test]
    fn a_boundary_that_met_by_luck_is_moved_by_its_confirmations() {
        // 1,600/s meets the first time (the queue had not grown yet), then never again:
        // the search must go on below it, not stop there.
        let mut search = Search::new(SearchPlan::default());
        let mut tried = Vec::new();
        let mut first_1600 = true;
        while let Some(rate) = search.next_rate() {
            tried.push(rate);
            let lucky = rate == 1600.0 && std::mem::take(&mut first_1600);
            search.record(&if rate <= 1500.0 || lucky {
                met()
            } else {
                missed()
            });
        }
        assert_eq!(search.ending(), Some(&Ending::Found), "{tried:?}");
        let last = &tried[tried.len() - 2..];
        assert!(last[0] <= 1500.0 && last[1] > 1500.0, "{tried:?}");
        assert!(tried.len() <= 25, "{tried:?}");
    }

    #[test]
    fn rates_keep_three_figures() {
        assert_eq!(round(41_237.0), 41_200.0);
        assert_eq!(round(999.4), 999.0);
        assert_eq!(round(62.5), 63.0);
        assert_eq!(round(3.9), 4.0);
    }
}
