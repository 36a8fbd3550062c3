//! One harness per machine: `shootout run` holds an exclusive flock on a machine-wide
//! file (`/run/lock/shootout.lock`, whatever the checkout) while it runs, so that two
//! experiments never measure on the same cores at once. The kernel releases a flock when
//! its holder dies, even by `kill -9`, so a dead harness never blocks the next one. The
//! file also names its holder (pid, command, experiment), for the message a second run
//! prints and for telling a running experiment from one whose harness died.

use crate::machine::process_identity::ProcessIdentity;
use nix::errno::Errno;
use nix::fcntl::{Flock, FlockArg};
use nix::unistd::{access, AccessFlags};
use std::fs::{File, OpenOptions};
use std::io::{self, Seek, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The environment variable that moves the lock: tests (each its own), or a machine whose
/// /run/lock is not writable and whose temporary folder is not shared.
pub const LOCK_ENV: &str = "SHOOTOUT_LOCK";

/// How often a waiting harness tries the lock again.
const RETRY: Duration = Duration::from_millis(200);

/// How long a second harness gives a new holder to write its name into the file.
const NAMING: Duration = Duration::from_millis(300);

/// Who holds the lock, as the holder wrote it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Holder {
    pub process: ProcessIdentity,
    /// Its command line.
    pub command: String,
    /// The experiment's name.
    pub experiment: String,
    /// The experiment's id in `store`, once it has one.
    pub experiment_id: Option<i64>,
    /// The results store the experiment is written to (canonical path).
    pub store: Option<PathBuf>,
    pub since_unix_ms: i64,
}

impl Holder {
    /// This process, about to run `experiment`.
    pub fn me(experiment: &str) -> Holder {
        Holder {
            process: ProcessIdentity::me(),
            command: std::env::args().collect::<Vec<_>>().join(" "),
            experiment: experiment.to_string(),
            experiment_id: None,
            store: None,
            since_unix_ms: crate::model::now_unix_ms(),
        }
    }

    /// True when this holder is running experiment `id` of the store at `store`.
    pub fn runs(&self, store: &Path, id: i64) -> bool {
        self.experiment_id == Some(id) && self.store.as_deref() == Some(store)
    }
}

impl std::fmt::Display for Holder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "pid {} ({}) runs experiment {}",
            self.process.pid, self.command, self.experiment
        )?;
        if let (Some(id), Some(store)) = (self.experiment_id, &self.store) {
            write!(f, " (id {id} in {})", store.display())?;
        }
        let since = crate::units::utc(self.since_unix_ms);
        write!(f, " since {since}")
    }
}

/// Why the lock was not taken.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error("machine lock {}: {source} (set {LOCK_ENV} to move it)", path.display())]
    Open { path: PathBuf, source: io::Error },
    #[error("machine lock {}: {source}", path.display())]
    Lock { path: PathBuf, source: Errno },
    #[error("the machine is busy: {} (lock {}); --wait waits for it", busy_holder(.holder), path.display())]
    Held {
        path: PathBuf,
        /// Boxed: an error should be small to return.
        holder: Option<Box<Holder>>,
    },
    #[error("stopped while waiting for the machine")]
    Interrupted,
}

fn busy_holder(holder: &Option<Box<Holder>>) -> String {
    match holder {
        Some(h) => h.to_string(),
        None => "another harness holds it (it did not say which)".to_string(),
    }
}

/// The machine lock, held until dropped (or until this process dies).
#[derive(Debug)]
pub struct MachineLock {
    file: Flock<File>,
}

impl MachineLock {
    /// Takes the lock at `path`, or says who holds it.
    pub fn take(path: &Path) -> Result<MachineLock, LockError> {
        let file = open(path)?;
        match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
            Ok(file) => Ok(MachineLock { file }),
            Err((_, Errno::EWOULDBLOCK)) => Err(LockError::Held {
                path: path.to_path_buf(),
                holder: named_holder(path).map(Box::new),
            }),
            Err((_, source)) => Err(LockError::Lock {
                path: path.to_path_buf(),
                source,
            }),
        }
    }

    /// Takes the lock at `path`, waiting for its holder as long as it takes; `busy` sees
    /// the first refusal (to say whom we wait for), `stop` ends the wait.
    pub fn take_waiting(
        path: &Path,
        stop: &AtomicBool,
        busy: impl FnOnce(&LockError),
    ) -> Result<MachineLock, LockError> {
        let mut busy = Some(busy);
        // Bounded only by `stop` (Ctrl-C): waiting for the holder is what was asked.
        loop {
            match MachineLock::take(path) {
                Err(e @ LockError::Held { .. }) => {
                    if let Some(say) = busy.take() {
                        say(&e);
                    }
                }
                taken => return taken,
            }
            if stop.load(Ordering::Relaxed) {
                return Err(LockError::Interrupted);
            }
            std::thread::sleep(RETRY);
        }
    }

    /// Writes `holder` into the lock file, for others to read.
    pub fn publish(&mut self, holder: &Holder) -> io::Result<()> {
        let text = serde_json::to_string(holder)?;
        // In place: replacing the file would leave the lock on an unlinked inode.
        self.file.set_len(0)?;
        self.file.rewind()?;
        self.file.write_all(text.as_bytes())?;
        self.file.write_all(b"\n")
    }
}

