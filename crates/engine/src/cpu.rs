//! CPU time of the calling thread, so each loop can tell how busy it was.

use std::time::Duration;

/// User and system CPU time consumed so far.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CpuTime {
    pub user: Duration,
    pub sys: Duration,
}

impl CpuTime {
    /// CPU time of the calling thread.
    pub fn thread() -> CpuTime {
        rusage(libc::RUSAGE_THREAD)
    }

    /// The CPU time spent since `earlier`.
    pub fn since(&self, earlier: &CpuTime) -> CpuTime {
        CpuTime {
            user: self.user.saturating_sub(earlier.user),
            sys: self.sys.saturating_sub(earlier.sys),
        }
    }
}

fn rusage(who: libc::c_int) -> CpuTime {
    // SAFETY: an all-zero rusage is a valid value, and getrusage only writes into it.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `ru` is a valid, writable rusage.
    if unsafe { libc::getrusage(who, &mut ru) } != 0 {
        return CpuTime::default();
    }
    let d = |tv: libc::timeval| {
        Duration::from_secs(tv.tv_sec.max(0) as u64)
            + Duration::from_micros(tv.tv_usec.max(0) as u64)
    };
    CpuTime {
        user: d(ru.ru_utime),
        sys: d(ru.ru_stime),
    }
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
