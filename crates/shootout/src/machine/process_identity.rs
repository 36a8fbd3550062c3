//! A process named so that it cannot be mistaken for a later one: its pid and its start
//! time (clock ticks since boot, from /proc/PID/stat). A pid alone may be reused by an
//! unrelated process once its owner has died; the pair is not.

/// A process as /proc knew it when it was named.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ProcessIdentity {
    pub pid: u32,
    /// When it started, in clock ticks since boot.
    pub start_ticks: u64,
}

impl ProcessIdentity {
    /// This process.
    pub fn me() -> ProcessIdentity {
        let pid = std::process::id();
        ProcessIdentity {
            pid,
            // Our own /proc entry is always readable; 0 only names nobody else.
            start_ticks: start_ticks(pid).unwrap_or(0),
        }
    }

    /// True while the same process still runs (not a later one with its pid).
    pub fn alive(&self) -> bool {
        start_ticks(self.pid) == Some(self.start_ticks)
    }
}

/// When process `pid` started (clock ticks since boot); None when there is no such process.
fn start_ticks(pid: u32) -> Option<u64> {
    let pid = i32::try_from(pid).ok()?;
    let stat = procfs::process::Process::new(pid).ok()?.stat().ok()?;
    Some(stat.starttime)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_alive_and_a_changed_start_is_someone_else() {
        let me = ProcessIdentity::me();
        assert!(me.alive());
        let other = ProcessIdentity {
            start_ticks: me.start_ticks + 1,
            ..me
        };
        assert!(!other.alive());
    }
}