/// Where the lock is: `SHOOTOUT_LOCK`, else `/run/lock/shootout.lock` (shared by every
/// user and checkout of the machine), else `shootout.lock` in the temporary folder.
pub fn path() -> PathBuf {
    if let Some(p) = std::env::var_os(LOCK_ENV).filter(|p| !p.is_empty()) {
        return p.into();
    }
    let run_lock = Path::new("/run/lock");
    match access(run_lock, AccessFlags::W_OK) {
        Ok(()) => run_lock.join("shootout.lock"),
        Err(_) => std::env::temp_dir().join("shootout.lock"),
    }
}

/// The harness that holds the lock at `path` now, if one does (as it named itself).
pub fn holder(path: &Path) -> Option<Holder> {
    read_holder(path).filter(|h| h.process.alive())
}

/// The lock file, created readable and writable by every user of the machine.
fn open(path: &Path) -> Result<File, LockError> {
    let failed = |source| LockError::Open {
        path: path.to_path_buf(),
        source,
    };
    match open_shared(path) {
        Ok(f) => Ok(f),
        // Another user's file: a read-only descriptor locks as well (the name stays theirs).
        Err(e) if e.kind() == io::ErrorKind::PermissionDenied => File::open(path).map_err(failed),
        Err(e) => Err(failed(e)),
    }
}

/// Opens (creating) a file every user's harness reads and writes, beside the lock. std
/// opens with O_CLOEXEC: no server inherits it (an orphan would hold a lock on it).
pub(crate) fn open_shared(path: &Path) -> io::Result<File> {
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o666)
        .open(path)?;
    // The umask may have narrowed the mode; best effort (only the owner may widen it).
    let _ = file.set_permissions(std::fs::Permissions::from_mode(0o666));
    Ok(file)
}

/// The holder named in the file; a holder that has just taken the lock gets a moment to
/// write its name.
fn named_holder(path: &Path) -> Option<Holder> {
    let until = std::time::Instant::now() + NAMING;
    // Bounded by NAMING.
    loop {
        match holder(path) {
            Some(h) => return Some(h),
            None if std::time::Instant::now() >= until => return None,
            None => std::thread::sleep(Duration::from_millis(20)),
        }
    }
}

fn read_holder(path: &Path) -> Option<Holder> {
    let text = std::fs::read_to_string(path).ok()?;
    serde_json::from_str(text.trim()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_lock(name: &str) -> PathBuf {
        let path =
            std::env::temp_dir().join(format!("shootout-lock-{name}-{}.lock", std::process::id()));
        let _ = std::fs::remove_file(&path);
        path
    }

    #[test]
    fn a_second_taker_is_refused_with_the_holders_name_until_the_first_lets_go() {
        let path = temp_lock("second");
        let mut first = MachineLock::take(&path).unwrap();
        let mut me = Holder::me("quick");
        me.experiment_id = Some(7);
        me.store = Some("/x/results/shootout.db".into());
        first.publish(&me).unwrap();
        match MachineLock::take(&path) {
            Err(LockError::Held { holder, .. }) => assert_eq!(holder.as_deref(), Some(&me)),
            other => panic!("{other:?}"),
        }
        assert!(me.runs(Path::new("/x/results/shootout.db"), 7));
        assert!(!me.runs(Path::new("/x/results/shootout.db"), 8));
        assert_eq!(holder(&path), Some(me));
        drop(first);
        assert!(MachineLock::take(&path).is_ok());
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn the_message_names_pid_command_experiment_and_date() {
        let h = Holder {
            process: ProcessIdentity {
                pid: 1234,
                start_ticks: 1,
            },
            command: "shootout run quick".into(),
            experiment: "quick".into(),
            experiment_id: Some(7),
            store: Some("/x/results/shootout.db".into()),
            since_unix_ms: 1_795_321_405_936,
        };
        let e = LockError::Held {
            path: "/run/lock/shootout.lock".into(),
            holder: Some(Box::new(h)),
        };
        assert_eq!(
            e.to_string(),
            "the machine is busy: pid 1234 (shootout run quick) runs experiment quick \
             (id 7 in /x/results/shootout.db) since 2026-11-22 04:23 UTC \
             (lock /run/lock/shootout.lock); --wait waits for it"
        );
    }

    #[test]
    fn a_dead_holders_name_is_not_a_holder() {
        let path = temp_lock("dead");
        let mut lock = MachineLock::take(&path).unwrap();
        let mut gone = Holder::me("quick");
        gone.process.start_ticks += 1;
        lock.publish(&gone).unwrap();
        assert_eq!(holder(&path), None);
        drop(lock);
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn waiting_ends_when_asked() {
        let path = temp_lock("wait");
        let _held = MachineLock::take(&path).unwrap();
        let stop = AtomicBool::new(true);
        let mut told = false;
        let r = MachineLock::take_waiting(&path, &stop, |_| told = true);
        assert!(matches!(r, Err(LockError::Interrupted)), "{r:?}");
        assert!(told);
        let _ = std::fs::remove_file(&path);
    }
}
