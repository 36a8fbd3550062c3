//! The host's noise at idle, measured once before an experiment's first run: how much of
//! the cores' time the hypervisor steals and other work takes while no contestant runs.
//! On a shared cloud VM steal of 5-35% was measured (other tenants); it is said before
//! the first run, stored with the experiment, and shown in its report, so that a reader
//! knows what the verdicts judged against.

use crate::machine::cores::CoreTicks;
use crate::model::HostNoise;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How long the host is watched before the first run: long enough to see steal that
/// comes in bursts of a second or two, short next to an experiment.
pub const WATCH: Duration = Duration::from_secs(3);

/// One look at the cores.
const LOOK: Duration = Duration::from_millis(250);

/// Watches the cores for `watch` (or until `interrupt`): their mean steal and busy
/// shares over the looks.
pub fn measure(watch: Duration, interrupt: &AtomicBool) -> HostNoise {
    let t0 = Instant::now();
    let first = CoreTicks::take();
    let mut before = first.clone();
    let mut peak_steal: f64 = 0.0;
    // Bounded by `watch` (and Ctrl-C): each pass sleeps one look.
    while t0.elapsed() < watch && !interrupt.load(Ordering::Relaxed) {
        std::thread::sleep(LOOK);
        let now = CoreTicks::take();
        peak_steal = peak_steal.max(mean(&now.use_since(&before).steal));
        before = now;
    }
    let all = before.use_since(&first);
    HostNoise {
        cores: all.busy.len(),
        seconds: t0.elapsed().as_secs_f64(),
        steal: mean(&all.steal),
        peak_steal,
        busy: mean(&all.busy),
    }
}

fn mean(shares: &[f32]) -> f64 {
    match shares.len() {
        0 => 0.0,
        n => shares.iter().map(|&s| f64::from(s)).sum::<f64>() / n as f64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_watch_reads_shares_of_every_core_within_its_time() {
        let never = AtomicBool::new(false);
        let t0 = Instant::now();
        let noise = measure(Duration::from_millis(600), &never);
        assert!(t0.elapsed() < Duration::from_secs(30));
        assert_eq!(noise.cores, engine::allowed_cpus().max(noise.cores));
        for share in [noise.steal, noise.peak_steal, noise.busy] {
            assert!((0.0..=1.0).contains(&share), "{noise:?}");
        }
        assert!(noise.seconds >= 0.6, "{noise:?}");
        let stopped = AtomicBool::new(true);
        assert!(measure(Duration::from_secs(30), &stopped).seconds < 5.0);
    }
}
