//! One threshold set against what was measured: held, crossed (and by how much), or not
//! judged because nothing measured it, which counts as crossed: a gate that cannot tell
//! must not let a result through.

use super::expression::Threshold;
use crate::units;

/// What a threshold is judged on.
#[derive(Debug, Clone, PartialEq)]
pub enum Measured {
    /// The metric's value, in its unit.
    Value(f64),
    /// Nothing to judge by, and why: `no response`, `no valid run (server-failed)`.
    Nothing(String),
}

/// A threshold and its measured value.
#[derive(Debug, Clone, PartialEq)]
pub struct Judgement<'t> {
    pub threshold: &'t Threshold,
    pub measured: Measured,
}

impl<'t> Judgement<'t> {
    /// `threshold` on `value`, or on nothing when `value` is None (`why` says why).
    pub fn of(threshold: &'t Threshold, value: Option<f64>, why: &str) -> Self {
        Judgement {
            threshold,
            measured: value.map_or_else(|| Measured::Nothing(why.into()), Measured::Value),
        }
    }

    /// Whether the measured value meets the limit (never without a value).
    pub fn held(&self) -> bool {
        match &self.measured {
            Measured::Value(v) => self.threshold.op.holds(*v, self.threshold.limit),
            Measured::Nothing(_) => false,
        }
    }

    /// The measured value in the metric's unit, or `-`.
    pub fn measured_text(&self) -> String {
        match &self.measured {
            Measured::Value(v) => self.threshold.metric.show(*v),
            Measured::Nothing(_) => "-".into(),
        }
    }

    /// How far the measured value is from the limit, in the metric's unit (`+2.20ms`),
    /// or why it was not judged.
    pub fn by_text(&self) -> String {
        match &self.measured {
            Measured::Value(v) => self.threshold.metric.show_signed(v - self.threshold.limit),
            Measured::Nothing(why) => why.clone(),
        }
    }

    /// That distance as a percentage of the limit (`+44.0%`, `+9,900%`); blank when the
    /// limit is 0 or nothing was measured.
    pub fn by_percent_text(&self) -> String {
        let limit = self.threshold.limit;
        let percent = match self.measured {
            Measured::Value(v) if limit > 0.0 => 100.0 * (v - limit) / limit,
            _ => return String::new(),
        };
        match percent.abs() < 100.0 {
            true => format!("{percent:+.1}%"),
            false if percent > 0.0 => format!("+{}%", units::grouped(percent)),
            false => format!("{}%", units::grouped(percent)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judged(text: &str, value: Option<f64>) -> (bool, String, String, String) {
        let t: Threshold = text.parse().unwrap();
        let j = Judgement::of(&t, value, "no response");
        (
            j.held(),
            j.measured_text(),
            j.by_text(),
            j.by_percent_text(),
        )
    }

    #[test]
    fn crossed_thresholds_say_by_how_much() {
        let s = String::from;
        assert_eq!(
            judged("p99<5ms", Some(7200.0)),
            (false, s("7.20ms"), s("+2.20ms"), s("+44.0%"))
        );
        assert_eq!(
            judged("rps>50k", Some(40_000.0)),
            (false, s("40,000 req/s"), s("-10,000 req/s"), s("-20.0%"))
        );
        assert_eq!(
            judged("errors<0.1%", Some(0.005)),
            (false, s("0.5%"), s("+0.4%"), s("+400%"))
        );
        // A limit of 0 has no percentage of itself.
        assert_eq!(
            judged("errors<=0", Some(3.0)),
            (false, s("3 requests"), s("+3 requests"), s(""))
        );
        assert_eq!(judged("rps>50k", Some(0.0)).3, "-100%");
        assert!(judged("p99<5ms", Some(4000.0)).0);
        assert!(judged("errors<=0", Some(0.0)).0);
    }

    #[test]
    fn nothing_measured_is_crossed_and_says_why() {
        let s = String::from;
        assert_eq!(
            judged("p99<5ms", None),
            (false, s("-"), s("no response"), s(""))
        );
    }
}
