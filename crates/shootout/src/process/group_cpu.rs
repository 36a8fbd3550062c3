//! CPU time of a server's processes (the process group of a server shootout started, or
//! the process tree of one already running), from /proc, in total and thread by thread.
//! The one /proc walker of shootout: the monitor and `shootout verify --load` read server
//! CPU through it.

use super::foreign_cpu::{ForeignProcess, Walk};
use std::collections::{HashMap, HashSet};

/// Which processes are the server's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Members {
    /// Every process of a process group (a server shootout started in its own group).
    Group(u32),
    /// A process and all its descendants (a server already running).
    Tree(u32),
    /// None known: the server's CPU counts among the others'.
    Unknown,
}

/// CPU ticks (user, system) of every thread of the server's processes, keyed by (process,
/// thread) id, their resident memory, the same of the database's processes when a run has
/// one, every other user process of the machine but this one and its load shards (what
/// the verdict calls foreign), and the CPU ticks of those load shards (this process's
/// children outside the server's: the generator).
#[derive(Debug, Clone, Default)]
pub struct Sample {
    threads: HashMap<(u32, u32), Ticks>,
    /// The database's threads (the process group of the postmaster the harness started).
    database: HashMap<(u32, u32), Ticks>,
    rss_kb: u64,
    foreign: Walk,
    shards: u64,
}

/// The kernel's flag for its own threads (PF_KTHREAD): not a process that competes as
/// foreign work (softirq threads carry the load's own network work).
const KERNEL_THREAD: u32 = 0x0020_0000;

/// User and system CPU ticks of one thread, and its run time in nanoseconds when the
/// kernel gives it (/proc/PID/task/TID/schedstat): ticks are 10 ms, which at a few
/// thousand responses a second is a few percent of a run's server CPU per tick.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Ticks {
    pub user: u64,
    pub sys: u64,
    pub run_ns: Option<u64>,
}

impl Ticks {
    fn of(stat: &procfs::process::Stat, task: &procfs::process::Task) -> Ticks {
        Ticks {
            user: stat.utime,
            sys: stat.stime,
            run_ns: task.schedstat().ok().map(|s| s.sum_exec_runtime),
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
        Sample::of(Members::Group(pgid))
    }

    /// Reads every thread of every live process of `members`. Processes and threads that
    /// end while being read are left out.
    pub fn of(members: Members) -> Sample {
        Sample::of_sides(members, None)
    }

    /// As [`Sample::of`], and the threads of the process tree under `database` (a
    /// database's postmaster: neither the server's nor foreign) apart. A tree, not a
    /// process group: each PostgreSQL backend makes itself a group leader (setsid).
    pub fn of_sides(members: Members, database: Option<u32>) -> Sample {
        let mut sample = Sample {
            foreign: Walk {
                began: ticks_since_boot(),
                processes: Vec::new(),
            },
            ..Sample::default()
        };
        let me = std::process::id();
        let processes: Vec<_> = procfs::process::all_processes()
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|p| p.stat().ok().map(|stat| (p, stat)))
            .collect();
        let tree = match members {
            Members::Tree(root) => descendants(root, &processes),
            _ => HashSet::new(),
        };
        let database_tree =
            database.map_or_else(HashSet::new, |root| descendants(root, &processes));
        let member = |stat: &procfs::process::Stat| match members {
            Members::Group(pgid) => u32::try_from(stat.pgrp) == Ok(pgid),
            Members::Tree(_) => tree.contains(&stat.pid),
            Members::Unknown => false,
        };
        let of_database = |stat: &procfs::process::Stat| database_tree.contains(&stat.pid);
        for (process, stat) in processes {
            if of_database(&stat) {
                sample.database.extend(threads_of(&process));
                continue;
            }
            if !member(&stat) {
                let user_process = stat.flags & KERNEL_THREAD == 0;
                if u32::try_from(stat.ppid) == Ok(me) {
                    sample.shards += stat.utime + stat.stime;
                } else if user_process && u32::try_from(stat.pid) != Ok(me) {
                    sample.foreign.processes.push(ForeignProcess::of(&stat));
                }
                continue;
            }
            sample.rss_kb += stat.rss * procfs::page_size() / 1024;
            sample.threads.extend(threads_of(&process));
        }
        sample
    }

