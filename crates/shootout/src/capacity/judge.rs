//! One step judged: its load's result against the objectives, and whether the
//! generator kept the schedule.

use super::objective::Objectives;
use crate::model::capacity::{Step, StepVerdict};
use crate::threshold::{Judgement, Metric};
use engine::{LoadResult, Percentiles};

/// A step leaves more than this share of its requests late (over 1 ms after they were
/// due, with a connection free): the generator, not the server, missed the schedule. A
/// few late requests are a busy VM's timer wakes (4% were at 100/s with the generator 1%
/// busy, on a machine other builds kept busy), and their lateness is in the corrected
/// latency the objectives judge; a generator out of CPU leaves most requests late.
pub const LATE_LIMIT: f64 = 0.10;

/// A server that answers less than this share of the offered rate did not keep up,
/// whatever its latency says (requests still in flight at the step's end are not timed).
pub const KEPT_UP: f64 = 0.9;

/// What a step measured, beside the load's own result: the server's CPU, when the
/// caller could watch the server (an experiment can, `shootout load` cannot).
#[derive(Debug, Clone)]
pub struct StepMeasure {
    pub result: LoadResult,
    /// Server CPU seconds over the step's measured time.
    pub server_cpu_s: Option<f64>,
}

/// The step that offered `rate`, judged against `objectives`.
pub fn judged(rate: f64, measure: &StepMeasure, objectives: &Objectives) -> Step {
    let r = &measure.result;
    let (scheduled, late) = r.rate.as_ref().map_or((0, 0), |s| (s.scheduled, s.late));
    let responses = r.requests.ok + r.requests.status;
    let threads = r.generator.threads.max(1) as f64;
    Step {
        rate,
        measured_s: r.duration_s,
        responses_per_s: r.rps,
        latency_us: r.latency_us.clone(),
        requests: r.requests.total(),
        failed: r.requests.status + r.requests.errors(),
        scheduled,
        late,
        generator_busy_percent: r.generator.cpu_percent / threads,
        server_cpu_us_per_response: measure
            .server_cpu_s
            .filter(|_| responses > 0)
            .map(|s| s * 1e6 / responses as f64),
        drain: None,
        verdict: verdict(rate, r, objectives),
    }
}

/// The objectives crossed and whether the server kept up. A step that missed while the
/// generator was late says nothing of the server when the server answered in time once
/// asked (every latency objective holds from the actual send): the miss is the
/// generator's lateness, which the corrected latency counts. A step that met despite a
/// late generator met.
fn verdict(rate: f64, r: &LoadResult, objectives: &Objectives) -> StepVerdict {
    let mut crossed = crossed(objectives, r);
    let answered = r.rps / rate;
    if answered < KEPT_UP {
        crossed.push(format!("answered {:.0}% of the rate", answered * 100.0));
    }
    if crossed.is_empty() {
        return StepVerdict::Met;
    }
    let server_slow = slow_once_asked(objectives, &r.latency_raw_us);
    match generator_missed(r) {
        Some(reason) if !server_slow || r.generator.bound => StepVerdict::GeneratorMissed {
            reason: format!("{reason} while the step missed {}", crossed.join(", ")),
        },
        _ => StepVerdict::Missed { crossed },
    }
}

/// Each objective `r` crosses: `p99 31.20ms`, `errors 5%`.
fn crossed(objectives: &Objectives, r: &LoadResult) -> Vec<String> {
    (objectives.all().iter())
        .map(|t| Judgement::of(t, t.metric.of_load(r), "no response"))
        .filter(|j| !j.held())
        .map(|j| format!("{} {}", j.threshold.metric.name(), j.measured_text()))
        .collect()
}

/// Whether `raw` (latency from the actual send) crosses a latency objective: the server
/// was slow once asked, however late the requests left.
fn slow_once_asked(objectives: &Objectives, raw: &Percentiles) -> bool {
    objectives.all().iter().any(|t| match t.metric {
        Metric::Latency(l) => !t.op.holds(l.of(raw), t.limit),
        _ => false,
    })
}

