//! How many judgements met and missed at each rate a search judged the server at: what
//! the search steers by and what its answer is read from. Steps the generator missed say
//! nothing of the server and are not counted.

use super::step::{Step, StepVerdict};
use std::collections::BTreeMap;

/// Judgements per rate, keyed by the rate's f64 bits (positive rates sort as their bits).
#[derive(Debug, Clone, Default)]
pub struct Tally(BTreeMap<u64, (usize, usize)>);

impl Tally {
    /// The judgements of `steps`.
    pub fn of(steps: &[Step]) -> Tally {
        let mut tally = Tally::default();
        for s in steps {
            tally.record(s.rate, &s.verdict);
        }
        tally
    }

    /// Counts one step's verdict at `rate` (a generator's miss counts for nothing).
    pub fn record(&mut self, rate: f64, verdict: &StepVerdict) {
        let counted = match verdict {
            StepVerdict::Met => true,
            StepVerdict::Missed { .. } => false,
            StepVerdict::GeneratorMissed { .. } => return,
        };
        let (met, missed) = self.0.entry(rate.to_bits()).or_default();
        *(if counted { met } else { missed }) += 1;
    }

    /// How many judgements met and missed at `rate`.
    pub fn at(&self, rate: f64) -> (usize, usize) {
        self.0.get(&rate.to_bits()).copied().unwrap_or_default()
    }

    pub fn mostly_met(&self, rate: f64) -> bool {
        let (met, missed) = self.at(rate);
        met > missed
    }

    /// Every rate judged, ascending, with its judgements that met and missed.
    pub fn rates(&self) -> impl DoubleEndedIterator<Item = (f64, usize, usize)> + '_ {
        (self.0.iter()).map(|(bits, (met, missed))| (f64::from_bits(*bits), *met, *missed))
    }

    /// The highest rate whose judgements mostly met.
    pub fn estimate(&self) -> Option<f64> {
        self.rates()
            .rev()
            .find(|(_, met, missed)| met > missed)
            .map(|r| r.0)
    }

    pub fn lowest(&self) -> Option<f64> {
        self.rates().next().map(|r| r.0)
    }
}