    /// CPU seconds of this process's children outside the group, alive now: the shard
    /// processes of a load (`local:N`, or the `ssh` clients of remote shards).
    pub fn shard_seconds(&self) -> f64 {
        self.shards as f64 / clock_ticks()
    }

    /// Every other user process (not the server's, not this process or its shards), as
    /// this walk read them: [`ForeignCpu`](super::foreign_cpu::ForeignCpu) counts their
    /// work over walks.
    pub fn foreign(&self) -> &Walk {
        &self.foreign
    }

    /// Resident memory of the group's processes, in KiB.
    pub fn rss_kb(&self) -> u64 {
        self.rss_kb
    }

    /// Total CPU seconds: the threads' run time in nanoseconds when every thread has it
    /// (a thread whose schedstat reads 0 has not run), else their ticks.
    pub fn seconds(&self) -> f64 {
        seconds_of(&self.threads)
    }

    /// The database's CPU seconds, as [`Sample::seconds`] counts the server's (0 without
    /// a database).
    pub fn database_seconds(&self) -> f64 {
        seconds_of(&self.database)
    }

    /// CPU seconds in user mode.
    pub fn user_seconds(&self) -> f64 {
        self.threads.values().map(|t| t.user).sum::<u64>() as f64 / clock_ticks()
    }

    /// CPU seconds in the kernel on the group's behalf.
    pub fn sys_seconds(&self) -> f64 {
        self.threads.values().map(|t| t.sys).sum::<u64>() as f64 / clock_ticks()
    }

    /// Threads that used at least `share` of a core between `earlier` and this sample,
    /// `wall` seconds apart.
    pub fn busy_threads(&self, earlier: &Sample, wall: f64, share: f64) -> usize {
        self.threads
            .iter()
            .filter(|(k, &t)| {
                let before = earlier.threads.get(k).copied().unwrap_or_default();
                let used = t.total().saturating_sub(before.total());
                used as f64 / clock_ticks() / wall.max(1e-9) >= share
            })
            .count()
    }
}

/// The CPU ticks of each of `process`'s threads, keyed by (process, thread) id.
fn threads_of(process: &procfs::process::Process) -> Vec<((u32, u32), Ticks)> {
    let tasks = process.tasks().into_iter().flatten().flatten();
    let each = tasks.filter_map(|t| t.stat().ok().map(|s| (t, s)));
    each.map(|(task, stat)| ((task.pid as u32, task.tid as u32), Ticks::of(&stat, &task)))
        .collect()
}

/// Total CPU seconds of `threads`: their run time in nanoseconds when every thread has it
/// (a thread whose schedstat reads 0 has not run), else their ticks.
fn seconds_of(threads: &HashMap<(u32, u32), Ticks>) -> f64 {
    let run_ns: Option<u64> = threads.values().map(|t| t.run_ns).sum();
    match run_ns {
        Some(ns) if ns > 0 => ns as f64 / 1e9,
        _ => threads.values().map(|t| t.total()).sum::<u64>() as f64 / clock_ticks(),
    }
}

/// `root` and every process below it, as they run now (for pinning a server whose
/// children leave its process group).
pub fn tree(root: u32) -> HashSet<i32> {
    let processes: Vec<_> = (procfs::process::all_processes()
        .into_iter()
        .flatten()
        .flatten())
    .filter_map(|p| p.stat().ok().map(|stat| (p, stat)))
    .collect();
    descendants(root, &processes)
}

/// `root` and every process below it, from one reading of every process's parent.
fn descendants(
    root: u32,
    processes: &[(procfs::process::Process, procfs::process::Stat)],
) -> HashSet<i32> {
    let mut children: HashMap<i32, Vec<i32>> = HashMap::new();
    for (_, stat) in processes {
        children.entry(stat.ppid).or_default().push(stat.pid);
    }
    let mut tree = HashSet::new();
    let mut next = vec![root as i32];
    // Bounded: each process is entered once, and there are finitely many.
    while let Some(pid) = next.pop() {
        if tree.insert(pid) {
            next.extend(children.get(&pid).into_iter().flatten());
        }
    }
    tree
}

