//! Open-loop schedules: when each request is meant to be sent.
//!
//! A rate schedule is a piecewise-linear rate over time, given as stages `R:D` (reach R
//! requests/s over D, linearly from the previous rate; the first stage starts at its own
//! rate), as k6's ramping-arrival-rate and vegeta's linear pacer do. Request `n` (from 0)
//! is due when the integral of the rate reaches `n`. Loops and shards each take every
//! k-th request, so together they send exactly the schedule.

use crate::duration::{parse_duration, DurationError};
use std::fmt;
use std::time::Duration;

/// What a schedule's values are: its errors name them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quantity {
    /// Requests per second (`--rate`).
    Rate,
    /// Devices connected at once (`--devices`).
    DeviceCount,
}

impl Quantity {
    /// The unit of a value, spelled out.
    fn unit(self) -> &'static str {
        match self {
            Quantity::Rate => "requests per second",
            Quantity::DeviceCount => "devices",
        }
    }

    /// The unit of a value, short.
    fn unit_short(self) -> &'static str {
        match self {
            Quantity::Rate => "requests/s",
            Quantity::DeviceCount => "devices",
        }
    }
}

impl fmt::Display for Quantity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Quantity::Rate => "rate",
            Quantity::DeviceCount => "count",
        })
    }
}

/// Why a text is not a schedule.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ScheduleError {
    #[error(transparent)]
    Duration(#[from] DurationError),
    #[error("{quantity} {text:?} is not a number of {}", .quantity.unit())]
    NotANumber { quantity: Quantity, text: String },
    #[error("{quantity} {value} is out of range (0 to 1e9 {})", .quantity.unit_short())]
    OutOfRange { quantity: Quantity, value: f64 },
    #[error("the {quantity} is zero everywhere")]
    Zero { quantity: Quantity },
}

/// One stage: the rate reached at its end, and how long it takes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stage {
    pub rate: f64,
    pub duration: Duration,
}

/// A piecewise-linear request rate, starting at time 0.
#[derive(Debug, Clone, PartialEq)]
pub struct RateSchedule {
    stages: Vec<Stage>,
}

/// One precomputed segment: start time and count, start rate and slope.
#[derive(Debug, Clone, Copy)]
struct Segment {
    t0: f64,
    n0: f64,
    rate: f64,
    slope: f64,
    len: f64,
}

impl RateSchedule {
    /// A constant rate, forever.
    pub fn constant(rate: f64) -> RateSchedule {
        RateSchedule {
            stages: vec![Stage {
                rate,
                duration: Duration::ZERO,
            }],
        }
    }

    /// Parses request rates: `1000` or `1000:10s,5000:30s`.
    pub fn parse(text: &str) -> Result<RateSchedule, ScheduleError> {
        RateSchedule::parse_stages(text, Quantity::Rate)
    }

    /// Parses device counts over time, as rates are: `0,15000:60s,0:30s`.
    pub fn parse_device_count(text: &str) -> Result<RateSchedule, ScheduleError> {
        RateSchedule::parse_stages(text, Quantity::DeviceCount)
    }

    /// Parses stages `V[:D]` of values counting `quantity`.
    fn parse_stages(text: &str, quantity: Quantity) -> Result<RateSchedule, ScheduleError> {
        let mut stages = Vec::new();
        for part in text.split(',') {
            let (value, duration) = match part.split_once(':') {
                Some((v, d)) => (v, parse_duration(d)?),
                None => (part, Duration::ZERO),
            };
            let rate: f64 = value
                .trim()
                .parse()
                .map_err(|_| ScheduleError::NotANumber {
                    quantity,
                    text: value.to_string(),
                })?;
            if !(0.0..=1e9).contains(&rate) {
                return Err(ScheduleError::OutOfRange {
                    quantity,
                    value: rate,
                });
            }
            stages.push(Stage { rate, duration });
        }
        if stages.iter().all(|s| s.rate == 0.0) {
            return Err(ScheduleError::Zero { quantity });
        }
        Ok(RateSchedule { stages })
    }

    /// The stages' total duration (zero for a plain constant rate).
    pub fn duration(&self) -> Duration {
        self.stages.iter().map(|s| s.duration).sum()
    }

    /// The value of the piecewise-linear function at `t_ns` (a rate, or a device count).
    /// The segments are walked, not collected: a device load asks at every request and
    /// every turn of its loop, and must not allocate there.
    pub fn value_at(&self, t_ns: u64) -> f64 {
        let t = t_ns as f64 / 1e9;
        self.segments()
            .find(|s| t < s.t0 + s.len)
            .map_or(0.0, |s| s.rate + s.slope * (t - s.t0))
    }

