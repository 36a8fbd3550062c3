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
        let start = CpuTime::thread();
        let mut x = 0u64;
        let until = std::time::Instant::now() + Duration::from_millis(30);
        while std::time::Instant::now() < until {
            x = x.wrapping_add(1);
        }
        std::hint::black_box(x);
        let used = CpuTime::thread().since(&start);
        assert!(
            used.user + used.sys >= Duration::from_millis(10),
            "{used:?}"
        );
    }
}
