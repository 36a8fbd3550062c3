//! CPU time of a process group (a server and every process it forked), from /proc,
//! in total and thread by thread.

use std::collections::HashMap;

/// CPU ticks (user, system) of every thread of a process group, keyed by (process,
/// thread) id, and the group's resident memory.
#[derive(Debug, Clone, Default)]
pub struct Sample(HashMap<(u32, u32), Ticks>, u64);

/// User and system CPU ticks of one thread.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Ticks {
    pub user: u64,
    pub sys: u64,
}

impl Ticks {
    fn total(self) -> u64 {
        self.user + self.sys
    }
}

impl Sample {
    /// Reads every thread of every live process in process group `pgid`.
    pub fn take(pgid: u32) -> Sample {
        let mut threads = HashMap::new();
        let mut rss_kb = 0;
        for pid in numbers("/proc") {
            if stat(&format!("/proc/{pid}/stat")).is_none_or(|s| s.0 != pgid) {
                continue;
            }
            rss_kb += resident_kb(pid);
            for tid in numbers(&format!("/proc/{pid}/task")) {
                if let Some((_, t)) = stat(&format!("/proc/{pid}/task/{tid}/stat")) {
                    threads.insert((pid, tid), t);
                }
            }
        }
        Sample(threads, rss_kb)
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

fn resident_kb(pid: u32) -> u64 {
    let statm = std::fs::read_to_string(format!("/proc/{pid}/statm")).unwrap_or_default();
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    // SAFETY: sysconf only reads a configuration value.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(4096) as u64;
    pages * page / 1024
}

fn numbers(dir: &str) -> impl Iterator<Item = u32> {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()))
}

/// (process group, utime and stime in ticks) from a stat file.
pub fn stat(path: &str) -> Option<(u32, Ticks)> {
    let text = std::fs::read_to_string(path).ok()?;
    // Fields after the command name, which may itself contain spaces and parentheses.
    let rest = text.rsplit_once(')')?.1;
    let f: Vec<&str> = rest.split_whitespace().collect();
    let pgrp = f.get(2)?.parse().ok()?;
    let utime: u64 = f.get(11)?.parse().ok()?;
    let stime: u64 = f.get(12)?.parse().ok()?;
    Some((
        pgrp,
        Ticks {
            user: utime,
            sys: stime,
        },
    ))
}

/// Clock ticks per second, the unit of /proc CPU times.
pub fn clock_ticks() -> f64 {
    // SAFETY: sysconf only reads a configuration value.
    let t = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if t > 0 {
        t as f64
    } else {
        100.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_this_process_group() {
        // SAFETY: getpgrp has no preconditions.
        let pgid = unsafe { libc::getpgrp() } as u32;
        let until = std::time::Instant::now() + std::time::Duration::from_millis(50);
        while std::time::Instant::now() < until {
            std::hint::black_box(0u64);
        }
        assert!(Sample::take(pgid).seconds() > 0.0);
    }
}
