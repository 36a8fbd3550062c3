//! The machine `shootout run` works on: its lock, and what harnesses that died left.

use super::super::interrupt;
use shootout::machine::machine_lock::{self, Holder, LockError, MachineLock};
use shootout::model::ExperimentId;
use shootout::process::started_servers::{self, Leftover};
use std::path::Path;

/// The machine lock, named after this run of `experiment`: at once, or, with `wait`,
/// once its holder lets go (Ctrl-C ends the wait).
pub(super) fn take_machine(experiment: &str, wait: bool) -> Result<MachineLock, LockError> {
    let path = machine_lock::path();
    let mut lock = match wait {
        false => MachineLock::take(&path)?,
        true => {
            interrupt::install();
            MachineLock::take_waiting(&path, &interrupt::INTERRUPTED, |busy| {
                if let LockError::Held {
                    holder: Some(h), ..
                } = busy
                {
                    eprintln!("waiting for the machine: {h}");
                }
            })?
        }
    };
    name_holder(&mut lock, experiment, None);
    Ok(lock)
}

/// Writes who holds the lock into it: this process, `experiment`, and once stored, its
/// store and id (which tell `shootout results` that it is running, not dead).
pub(super) fn name_holder(
    lock: &mut MachineLock,
    experiment: &str,
    stored: Option<(&Path, ExperimentId)>,
) {
    let mut me = Holder::me(experiment);
    if let Some((db, id)) = stored {
        me.store = Some(std::fs::canonicalize(db).unwrap_or_else(|_| db.to_path_buf()));
        me.experiment_id = Some(id.0);
    }
    // Best effort: a lock file of another user's is read-only; the lock holds all the same.
    let _ = lock.publish(&me);
}

/// Stops what harnesses that died left running, and says so in one line.
pub(super) fn stop_leftovers() {
    match started_servers::stop_leftovers(&started_servers::path()) {
        Ok(stopped) if stopped.is_empty() => {}
        Ok(stopped) => println!(
            "stopped what a harness that died left running: {}",
            stopped
                .iter()
                .map(describe_leftover)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Err(e) => eprintln!(
            "error: servers left by a harness that died: {}: {e}",
            started_servers::path().display()
        ),
    }
}

pub(super) fn describe_leftover(l: &Leftover) -> String {
    let s = if l.processes == 1 { "" } else { "es" };
    format!(
        "group {} ({} process{s}, started by pid {})",
        l.server.group, l.processes, l.server.harness.pid
    )
}
