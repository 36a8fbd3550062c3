//! One step of a capacity search as kept: a fixed rate, what came back, and the verdict.

use super::drain_wait::DrainWait;
use engine::Percentiles;

/// One step as kept: the rate offered, what came back, and the verdict.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Step {
    /// Requests/s the step's schedule offered.
    pub rate: f64,
    pub measured_s: f64,
    /// Responses (any status) per second.
    pub responses_per_s: f64,
    /// Latency from each request's intended send time, microseconds.
    pub latency_us: Percentiles,
    /// Requests started, and those that did not succeed (a 4xx/5xx or an error).
    pub requests: u64,
    pub failed: u64,
    /// Requests the schedule asked for, and those the generator sent late with a
    /// connection free.
    pub scheduled: u64,
    pub late: u64,
    /// The generator's CPU over the step, in percent of its threads' cores.
    pub generator_busy_percent: f64,
    /// Server CPU per response, microseconds, when the server was watched.
    pub server_cpu_us_per_response: Option<f64>,
    /// The wait before the step for the server to drain the step before it, when there
    /// was one (absent from searches kept before the search waited).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drain: Option<DrainWait>,
    /// `"verdict": "met"`, `"missed"` with `crossed`, or `"generator-missed"` with `reason`.
    #[serde(flatten)]
    pub verdict: StepVerdict,
}

/// What one step came to.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "verdict", rename_all = "kebab-case")]
pub enum StepVerdict {
    /// Every objective held, and the server kept up with the rate.
    Met,
    /// What was crossed, each as `p99 31.20ms` or `answered 84% of the rate`.
    Missed { crossed: Vec<String> },
    /// The generator could not keep the schedule: the step says nothing of the server.
    GeneratorMissed { reason: String },
}

impl StepVerdict {
    pub fn met(&self) -> bool {
        matches!(self, StepVerdict::Met)
    }

    /// One word for progress lines and tables.
    pub fn word(&self) -> &'static str {
        match self {
            StepVerdict::Met => "meets",
            StepVerdict::Missed { .. } => "misses",
            StepVerdict::GeneratorMissed { .. } => "generator",
        }
    }
}

impl Step {
    /// `12,000/s for 2.0s: p99 1.20ms, errors 0%, meets` (or what it missed, and why),
    /// then the wait for the server to drain before it, when there was one.
    pub fn line(&self) -> String {
        let judged = self.judged_line();
        match &self.drain {
            Some(wait) => format!("{judged}; {}", wait.text()),
            None => judged,
        }
    }

    fn judged_line(&self) -> String {
        let p99 = crate::units::micros(self.latency_us.p99);
        let errors = match self.requests {
            0 => 0.0,
            n => 100.0 * self.failed as f64 / n as f64,
        };
        let head = format!(
            "{}/s for {:.1}s: answered {}/s, p99 {p99}, errors {errors:.2}%",
            crate::units::grouped(self.rate),
            self.measured_s,
            crate::units::grouped(self.responses_per_s),
        );
        match &self.verdict {
            StepVerdict::Met => format!("{head}: meets"),
            StepVerdict::Missed { crossed } => format!("{head}: misses ({})", crossed.join(", ")),
            StepVerdict::GeneratorMissed { reason } => format!("{head}: {reason}"),
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A step at `rate` that met or missed, with a p99 to match.
    pub(crate) fn step(rate: f64, met: bool) -> Step {
        let verdict = match met {
            true => StepVerdict::Met,
            false => StepVerdict::Missed {
                crossed: vec!["p99 30.00ms".into()],
            },
        };
        Step {
            rate,
            measured_s: 2.0,
            responses_per_s: rate,
            latency_us: Percentiles {
                p99: if met { 1000.0 } else { 30_000.0 },
                ..Percentiles::default()
            },
            requests: (rate * 2.0) as u64,
            failed: 0,
            scheduled: (rate * 2.0) as u64,
            late: 0,
            generator_busy_percent: 20.0,
            server_cpu_us_per_response: Some(10.0),
            drain: None,
            verdict,
        }
    }
}
