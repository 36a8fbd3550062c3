//! Before each round, a quiet machine: the cores' busy share is sampled, and the round
//! waits (up to a bound) while other work keeps the machine busier than the verdict's
//! foreign threshold. A machine that stays busy is run on anyway: the runs it disturbs
//! are labelled `disturbed` by their verdict.

use crate::machine::cores::CoreTicks;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How long one look at the machine lasts.
const SAMPLE: Duration = Duration::from_millis(500);

/// What the check before a round found.
#[derive(Debug, Clone, PartialEq)]
pub enum Quiet {
    /// Quiet at the first look.
    Now,
    /// Quiet after waiting this long.
    After(Duration),
    /// Still busy (this share of all cores) after waiting as long as allowed, or stopped.
    Busy(f64),
}

/// Waits until the cores' busy share over a look is at most `limit` (0..1), for at most
/// `bound`, or until `interrupt` is set.
pub fn wait_for_quiet(limit: f64, bound: Duration, interrupt: &AtomicBool) -> Quiet {
    let t0 = Instant::now();
    // Counted in looks, not by the clock: a busy machine may stretch the first look.
    let mut first = true;
    // Bounded by `bound` (and by Ctrl-C): each pass takes one look of SAMPLE.
    loop {
        let share = busy_share();
        if share <= limit {
            return match first {
                true => Quiet::Now,
                false => Quiet::After(t0.elapsed()),
            };
        }
        if t0.elapsed() >= bound || interrupt.load(Ordering::Relaxed) {
            return Quiet::Busy(share);
        }
        first = false;
    }
}

/// The busy share of all cores over one look.
fn busy_share() -> f64 {
    let before = CoreTicks::take();
    std::thread::sleep(SAMPLE);
    let used = CoreTicks::take().use_since(&before);
    let cores = used.busy.len().max(1) as f64;
    used.busy.iter().map(|&b| b as f64).sum::<f64>() / cores
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_machine_below_the_limit_is_quiet_and_a_busy_one_is_reported_within_the_bound() {
        let never = AtomicBool::new(false);
        assert_eq!(
            wait_for_quiet(1.0, Duration::from_secs(30), &never),
            Quiet::Now
        );
        let t0 = Instant::now();
        // No machine is ever busier than -1: the check gives up at its bound.
        let busy = wait_for_quiet(-1.0, Duration::from_millis(600), &never);
        assert!(
            matches!(busy, Quiet::Busy(s) if (0.0..=1.0).contains(&s)),
            "{busy:?}"
        );
        // It gave up at its bound rather than waiting on; the margin is a busy machine's.
        assert!(t0.elapsed() < Duration::from_secs(20));
        let stopped = AtomicBool::new(true);
        assert!(matches!(
            wait_for_quiet(-1.0, Duration::from_secs(30), &stopped),
            Quiet::Busy(_)
        ));
    }
}
