//! How a capacity search climbs, narrows and confirms, and how long each step lasts.

use std::time::Duration;

/// Every setting of a search; `Default` is what `load --capacity` and a `capacity` load
/// use unless told otherwise.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SearchPlan {
    /// The first rate tried, requests/s.
    pub start: f64,
    /// The highest rate tried: a server that meets the objectives there is "at least" it.
    pub max: f64,
    /// Each climbing step multiplies the rate by this.
    pub climb: f64,
    /// The bisection stops when the rates that met and missed are this close (0.05: 5%).
    pub precision: f64,
    /// Judgements at each of the two boundary rates, counting the first (3: two repeats).
    pub boundary_judgements: usize,
    /// No search takes more steps than this.
    pub max_steps: usize,
    /// Each step's warm-up (not measured) and its least measured time.
    #[serde(with = "engine::duration_text")]
    pub warmup: Duration,
    #[serde(with = "engine::duration_text")]
    pub step: Duration,
}

impl Default for SearchPlan {
    fn default() -> Self {
        SearchPlan {
            start: 1000.0,
            max: 10_000_000.0,
            climb: 2.0,
            precision: 0.05,
            boundary_judgements: 3,
            max_steps: 30,
            warmup: Duration::from_millis(500),
            step: Duration::from_secs(2),
        }
    }
}

impl SearchPlan {
    /// How long a step at `rate` is measured: its least time, longer when that would give
    /// fewer than `samples` responses, never over five times the least.
    pub fn measured_at(&self, rate: f64, samples: u64) -> Duration {
        let needed = Duration::from_secs_f64(samples as f64 / rate.max(1.0));
        needed.clamp(self.step, self.step * 5)
    }
}
