//! A capacity search as kept: its objectives and plan, every step, how it ended, and the
//! answer read from the steps. The search itself is `crate::capacity`'s.

mod answer;
mod ending;
mod plan;
mod step;

pub use answer::Answer;
pub use ending::Ending;
pub use plan::SearchPlan;
pub use step::{Step, StepVerdict};

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
        match (&self.answer, self.answer.reason()) {
            (Answer::Interval { .. }, _) => {
                format!("max {} meets {objectives}", self.answer.short())
            }
            (_, Some(why)) => format!("{} meets {objectives}: {why}", self.answer.short()),
            (_, None) => self.answer.short(),
        }
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
