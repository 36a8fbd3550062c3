//! Whether two sets of repeats differ: the Mann-Whitney U test (two-sided), exact for
//! small samples without ties, by the normal approximation with a tie correction
//! otherwise. Rank-based, so one noisy repeat cannot swing it as it swings a mean.

use statrs::distribution::{ContinuousCDF, Normal};

/// The two-sided p-value that `a` and `b` come from the same distribution; 1 when either
/// is empty.
pub fn mann_whitney(a: &[f64], b: &[f64]) -> f64 {
    let (n1, n2) = (a.len(), b.len());
    if n1 == 0 || n2 == 0 {
        return 1.0;
    }
    let (u, tied) = u_statistic(a, b);
    if !tied && n1 + n2 <= 40 {
        exact(u, n1, n2)
    } else {
        normal(u, a, b)
    }
}

/// U of `a` (pairs where a beats b, ties counting a half) and whether any value is tied.
fn u_statistic(a: &[f64], b: &[f64]) -> (f64, bool) {
    let mut u = 0.0;
    let mut tied = false;
    for x in a {
        for y in b {
            if x > y {
                u += 1.0;
            } else if x == y {
                u += 0.5;
                tied = true;
            }
        }
    }
    let within = |v: &[f64]| v.iter().enumerate().any(|(i, x)| v[i + 1..].contains(x));
    (u, tied || within(a) || within(b))
}

/// Exact two-sided p: the share of the arrangements of n1 + n2 ranks whose U is at least
/// as far from its mean as `u` is. counts[k] = arrangements with U = k, built up one
/// sample at a time (the classic recurrence f(n1, n2) = f(n1-1, n2)·shift + f(n1, n2-1)).
fn exact(u: f64, n1: usize, n2: usize) -> f64 {
    let max = n1 * n2;
    // ways[i][j][k]: arrangements of i a's and j b's with U = k, rolled over j.
    let mut prev: Vec<Vec<f64>> = vec![vec![1.0]; n1 + 1];
    for j in 1..=n2 {
        let mut cur: Vec<Vec<f64>> = vec![vec![1.0]];
        for i in 1..=n1 {
            let mut v = vec![0.0; i * j + 1];
            // The largest value is an a (beating all j b's) or a b.
            for (k, w) in cur[i - 1].iter().enumerate() {
                v[k + j] += w;
            }
            for (k, w) in prev[i].iter().enumerate() {
                v[k] += w;
            }
            cur.push(v);
        }
        prev = cur;
    }
    let counts = &prev[n1];
    let total: f64 = counts.iter().sum();
    let mean = max as f64 / 2.0;
    let far = (u - mean).abs();
    let tail: f64 = counts
        .iter()
        .enumerate()
        .filter(|(k, _)| (*k as f64 - mean).abs() >= far - 1e-9)
        .map(|(_, w)| w)
        .sum();
    (tail / total).min(1.0)
}

fn normal(u: f64, a: &[f64], b: &[f64]) -> f64 {
    let (n1, n2) = (a.len() as f64, b.len() as f64);
    let n = n1 + n2;
    let mut all: Vec<f64> = a.iter().chain(b).copied().collect();
    all.sort_by(|x, y| x.total_cmp(y));
    let mut ties = 0.0;
    let mut i = 0;
    while i < all.len() {
        let j = all[i..].iter().take_while(|x| **x == all[i]).count();
        ties += (j as f64).powi(3) - j as f64;
        i += j;
    }
    let var = n1 * n2 / 12.0 * ((n + 1.0) - ties / (n * (n - 1.0)).max(1.0));
    if var <= 0.0 {
        return 1.0;
    }
    let z = ((u - n1 * n2 / 2.0).abs() - 0.5).max(0.0) / var.sqrt();
    (2.0 * (1.0 - phi(z))).min(1.0)
}

/// The standard normal CDF.
fn phi(z: f64) -> f64 {
    Normal::standard().cdf(z)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_p_values_match_the_tables() {
        // Completely separated samples: p = 2 / C(n1 + n2, n1).
        assert!((mann_whitney(&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0]) - 0.1).abs() < 1e-9);
        assert!(
            (mann_whitney(&[1.0, 2.0, 3.0, 4.0, 5.0], &[6.0, 7.0, 8.0, 9.0, 10.0]) - 2.0 / 252.0)
                .abs()
                < 1e-9
        );
        assert!((mann_whitney(&[1.0, 2.0], &[3.0, 4.0]) - 1.0 / 3.0).abs() < 1e-9);
        assert_eq!(mann_whitney(&[1.0, 4.0], &[2.0, 3.0]), 1.0);
        assert_eq!(mann_whitney(&[], &[1.0]), 1.0);
    }

    #[test]
    fn ties_use_the_normal_approximation() {
        let p = mann_whitney(&[1.0; 10], &[2.0; 10]);
        assert!(p < 0.001, "{p}");
        assert!(mann_whitney(&[1.0, 1.0, 2.0], &[1.0, 2.0, 2.0]) > 0.3);
        assert!((phi(1.959_964) - 0.975).abs() < 1e-6);
    }
}
