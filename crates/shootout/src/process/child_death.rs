//! A child process that outlives the harness would go on loading or serving alone:
//! every child the harness starts dies with it.

use nix::errno::Errno;
use nix::sys::prctl;
use nix::sys::signal::Signal;
use nix::unistd::{getpid, getppid};
use std::os::unix::process::CommandExt;
use std::process::Command;

/// Makes the command's process get SIGKILL when the harness dies, even by `kill -9`.
pub fn die_with_harness(cmd: &mut Command) {
    let harness = getpid();
    // SAFETY: the closure runs in the forked child before exec, where only
    // async-signal-safe calls are allowed: prctl(2) and getppid(2) are plain system calls
    // that neither allocate nor take locks, and the errors are built without allocating.
    unsafe {
        cmd.pre_exec(move || {
            prctl::set_pdeathsig(Signal::SIGKILL)?;
            // The harness may have died between fork and prctl: no signal would come then.
            match getppid() == harness {
                true => Ok(()),
                false => Err(Errno::ESRCH.into()),
            }
        });
    }
}
