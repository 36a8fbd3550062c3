//! Pinning the calling thread to CPUs, for as long as a guard lives: what a thread or
//! process it starts inherits.

use nix::sched::{sched_getaffinity, sched_setaffinity, CpuSet};
use nix::unistd::Pid;

/// Pid 0 in the affinity calls: the calling thread.
const THIS_THREAD: Pid = Pid::from_raw(0);

/// The kernel would not pin a thread to these CPUs.
#[derive(Debug, thiserror::Error)]
#[error("cannot pin to CPUs {cpus:?}: {source}")]
pub struct PinError {
    pub cpus: Vec<usize>,
    pub source: nix::Error,
}

/// A thread pinned to some CPUs; dropping it restores the thread's previous CPUs.
///
/// Threads and processes started by the pinned thread inherit its CPUs, which is how the
/// generator's loops and a server's processes get theirs.
#[derive(Debug)]
pub struct Pinned {
    previous: CpuSet,
}

impl Pinned {
    /// Pins the calling thread to `cpus`.
    pub fn thread(cpus: &[usize]) -> Result<Pinned, PinError> {
        let failed = |source| PinError {
            cpus: cpus.to_vec(),
            source,
        };
        let previous = sched_getaffinity(THIS_THREAD).map_err(failed)?;
        let mut set = CpuSet::new();
        for &cpu in cpus {
            set.set(cpu).map_err(failed)?;
        }
        sched_setaffinity(THIS_THREAD, &set).map_err(failed)?;
        Ok(Pinned { previous })
    }
}

/// Pins every thread of each process of `pids`, as they run now, to `cpus`: how a
/// long-lived server (the database the harness owns) moves between runs of different
/// layouts. Processes they fork later inherit their parent's CPUs. A process or thread
/// that ends meanwhile is passed over; the number of threads pinned is returned.
pub fn pin_processes(
    pids: impl IntoIterator<Item = i32>,
    cpus: &[usize],
) -> Result<usize, PinError> {
    let failed = |source| PinError {
        cpus: cpus.to_vec(),
        source,
    };
    let mut set = CpuSet::new();
    for &cpu in cpus {
        set.set(cpu).map_err(failed)?;
    }
    let mut pinned = 0;
    for pid in pids {
        let Ok(process) = procfs::process::Process::new(pid) else {
            continue;
        };
        for task in process.tasks().into_iter().flatten().flatten() {
            match sched_setaffinity(Pid::from_raw(task.tid), &set) {
                Ok(()) => pinned += 1,
                Err(nix::Error::ESRCH) => {}
                Err(e) => return Err(failed(e)),
            }
        }
    }
    Ok(pinned)
}

impl Drop for Pinned {
    fn drop(&mut self) {
        // The previous set was in force a moment ago, so the kernel takes it back.
        let _ = sched_setaffinity(THIS_THREAD, &self.previous);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pinned_thread_passes_its_cpus_to_a_child_and_gets_its_own_back() {
        let before = sched_getaffinity(THIS_THREAD).unwrap();
        let pinned = Pinned::thread(&[0]).unwrap();
        let status = std::process::Command::new("grep")
            .args(["-x", "Cpus_allowed_list:\\s*0", "/proc/self/status"])
            .stdout(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "the child did not inherit CPU 0 alone");
        drop(pinned);
        assert_eq!(sched_getaffinity(THIS_THREAD).unwrap(), before);
        assert!(Pinned::thread(&[usize::MAX]).is_err());
    }

    #[test]
    fn processes_are_pinned_whole_and_can_be_moved_again() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let cpus = |pid: u32| {
            let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
            let line = status.lines().find(|l| l.starts_with("Cpus_allowed_list:"));
            line.unwrap().split(':').nth(1).unwrap().trim().to_string()
        };
        let pid = child.id() as i32;
        let pinned = pin_processes([pid], &[0]);
        let on_zero = cpus(child.id());
        let all: Vec<usize> = (0..engine::allowed_cpus()).collect();
        let moved = pin_processes([pid], &all);
        let on_all = cpus(child.id());
        let _ = child.kill();
        let _ = child.wait();
        assert_eq!(pinned.unwrap(), 1);
        assert_eq!(on_zero, "0");
        assert_eq!(moved.unwrap(), 1);
        assert_ne!(on_all, "0", "moved back to every CPU ({all:?})");
    }
}
