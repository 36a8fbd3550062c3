//! CPU time of the calling thread, so each loop can tell how busy it was.

use nix::sys::resource::{getrusage, UsageWho};
use nix::sys::time::{TimeVal, TimeValLike};
use std::time::Duration;

/// User and system CPU time consumed so far.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CpuTime {
    pub user: Duration,
    pub sys: Duration,
}

impl CpuTime {
    /// CPU time of the calling thread (zero if the kernel will not say).
    pub fn thread() -> CpuTime {
        getrusage(UsageWho::RUSAGE_THREAD).map_or(CpuTime::default(), |u| CpuTime {
            user: duration(u.user_time()),
            sys: duration(u.system_time()),
        })
    }

    /// The CPU time spent since `earlier`.
    pub fn since(&self, earlier: &CpuTime) -> CpuTime {
        CpuTime {
            user: self.user.saturating_sub(earlier.user),
            sys: self.sys.saturating_sub(earlier.sys),
        }
    }
}

fn duration(tv: TimeVal) -> Duration {
    Duration::from_micros(tv.num_microseconds().max(0) as u64)
}

/// The number of CPUs this process may run on (its affinity mask).
pub fn allowed_cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn busy_thread_accumulates_cpu_time() {
        use nix::time::{clock_gettime, ClockId};
        let start = CpuTime::thread();
        // Spin until the kernel's other clock of this thread says it ran 30 ms (not 30
        // ms of wall time: on a busy machine the thread is preempted), or a minute passed.
        let ran = || {
            let t = clock_gettime(ClockId::CLOCK_THREAD_CPUTIME_ID);
            t.map_or(Duration::ZERO, Duration::from)
        };
        let (from, t0) = (ran(), std::time::Instant::now());
        while ran() - from < Duration::from_millis(30) && t0.elapsed().as_secs() < 60 {
            std::hint::black_box(0u64);
        }
        let used = CpuTime::thread().since(&start);
        assert!(
            used.user + used.sys >= Duration::from_millis(10),
            "{used:?}"
        );
    }
}
