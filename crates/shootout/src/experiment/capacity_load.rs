//! A capacity load (`capacity = ["p99<10ms", "errors<0.1%"]` in `[[loads]]`): a search for
//! the highest fixed rate at which a server meets every objective, each step an open loop
//! at one rate. Read once into [`CapacityLoad`]: the objectives parsed, and the search's
//! plan made of the load's `start`, its (or the experiment's) `duration` as each step's
//! least measured time and the experiment's `warmup` as each step's warm-up; the plan's
//! other settings are `SearchPlan::default()`'s. The search finds the rate, so a `rate` or
//! `devices` beside it is refused, naming the field.

use super::error::{FieldError, FieldProblem};
use super::file::LoadFile;
use crate::capacity::Objectives;
use crate::model::capacity::SearchPlan;
use std::time::Duration;

/// A capacity load, checked: what every step must meet, and how the search goes.
#[derive(Debug, Clone, PartialEq)]
pub struct CapacityLoad {
    pub objectives: Objectives,
    pub plan: SearchPlan,
}

/// Each step's times: the experiment's warm-up, and the load's measured time (its own
/// `duration`, else the experiment's).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct StepTimes {
    pub warmup: Duration,
    pub measured: Duration,
}

/// The capacity search of `l`, None for any other kind of load; a mistake names its field.
pub(super) fn check(l: &LoadFile, times: StepTimes) -> Result<Option<CapacityLoad>, FieldError> {
    let Some(texts) = &l.capacity else {
        return match l.start {
            Some(_) => Err(FieldProblem::StartWithoutCapacity.at("start")),
            None => Ok(None),
        };
    };
    if !l.rate.is_empty() {
        return Err(FieldProblem::CapacityPace("rate").at("rate"));
    }
    if l.devices.is_some() {
        return Err(FieldProblem::CapacityPace("devices").at("devices"));
    }
    let objectives = Objectives::parse(texts).map_err(|e| FieldProblem::from(e).at("capacity"))?;
    let default = SearchPlan::default();
    let start = match &l.start {
        Some(text) => start_rate(text, default.max)?,
        None => default.start,
    };
    let plan = SearchPlan {
        start,
        warmup: times.warmup,
        step: times.measured,
        ..default
    };
    Ok(Some(CapacityLoad { objectives, plan }))
}

/// `start` as requests/s (`4000`, `4k`): above 0, at most the search's highest rate `max`.
fn start_rate(text: &str, max: f64) -> Result<f64, FieldError> {
    match crate::threshold::parse_rate(text) {
        Ok(rate) if rate > 0.0 && rate <= max => Ok(rate),
        _ => Err(FieldProblem::StartRate {
            text: text.to_string(),
            max,
        }
        .at("start")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TIMES: StepTimes = StepTimes {
        warmup: Duration::from_millis(500),
        measured: Duration::from_secs(1),
    };

    fn checked(extra: &str) -> Result<Option<CapacityLoad>, String> {
        let text = format!("name = \"ka\"\nconnections = [50]\n{extra}");
        let l: LoadFile = toml::from_str(&text).unwrap();
        check(&l, TIMES).map_err(|e| e.to_string())
    }

    #[test]
    fn a_capacity_load_has_its_objectives_and_a_plan_from_the_experiments_times() {
        assert_eq!(checked(""), Ok(None));
        let c = checked("capacity = [\"p99<10ms\", \"errors<0.1%\"]\nstart = \"4000\"")
            .unwrap()
            .unwrap();
        assert_eq!(c.objectives.to_string(), "p99<10ms, errors<0.1%");
        let want = SearchPlan {
            start: 4000.0,
            warmup: Duration::from_millis(500),
            step: Duration::from_secs(1),
            ..SearchPlan::default()
        };
        assert_eq!(c.plan, want);
        let c = checked("capacity = [\"p99<20ms\"]").unwrap().unwrap();
        assert_eq!(c.plan.start, SearchPlan::default().start);
    }

    #[test]
    fn a_mistake_names_its_field_in_one_line() {
        for (extra, want) in [
            (
                "capacity = [\"p99<20\"]",
                "capacity: \"20\" needs a unit (us, ms or s)",
            ),
            (
                "capacity = []",
                "capacity: no objective: give at least one, e.g. p99<20ms",
            ),
            (
                "capacity = [\"p99>20ms\"]",
                "capacity: \"p99>20ms\" asks for more, not less: an objective is an upper \
                 limit (< or <=)",
            ),
            (
                "capacity = [\"p99<20ms\"]\nrate = [\"1000\"]",
                "rate: a capacity load searches for its rate, one open loop per step: leave \
                 rate out",
            ),
            (
                "capacity = [\"p99<20ms\"]\ndevices = { stages = \"0,10:1s\" }",
                "devices: a capacity load searches for its rate, one open loop per step: \
                 leave devices out",
            ),
            (
                "start = \"4000\"",
                "start: a capacity search's first rate: add capacity = [\"p99<20ms\", ...], \
                 or leave start out",
            ),
            (
                "capacity = [\"p99<20ms\"]\nstart = \"fast\"",
                "start: \"fast\" is not a rate: requests/s above 0, at most 10,000,000",
            ),
            (
                "capacity = [\"p99<20ms\"]\nstart = \"0\"",
                "start: \"0\" is not a rate: requests/s above 0, at most 10,000,000",
            ),
        ] {
            assert_eq!(checked(extra), Err(want.to_string()), "{extra}");
        }
        let rps = checked("capacity = [\"rps<5000\"]").unwrap_err();
        assert!(
            rps.starts_with("capacity: rps is not an objective"),
            "{rps}"
        );
    }
}
