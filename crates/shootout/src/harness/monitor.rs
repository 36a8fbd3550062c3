//! Watching a server while it is loaded: its process group's CPU and memory every 100 ms.

use super::group_cpu::Sample;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// One point of the series.
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct Point {
    /// Milliseconds since the monitor started.
    pub t_ms: u64,
    /// Cumulative CPU seconds of the server's process group.
    pub cpu_s: f64,
    /// Resident memory of the group, KiB.
    pub rss_kb: u64,
}

/// A sampler thread, stopped by [`Monitor::finish`].
pub struct Monitor {
    stop: Arc<AtomicBool>,
    handle: JoinHandle<Vec<Point>>,
}

impl Monitor {
    /// Samples process group `pgid` every 100 ms until finished.
    pub fn start(pgid: u32) -> Monitor {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let handle = std::thread::spawn(move || {
            let t0 = Instant::now();
            let mut points = Vec::new();
            // Bounded by the flag, which `finish` always sets.
            while !flag.load(Ordering::Relaxed) {
                let s = Sample::take(pgid);
                points.push(Point {
                    t_ms: t0.elapsed().as_millis() as u64,
                    cpu_s: s.seconds(),
                    rss_kb: s.rss_kb(),
                });
                std::thread::sleep(Duration::from_millis(100));
            }
            points
        });
        Monitor { stop, handle }
    }

    /// Stops sampling and returns the series.
    pub fn finish(self) -> Vec<Point> {
        self.stop.store(true, Ordering::Relaxed);
        self.handle.join().unwrap_or_default()
    }
}
