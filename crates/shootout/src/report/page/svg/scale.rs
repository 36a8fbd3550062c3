//! From values to positions: an axis' range, scale and ticks, fitted to the values it
//! shows, and the plotting area in SVG units.

/// A value axis: its range, scale and ticks.
pub(super) struct Axis {
    lo: f64,
    hi: f64,
    log: bool,
    /// A logarithmic axis that ends at the 1, 2, 5 × 10^k around its values and has a
    /// tick at each of them, rather than at whole decades.
    fine: bool,
}

impl Axis {
    pub(super) fn fit(values: impl Iterator<Item = f64>, log: bool) -> Axis {
        let v: Vec<f64> = values
            .filter(|x| x.is_finite() && (!log || *x > 0.0))
            .collect();
        let max = v.iter().cloned().fold(f64::MIN, f64::max);
        let min = v.iter().cloned().fold(f64::MAX, f64::min);
        if v.is_empty() {
            return Axis {
                lo: if log { 1.0 } else { 0.0 },
                hi: 1.0 + f64::from(log) * 9.0,
                log,
                fine: false,
            };
        }
        if log {
            let lo = 10f64.powf(min.log10().floor());
            let hi = 10f64.powf(max.log10().ceil()).max(lo * 10.0);
            Axis {
                lo,
                hi,
                log,
                fine: false,
            }
        } else {
            let lo = 0.0_f64.min(min);
            let step = nice((max - lo).max(1e-9) / 5.0);
            Axis {
                lo,
                hi: lo + step * ((max - lo) / step).ceil().max(1.0),
                log,
                fine: false,
            }
        }
    }

    /// A logarithmic axis from the 1, 2, 5 × 10^k at or below the least of `values` to
    /// the one at or above the most: a range of rates (4,000 to 128,000) spans its values
    /// instead of three decades.
    pub(super) fn fit_fine_log(values: impl Iterator<Item = f64>) -> Axis {
        let v: Vec<f64> = values.filter(|x| x.is_finite() && *x > 0.0).collect();
        let min = v.iter().cloned().fold(f64::MAX, f64::min);
        let max = v.iter().cloned().fold(f64::MIN, f64::max);
        if v.is_empty() {
            return Axis::fit(v.into_iter(), true);
        }
        let lo = one_two_five(min)
            .into_iter()
            .rev()
            .find(|t| *t <= min * 1.0001);
        let hi = one_two_five(max).into_iter().find(|t| *t >= max * 0.9999);
        let lo = lo.unwrap_or(min);
        Axis {
            lo,
            hi: hi.unwrap_or(max).max(lo * 2.0),
            log: true,
            fine: true,
        }
    }

    /// 0..1 position of `v` along the axis.
    pub(super) fn at(&self, v: f64) -> f64 {
        if self.log {
            (v.max(self.lo).log10() - self.lo.log10()) / (self.hi.log10() - self.lo.log10())
        } else {
            (v - self.lo) / (self.hi - self.lo)
        }
    }

    pub(super) fn ticks(&self) -> Vec<f64> {
        if self.fine {
            let decades = (self.lo.log10().floor() as i32)..=(self.hi.log10().ceil() as i32);
            return (decades.flat_map(|e| [1.0, 2.0, 5.0].map(|m| m * 10f64.powi(e))))
                .filter(|t| *t >= self.lo * 0.9999 && *t <= self.hi * 1.0001)
                .collect();
        }
        if self.log {
            let (a, b) = (
                self.lo.log10().round() as i32,
                self.hi.log10().round() as i32,
            );
            return (a..=b).map(|e| 10f64.powi(e)).collect();
        }
        let step = nice((self.hi - self.lo) / 6.0);
        (0..=12)
            .map(|i| self.lo + step * i as f64)
            .filter(|t| *t <= self.hi * 1.0001)
            .collect()
    }
}

/// 1, 2, 5 × 10^k for the decade of `x` and the ones either side, ascending.
fn one_two_five(x: f64) -> Vec<f64> {
    let e = x.log10().floor() as i32;
    ((e - 1)..=(e + 1))
        .flat_map(|e| [1.0, 2.0, 5.0].map(|m| m * 10f64.powi(e)))
        .collect()
}

/// The smallest of 1, 2, 2.5, 5 × 10^k at or above `x`.
pub(super) fn nice(x: f64) -> f64 {
    if x <= 0.0 {
        return 1.0;
    }
    let base = 10f64.powf(x.log10().floor());
    [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * base)
        .find(|v| *v >= x * 0.9999)
        .unwrap_or(10.0 * base)
}

/// `12k`, `1.5M`, `250`, `0.5`: short tick labels.
pub fn short(v: f64) -> String {
    let a = v.abs();
    let trim = |s: String| s.trim_end_matches(".0").to_string();
    if a >= 1e6 {
        trim(format!("{:.1}", v / 1e6)) + "M"
    } else if a >= 1e3 {
        trim(format!("{:.1}", v / 1e3)) + "k"
    } else if a >= 10.0 || a == 0.0 {
        format!("{v:.0}")
    } else {
        trim(format!("{v:.2}"))
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string()
    }
}

/// The plotting area in SVG units.
pub(super) struct Plot {
    pub(super) x0: f64,
    pub(super) x1: f64,
    pub(super) y0: f64,
    pub(super) y1: f64,
}

impl Plot {
    pub(super) fn x(&self, at: f64) -> f64 {
        self.x0 + at.clamp(0.0, 1.0) * (self.x1 - self.x0)
    }
    pub(super) fn y(&self, at: f64) -> f64 {
        self.y1 - at.clamp(0.0, 1.0) * (self.y1 - self.y0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nice_numbers_and_short_labels() {
        assert_eq!(nice(23_746.0), 25_000.0);
        assert_eq!(nice(0.7), 1.0);
        assert_eq!(short(25_000.0), "25k");
        assert_eq!(short(1_500_000.0), "1.5M");
        assert_eq!(short(0.5), "0.5");
    }

    #[test]
    fn a_fine_log_axis_ends_at_the_one_two_fives_around_its_values() {
        let a = Axis::fit_fine_log([4000.0, 128_000.0].into_iter());
        assert_eq!((a.lo, a.hi), (2000.0, 200_000.0));
        assert_eq!(
            a.ticks(),
            [2000.0, 5000.0, 10_000.0, 20_000.0, 50_000.0, 100_000.0, 200_000.0]
        );
        let one = Axis::fit_fine_log([5000.0].into_iter());
        assert_eq!((one.lo, one.hi), (5000.0, 10_000.0), "never a point");
        let coarse = Axis::fit([4000.0, 128_000.0].into_iter(), true);
        assert_eq!((coarse.lo, coarse.hi), (1000.0, 1_000_000.0));
    }
}
