//! A search carried out: each step's load run by the caller (in-process, sharded, or
//! inside an experiment that also watches the server), judged, shown, and kept.

use super::judge::{self, StepMeasure};
use super::objective::Objectives;
use super::search::Search;
use crate::model::capacity::{Answer, CapacityResult, Ending, SearchPlan, Step};
use std::time::Duration;

/// One step's load as the caller runs it: its rate, warm-up and measured time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepLoad {
    pub rate: f64,
    pub warmup: Duration,
    pub measured: Duration,
}

/// A step that could not run, and the search as far as it went (nothing measured is lost).
#[derive(Debug)]
pub struct StepFailed<E> {
    pub error: E,
    pub so_far: CapacityResult,
}

/// Runs the search: `run_step` loads one step, `on_step` sees each as it is judged.
/// A step whose load was interrupted stops the search with what it found so far.
// The error carries the search so far, by value: one per search, never on a hot path.
#[allow(clippy::result_large_err)]
pub fn run<E>(
    plan: &SearchPlan,
    objectives: &Objectives,
    mut run_step: impl FnMut(StepLoad) -> Result<StepMeasure, E>,
    mut on_step: impl FnMut(&Step),
) -> Result<CapacityResult, StepFailed<E>> {
    let mut search = Search::new(plan.clone());
    let mut steps = Vec::new();
    let samples = objectives.samples_needed();
    while let Some(rate) = search.next_rate() {
        let load = StepLoad {
            rate,
            warmup: plan.warmup,
            measured: plan.measured_at(rate, samples),
        };
        let measure = match run_step(load) {
            Ok(m) => m,
            Err(error) => {
                search.stop();
                let so_far = result(plan, objectives, steps, &search);
                return Err(StepFailed { error, so_far });
            }
        };
        let interrupted = measure.result.interrupted;
        let step = judge::judged(rate, &measure, objectives);
        on_step(&step);
        match interrupted {
            true => search.stop(),
            false => search.record(&step.verdict),
        }
        steps.push(step);
    }
    Ok(result(plan, objectives, steps, &search))
}

/// The result of a search that has stopped, from its steps.
fn result(
    plan: &SearchPlan,
    objectives: &Objectives,
    steps: Vec<Step>,
    s: &Search,
) -> CapacityResult {
    let ending = s.ending().cloned().unwrap_or(Ending::Interrupted);
    CapacityResult {
        objectives: objectives.texts(),
        plan: plan.clone(),
        answer: Answer::of(&steps, &ending),
        ending,
        steps,
    }
}
