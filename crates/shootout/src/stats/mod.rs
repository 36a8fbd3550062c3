//! Repeats summarised honestly: the median, a distribution-free 95% interval of the
//! median (`median_interval`), and ranks that let overlapping intervals tie; what is
//! measured of one run (`measures`) and whether two sets of repeats differ
//! (`significance`).

pub mod measures;
pub mod median_interval;
pub mod significance;

pub use median_interval::MedianInterval;

/// The median; 0 for no values.
pub fn median(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// How far repeats spread, as the tables show it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spread {
    /// Half the width of the median's interval, in percent of the median.
    pub percent: f64,
    /// How likely the interval covers the true median: 0.95 or more from six repeats on.
    pub coverage: f64,
}

impl Spread {
    /// Whether the interval covers the median with 95% (else it is the range of too few).
    pub fn reaches_wanted(&self) -> bool {
        median_interval::is_wanted(self.coverage)
    }
}

/// The spread of `xs` around its median; None for fewer than two values or a median at
/// or below zero (no spread to tell).
pub fn spread(xs: &[f64]) -> Option<Spread> {
    let m = median(xs);
    let i = MedianInterval::of(xs)?;
    (xs.len() >= 2 && m > 0.0).then(|| Spread {
        percent: 50.0 * (i.high - i.low) / m,
        coverage: i.coverage,
    })
}

/// `median` (the median of `xs`, as the table writes it) with the spread of `xs`:
/// `25,809 ±1.2%`, `25,809 ±3.4% (88%)` for fewer than 6 values (their range, and how
/// likely it holds the median), the median alone without a spread to tell.
pub fn with_spread(median: String, xs: &[f64]) -> String {
    match spread(xs) {
        Some(s) if s.reaches_wanted() => format!("{median} ±{:.1}%", s.percent),
        Some(s) => format!("{median} ±{:.1}% ({:.0}%)", s.percent, 100.0 * s.coverage),
        None => median,
    }
}

/// The interval's half-width in percent of the median of `xs` (see [`spread`]).
pub fn spread_percent(xs: &[f64]) -> Option<f64> {
    spread(xs).map(|s| s.percent)
}

/// Whether repeats `xs` are sure enough: their spread is known and at most
/// `target_percent`. One value says nothing about spread, so it never is.
pub fn converged(xs: &[f64], target_percent: f64) -> bool {
    spread_percent(xs).is_some_and(|p| p <= target_percent)
}

/// The interval ranks compare: the median's interval, a single value as the point itself.
pub fn interval(xs: &[f64]) -> (f64, f64) {
    MedianInterval::of(xs).map_or((0.0, 0.0), |i| (i.low, i.high))
}

/// Ranks (1 = best, higher is better) where a contestant is beaten only by those whose
/// whole interval lies above its own: overlapping intervals share a rank.
pub fn ranks(intervals: &[(f64, f64)]) -> Vec<usize> {
    intervals
        .iter()
        .map(|&(_, hi)| 1 + intervals.iter().filter(|&&(lo, _)| lo > hi).count())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_of_the_median() {
        // Six values or more: order statistics that cover the median with 95%.
        let xs = [10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0];
        assert_eq!(interval(&xs), (11.0, 17.0));
        assert_eq!(interval(&[5.0]), (5.0, 5.0));
        assert_eq!(interval(&[]), (0.0, 0.0));
    }

    #[test]
    fn medians_and_spreads() {
        assert_eq!(median(&[]), 0.0);
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(spread_percent(&[5.0]), None);
        assert_eq!(spread_percent(&[0.0, 0.0]), None);
        // Two values: their range, half of 2 over the median 11, covering it with 50%.
        let two = spread(&[10.0, 12.0]).unwrap();
        assert!((two.percent - 100.0 / 11.0).abs() < 1e-9, "{two:?}");
        assert!((two.coverage - 0.5).abs() < 1e-9 && !two.reaches_wanted());
        // Nine values: x(2)..x(8) = 11..17, ±3 over the median 14.
        let nine = spread(&[10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0]).unwrap();
        assert!((nine.percent - 300.0 / 14.0).abs() < 1e-9 && nine.reaches_wanted());
    }

    #[test]
    fn repeats_converge_when_their_spread_is_within_the_target() {
        let xs = [1000.0, 1010.0, 990.0, 1005.0, 995.0, 1002.0];
        // Range 990..1010 over the median 1001.5: ±0.998%.
        assert!(converged(&xs, 1.0));
        assert!(!converged(&xs, 0.9));
        assert!(
            !converged(&[1000.0], 1000.0),
            "one run says nothing of spread"
        );
        assert!(!converged(&[], 1000.0));
    }

    #[test]
    fn overlapping_intervals_tie() {
        let r = ranks(&[(100.0, 120.0), (110.0, 130.0), (50.0, 60.0)]);
        assert_eq!(r, [1, 1, 3]);
    }
}
