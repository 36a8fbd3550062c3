//! Watching a run every 100 ms: the server's CPU (user, system) and memory, the
//! database's CPU when the run has one, the generator's CPU (this process, whose loops send the load, and its load shards),
//! the other processes' (foreign CPU), and each core's use.

use crate::machine::cores::{CoreTicks, CoreUse};
use crate::model::Point;
use crate::process::foreign_cpu::ForeignCpu;
use crate::process::group_cpu::{self, Members, Sample};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// A sampler thread, stopped by [`Monitor::finish`].
pub struct Monitor {
    stop: Arc<AtomicBool>,
    handle: JoinHandle<Vec<Point>>,
}

impl Monitor {
    /// Samples the server's processes, `members`, and the database's process tree when
    /// given, every 100 ms until finished.
    pub fn start(members: Members, database: Option<u32>) -> Monitor {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let handle = std::thread::spawn(move || {
            let t0 = Instant::now();
            // Shards that end are waited for and their CPU moves to the reaped total:
            // counted from here, the generator's CPU does not drop when they end.
            let reaped = group_cpu::reaped_children_seconds();
            let mut points = Vec::new();
            let mut cores = CoreTicks::take();
            let mut foreign = ForeignCpu::default();
            // Bounded by the flag, which `finish` always sets.
            while !flag.load(Ordering::Relaxed) {
                let now = CoreTicks::take();
                let used = now.use_since(&cores);
                let s = Sample::of_sides(members, database);
                points.push(point(&s, t0, used, reaped, &mut foreign));
                cores = now;
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

fn point(s: &Sample, t0: Instant, used: CoreUse, reaped: f64, foreign: &mut ForeignCpu) -> Point {
    let others_cpu_s = foreign.add(s.foreign()) as f64 / group_cpu::clock_ticks();
    let shards = s.shard_seconds() + group_cpu::reaped_children_seconds() - reaped;
    Point {
        t_ms: t0.elapsed().as_millis() as u64,
        cpu_s: s.seconds(),
        user_s: s.user_seconds(),
        sys_s: s.sys_seconds(),
        rss_kb: s.rss_kb(),
        generator_cpu_s: group_cpu::own_seconds() + shards,
        database_cpu_s: s.database_seconds(),
        cores: used.busy,
        steal: used.steal,
        others_cpu_s,
    }
}
