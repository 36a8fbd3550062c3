//! CPU time of a process group (a server and every process it forked), from /proc,
//! in total and thread by thread. The one /proc walker of shootout: the monitor and
//! `shootout verify --load` read server CPU through it.

use std::collections::HashMap;

/// CPU ticks (user, system) of every thread of a process group, keyed by (process,
/// thread) id, the group's resident memory, and the CPU ticks of every other user
/// process of the machine but this one (what the verdict calls foreign).
#[derive(Debug, Clone, Default)]
pub struct Sample(HashMap<(u32, u32), Ticks>, u64, u64);

/// The kernel's flag for its own threads (PF_KTHREAD): not a process that competes as
/// foreign work (softirq threads carry the load's own network work).
const KERNEL_THREAD: u32 = 0x0020_0000;

/// User and system CPU ticks of one thread.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Ticks {
    pub user: u64,
    pub sys: u64,
}

impl Ticks {
    fn of(stat: &procfs::process::Stat) -> Ticks {
        Ticks {
            user: stat.utime,
            sys: stat.stime,
        }
    }

    fn total(self) -> u64 {
        self.user + self.sys
    }
}

impl Sample {
    /// Reads every thread of every live process in process group `pgid`. Processes and
    /// threads that end while being read are left out.
    pub fn take(pgid: u32) -> Sample {
        let mut threads = HashMap::new();
        let (mut rss_kb, mut others) = (0, 0);
        let me = std::process::id();
        let processes = procfs::process::all_processes().into_iter().flatten();
        for process in processes.flatten() {
            let Ok(stat) = process.stat() else { continue };
            if u32::try_from(stat.pgrp) != Ok(pgid) {
                let user_process = stat.flags & KERNEL_THREAD == 0;
                if user_process && u32::try_from(stat.pid) != Ok(me) {
                    others += stat.utime + stat.stime;
                }
                continue;
            }
            rss_kb += stat.rss * procfs::page_size() / 1024;
            let tasks = process.tasks().into_iter().flatten().flatten();
            for (task, stat) in tasks.filter_map(|t| t.stat().ok().map(|s| (t, s))) {
                threads.insert((task.pid as u32, task.tid as u32), Ticks::of(&stat));
            }
        }
        Sample(threads, rss_kb, others)
    }

    /// CPU seconds of every other user process (not the group, not this process), as the
    /// sum over the processes alive now.
    pub fn others_seconds(&self) -> f64 {
        self.2 as f64 / clock_ticks()
    }

    /// Resident memory of the group's processes, in KiB.
    pub fn rss_kb(&self) -> u64 {
        self.1
    }

    /// Total CPU seconds.
    pub fn seconds(&self) -> f64 {
        self.user_seconds() + self.sys_seconds()
    }

    /// CPU seconds in user mode.
    pub fn user_seconds(&self) -> f64 {
        self.0.values().map(|t| t.user).sum::<u64>() as f64 / clock_ticks()
    }

    /// CPU seconds in the kernel on the group's behalf.
    pub fn sys_seconds(&self) -> f64 {
        self.0.values().map(|t| t.sys).sum::<u64>() as f64 / clock_ticks()
    }

    /// Threads that used at least `share` of a core between `earlier` and this sample,
    /// `wall` seconds apart.
    pub fn busy_threads(&self, earlier: &Sample, wall: f64, share: f64) -> usize {
        self.0
            .iter()
            .filter(|(k, &t)| {
                let before = earlier.0.get(k).copied().unwrap_or_default();
                let used = t.total().saturating_sub(before.total());
                used as f64 / clock_ticks() / wall.max(1e-9) >= share
            })
            .count()
    }
}

/// CPU seconds used so far by this process (all its threads).
pub fn own_seconds() -> f64 {
    procfs::process::Process::myself()
        .and_then(|me| me.stat())
        .map_or(0.0, |stat| Ticks::of(&stat).total() as f64 / clock_ticks())
}

/// Clock ticks per second, the unit of /proc CPU times.
fn clock_ticks() -> f64 {
    procfs::ticks_per_second().max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_this_process_group() {
        let pgid = nix::unistd::getpgrp().as_raw() as u32;
        let until = std::time::Instant::now() + std::time::Duration::from_millis(50);
        while std::time::Instant::now() < until {
            std::hint::black_box(0u64);
        }
        assert!(Sample::take(pgid).seconds() > 0.0);
    }
}
