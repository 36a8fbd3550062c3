//! How busy each core of the machine is, from /proc/stat: the 2012 article's per-core
//! CPU screenshots, as numbers.

use procfs::{CpuTime, CurrentSI, KernelStats};

/// Cumulative ticks of every core, in core order.
#[derive(Debug, Clone, Default)]
pub struct CoreTicks(Vec<Ticks>);

/// One core's cumulative ticks, by what they were spent on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Ticks {
    /// Running tasks: user, nice and system.
    task: u64,
    /// Interrupt work: irq and softirq (on loopback, much of the network stack).
    interrupt: u64,
    /// Taken by the hypervisor for other guests.
    steal: u64,
    total: u64,
}

/// What the cores did between two readings.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CoreUse {
    /// Each core's busy share (0..1): task and interrupt work.
    pub busy: Vec<f32>,
    /// Each core's stolen share (0..1).
    pub steal: Vec<f32>,
}

impl CoreTicks {
    /// Reads /proc/stat (empty if it cannot be read).
    pub fn take() -> CoreTicks {
        KernelStats::current().map_or_else(|_| CoreTicks::default(), |s| CoreTicks::of(&s))
    }

    /// The cores of a /proc/stat reading (its `cpuN` lines, not the aggregate `cpu` line).
    fn of(stats: &KernelStats) -> CoreTicks {
        CoreTicks(stats.cpu_time.iter().map(ticks).collect())
    }

    /// What each core did between `earlier` and this reading.
    pub fn use_since(&self, earlier: &CoreTicks) -> CoreUse {
        let mut out = CoreUse::default();
        for (now, then) in self.0.iter().zip(&earlier.0) {
            let spent = now.total.saturating_sub(then.total).max(1) as f64;
            let task = now.task.saturating_sub(then.task);
            let interrupt = now.interrupt.saturating_sub(then.interrupt);
            out.busy.push(((task + interrupt) as f64 / spent) as f32);
            out.steal
                .push((now.steal.saturating_sub(then.steal) as f64 / spent) as f32);
        }
        out
    }
}

/// One core's ticks by kind; guest and guest_nice are left out because user already
/// counts them, and iowait is idle time.
fn ticks(t: &CpuTime) -> Ticks {
    let [iowait, irq, softirq, steal] =
        [t.iowait, t.irq, t.softirq, t.steal].map(|v| v.unwrap_or(0));
    let task = t.user + t.nice + t.system;
    Ticks {
        task,
        interrupt: irq + softirq,
        steal,
        total: task + irq + softirq + steal + t.idle + iowait,
    }
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
        let core = Ticks {
            task: 16,
            interrupt: 5,
            steal: 0,
            total: 125,
        };
        assert_eq!(CoreTicks::of(&stats).0, vec![core]);
        let at = |task, interrupt, steal, total| Ticks {
            task,
            interrupt,
            steal,
            total,
        };
        let a = CoreTicks(vec![at(0, 0, 0, 0), at(10, 0, 0, 100)]);
        let b = CoreTicks(vec![at(40, 10, 20, 100), at(10, 0, 0, 200)]);
        let used = b.use_since(&a);
        assert_eq!((used.busy, used.steal), (vec![0.5, 0.0], vec![0.2, 0.0]));
        assert!(!CoreTicks::take().0.is_empty());
    }
}
