//! Foreign CPU: the CPU time of every user process on the machine that is neither the
//! server's nor the generator's, counted walk by walk of /proc so that work done by
//! processes that start and end between two walks is in it. A neighbour that forks (a
//! build, a shell loop) runs in children that live a millisecond each; no walk sees them,
//! but the process that waits for them does: the kernel adds a child's whole CPU time
//! (nanosecond-precise, however short its life) to its parent's `cutime` and `cstime`
//! when the parent reaps it. So each process is counted with the children it reaped
//! (utime + stime + cutime + cstime), and when a process seen before is gone, what was
//! counted of it moves to its parent, as its time did in the kernel: nothing is counted
//! twice, and nothing is lost while the reaper is itself foreign (a shell, make, cargo,
//! init).
//!
//! Why not the cores' busy time minus both sides' CPU, or a cgroup per side: the first was
//! measured wrong by 15-37% of the cores on a quiet machine (docs/verdicts.md: /proc/stat's
//! ticks and processes' CPU time book softirq work and short bursts differently), and a
//! cgroup per side needs root to make and the server moved into it, where shootout runs
//! as any user. The kernel's own work (softirq threads, workers) is never foreign: on
//! loopback it carries the load's own packets.

use std::collections::HashMap;

/// One foreign process as a walk of /proc read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ForeignProcess {
    pub pid: i32,
    pub parent: i32,
    /// When it started, in clock ticks since boot (/proc/PID/stat `starttime`): with the
    /// pid, which process this is (pids are reused).
    pub start: u64,
    /// Its CPU time and that of the children it reaped, in clock ticks.
    pub ticks: u64,
}

impl ForeignProcess {
    /// The foreign process of a /proc/PID/stat reading.
    pub fn of(stat: &procfs::process::Stat) -> ForeignProcess {
        let reaped = (stat.cutime.max(0) + stat.cstime.max(0)) as u64;
        ForeignProcess {
            pid: stat.pid,
            parent: stat.ppid,
            start: stat.starttime,
            ticks: stat.utime + stat.stime + reaped,
        }
    }
}

/// The foreign processes of one walk, and when it began.
#[derive(Debug, Clone, Default)]
pub struct Walk {
    /// When the walk began, in clock ticks since boot: a process that started at or after
    /// it and was not seen before is new, and all its time was spent since.
    pub began: u64,
    pub processes: Vec<ForeignProcess>,
}

/// Foreign CPU counted over successive walks (see the module's doc).
#[derive(Debug, Default)]
pub struct ForeignCpu {
    known: HashMap<i32, Known>,
    /// When the previous walk began; None before the first.
    previous: Option<u64>,
    /// Ticks of foreign work since the first walk.
    counted: u64,
}

/// A process seen by an earlier walk.
#[derive(Debug, Clone, Copy)]
struct Known {
    start: u64,
    parent: i32,
    /// Its ticks counted so far (its time before the first walk included), and those of
    /// its children that ended.
    counted: u64,
}

impl ForeignCpu {
    /// Takes one walk; the foreign work since the first walk, in clock ticks. The first
    /// walk counts nothing: it is where the count starts.
    pub fn add(&mut self, walk: &Walk) -> u64 {
        let now: HashMap<i32, &ForeignProcess> =
            walk.processes.iter().map(|p| (p.pid, p)).collect();
        self.hand_over_the_gone(&now);
        for p in &walk.processes {
            self.count(p);
        }
        self.previous = Some(walk.began);
        self.counted
    }

    /// Processes seen before and gone now (or their pid reused): what was counted of each
    /// moves to its parent, whose cutime and cstime now hold its time; children first, so
    /// that a chain that ended moves up whole. A parent that is not foreign (this process,
    /// the server's) takes it out of the count, as the kernel took it out of the others'.
    fn hand_over_the_gone(&mut self, now: &HashMap<i32, &ForeignProcess>) {
        let mut gone: Vec<(u64, i32)> = (self.known.iter())
            .filter(|(pid, k)| now.get(pid).is_none_or(|p| p.start != k.start))
            .map(|(&pid, k)| (k.start, pid))
            .collect();
        gone.sort_unstable_by(|a, b| b.cmp(a));
        for (_, pid) in gone {
            // Removed only now: its count holds what its own children handed it.
            let Some(k) = self.known.remove(&pid) else {
                continue;
            };
            if let Some(parent) = self.known.get_mut(&k.parent) {
                parent.counted += k.counted;
            }
        }
    }

