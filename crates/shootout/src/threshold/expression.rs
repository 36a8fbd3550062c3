//! The grammar of one threshold: `METRIC OP VALUE`, spaces optional (`p99<5ms`,
//! `p99.9 <= 20ms`, `errors<0.1%`, `errors <= 10`, `dropped<1%`, `rps >= 50k`, `cpu<40us`).

use super::metric::{Latency, Metric};
use engine::{parse_duration, DurationError};
use std::fmt;
use std::str::FromStr;

/// One limit on one metric of a result, parsed once.
#[derive(Debug, Clone, PartialEq)]
pub struct Threshold {
    pub metric: Metric,
    pub op: Op,
    /// In the metric's unit: responses/s, microseconds, a share (0..1), a count.
    pub limit: f64,
    /// As the user wrote it (trimmed), to show it back.
    pub text: String,
}

/// How a measured value must compare with the limit for the threshold to hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Below,
    AtMost,
    Above,
    AtLeast,
}

impl Op {
    /// Whether `measured` meets `limit`.
    pub fn holds(self, measured: f64, limit: f64) -> bool {
        match self {
            Op::Below => measured < limit,
            Op::AtMost => measured <= limit,
            Op::Above => measured > limit,
            Op::AtLeast => measured >= limit,
        }
    }

    fn symbol(self) -> &'static str {
        match self {
            Op::Below => "<",
            Op::AtMost => "<=",
            Op::Above => ">",
            Op::AtLeast => ">=",
        }
    }
}

