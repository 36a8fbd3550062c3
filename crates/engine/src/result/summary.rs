//! Summaries of samples: latency percentiles from a histogram, and the spread of a set
//! of numbers.

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

/// Latency summary in microseconds.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Percentiles {
    pub mean: f64,
    pub stdev: f64,
    pub min: f64,
    pub max: f64,
    pub p50: f64,
    pub p75: f64,
    pub p90: f64,
    pub p99: f64,
    pub p999: f64,
    pub p9999: f64,
}

impl Percentiles {
    /// Summarises a nanosecond histogram in microseconds (all zero when empty).
    pub fn of<T: hdrhistogram::Counter>(h: &Histogram<T>) -> Percentiles {
        if h.is_empty() {
            return Percentiles::default();
        }
        let us = |ns: u64| ns as f64 / 1000.0;
        let q = |p: f64| us(h.value_at_quantile(p));
        Percentiles {
            mean: h.mean() / 1000.0,
            stdev: h.stdev() / 1000.0,
            min: us(h.min()),
            max: us(h.max()),
            p50: q(0.50),
            p75: q(0.75),
            p90: q(0.90),
            p99: q(0.99),
            p999: q(0.999),
            p9999: q(0.9999),
        }
    }
}

/// Mean, standard deviation and maximum of a set of samples.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Spread {
    pub mean: f64,
    pub stdev: f64,
    pub max: f64,
    /// How many samples, so that spreads can be pooled exactly.
    #[serde(default)]
    pub samples: u64,
}

impl Spread {
    /// The spread of `samples` (population standard deviation, as wrk prints).
    pub fn of(samples: &[f64]) -> Spread {
        if samples.is_empty() {
            return Spread::default();
        }
        let n = samples.len() as f64;
        let mean = samples.iter().sum::<f64>() / n;
        let var = samples.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
        Spread {
            mean,
            stdev: var.sqrt(),
            max: samples.iter().cloned().fold(0.0, f64::max),
            samples: samples.len() as u64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_of_samples() {
        let s = Spread::of(&[1.0, 3.0]);
        assert_eq!((s.mean, s.stdev, s.max), (2.0, 1.0, 3.0));
        assert_eq!(Spread::of(&[]).mean, 0.0);
    }

    #[test]
    fn percentiles_are_in_microseconds() {
        let mut h = crate::stats::latency_histogram();
        h.record(2_000).unwrap();
        h.record(4_000).unwrap();
        let p = Percentiles::of(&h);
        assert!((p.mean - 3.0).abs() < 0.01, "{p:?}");
        assert!((p.max - 4.0).abs() < 0.01);
        assert!((p.p50 - 2.0).abs() < 0.01);
    }
}