/// CPU seconds used so far by this process (all its threads).
pub fn own_seconds() -> f64 {
    procfs::process::Process::myself()
        .and_then(|me| me.stat())
        .map_or(0.0, |stat| (stat.utime + stat.stime) as f64 / clock_ticks())
}

/// CPU seconds of this process's children that ended and were waited for (shards
/// whose CPU left `shard_seconds` when they ended).
pub fn reaped_children_seconds() -> f64 {
    procfs::process::Process::myself()
        .and_then(|me| me.stat())
        .map_or(0.0, |stat| {
            (stat.cutime + stat.cstime).max(0) as f64 / clock_ticks()
        })
}

/// Clock ticks per second, the unit of /proc CPU times.
pub fn clock_ticks() -> f64 {
    procfs::ticks_per_second().max(1) as f64
}

/// Clock ticks since boot (CLOCK_BOOTTIME, the clock of a process's `starttime`); the
/// most there can be when the clock cannot be read, so that no process seems new.
fn ticks_since_boot() -> u64 {
    use nix::time::{clock_gettime, ClockId};
    let since_boot = clock_gettime(ClockId::CLOCK_BOOTTIME).map(std::time::Duration::from);
    since_boot.map_or(u64::MAX, |d| (d.as_secs_f64() * clock_ticks()) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Spins until this thread has run `ns` nanoseconds (not wall time: on a busy machine
    /// the thread is preempted), or a minute has passed.
    fn run_for(ns: u128) {
        use nix::time::{clock_gettime, ClockId};
        let ran = || {
            let t = clock_gettime(ClockId::CLOCK_THREAD_CPUTIME_ID);
            t.map_or(0, |t| std::time::Duration::from(t).as_nanos())
        };
        let (start, t0) = (ran(), std::time::Instant::now());
        while ran() - start < ns && t0.elapsed().as_secs() < 60 {
            std::hint::black_box(0u64);
        }
    }

    #[test]
    fn counts_this_process_group() {
        let pgid = nix::unistd::getpgrp().as_raw() as u32;
        // More than a clock tick (10 ms), the unit of /proc's CPU times.
        run_for(50_000_000);
        assert!(Sample::take(pgid).seconds() > 0.0);
    }

    #[test]
    fn a_child_outside_the_group_is_a_shard_not_foreign_work() {
        // A busy child of this process, as a load shard is: bounded by its own loop.
        let mut child = std::process::Command::new("sh")
            .args(["-c", "i=0; while [ $i -lt 3000000 ]; do i=$((i+1)); done"])
            .spawn()
            .unwrap();
        let until = std::time::Instant::now() + std::time::Duration::from_secs(60);
        let mut seen = 0.0;
        while seen < 0.05 && std::time::Instant::now() < until {
            // Between polls only.
            std::thread::sleep(std::time::Duration::from_millis(50));
            seen = Sample::of(Members::Unknown).shard_seconds();
        }
        let _ = child.kill();
        let _ = child.wait();
        assert!(
            seen >= 0.05,
            "the child's CPU was not counted as a shard's: {seen}"
        );
    }

    #[test]
    fn run_time_is_counted_in_nanoseconds() {
        let me = std::process::id();
        run_for(30_000_000);
        let s = Sample::of(Members::Tree(me));
        // Linux keeps each thread's run time (schedstat) on the machines shootout runs on.
        let run_ns: u64 = s.threads.values().map(|t| t.run_ns.unwrap_or(0)).sum();
        assert!(run_ns > 25_000_000, "{run_ns} ns");
        assert_eq!(s.seconds(), run_ns as f64 / 1e9);
    }

    #[test]
    fn counts_a_process_tree_with_its_children() {
        let mut child = std::process::Command::new("sleep")
            .arg("5")
            .spawn()
            .unwrap();
        let me = std::process::id();
        let processes: Vec<_> = procfs::process::all_processes()
            .unwrap()
            .flatten()
            .filter_map(|p| p.stat().ok().map(|stat| (p, stat)))
            .collect();
        let tree = descendants(me, &processes);
        let _ = child.kill();
        let _ = child.wait();
        assert!(tree.contains(&(me as i32)) && tree.contains(&(child.id() as i32)));
        assert_eq!(Sample::of(Members::Unknown).seconds(), 0.0);
    }
}