    /// Counts what `p` did since it was last seen: all of it when it is new since the
    /// previous walk, nothing at the first sight of an older one. A process never gives
    /// time back: one whose parent has not yet been credited with a reaped child's time
    /// (the child ended while this walk read them) counts nothing until it is.
    fn count(&mut self, p: &ForeignProcess) {
        let new = self.previous.is_some_and(|began| p.start >= began);
        let known = self.known.entry(p.pid).or_insert(Known {
            start: p.start,
            parent: p.parent,
            counted: if new { 0 } else { p.ticks },
        });
        self.counted += p.ticks.saturating_sub(known.counted);
        known.counted = known.counted.max(p.ticks);
        known.parent = p.parent;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(pid: i32, parent: i32, start: u64, ticks: u64) -> ForeignProcess {
        ForeignProcess {
            pid,
            parent,
            start,
            ticks,
        }
    }

    fn walk(began: u64, processes: &[ForeignProcess]) -> Walk {
        Walk {
            began,
            processes: processes.to_vec(),
        }
    }

    #[test]
    fn the_first_walk_counts_nothing_and_the_next_count_growth() {
        let mut f = ForeignCpu::default();
        assert_eq!(f.add(&walk(100, &[at(10, 1, 5, 500)])), 0);
        assert_eq!(f.add(&walk(110, &[at(10, 1, 5, 507)])), 7);
    }

    #[test]
    fn children_that_live_between_walks_are_counted_through_the_parent_that_reaped_them() {
        let mut f = ForeignCpu::default();
        // A shell that forks short children: each is reaped before any walk sees it, and
        // its time lands in the shell's cutime and cstime.
        f.add(&walk(100, &[at(10, 1, 5, 20)]));
        assert_eq!(f.add(&walk(110, &[at(10, 1, 5, 26)])), 6);
        assert_eq!(f.add(&walk(120, &[at(10, 1, 5, 31)])), 11);
    }

    #[test]
    fn a_child_seen_and_then_reaped_is_counted_once() {
        let mut f = ForeignCpu::default();
        f.add(&walk(100, &[at(10, 1, 5, 20)]));
        // A child born since the last walk: all its time is new.
        assert_eq!(
            f.add(&walk(110, &[at(10, 1, 5, 20), at(11, 10, 105, 4)])),
            4
        );
        // It ran 3 more ticks and was reaped: 7 in the shell's cutime, 4 of them counted.
        assert_eq!(f.add(&walk(120, &[at(10, 1, 5, 27)])), 7);
    }

    #[test]
    fn a_parent_read_before_its_child_was_reaped_counts_the_child_once_it_has_it() {
        let mut f = ForeignCpu::default();
        f.add(&walk(100, &[at(10, 1, 5, 20), at(11, 10, 50, 30)]));
        // The child ended while this walk ran, after the shell was read: gone, and the
        // shell's cutime does not hold its 30 ticks yet. Nothing is counted, nothing lost.
        assert_eq!(f.add(&walk(110, &[at(10, 1, 5, 21)])), 0);
        // The next walk reads them in the shell: 30 + the 2 the child ran last + 1.
        assert_eq!(f.add(&walk(120, &[at(10, 1, 5, 53)])), 3);
    }

    #[test]
    fn a_chain_that_ended_moves_up_whole_and_a_parent_not_foreign_takes_it_away() {
        let mut f = ForeignCpu::default();
        // make (10) → sh (11) → cc (12); and a child (20) of a process not foreign (2).
        let first = [
            at(10, 1, 5, 100),
            at(11, 10, 50, 1),
            at(12, 11, 60, 40),
            at(20, 2, 70, 9),
        ];
        f.add(&walk(100, &first));
        // cc ran 5 more and was reaped by sh (45 in its cutime), sh by make (46 in make's
        // cutime), make ran 1 more itself: 147, of which 141 was counted. The other child
        // ended too, reaped by a process whose time is not foreign.
        assert_eq!(f.add(&walk(110, &[at(10, 1, 5, 147)])), 6);
    }

    /// The CPU ticks of process `pid` with the children it reaped, when it is alive.
    fn ticks_of(pid: i32) -> Option<u64> {
        let stat = procfs::process::Process::new(pid).ok()?.stat().ok()?;
        Some(ForeignProcess::of(&stat).ticks)
    }

    #[test]
    fn a_shell_forking_short_children_is_counted_from_its_reaped_children() {
        use crate::process::group_cpu::{Members, Sample};
        use std::io::BufRead;
        // The forking shell is a grandchild, as a neighbour's is: not this process's
        // child (a load shard's place). Bounded: 20,000 forks, and killed below.
        let forks = "i=0; while [ $i -lt 20000 ]; do /bin/true; i=$((i+1)); done";
        let mut outer = std::process::Command::new("sh")
            .args(["-c", &format!("sh -c '{forks}' & echo $!; wait")])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        let stdout = outer.stdout.take().unwrap();
        std::io::BufReader::new(stdout)
            .read_line(&mut line)
            .unwrap();
        let shell: i32 = line.trim().parse().unwrap();
        let mut f = ForeignCpu::default();
        f.add(Sample::of(Members::Unknown).foreign());
        let (first, t0) = (ticks_of(shell), std::time::Instant::now());
        let (mut counted, mut ran) = (0, 0);
        // Until the shell's children have run 0.2 s of CPU (20 ticks), for a minute at most.
        // The shell is read after the first walk and before each later one: the walks'
        // count covers at least what it ran between the two readings.
        while ran < 20 && t0.elapsed() < std::time::Duration::from_secs(60) {
            std::thread::sleep(std::time::Duration::from_millis(100));
            ran = ticks_of(shell)
                .zip(first)
                .map_or(ran, |(now, then)| now - then);
            counted = f.add(Sample::of(Members::Unknown).foreign());
        }
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(shell),
            nix::sys::signal::Signal::SIGKILL,
        );
        let _ = outer.wait();
        assert!(ran >= 20, "the fork loop did not run: {ran} ticks");
        // Other processes of the machine add to the count, never take from it.
        assert!(
            counted >= ran,
            "counted {counted} ticks of the loop's {ran}"
        );
    }

    #[test]
    fn a_reused_pid_is_a_new_process() {
        let mut f = ForeignCpu::default();
        f.add(&walk(100, &[at(10, 1, 5, 500)]));
        assert_eq!(f.add(&walk(110, &[at(10, 1, 105, 3)])), 3);
        // An old process first seen now (it was being made as the last walk passed its
        // pid) counts from here on.
        assert_eq!(
            f.add(&walk(120, &[at(10, 1, 105, 3), at(30, 1, 50, 80)])),
            3
        );
        assert_eq!(
            f.add(&walk(130, &[at(10, 1, 105, 3), at(30, 1, 50, 82)])),
            5
        );
    }
}
