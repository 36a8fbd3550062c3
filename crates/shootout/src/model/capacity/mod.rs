//! A capacity search as kept: its objectives and plan, every step, how it ended, and the
//! answer read from the steps. The search itself is `crate::capacity`'s.

mod answer;
mod drain_wait;
mod ending;
mod plan;
mod step;
mod tally;

pub use answer::Answer;
pub use drain_wait::DrainWait;
pub use ending::Ending;
pub use plan::SearchPlan;
pub use step::{Step, StepVerdict};
pub use tally::Tally;

/// The JSON schema of a search's result (`load --capacity --json`).
pub const SCHEMA: &str = "shootout.capacity/1";

/// One search, as kept: its objectives and plan, every step, how it ended, and the answer.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CapacityResult {
    /// Each objective as written.
    pub objectives: Vec<String>,
    pub plan: SearchPlan,
    pub steps: Vec<Step>,
    pub ending: Ending,
    pub answer: Answer,
}

impl CapacityResult {
    /// `max 41,200/s [39,800 - 42,500] meets p99<20ms, errors<0.1%`, or the bound and
    /// why.
    pub fn summary(&self) -> String {
        let objectives = self.objectives.join(", ");
        let (short, why) = (
            self.answer.short(),
            self.answer.reason().unwrap_or_default(),
        );
        match &self.answer {
            Answer::Interval { .. } => format!("max {short} meets {objectives}"),
            Answer::AtLeast { rate, .. } if *rate > 0.0 => {
                format!("{short} meets {objectives}: {why}")
            }
            Answer::AtLeast { .. } | Answer::Below { .. } => {
                format!("{short} for {objectives}: {why}")
            }
        }
    }

    /// The search as `load --capacity --json` and `--out` write it: schema
    /// shootout.capacity/1.
    pub fn json(&self) -> serde_json::Value {
        let mut value = serde_json::to_value(self).unwrap_or_default();
        if let Some(map) = value.as_object_mut() {
            map.insert("schema".into(), SCHEMA.into());
        }
        value
    }

    /// The step nearest below the answer's rate that met: the load "at capacity".
    pub fn at_capacity(&self) -> Option<&Step> {
        let rate = self.answer.rate()?;
        (self.steps.iter())
            .filter(|s| s.verdict.met() && s.rate <= rate)
            .max_by(|a, b| a.rate.total_cmp(&b.rate))
    }
}

#[cfg(test)]
pub(crate) use step::tests::step;
