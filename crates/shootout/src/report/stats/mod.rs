//! Repeats summarised honestly: the median, a 95% confidence interval of the mean, and
//! ranks that let overlapping intervals tie; what is measured of one run (`measures`) and
//! whether two sets of repeats differ (`significance`).

pub mod measures;
pub mod significance;

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

/// The 95% interval's half-width in percent of the median of `xs`, None for fewer than
/// two values or a median at or below zero (no spread to tell).
pub fn spread_percent(xs: &[f64]) -> Option<f64> {
    let m = median(xs);
    if xs.len() < 2 || m <= 0.0 {
        return None;
    }
    let (lo, hi) = interval95(xs);
    Some(50.0 * (hi - lo) / m)
}

/// Two-sided 97.5% quantiles of Student's t for 1..=30 degrees of freedom.
const T975: [f64; 30] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
    2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
    2.052, 2.048, 2.045, 2.042,
];

/// The 95% confidence interval of the mean of `xs` (t-distribution); a single sample
/// gives the point itself, since one run says nothing about spread.
pub fn interval95(xs: &[f64]) -> (f64, f64) {
    let n = xs.len();
    if n == 0 {
        return (0.0, 0.0);
    }
    let mean = xs.iter().sum::<f64>() / n as f64;
    if n == 1 {
        return (mean, mean);
    }
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    let t = T975.get(n - 2).copied().unwrap_or(1.96);
    let half = t * (var / n as f64).sqrt();
    (mean - half, mean + half)
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
    fn interval_of_known_samples() {
        let (lo, hi) = interval95(&[10.0, 12.0]);
        // mean 11, s = 1.414, t(1) = 12.706: 11 ± 12.706
        assert!((lo - (11.0 - 12.706)).abs() < 1e-3 && (hi - (11.0 + 12.706)).abs() < 1e-3);
        assert_eq!(interval95(&[5.0]), (5.0, 5.0));
    }

    #[test]
    fn medians_and_spreads() {
        assert_eq!(median(&[]), 0.0);
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(spread_percent(&[5.0]), None);
        assert_eq!(spread_percent(&[0.0, 0.0]), None);
        // mean 11, half-width 12.706 over the median 11.
        let pct = spread_percent(&[10.0, 12.0]).unwrap();
        assert!((pct - 100.0 * 12.706 / 11.0).abs() < 1e-2, "{pct}");
    }

    #[test]
    fn overlapping_intervals_tie() {
        let r = ranks(&[(100.0, 120.0), (110.0, 130.0), (50.0, 60.0)]);
        assert_eq!(r, [1, 1, 3]);
    }
}
