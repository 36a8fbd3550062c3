//! Make-up runs: when a run does not count for its table (disturbed, the generator
//! saturated or late), its cell runs again in later rounds, interleaved as the planned
//! rounds are, until every pair has its repeats of valid runs or the make-up budget is
//! spent. The budget has two caps: runs, and the time after the planned rounds within
//! which make-up rounds may start.

use super::error::{at, under, FieldError, Segment};
use super::file::MakeUpFile;
use std::time::Duration;

/// How many make-up runs an experiment may spend, and for how long.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct MakeUp {
    /// The most make-up runs; None: half the planned runs.
    pub runs: Option<usize>,
    /// How long after the planned rounds a make-up round may start; None: a third of
    /// the time the planned rounds took (the default experiment then stays near its
    /// planned length on a noisy host).
    pub time: Option<Duration>,
}

impl MakeUp {
    /// The most make-up runs for a plan of `planned` runs.
    pub fn runs_for(&self, planned: usize) -> usize {
        self.runs.unwrap_or(planned.div_ceil(2))
    }

    /// Whether a make-up round may start `since_plan` after planned rounds that took
    /// `plan_took`.
    pub fn allows(&self, since_plan: Duration, plan_took: Duration) -> bool {
        since_plan < self.time.unwrap_or(plan_took / 3)
    }

    /// `at most 32 runs, within a third of the planned rounds' time` and the like.
    pub fn describe(&self, planned: usize) -> String {
        let time = match self.time {
            Some(t) => format!("within {:.0} s after the planned rounds", t.as_secs_f64()),
            None => "within a third of the planned rounds' time".into(),
        };
        match self.runs_for(planned) {
            0 => "off".into(),
            n => format!("at most {n} runs, {time}"),
        }
    }
}

/// The file's `[make_up]`, checked: each mistake names the field.
pub(super) fn check(m: &MakeUpFile) -> Result<MakeUp, FieldError> {
    let time = (m.time.as_deref())
        .map(|t| engine::parse_duration(t).map_err(at("time")))
        .transpose()
        .map_err(under(Segment::Field("make_up")))?;
    Ok(MakeUp { runs: m.runs, time })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_half_the_plan_within_a_third_of_its_time() {
        let d = MakeUp::default();
        assert_eq!(d.runs_for(63), 32);
        let plan = Duration::from_secs(270);
        assert!(d.allows(Duration::from_secs(89), plan));
        assert!(!d.allows(Duration::from_secs(90), plan));
        let off = MakeUp {
            runs: Some(0),
            time: None,
        };
        assert_eq!(off.describe(63), "off");
    }

    #[test]
    fn the_file_says_runs_and_time() {
        let file = MakeUpFile {
            runs: Some(10),
            time: Some("2m".into()),
        };
        let m = check(&file).unwrap();
        assert_eq!(m.runs_for(63), 10);
        assert_eq!(m.time, Some(Duration::from_secs(120)));
        let bad = MakeUpFile {
            runs: None,
            time: Some("soon".into()),
        };
        let e = check(&bad).unwrap_err();
        assert_eq!(e.field.to_string(), "make_up: time");
        assert!(e.to_string().starts_with("make_up: time: "), "{e}");
    }
}
