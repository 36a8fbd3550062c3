//! The signal a capacity search in an experiment has beside its probe: the server's CPU
//! back near what it used at rest, before the first step. A server that works off a
//! queue left by the step before burns CPU while it does, whether or not it answers a
//! probe quickly (a probe may reach a core the queue does not hold); a server that only
//! waits (sleeps, I/O) does not, and the probe tells.

use crate::capacity::drain::Signal;
use crate::process::group_cpu::{Members, Sample};
use std::time::{Duration, Instant};

/// The time one reading of the server's CPU spans.
const WINDOW: Duration = Duration::from_millis(100);

/// Above its use at rest by this many cores is busy: a server at rest wakes for its
/// timers now and then, a server working off a queue keeps a core busy.
const MARGIN_CORES: f64 = 0.05;

/// A server's CPU and what it used at rest.
pub(super) struct CpuAtRest {
    members: Members,
    /// Cores the server kept busy at rest.
    at_rest: f64,
}

impl CpuAtRest {
    /// The CPU of the server whose processes are `members`, its use at rest read now (the
    /// server must be at rest); None when its processes are not known.
    pub(super) fn new(members: Members) -> Option<CpuAtRest> {
        if members == Members::Unknown {
            return None;
        }
        let at_rest = cores(members, WINDOW * 2);
        Some(CpuAtRest { members, at_rest })
    }

    /// Busy above this many cores.
    fn limit(&self) -> f64 {
        self.at_rest * 1.5 + MARGIN_CORES
    }
}

impl Signal for CpuAtRest {
    fn busy(&mut self) -> Option<String> {
        let now = cores(self.members, WINDOW);
        (now > self.limit()).then(|| {
            let (now, rest) = (now * 100.0, self.at_rest * 100.0);
            format!("its CPU {now:.0}% of a core, {rest:.0}% at rest")
        })
    }
}

/// Cores the processes of `members` kept busy over the next `window`.
fn cores(members: Members, window: Duration) -> f64 {
    let (t0, before) = (Instant::now(), Sample::of(members).seconds());
    std::thread::sleep(window);
    let after = Sample::of(members).seconds();
    (after - before).max(0.0) / t0.elapsed().as_secs_f64()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::{Child, Command};

    /// A process that sleeps `rest`, then counts to a few million in the shell (a second
    /// or more of one core's work), then ends: killed when dropped.
    struct Worker(Child);

    impl Worker {
        fn start(rest: &str) -> Worker {
            let script =
                format!("sleep {rest}; i=0; while [ $i -lt 3000000 ]; do i=$((i+1)); done");
            let child = Command::new("sh").args(["-c", &script]).spawn().unwrap();
            Worker(child)
        }
    }

    impl Drop for Worker {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }

    #[test]
    fn a_server_at_work_is_busy_against_its_cpu_at_rest() {
        assert!(CpuAtRest::new(Members::Unknown).is_none());
        // At rest while it sleeps (read over 200 ms of its 1 s), then at work.
        let worker = Worker::start("1");
        let mut cpu = CpuAtRest::new(Members::Tree(worker.0.id())).unwrap();
        assert!(
            cpu.at_rest < MARGIN_CORES,
            "asleep, it used {} cores",
            cpu.at_rest
        );
        let deadline = Instant::now() + Duration::from_secs(10);
        let busy = std::iter::from_fn(|| (Instant::now() < deadline).then(|| cpu.busy()))
            .flatten()
            .next();
        let said = busy.expect("the counting shell is read as busy within 10 s");
        assert!(
            said.starts_with("its CPU ") && said.ends_with("% at rest"),
            "{said}"
        );
    }
}
