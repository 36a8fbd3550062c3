//! A confidence interval of the median that assumes nothing of the distribution: two
//! order statistics of the sample, [x_(k), x_(n+1-k)]. The true median lies below x_(k)
//! only when fewer than k samples fall below it, which for any continuous distribution
//! happens with the probability Binomial(n, ½) ≤ k-1; so the interval covers the median
//! with 1 - 2·P(B ≤ k-1). Runs of a server are skewed (a slow repeat pulls a mean, not a
//! median), so the table shows the median and this is the interval of what it shows.

use statrs::distribution::{Binomial, DiscreteCDF};

/// The coverage every table claims.
pub const WANTED: f64 = 0.95;

/// Below this many samples no pair of order statistics covers the median with 95%
/// (five samples' full range covers it with 1 - 2/32 = 93.75%).
pub const FEWEST_FOR_95: usize = 6;

/// An interval of the median and the probability it covers the true median.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MedianInterval {
    pub low: f64,
    pub high: f64,
    /// 0.95 or more from six samples on; below that, the full range's own (one sample: 0,
    /// up to the rounding of the binomial sums).
    pub coverage: f64,
}

impl MedianInterval {
    /// The narrowest order-statistic interval of `xs` that covers the median with 95%, or
    /// the full range with its lower coverage when `xs` is too small; None for no values.
    pub fn of(xs: &[f64]) -> Option<MedianInterval> {
        let mut v = xs.to_vec();
        v.sort_by(|a, b| a.total_cmp(b));
        let n = v.len();
        if n == 0 {
            return None;
        }
        let k = depth(n);
        Some(MedianInterval {
            low: v[k - 1],
            high: v[n - k],
            coverage: coverage(n, k),
        })
    }

    /// Whether the interval covers the median with the wanted 95%.
    pub fn reaches_wanted(&self) -> bool {
        is_wanted(self.coverage)
    }
}

/// Whether `coverage` is the wanted 95% (the binomial sums are computed, not exact).
pub fn is_wanted(coverage: f64) -> bool {
    coverage >= WANTED - 1e-12
}

/// The largest k (1-based) whose interval [x_(k), x_(n+1-k)] still covers the median of
/// `n` samples with 95%; 1 (the full range) when none does.
pub fn depth(n: usize) -> usize {
    (1..=n.div_ceil(2))
        .take_while(|&k| is_wanted(coverage(n, k)))
        .last()
        .unwrap_or(1)
}

/// The probability that [x_(k), x_(n+1-k)] of `n` samples covers the median:
/// 1 - 2·P(Binomial(n, ½) ≤ k-1).
pub fn coverage(n: usize, k: usize) -> f64 {
    if n == 0 || k == 0 {
        return 0.0;
    }
    match Binomial::new(0.5, n as u64) {
        Ok(b) => (1.0 - 2.0 * b.cdf(k as u64 - 1)).max(0.0),
        // p = ½ is always a valid parameter.
        Err(_) => 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// k for n = 5..=20, as the published tables of the sign-test interval give it
    /// (e.g. Conover, Practical Nonparametric Statistics, table A3).
    const DEPTHS: [(usize, usize); 16] = [
        (5, 1),
        (6, 1),
        (7, 1),
        (8, 1),
        (9, 2),
        (10, 2),
        (11, 2),
        (12, 3),
        (13, 3),
        (14, 3),
        (15, 4),
        (16, 4),
        (17, 5),
        (18, 5),
        (19, 5),
        (20, 6),
    ];

    #[test]
    fn order_statistics_of_the_published_tables() {
        for (n, k) in DEPTHS {
            assert_eq!(depth(n), k, "n = {n}");
            // Samples 1..=n: the interval is [k, n+1-k] itself.
            let xs: Vec<f64> = (1..=n).rev().map(|i| i as f64).collect();
            let i = MedianInterval::of(&xs).unwrap();
            assert_eq!((i.low, i.high), (k as f64, (n + 1 - k) as f64), "n = {n}");
            assert_eq!(i.reaches_wanted(), n >= FEWEST_FOR_95, "n = {n}");
            // One step narrower would fall below 95%.
            assert!(coverage(n, k + 1) < WANTED, "n = {n}");
        }
    }

    #[test]
    fn coverage_matches_a_hand_computation() {
        // n = 9, k = 2: 1 - 2·(C(9,0) + C(9,1)) / 2^9 = 1 - 2·10/512.
        assert!((coverage(9, 2) - (1.0 - 20.0 / 512.0)).abs() < 1e-9);
        // n = 12, k = 3: 1 - 2·(1 + 12 + 66) / 4096.
        assert!((coverage(12, 3) - (1.0 - 158.0 / 4096.0)).abs() < 1e-9);
        // n = 20, k = 6: 1 - 2·(1 + 20 + 190 + 1140 + 4845 + 15504) / 2^20.
        assert!((coverage(20, 6) - (1.0 - 43_400.0 / 1_048_576.0)).abs() < 1e-9);
        // The full range of a few samples: 1 - 2/2^n.
        for (n, expected) in [(2, 0.5), (3, 0.75), (4, 0.875), (5, 0.9375)] {
            assert!((coverage(n, 1) - expected).abs() < 1e-9, "n = {n}");
        }
        assert!(
            coverage(1, 1) < 1e-9,
            "a single value is a point: it misses the median"
        );
    }

    #[test]
    fn small_samples_give_their_range_and_say_how_sure_it_is() {
        let i = MedianInterval::of(&[12.0, 10.0, 11.0, 13.0]).unwrap();
        assert_eq!((i.low, i.high), (10.0, 13.0));
        assert!((i.coverage - 0.875).abs() < 1e-9 && !i.reaches_wanted());
        let one = MedianInterval::of(&[5.0]).unwrap();
        assert_eq!((one.low, one.high), (5.0, 5.0));
        assert!(one.coverage < 1e-9);
        assert_eq!(MedianInterval::of(&[]), None);
    }
}