    /// The highest value the function reaches.
    pub fn peak(&self) -> f64 {
        self.stages.iter().map(|s| s.rate).fold(0.0, f64::max)
    }

    /// The linear pieces in order, the last one holding its value for ever: walked where
    /// a value is asked, collected once by the pacer.
    fn segments(&self) -> impl Iterator<Item = Segment> + '_ {
        let (mut t0, mut n0, mut from) = (0.0, 0.0, self.stages[0].rate);
        let (mut stages, mut held) = (self.stages.iter(), false);
        std::iter::from_fn(move || {
            for s in stages.by_ref() {
                let (rate, len) = (from, s.duration.as_secs_f64());
                from = s.rate;
                if len > 0.0 {
                    let segment = Segment {
                        t0,
                        n0,
                        rate,
                        slope: (s.rate - rate) / len,
                        len,
                    };
                    n0 += (rate + s.rate) / 2.0 * len;
                    t0 += len;
                    return Some(segment);
                }
            }
            // After the last stage the last rate holds.
            (!std::mem::replace(&mut held, true)).then_some(Segment {
                t0,
                n0,
                rate: from,
                slope: 0.0,
                len: f64::INFINITY,
            })
        })
    }
}

/// The stages as they are written (`1000:10s,5000:30s`), so that a stored load can say
/// what it ran and be parsed back to the same schedule.
impl fmt::Display for RateSchedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, s) in self.stages.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{}", s.rate)?;
            let d = s.duration;
            match (d.subsec_nanos(), d.subsec_nanos() % 1_000_000) {
                _ if d.is_zero() => {}
                (0, _) => write!(f, ":{}s", d.as_secs())?,
                (_, 0) => write!(f, ":{}ms", d.as_millis())?,
                _ => write!(f, ":{}us", d.as_micros())?,
            }
        }
        Ok(())
    }
}

/// Walks one loop's (or shard's) share of a schedule: requests `offset`, `offset + stride`, ...
#[derive(Debug, Clone)]
pub struct Pacer {
    segments: Vec<Segment>,
    current: usize,
    next: u64,
    stride: u64,
}

impl Pacer {
    /// The share of `schedule` made of every `stride`-th request from `offset`.
    pub fn new(schedule: &RateSchedule, offset: u64, stride: u64) -> Pacer {
        Pacer {
            segments: schedule.segments().collect(),
            current: 0,
            next: offset,
            stride: stride.max(1),
        }
    }

    /// Nanoseconds (from time 0) at which the next request of this share is due, or None
    /// if the rate never reaches it.
    pub fn due(&mut self) -> Option<u64> {
        let n = self.next as f64;
        while let Some(s) = self.segments.get(self.current) {
            if let Some(t) = s.time_of(n) {
                return Some((t * 1e9) as u64);
            }
            self.current += 1;
        }
        None
    }

    /// Moves on to the next request of this share.
    pub fn advance(&mut self) {
        self.next += self.stride;
    }

    /// Requests of the whole schedule (all shares) due in [0, t_ns): the integral the
    /// due times are checked against (the loops count what came due one by one).
    #[cfg(test)]
    pub fn scheduled_before(&self, t_ns: u64) -> f64 {
        let t = t_ns as f64 / 1e9;
        self.segments
            .iter()
            .find(|s| t < s.t0 + s.len)
            .map_or(0.0, |s| s.count_at(t))
    }
}

impl Segment {
    /// Time (s) at which the cumulative count reaches `n`, if within this segment.
    fn time_of(&self, n: f64) -> Option<f64> {
        let k = n - self.n0;
        if k < 0.0 {
            return Some(self.t0);
        }
        let tau = if self.slope.abs() < 1e-12 {
            if self.rate <= 0.0 {
                return None;
            }
            k / self.rate
        } else {
            // n0 + rate·τ + slope·τ²/2 = n, the root in [0, len].
            let disc = self.rate * self.rate + 2.0 * self.slope * k;
            if disc < 0.0 {
                return None;
            }
            (disc.sqrt() - self.rate) / self.slope
        };
        (tau >= 0.0 && tau <= self.len).then_some(self.t0 + tau)
    }