/// Why the generator missed its schedule: more than [`LATE_LIMIT`] of the requests left
/// over 1 ms late with a connection free, and more of them than busy connections held
/// back; or its threads were busy over 90% of the step.
fn generator_missed(r: &LoadResult) -> Option<String> {
    let busy = r.generator.cpu_percent / r.generator.threads.max(1) as f64;
    let share = |n: u64| (r.rate.as_ref()).map_or(0.0, |s| n as f64 / s.scheduled.max(1) as f64);
    let (late, waited) = (r.rate.as_ref()).map_or((0.0, 0.0), |s| (share(s.late), share(s.waited)));
    if late > LATE_LIMIT && late > waited {
        let late = late * 100.0;
        return Some(format!(
            "the generator sent {late:.1}% of the requests late (its CPU {busy:.0}% busy)"
        ));
    }
    (r.generator.bound).then(|| format!("the generator was {busy:.0}% busy"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capacity::Objectives;

    /// A load result at `rate` for 2 s with this p99 (µs), late count and failures; the
    /// server answered in 1 ms once asked (the p99 from the actual send).
    fn result(rate: f64, p99: f64, late: u64, failed: u64) -> LoadResult {
        held_back(rate, p99, late, 0, failed)
    }

    /// [`result`] with `waited` requests held back by busy connections.
    fn held_back(rate: f64, p99: f64, late: u64, waited: u64, failed: u64) -> LoadResult {
        let mut r = answered_in(rate, p99, late, failed);
        r.rate.as_mut().unwrap().waited = waited;
        r
    }

    /// [`result`] whose server took `p99` from the actual send too: slow once asked.
    fn slow(rate: f64, p99: f64, late: u64) -> LoadResult {
        let mut r = answered_in(rate, p99, late, 0);
        r.latency_raw_us.p99 = p99;
        r
    }

    fn answered_in(rate: f64, p99: f64, late: u64, failed: u64) -> LoadResult {
        use crate::report::fixture::Measured;
        let m = Measured {
            rps: rate,
            p99_ms: p99 / 1000.0,
            server_cpu_s: 0.0,
            errors: 0,
        };
        let mut r = crate::report::fixture::result(m);
        let scheduled = (rate * 2.0) as u64;
        r.duration_s = 2.0;
        r.rps = rate;
        r.latency_us.p99 = p99;
        r.requests = engine::Counts {
            ok: scheduled - failed,
            status: failed,
            ..engine::Counts::default()
        };
        r.rate = Some(engine::RateSummary {
            target_rps: rate,
            achieved_rps: rate,
            scheduled,
            started: scheduled,
            still_due: 0,
            late,
            waited: 0,
        });
        r.latency_raw_us.p99 = 1000.0;
        r.generator.bound = false;
        r
    }

    fn verdict_of(r: LoadResult, rate: f64) -> StepVerdict {
        let o = Objectives::parse(&["p99<20ms", "errors<1%"]).unwrap();
        let measure = StepMeasure {
            result: r,
            server_cpu_s: Some(0.02),
        };
        judged(rate, &measure, &o).verdict
    }

    #[test]
    fn a_step_meets_misses_or_says_the_generator_missed() {
        assert_eq!(
            verdict_of(result(1000.0, 5000.0, 0, 0), 1000.0),
            StepVerdict::Met
        );
        let crossed = vec!["p99 25.00ms".to_string(), "errors 5%".to_string()];
        assert_eq!(
            verdict_of(result(1000.0, 25_000.0, 0, 100), 1000.0),
            StepVerdict::Missed { crossed }
        );
        let behind = result(800.0, 5000.0, 0, 0);
        let crossed = vec!["answered 80% of the rate".to_string()];
        assert_eq!(verdict_of(behind, 1000.0), StepVerdict::Missed { crossed });
        // Late requests are in the corrected latency: a step that met anyway met.
        assert_eq!(
            verdict_of(result(1000.0, 5000.0, 250, 0), 1000.0),
            StepVerdict::Met
        );
        let StepVerdict::GeneratorMissed { reason } =
            verdict_of(result(1000.0, 25_000.0, 250, 0), 1000.0)
        else {
            panic!("a miss with 12.5% late is the generator's");
        };
        let said = "the generator sent 12.5% of the requests late (its CPU 78% busy) while the \
                    step missed p99 25.00ms";
        assert_eq!(reason, said);
        let crossed = vec!["p99 25.00ms".to_string()];
        assert_eq!(
            verdict_of(result(1000.0, 25_000.0, 50, 0), 1000.0),
            StepVerdict::Missed { crossed },
            "2.5% late is a busy machine's timer, not a generator out of CPU"
        );
        let crossed = vec!["p99 75.00ms".to_string()];
        assert_eq!(
            verdict_of(held_back(1000.0, 75_000.0, 380, 1200, 0), 1000.0),
            StepVerdict::Missed { crossed },
            "a server holding 60% back past its capacity missed, however late the rest left"
        );
        let crossed = vec!["p99 25.00ms".to_string()];
        assert_eq!(
            verdict_of(slow(1000.0, 25_000.0, 250), 1000.0),
            StepVerdict::Missed { crossed },
            "a server slow once asked missed, however late the requests left"
        );
        let mut busy = result(1000.0, 25_000.0, 0, 0);
        busy.generator.bound = true;
        assert!(matches!(
            verdict_of(busy, 1000.0),
            StepVerdict::GeneratorMissed { .. }
        ));
    }

    #[test]
    fn cost_per_response_is_the_server_cpu_over_its_responses() {
        let o = Objectives::parse(&["p99<20ms"]).unwrap();
        let measure = StepMeasure {
            result: result(1000.0, 5000.0, 0, 0),
            server_cpu_s: Some(0.02),
        };
        let s = judged(1000.0, &measure, &o);
        assert_eq!(s.server_cpu_us_per_response, Some(10.0));
        assert!(
            s.line()
                .starts_with("1,000/s for 2.0s: answered 1,000/s, p99 5.00ms"),
            "{}",
            s.line()
        );
    }
}
