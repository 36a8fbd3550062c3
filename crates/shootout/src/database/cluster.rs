//! A new cluster in a folder of its own: `initdb` as the user PostgreSQL runs as (it
//! refuses root: as root, Debian's `postgres` user), its superuser TechEmpower's, trusted
//! from loopback only (the cluster listens nowhere else, and lives as long as a run).

use super::binaries::Binaries;
use super::{DatabaseError, USER};
use nix::unistd::{chown, Gid, Uid, User};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The user a cluster's processes run as: None for the harness's own user.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Owner(Option<(Uid, Gid)>);

impl Owner {
    /// Debian's `postgres` user when the harness runs as root, else the harness's user.
    pub fn for_this_process() -> Result<Owner, DatabaseError> {
        if !Uid::effective().is_root() {
            return Ok(Owner(None));
        }
        let user = User::from_name("postgres").ok().flatten();
        let user = user.ok_or(DatabaseError::NoOwner("postgres"))?;
        Ok(Owner(Some((user.uid, user.gid))))
    }

    /// Makes `cmd` run as this user.
    pub fn apply(&self, cmd: &mut Command) {
        if let Some((uid, gid)) = self.0 {
            cmd.uid(uid.as_raw()).gid(gid.as_raw()).env("HOME", "/");
        }
    }

    /// `dir`, or a folder of the same name under the system's temporary folder when this
    /// user is another and some folder above `dir` does not let others through.
    fn reachable(&self, dir: &Path) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let passable =
            |p: &Path| std::fs::metadata(p).is_ok_and(|m| m.permissions().mode() & 0o001 != 0);
        let closed = dir
            .ancestors()
            .skip(1)
            .filter(|p| p.exists())
            .any(|p| !passable(p));
        match (self.0, closed) {
            (Some(_), true) => {
                let name = dir.file_name().unwrap_or(std::ffi::OsStr::new("database"));
                let unique = format!("shootout-{}-{}", std::process::id(), name.to_string_lossy());
                std::env::temp_dir().join(unique)
            }
            _ => dir.to_path_buf(),
        }
    }

    /// Gives `path` to this user.
    fn own(&self, path: &Path) -> Result<(), DatabaseError> {
        let Some((uid, gid)) = self.0 else {
            return Ok(());
        };
        chown(path, Some(uid), Some(gid)).map_err(|e| DatabaseError::Folder {
            path: path.to_path_buf(),
            source: e.into(),
        })
    }
}

/// A cluster's folders: its data, and the folder of its Unix socket.
#[derive(Debug, Clone)]
pub struct Cluster {
    /// The cluster's own folder (where it was asked, or under the temporary folder).
    pub dir: PathBuf,
    pub data: PathBuf,
    pub sockets: PathBuf,
    pub owner: Owner,
}

impl Cluster {
    /// Makes a new cluster under `dir` (which must not hold one), logging to `log`; under
    /// the system's temporary folder instead when the user it runs as could not reach
    /// `dir` (a checkout under root's home, say). Returns the cluster and its folder.
    pub fn create(bin: &Binaries, dir: &Path, log: &Path) -> Result<Cluster, DatabaseError> {
        let owner = Owner::for_this_process()?;
        let dir = &owner.reachable(dir);
        let folder = |path: &Path| -> Result<(), DatabaseError> {
            std::fs::create_dir_all(path).map_err(|source| DatabaseError::Folder {
                path: path.to_path_buf(),
                source,
            })?;
            owner.own(path)
        };
        let (data, sockets) = (dir.join("data"), dir.join("sockets"));
        folder(dir)?;
        folder(&sockets)?;
        let mut cmd = Command::new(bin.initdb());
        cmd.arg("--pgdata")
            .arg(&data)
            .args(["--username", USER, "--auth", "trust"])
            .args(["--encoding", "UTF8", "--locale", "C.UTF-8", "--no-sync"]);
        owner.apply(&mut cmd);
        run_logged(cmd, log).map_err(DatabaseError::Initdb)?;
        Ok(Cluster {
            dir: dir.to_path_buf(),
            data,
            sockets,
            owner,
        })
    }
}

/// Runs `cmd` to its end with its output appended to `log`; on failure, why, with the
/// log's last line.
pub fn run_logged(mut cmd: Command, log: &Path) -> Result<(), String> {
    let out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .map_err(|e| format!("log {}: {e}", log.display()))?;
    let err = out.try_clone().map_err(|e| e.to_string())?;
    let status = cmd
        .stdout(out)
        .stderr(err)
        .status()
        .map_err(|e| format!("{}: {e}", cmd.get_program().to_string_lossy()))?;
    if status.success() {
        return Ok(());
    }
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let last = text
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("no output");
    Err(format!("{status}: {}; log: {}", last.trim(), log.display()))
}
