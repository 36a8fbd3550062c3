//! What a threshold measures, in which unit, and how it is read from the result of a load
//! or from one run of an experiment.

use crate::model::RunRecord;
use crate::stats::measures;
use crate::units;
use engine::{LoadResult, Percentiles};

/// A number a threshold limits, each in one unit: responses/s, microseconds, a share of
/// all requests (0..1), a count of requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    /// Responses (any status) per second.
    Rps,
    /// A statistic of the latency from each request's intended send time (the one the
    /// tables show), microseconds.
    Latency(Latency),
    /// Requests that did not succeed (a 4xx/5xx status, a timeout, connect, read, write,
    /// parse, TLS or HTTP/2 error, or in an open loop dropped unsent), as a share of every
    /// request measured. A dropped request is an error: the schedule asked for it and
    /// nobody answered it, and `errors<1%` must not hold for a load that sent nothing.
    ErrorShare,
    /// Requests that did not succeed, counted.
    ErrorCount,
    /// Open loop: requests dropped unsent (due, and no connection took them within the
    /// timeout: k6's dropped iterations), as a share of every request measured.
    DroppedShare,
    /// Requests dropped unsent, counted.
    DroppedCount,
    /// Server CPU per response, microseconds. Only an experiment measures the server's
    /// CPU; `shootout load` cannot see it.
    Cpu,
    /// The highest rate that met a capacity search's objectives, requests/s: only a
    /// search (`load --capacity`, a `capacity` load) finds it.
    Capacity,
}

/// The latency statistics a threshold may name: those every result keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Latency {
    P50,
    P75,
    P90,
    P99,
    P999,
    P9999,
    Max,
    Mean,
}

impl Latency {
    pub const ALL: [Latency; 8] = [
        Latency::P50,
        Latency::P75,
        Latency::P90,
        Latency::P99,
        Latency::P999,
        Latency::P9999,
        Latency::Max,
        Latency::Mean,
    ];

    /// The name a threshold gives it: `p99`, `p99.9`, `max`.
    pub fn name(self) -> &'static str {
        match self {
            Latency::P50 => "p50",
            Latency::P75 => "p75",
            Latency::P90 => "p90",
            Latency::P99 => "p99",
            Latency::P999 => "p99.9",
            Latency::P9999 => "p99.99",
            Latency::Max => "max",
            Latency::Mean => "mean",
        }
    }

    /// The share of responses at or below it (0.99 for p99); None for max and mean.
    pub fn quantile(self) -> Option<f64> {
        match self {
            Latency::P50 => Some(0.5),
            Latency::P75 => Some(0.75),
            Latency::P90 => Some(0.9),
            Latency::P99 => Some(0.99),
            Latency::P999 => Some(0.999),
            Latency::P9999 => Some(0.9999),
            Latency::Max | Latency::Mean => None,
        }
    }

    /// Its value among a result's percentiles, microseconds.
    pub fn of(self, p: &Percentiles) -> f64 {
        match self {
            Latency::P50 => p.p50,
            Latency::P75 => p.p75,
            Latency::P90 => p.p90,
            Latency::P99 => p.p99,
            Latency::P999 => p.p999,
            Latency::P9999 => p.p9999,
            Latency::Max => p.max,
            Latency::Mean => p.mean,
        }
    }
}

impl Metric {
    /// Every name a threshold may start with, for messages.
    pub const NAMES: &'static str =
        "rps, p50, p75, p90, p99, p99.9, p99.99, max, mean, errors, dropped, cpu, capacity";