/// Why a text is not a threshold (the caller names the flag or file and the entry).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ThresholdError {
    #[error("no comparison: write METRIC OP VALUE, e.g. p99<5ms (OP is <, <=, > or >=)")]
    NoComparison,
    #[error("unknown metric {name:?} (known: {})", Metric::NAMES)]
    UnknownMetric { name: String },
    #[error("no value after {op:?}")]
    NoValue { op: &'static str },
    #[error("{0}")]
    Duration(#[from] DurationError),
    #[error("{value:?} needs a unit (us, ms or s)")]
    NoUnit { value: String },
    #[error("{value:?} is not a number of responses/s (e.g. 50000 or 50k)")]
    NotARate { value: String },
    #[error("{value:?} is not a share or a count of requests (e.g. 0.1% or 10)")]
    NotErrors { value: String },
    #[error("{value:?} is above 100%")]
    OverHundredPercent { value: String },
    #[error("cpu is the server's CPU per response, which only `shootout run` measures")]
    CpuInLoad,
}

impl fmt::Display for Threshold {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl FromStr for Threshold {
    type Err = ThresholdError;

    fn from_str(text: &str) -> Result<Threshold, ThresholdError> {
        let text = text.trim();
        let at = text.find(['<', '>']).ok_or(ThresholdError::NoComparison)?;
        let (name, rest) = text.split_at(at);
        let (op, value) = op(rest);
        // Spaces are allowed anywhere around and inside the value: `5 ms`, `50 000`.
        let value: String = value.split_whitespace().collect();
        if value.is_empty() {
            return Err(ThresholdError::NoValue { op: op.symbol() });
        }
        let (metric, limit) = metric_and_limit(&name.trim().to_ascii_lowercase(), &value)?;
        Ok(Threshold {
            metric,
            op,
            limit,
            text: text.to_string(),
        })
    }
}

impl Threshold {
    /// A threshold for `shootout load`: any but `cpu`, which a load cannot measure.
    pub fn for_load(text: &str) -> Result<Threshold, ThresholdError> {
        let t: Threshold = text.parse()?;
        match t.metric {
            Metric::Cpu => Err(ThresholdError::CpuInLoad),
            _ => Ok(t),
        }
    }
}

/// The comparison at the start of `rest` (which starts with `<` or `>`) and what follows.
fn op(rest: &str) -> (Op, &str) {
    let pairs = [
        ("<=", Op::AtMost),
        (">=", Op::AtLeast),
        ("<", Op::Below),
        (">", Op::Above),
    ];
    pairs
        .into_iter()
        .find_map(|(symbol, op)| rest.strip_prefix(symbol).map(|v| (op, v)))
        .unwrap_or((Op::Below, rest))
}

/// The metric `name` names, and `value` read in its unit.
fn metric_and_limit(name: &str, value: &str) -> Result<(Metric, f64), ThresholdError> {
    let latency = Latency::ALL.into_iter().find(|l| {
        l.name() == name || l.name().replace('.', "") == name // p999 as the JSON names it
    });
    match (name, latency) {
        (_, Some(l)) => Ok((Metric::Latency(l), micros(value)?)),
        ("rps", _) => Ok((Metric::Rps, rate(value)?)),
        ("errors", _) => share_or_count(value, Metric::ErrorShare, Metric::ErrorCount),
        ("dropped", _) => share_or_count(value, Metric::DroppedShare, Metric::DroppedCount),
        ("cpu", _) => Ok((Metric::Cpu, micros(value)?)),
        // A rate found by a search, written as one: `30000/s`, `30k/s` or `30k`.
        ("capacity", _) => Ok((Metric::Capacity, rate(value)?)),
        _ => Err(ThresholdError::UnknownMetric {
            name: name.to_string(),
        }),
    }
}

/// A duration with its unit, in microseconds (a bare number would be seconds to
/// `parse_duration`, which is never what a latency limit means).
fn micros(value: &str) -> Result<f64, ThresholdError> {
    if value.ends_with(|c: char| c.is_ascii_digit() || c == '.') {
        return Err(ThresholdError::NoUnit {
            value: value.to_string(),
        });
    }
    Ok(parse_duration(value)?.as_secs_f64() * 1e6)
}

/// Responses/s: `50000`, `50,000`, `50k`, `1.5M`, and as a rate is written, `50k/s`.
pub fn rate(value: &str) -> Result<f64, ThresholdError> {
    let value = value.trim().trim_end_matches("/s");
    let bad = || ThresholdError::NotARate {
        value: value.to_string(),
    };
    let plain = value.replace([',', '_'], "");
    let (number, scale) = match plain.strip_suffix(['k', 'K']) {
        Some(n) => (n, 1e3),
        None => match plain.strip_suffix('M') {
            Some(n) => (n, 1e6),
            None => (plain.as_str(), 1.0),
        },
    };
    non_negative(number).map(|n| n * scale).ok_or_else(bad)
}

/// `0.1%` (a share of every request: the metric `share`) or `10` (a count: `count`).
fn share_or_count(
    value: &str,
    share: Metric,
    count: Metric,
) -> Result<(Metric, f64), ThresholdError> {
    let bad = || ThresholdError::NotErrors {
        value: value.to_string(),
    };
    match value.strip_suffix('%') {
        Some(p) => match non_negative(p).ok_or_else(bad)? {
            p if p > 100.0 => Err(ThresholdError::OverHundredPercent {
                value: value.to_string(),
            }),
            p => Ok((share, p / 100.0)),
        },
        // A count is whole: `0.1` without `%` is most likely a share missing its sign.
        None => match value.parse::<u64>() {
            Ok(n) => Ok((count, n as f64)),
            Err(_) => Err(bad()),
        },
    }
}

/// A finite number at or above zero.
fn non_negative(text: &str) -> Option<f64> {
    // f64's parser takes `inf` and `NaN` too: digits only, with at most one point.
    let digits = text.chars().all(|c| c.is_ascii_digit() || c == '.');
    text.parse::<f64>()
        .ok()
        .filter(|n| digits && n.is_finite() && *n >= 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> (Metric, Op, f64) {
        let t: Threshold = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
        (t.metric, t.op, t.limit)
    }

    fn error(text: &str) -> String {
        match text.parse::<Threshold>() {
            Ok(t) => panic!("{text} parsed as {t:?}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn every_metric_in_its_unit_spaces_optional() {
        use Latency::*;
        assert_eq!(parse("p99<5ms"), (Metric::Latency(P99), Op::Below, 5000.0));
        assert_eq!(
            parse(" p99.9 <= 20ms "),
            (Metric::Latency(P999), Op::AtMost, 20_000.0)
        );
        assert_eq!(parse("p99.99<1s").0, Metric::Latency(P9999));
        assert_eq!(parse("p999<1s").0, Metric::Latency(P999));
        assert_eq!(
            parse("P50 < 250us"),
            (Metric::Latency(P50), Op::Below, 250.0)
        );
        assert_eq!(parse("max<5 ms").2, 5000.0);
        assert_eq!(parse("mean<1.5ms").0, Metric::Latency(Mean));
        assert_eq!(parse("p75<1ms").0, Metric::Latency(P75));
        assert_eq!(parse("p90<1ms").0, Metric::Latency(P90));
        assert_eq!(parse("rps>50000"), (Metric::Rps, Op::Above, 50_000.0));
        assert_eq!(parse("rps >= 50k"), (Metric::Rps, Op::AtLeast, 50_000.0));
        assert_eq!(parse("rps>50,000").2, 50_000.0);
        assert_eq!(parse("rps>1.5M").2, 1_500_000.0);
        let share = parse("errors<0.1%");
        assert_eq!((share.0, share.1), (Metric::ErrorShare, Op::Below));
        assert!((share.2 - 0.001).abs() < 1e-12);
        assert_eq!(parse("errors<=10"), (Metric::ErrorCount, Op::AtMost, 10.0));
        let dropped = parse("dropped < 1%");
        assert_eq!((dropped.0, dropped.1), (Metric::DroppedShare, Op::Below));
        assert!((dropped.2 - 0.01).abs() < 1e-12);
        assert_eq!(parse("dropped<=0"), (Metric::DroppedCount, Op::AtMost, 0.0));
        assert_eq!(parse("cpu<40us"), (Metric::Cpu, Op::Below, 40.0));
        let t: Threshold = "  rps >= 50k ".parse().unwrap();
        assert_eq!(t.to_string(), "rps >= 50k");
    }

    #[test]
    fn mistakes_say_what_is_wrong() {
        assert!(error("p99").starts_with("no comparison"));
        assert!(error("p99=5ms").starts_with("no comparison"));
        assert_eq!(
            error("p95<5ms"),
            format!("unknown metric \"p95\" (known: {})", Metric::NAMES)
        );
        assert_eq!(error("p99<"), "no value after \"<\"");
        assert_eq!(error("p99 <= "), "no value after \"<=\"");
        assert_eq!(error("p99<5"), "\"5\" needs a unit (us, ms or s)");
        assert_eq!(
            error("p99<5xs"),
            "\"5xs\": unknown unit \"xs\" (use us, ms, s, m or h)"
        );
        assert!(error("rps>fast").contains("not a number of responses/s"));
        assert!(error("rps>-5").contains("not a number of responses/s"));
        assert!(error("rps>inf").contains("not a number of responses/s"));
        assert!(error("errors<0.1").contains("not a share or a count"));
        assert!(error("errors<-1%").contains("not a share or a count"));
        assert_eq!(error("errors<150%"), "\"150%\" is above 100%");
        assert!(error("<5ms").starts_with("unknown metric \"\""));
    }

    #[test]
    fn a_load_cannot_judge_the_servers_cpu() {
        assert_eq!(
            Threshold::for_load("cpu<40us"),
            Err(ThresholdError::CpuInLoad)
        );
        assert!(Threshold::for_load("p99<5ms").is_ok());
    }

    #[test]
    fn each_comparison_holds_as_written() {
        assert!(Op::Below.holds(1.0, 2.0) && !Op::Below.holds(2.0, 2.0));
        assert!(Op::AtMost.holds(2.0, 2.0) && !Op::AtMost.holds(2.1, 2.0));
        assert!(Op::Above.holds(3.0, 2.0) && !Op::Above.holds(2.0, 2.0));
        assert!(Op::AtLeast.holds(2.0, 2.0) && !Op::AtLeast.holds(1.9, 2.0));
    }
}
