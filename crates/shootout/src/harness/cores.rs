//! How busy each core of the machine is, from /proc/stat: the 2012 article's per-core
//! CPU screenshots, as numbers.

use procfs::{CpuTime, CurrentSI, KernelStats};

/// Cumulative busy and total ticks of every core, in core order.
#[derive(Debug, Clone, Default)]
pub struct CoreTicks(Vec<(u64, u64)>);

impl CoreTicks {
    /// Reads /proc/stat (empty if it cannot be read).
    pub fn take() -> CoreTicks {
        KernelStats::current().map_or_else(|_| CoreTicks::default(), |s| CoreTicks::of(&s))
    }

    /// The cores of a /proc/stat reading (its `cpuN` lines, not the aggregate `cpu` line).
    fn of(stats: &KernelStats) -> CoreTicks {
        CoreTicks(stats.cpu_time.iter().map(busy_and_total).collect())
    }

    /// Each core's busy share (0..1) between `earlier` and this reading.
    pub fn busy_since(&self, earlier: &CoreTicks) -> Vec<f32> {
        self.0
            .iter()
            .zip(&earlier.0)
            .map(|(&(busy, total), &(busy0, total0))| {
                let spent = total.saturating_sub(total0);
                if spent == 0 {
                    0.0
                } else {
                    (busy.saturating_sub(busy0) as f64 / spent as f64) as f32
                }
            })
            .collect()
    }
}

/// (busy, total) ticks of one core: every state but idle and iowait is busy; guest and
/// guest_nice are left out of the total because user already counts them.
fn busy_and_total(t: &CpuTime) -> (u64, u64) {
    let optional = [t.iowait, t.irq, t.softirq, t.steal].map(|v| v.unwrap_or(0));
    let total = t.user + t.nice + t.system + t.idle + optional.iter().sum::<u64>();
    let idle = t.idle + t.iowait.unwrap_or(0);
    (total.saturating_sub(idle), total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use procfs::{ExplicitSystemInfo, FromReadSI};

    #[test]
    fn a_core_line_is_busy_and_total_without_the_aggregate() {
        let text = "cpu  10 0 5 100 5 0 0 0 0 0\n\
                    cpu1 10 1 5 100 4 2 3 0 0 0\n\
                    ctxt 1\nbtime 1\nprocesses 1\n";
        let system = ExplicitSystemInfo {
            boot_time_secs: 1,
            ticks_per_second: 100,
            page_size: 4096,
            is_little_endian: cfg!(target_endian = "little"),
        };
        let stats = KernelStats::from_read(text.as_bytes(), &system).unwrap();
        assert_eq!(CoreTicks::of(&stats).0, vec![(21, 125)]);
        let a = CoreTicks(vec![(0, 0), (10, 100)]);
        let b = CoreTicks(vec![(50, 100), (10, 200)]);
        assert_eq!(b.busy_since(&a), vec![0.5, 0.0]);
        assert!(!CoreTicks::take().0.is_empty());
    }
}