    #[cfg(test)]
    fn count_at(&self, t: f64) -> f64 {
        let tau = (t - self.t0).max(0.0);
        self.n0 + self.rate * tau + self.slope * tau * tau / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedules_print_as_written_and_parse_back() {
        for text in [
            "1000",
            "0,100:10s",
            "1000:10s,5000:30s",
            "0.5:1500ms,2:250us",
        ] {
            let s = RateSchedule::parse(text).unwrap();
            assert_eq!(s.to_string(), text);
            assert_eq!(RateSchedule::parse(&s.to_string()).unwrap(), s);
        }
    }

    #[test]
    fn constant_rate_is_evenly_spaced() {
        let mut p = Pacer::new(&RateSchedule::constant(1000.0), 0, 1);
        let times: Vec<u64> = (0..3)
            .map(|_| {
                let t = p.due().unwrap();
                p.advance();
                t
            })
            .collect();
        assert_eq!(times, [0, 1_000_000, 2_000_000]);
    }

    #[test]
    fn shares_interleave_into_the_whole_schedule() {
        let s = RateSchedule::constant(100.0);
        let mut a = Pacer::new(&s, 0, 2);
        let mut b = Pacer::new(&s, 1, 2);
        assert_eq!(a.due(), Some(0));
        assert_eq!(b.due(), Some(10_000_000));
        a.advance();
        assert_eq!(a.due(), Some(20_000_000));
    }

    #[test]
    fn ramps_are_linear_and_counts_integrate() {
        // 0 -> 100/s over 10 s: 500 requests by t = 10 s, then 100/s.
        let s = RateSchedule::parse("0,100:10s").unwrap();
        let p = Pacer::new(&s, 0, 1);
        assert!((p.scheduled_before(10_000_000_000) - 500.0).abs() < 1e-6);
        assert!((p.scheduled_before(12_000_000_000) - 700.0).abs() < 1e-6);
        let mut q = Pacer::new(&s, 500, 1);
        let t = q.due().unwrap() as f64 / 1e9;
        assert!((t - 10.0).abs() < 1e-6, "{t}");
        let mut r = Pacer::new(&s, 125, 1);
        let t = r.due().unwrap() as f64 / 1e9;
        assert!((t - 5.0).abs() < 1e-6, "{t}");
    }

    #[test]
    fn holds_then_ramps() {
        let s = RateSchedule::parse("1000:10s,5000:30s").unwrap();
        assert_eq!(s.duration(), Duration::from_secs(40));
        let p = Pacer::new(&s, 0, 1);
        assert!((p.scheduled_before(10_000_000_000) - 10_000.0).abs() < 1e-6);
        assert!((p.scheduled_before(40_000_000_000) - 100_000.0).abs() < 1e-3);
    }

    #[test]
    fn values_follow_the_stages() {
        let s = RateSchedule::parse("0,100:10s,100:5s,0:5s").unwrap();
        assert_eq!(s.value_at(0), 0.0);
        assert!((s.value_at(5_000_000_000) - 50.0).abs() < 1e-9);
        assert!((s.value_at(12_000_000_000) - 100.0).abs() < 1e-9);
        assert!((s.value_at(17_500_000_000) - 50.0).abs() < 1e-9);
        assert_eq!(s.value_at(30_000_000_000), 0.0);
        assert_eq!(s.peak(), 100.0);
    }

    #[test]
    fn bad_rates_are_refused() {
        assert!(RateSchedule::parse("fast").is_err());
        assert!(RateSchedule::parse("-5").is_err());
        assert!(RateSchedule::parse("0").is_err());
        assert!(RateSchedule::parse("10:xs").is_err());
    }

    #[test]
    fn errors_name_what_the_stages_count() {
        let message = |r: Result<RateSchedule, ScheduleError>| r.unwrap_err().to_string();
        assert_eq!(
            message(RateSchedule::parse("fast")),
            r#"rate "fast" is not a number of requests per second"#
        );
        assert_eq!(
            message(RateSchedule::parse("2e9")),
            "rate 2000000000 is out of range (0 to 1e9 requests/s)"
        );
        assert_eq!(
            message(RateSchedule::parse("0,0:5s")),
            "the rate is zero everywhere"
        );
        assert_eq!(
            message(RateSchedule::parse_device_count("0,many:5s")),
            r#"count "many" is not a number of devices"#
        );
        assert_eq!(
            message(RateSchedule::parse_device_count("0")),
            "the count is zero everywhere"
        );
        assert_eq!(
            message(RateSchedule::parse("10:xs")),
            r#""xs" is not a duration (try 10s, 500ms, 2m)"#
        );
    }
}
