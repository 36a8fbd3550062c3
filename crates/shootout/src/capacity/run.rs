//! A search carried out: each step's load run by the caller (in-process, sharded, or
//! inside an experiment that also watches the server) once the server has drained the
//! step before, judged, shown, and kept.

use super::drain::Drain;
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
    pub so_far: Box<CapacityResult>,
}

/// Runs the search: `drain` waits before each step but the first, `run_step` loads one
/// step, `on_step` sees each as it is judged. A step whose load was interrupted stops the
/// search with what it found so far.
// The error is as large as the success: it carries the search so far, once per search.
#[allow(clippy::result_large_err)]
pub fn run<E>(
    plan: &SearchPlan,
    objectives: &Objectives,
    drain: &mut Drain,
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
        let waited = match steps.is_empty() {
            true => None,
            false => drain.wait(),
        };
        let measure = match run_step(load) {
            Ok(m) => m,
            Err(error) => {
                search.stop();
                let so_far = Box::new(result(plan, objectives, steps, &search));
                return Err(StepFailed { error, so_far });
            }
        };
        let interrupted = measure.result.interrupted;
        let step = Step {
            drain: waited,
            ..judge::judged(rate, &measure, objectives)
        };
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capacity::drain::Signal;
    use crate::model::capacity::StepVerdict;
    use crate::report::fixture::{result, Measured};
    use std::sync::atomic::AtomicBool;

    static NOT_INTERRUPTED: AtomicBool = AtomicBool::new(false);

    /// A wait that never waits: no signal.
    fn no_drain() -> Drain<'static> {
        Drain::new(Vec::new(), &NOT_INTERRUPTED)
    }

    /// Busy at every other reading, from the first: each wait reads it busy once.
    struct BusyOnce(bool);

    impl Signal for BusyOnce {
        fn busy(&mut self) -> Option<String> {
            self.0 = !self.0;
            self.0
                .then(|| "a probe took 80.00ms, 5.00ms unloaded".into())
        }
    }

    /// A step's measure from a generator that keeps its schedule up to `generator_max`
    /// requests/s and, beyond it, sends a third of the requests late and half of them not
    /// at all (a server that answers everything it gets, in 1 ms).
    fn measured(load: StepLoad, generator_max: f64) -> StepMeasure {
        let sent = load.rate.min(generator_max).max(load.rate / 2.0);
        let m = Measured {
            rps: sent,
            p99_ms: 1.0,
            server_cpu_s: 0.0,
            errors: 0,
        };
        let mut r = result(m);
        let scheduled = (load.rate * 4.0) as u64;
        r.rate = Some(engine::RateSummary {
            target_rps: load.rate,
            achieved_rps: sent,
            scheduled,
            started: (sent * 4.0) as u64,
            still_due: 0,
            late: if sent < load.rate { scheduled / 3 } else { 0 },
            waited: 0,
        });
        StepMeasure {
            result: r,
            server_cpu_s: Some(0.01),
        }
    }

    #[test]
    fn a_generator_that_cannot_send_the_rate_gives_a_bound_saying_so() {
        let objectives = Objectives::parse(&["p99<10ms"]).unwrap();
        let mut shown = Vec::new();
        let found = run(
            &SearchPlan::default(),
            &objectives,
            &mut no_drain(),
            |load| Ok::<_, ()>(measured(load, 5000.0)),
            |step| shown.push(step.rate),
        )
        .unwrap();
        assert_eq!(shown, [1000.0, 2000.0, 4000.0, 8000.0]);
        let StepVerdict::GeneratorMissed { reason } = &found.steps[3].verdict else {
            panic!("{:?}", found.steps[3]);
        };
        assert!(reason.starts_with("the generator sent 33.3% of the requests late"));
        assert_eq!(found.answer.short(), "at least 4,000/s");
        assert!(found
            .summary()
            .contains(": at 8,000/s the generator sent 33.3%"));
        assert_eq!(found.at_capacity().map(|s| s.rate), Some(4000.0));
        assert_eq!(found.steps[0].server_cpu_us_per_response, Some(2.5));
    }

    #[test]
    fn a_step_that_cannot_run_keeps_the_steps_before_it() {
        let objectives = Objectives::parse(&["p99<10ms"]).unwrap();
        let mut n = 0;
        let failed = run(
            &SearchPlan::default(),
            &objectives,
            &mut no_drain(),
            |load| {
                n += 1;
                match n {
                    3 => Err("refused"),
                    _ => Ok(measured(load, f64::INFINITY)),
                }
            },
            |_| {},
        )
        .unwrap_err();
        assert_eq!(failed.error, "refused");
        assert_eq!(failed.so_far.steps.len(), 2);
        assert_eq!(failed.so_far.ending, Ending::Interrupted);
        assert_eq!(failed.so_far.answer.short(), "at least 2,000/s");
    }

    #[test]
    fn each_step_after_the_first_waits_for_the_server_to_drain_and_says_so() {
        let objectives = Objectives::parse(&["p99<10ms"]).unwrap();
        let signals: Vec<Box<dyn Signal>> = vec![Box::new(BusyOnce(false))];
        let mut drain = Drain::new(signals, &NOT_INTERRUPTED);
        let mut lines = Vec::new();
        let found = run(
            &SearchPlan::default(),
            &objectives,
            &mut drain,
            |load| Ok::<_, ()>(measured(load, 5000.0)),
            |step| lines.push(step.line()),
        )
        .unwrap();
        assert_eq!(lines.len(), 4, "{lines:?}");
        assert_eq!(found.steps[0].drain, None, "the first step starts at rest");
        for (step, line) in found.steps.iter().zip(&lines).skip(1) {
            let wait = step.drain.as_ref().expect("a wait before every later step");
            assert!(!wait.gave_up, "{wait:?}");
            assert_eq!(wait.busy, "a probe took 80.00ms, 5.00ms unloaded");
            assert!(line.ends_with(&format!("; {}", wait.text())), "{line}");
        }
    }
}
