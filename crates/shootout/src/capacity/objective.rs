//! The objectives a capacity search holds every step to: latency and error limits in the
//! threshold grammar (`p99<20ms`, `errors<0.1%`), parsed once.

use crate::threshold::{Metric, Op, Threshold, ThresholdError};
use std::fmt;

/// Every objective of one search, in the order given; never empty.
#[derive(Debug, Clone, PartialEq)]
pub struct Objectives(Vec<Threshold>);

/// Why a text is not an objective (the caller names the flag or file and the entry).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ObjectiveError {
    #[error("{0}")]
    Threshold(#[from] ThresholdError),
    #[error(
        "{metric} is not an objective: the search finds the rate; an objective limits \
         latency (p50 ... p99.99, max, mean) or errors"
    )]
    NotAnObjective { metric: &'static str },
    #[error("{text:?} asks for more, not less: an objective is an upper limit (< or <=)")]
    NotALimit { text: String },
    #[error("no objective: give at least one, e.g. p99<20ms")]
    None,
}

impl Objectives {
    /// Parses each text as an objective: a threshold on latency or errors, below a limit.
    pub fn parse<S: AsRef<str>>(texts: &[S]) -> Result<Objectives, ObjectiveError> {
        let each = texts.iter().map(|t| objective(t.as_ref()));
        Objectives::new(each.collect::<Result<_, _>>()?)
    }

    /// Objectives already parsed one by one (by [`objective`]); at least one.
    pub fn new(all: Vec<Threshold>) -> Result<Objectives, ObjectiveError> {
        match all.is_empty() {
            true => Err(ObjectiveError::None),
            false => Ok(Objectives(all)),
        }
    }

    /// The objectives, in the order given.
    pub fn all(&self) -> &[Threshold] {
        &self.0
    }

    /// Each objective as written, for storing and for a spec.
    pub fn texts(&self) -> Vec<String> {
        self.0.iter().map(|t| t.text.clone()).collect()
    }

    /// How many responses a step needs before its highest latency quantile means
    /// something: 20 beyond it (2,000 for p99, 20,000 for p99.9), 100 for the rest.
    pub fn samples_needed(&self) -> u64 {
        let tail = |t: &Threshold| match t.metric {
            Metric::Latency(l) => l.quantile().map_or(100.0, |q| 20.0 / (1.0 - q)),
            _ => 100.0,
        };
        self.0.iter().map(tail).fold(100.0, f64::max).round() as u64
    }
}

impl fmt::Display for Objectives {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.texts().join(", "))
    }
}

/// One objective: a latency, error or dropped threshold with `<` or `<=`.
pub fn objective(text: &str) -> Result<Threshold, ObjectiveError> {
    let t: Threshold = text.parse()?;
    match t.metric {
        Metric::Latency(_)
        | Metric::ErrorShare
        | Metric::ErrorCount
        | Metric::DroppedShare
        | Metric::DroppedCount => {}
        Metric::Rps | Metric::Cpu | Metric::Capacity => {
            return Err(ObjectiveError::NotAnObjective {
                metric: t.metric.name(),
            })
        }
    }
    match t.op {
        Op::Below | Op::AtMost => Ok(t),
        Op::Above | Op::AtLeast => Err(ObjectiveError::NotALimit { text: t.text }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latency_and_error_limits_are_objectives() {
        let o = Objectives::parse(&["p99<20ms", "errors < 0.1%", "p99.9<=50ms"]).unwrap();
        assert_eq!(o.to_string(), "p99<20ms, errors < 0.1%, p99.9<=50ms");
        assert_eq!(o.all()[0].limit, 20_000.0);
        assert_eq!(o.samples_needed(), 20_000, "p99.9 needs 20 beyond it");
        let p99 = Objectives::parse(&["p99<20ms"]).unwrap();
        assert_eq!(p99.samples_needed(), 2_000);
        assert_eq!(
            Objectives::parse(&["max<1s"]).unwrap().samples_needed(),
            100
        );
    }

    #[test]
    fn anything_else_is_refused_with_the_reason() {
        let e = |t: &str| Objectives::parse(&[t]).unwrap_err().to_string();
        assert!(
            e("rps<5k").starts_with("rps is not an objective"),
            "{}",
            e("rps<5k")
        );
        assert!(e("cpu<5us").starts_with("cpu is not an objective"));
        assert!(e("capacity<5k").starts_with("capacity is not an objective"));
        assert_eq!(
            e("p99>20ms"),
            "\"p99>20ms\" asks for more, not less: an objective is an upper limit (< or <=)"
        );
        assert_eq!(e("p99<20"), "\"20\" needs a unit (us, ms or s)");
        assert!(e("latency<2ms").starts_with("unknown metric \"latency\""));
        let none: [&str; 0] = [];
        assert_eq!(
            Objectives::parse(&none).unwrap_err().to_string(),
            "no objective: give at least one, e.g. p99<20ms"
        );
    }
}
