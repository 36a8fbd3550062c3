//! A guard for a server's process group: a small shell that waits on a pipe from the
//! harness and, when the pipe closes without a word (the harness died, even by
//! `kill -9`: the kernel closes its end), stops the group, TERM then KILL a second later.
//! The parent-death signal reaches only the server's first process; the guard reaches
//! what that process forked too, as long as it stayed in the group.

use std::io::{self, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, Command, Stdio};

/// `$0` is the group. `read` fails only at end of file: the harness is gone.
const SCRIPT: &str = r#"read -r _ || { kill -TERM -"$0"; sleep 1; kill -KILL -"$0"; } 2>/dev/null"#;

/// A running guard; [`GroupGuard::dismiss`] sends it away without a signal.
#[derive(Debug)]
pub struct GroupGuard {
    child: Child,
    pipe: Option<ChildStdin>,
}

impl GroupGuard {
    /// Starts a guard for process group `group`.
    pub fn start(group: u32) -> io::Result<GroupGuard> {
        let mut child = Command::new("/bin/sh")
            .args(["-c", SCRIPT, &group.to_string()])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            // Its own group: a Ctrl-C at the terminal goes to the harness, not to the guard.
            .process_group(0)
            .spawn()?;
        let pipe = child.stdin.take();
        Ok(GroupGuard { child, pipe })
    }

    /// The harness stops the group itself: the guard leaves without touching it.
    pub fn dismiss(&mut self) {
        if let Some(mut pipe) = self.pipe.take() {
            // A guard that has already gone cannot read it, and needs nothing.
            let _ = pipe.write_all(b"stop\n");
            drop(pipe);
            let _ = self.child.wait();
        }
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        self.dismiss();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    fn sleeper() -> Child {
        Command::new("sleep")
            .arg("30")
            .process_group(0)
            .spawn()
            .unwrap()
    }

    fn ends_within(child: &mut Child, limit: Duration) -> bool {
        let until = Instant::now() + limit;
        while Instant::now() < until {
            if let Ok(Some(_)) = child.try_wait() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }

    #[test]
    fn a_closed_pipe_stops_the_group() {
        let mut server = sleeper();
        let mut guard = GroupGuard::start(server.id()).unwrap();
        // As when the harness dies: its end closes without a word.
        drop(guard.pipe.take());
        // TERM at once (KILL a second later); a minute is for a busy machine only.
        assert!(ends_within(&mut server, Duration::from_secs(60)));
        let _ = guard.child.wait();
    }

    #[test]
    fn a_dismissed_guard_leaves_the_group_alone() {
        let mut server = sleeper();
        let mut guard = GroupGuard::start(server.id()).unwrap();
        // Dismissing waits for the guard to leave: nothing can stop the group after it.
        guard.dismiss();
        assert!(
            matches!(guard.child.try_wait(), Ok(Some(_))),
            "the guard left"
        );
        assert!(
            matches!(server.try_wait(), Ok(None)),
            "the server still runs"
        );
        let _ = server.kill();
        let _ = server.wait();
    }
}