    /// The metric's name as written in a threshold.
    pub fn name(self) -> &'static str {
        match self {
            Metric::Rps => "rps",
            Metric::Latency(l) => l.name(),
            Metric::ErrorShare | Metric::ErrorCount => "errors",
            Metric::DroppedShare | Metric::DroppedCount => "dropped",
            Metric::Cpu => "cpu",
            Metric::Capacity => "capacity",
        }
    }

    /// Its value in a load's result; None when the load measured nothing to judge it by
    /// (no response to time, no request to share errors among) or when a load cannot
    /// measure it at all (the server's CPU).
    pub fn of_load(self, r: &LoadResult) -> Option<f64> {
        let n = &r.requests;
        let failed = n.status + n.errors();
        let share = |count: u64| (n.total() > 0).then(|| count as f64 / n.total() as f64);
        match self {
            Metric::Rps => Some(r.rps),
            Metric::Latency(l) => (n.ok + n.status > 0).then(|| l.of(&r.latency_us)),
            Metric::ErrorShare => share(failed),
            Metric::ErrorCount => Some(failed as f64),
            Metric::DroppedShare => share(n.dropped),
            Metric::DroppedCount => Some(n.dropped as f64),
            Metric::Cpu | Metric::Capacity => None,
        }
    }

    /// Its value in one run of an experiment; None for a run that measured nothing.
    pub fn of_run(self, r: &RunRecord) -> Option<f64> {
        match self {
            Metric::Cpu => measures::cpu_us_per_response(r),
            Metric::Capacity => r.capacity.as_ref().and_then(|s| s.answer.rate()),
            _ => r.result().and_then(|x| self.of_load(x)),
        }
    }

    /// `value` in the metric's unit: `40,000 req/s`, `7.20ms`, `0.15%`, `12 requests`.
    pub fn show(self, value: f64) -> String {
        match self {
            Metric::Rps => format!("{} req/s", units::grouped(value)),
            Metric::Capacity => format!("{}/s", units::grouped(value)),
            Metric::Latency(_) | Metric::Cpu => units::micros(value),
            Metric::ErrorShare | Metric::DroppedShare => {
                format!("{}%", trimmed(value * 100.0, 3))
            }
            Metric::ErrorCount | Metric::DroppedCount => {
                format!("{} requests", units::grouped(value))
            }
        }
    }

    /// A difference in the metric's unit, with its sign: `+2.20ms`, `-10,000 req/s`.
    pub fn show_signed(self, delta: f64) -> String {
        let sign = if delta < 0.0 { '-' } else { '+' };
        format!("{sign}{}", self.show(delta.abs()))
    }
}

/// `x` with at most `decimals` decimals, without trailing zeros: `0.15`, `5`.
fn trimmed(x: f64, decimals: usize) -> String {
    let text = format!("{x:.decimals$}");
    match text.contains('.') {
        true => text.trim_end_matches('0').trim_end_matches('.').to_string(),
        false => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Label;
    use crate::report::fixture::hello_run;

    #[test]
    fn values_are_shown_in_their_unit() {
        assert_eq!(Metric::Rps.show(40_000.4), "40,000 req/s");
        assert_eq!(Metric::Latency(Latency::P99).show(7200.0), "7.20ms");
        assert_eq!(Metric::ErrorShare.show(0.0015), "0.15%");
        assert_eq!(Metric::ErrorShare.show(0.0), "0%");
        assert_eq!(Metric::ErrorCount.show(1234.0), "1,234 requests");
        assert_eq!(Metric::Cpu.show(48.2), "48.20us");
        assert_eq!(Metric::Rps.show_signed(-10_000.0), "-10,000 req/s");
        assert_eq!(Metric::Latency(Latency::Max).show_signed(2200.0), "+2.20ms");
    }

    /// An open loop that dropped 3 of its 10 requests and answered 6 (one timed out):
    /// the dropped count as errors, and as themselves.
    #[test]
    fn dropped_requests_are_errors_and_a_metric_of_their_own() {
        let mut r = hello_run("a", Label::Ok, 1000.0, 1.0)
            .result()
            .unwrap()
            .clone();
        r.requests = engine::Counts {
            ok: 6,
            timeout: 1,
            dropped: 3,
            ..engine::Counts::default()
        };
        let of = |m: Metric| m.of_load(&r).unwrap();
        assert_eq!(
            (of(Metric::ErrorCount), of(Metric::DroppedCount)),
            (4.0, 3.0)
        );
        assert!((of(Metric::ErrorShare) - 0.4).abs() < 1e-12);
        assert!((of(Metric::DroppedShare) - 0.3).abs() < 1e-12);
        // Nothing measured: no share to judge by.
        r.requests = engine::Counts::default();
        assert_eq!(Metric::DroppedShare.of_load(&r), None);
        assert_eq!(Metric::DroppedCount.show(2.0), "2 requests");
    }

    #[test]
    fn a_run_gives_each_metric_in_its_unit() {
        let run = hello_run("a", Label::Ok, 1000.0, 1.0);
        let result = run.result().unwrap();
        assert_eq!(Metric::Rps.of_run(&run), Some(1000.0));
        // The fixture's p99 is 1 ms: the metric is in microseconds.
        let p99 = Metric::Latency(Latency::P99).of_run(&run).unwrap();
        assert_eq!(p99, 1000.0);
        // The report's CPU per response, in microseconds instead of milliseconds.
        let cpu_ms = measures::cpu_ms_per_response(&run).unwrap();
        assert_eq!(Metric::Cpu.of_run(&run), Some(cpu_ms * 1000.0));
        assert_eq!(
            Metric::Cpu.of_load(result),
            None,
            "a load cannot see the server"
        );
    }
}
