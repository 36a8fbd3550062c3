//! Installing and building a contestant, idempotently: Debian packages with apt-get,
//! registry packages with the manifest's steps, then its build, skipped while nothing
//! it depends on has changed; and for one that serves TLS, the test certificates.

use crate::contestant::certificates::{self, CertificateError, KeyKind};
use crate::contestant::manifest::{Contestant, Origin, Placeholders};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The file in a build folder that records what was built.
const STAMP: &str = ".shootout-stamp";

/// True when `cmd` is an executable on PATH (or an executable path).
pub fn on_path(cmd: &str) -> bool {
    let found = |p: &Path| p.is_file() && is_executable(p);
    if cmd.contains('/') {
        return found(Path::new(cmd));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin".into(), "/sbin".into()])
        .any(|d| found(&d.join(cmd)))
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    p.metadata()
        .is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
}

/// True when the Debian package is installed.
pub fn debian_installed(package: &str) -> bool {
    Command::new("dpkg-query")
        .args(["-W", "-f=${Status}", package])
        .stderr(Stdio::null())
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("install ok installed"))
}

/// True when the build folder holds a build of the current sources.
pub fn built(c: &Contestant) -> bool {
    std::fs::read_to_string(c.build.join(STAMP)).is_ok_and(|s| s.trim() == fingerprint(c))
}

/// Why a contestant could not be set up: one line naming the step.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    #[error("blocked: {0}")]
    Blocked(String),
    #[error("{step}: {source}")]
    Command {
        /// `apt-get update`, `setup step `...``, `build `...``.
        step: String,
        source: CommandError,
    },
    #[error("requires: command {0:?} is not installed")]
    MissingCommand(String),
    #[error("build folder {}: {source}", path.display())]
    BuildFolder {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("certificates: {0}")]
    Certificates(#[from] CertificateError),
    #[error(transparent)]
    Workloads(#[from] crate::workload::WorkloadError),
    #[error("stamp: {0}")]
    Stamp(std::io::Error),
    /// Set up with others: the joint Debian install ended without saying (it panicked).
    #[error("the Debian install did not report")]
    InstallLost,
}

/// A set-up command that did not succeed.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    #[error("log {}: {source}", path.display())]
    Log {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{0}")]
    Spawn(std::io::Error),
    #[error("failed ({status}); see {}", log.display())]
    Failed {
        status: std::process::ExitStatus,
        log: PathBuf,
    },
}

/// Installs what `c` needs and builds it; `log` receives every command's output.
pub fn setup(c: &Contestant, log: &Path) -> Result<(), SetupError> {
    unblocked(c)?;
    let missing = missing_debian(c, debian_installed);
    if !missing.is_empty() {
        install_debian(&missing, log)?;
    }
    build(c, log)
}

/// An error when `c` cannot be set up here at all.
fn unblocked(c: &Contestant) -> Result<(), SetupError> {
    match c.manifest.blocked.is_empty() {
        true => Ok(()),
        false => Err(SetupError::Blocked(c.manifest.blocked.clone())),
    }
}

/// The Debian packages `c` requires that `installed` says are not installed.
pub fn missing_debian(c: &Contestant, installed: impl Fn(&str) -> bool) -> Vec<String> {
    let required = c.manifest.requires.debian.iter();
    required.filter(|p| !installed(p)).cloned().collect()
}

/// What follows the Debian packages: the toolchain check, the registry steps and the
/// build, all skipped while the build folder holds a build of the current inputs.
pub fn build(c: &Contestant, log: &Path) -> Result<(), SetupError> {
    unblocked(c)?;
    if let Some(cmd) = c
        .manifest
        .requires
        .commands
        .iter()
        .find(|cmd| !on_path(cmd))
    {
        return Err(SetupError::MissingCommand(cmd.clone()));
    }
    if !built(c) {
        compile(c, log)?;
    }
    make_certificates(c)?;
    if c.reads_workload_data() {
        crate::workload::ensure(&c.workloads())?;
    }
    Ok(())
}

/// The registry steps and the build, then the stamp that says they are done.
fn compile(c: &Contestant, log: &Path) -> Result<(), SetupError> {
    std::fs::create_dir_all(&c.build).map_err(|source| SetupError::BuildFolder {
        path: c.build.clone(),
        source,
    })?;
    let p = Placeholders::default();
    for step in &c.manifest.setup.steps {
        run(&c.fill(step, p), &c.dir, log).map_err(in_step(format!("setup step `{step}`")))?;
    }
    let build = &c.manifest.setup.build;
    if !build.is_empty() {
        run(&c.fill(build, p), &c.dir, log).map_err(in_step(format!("build `{build}`")))?;
    }
    std::fs::write(c.build.join(STAMP), fingerprint(c)).map_err(SetupError::Stamp)
}

/// The test certificates of every kind, for a contestant that serves TLS: made once for
/// all of them, checked (and made anew if stale) at each setup.
fn make_certificates(c: &Contestant) -> Result<(), SetupError> {
    if c.manifest.tls.is_none() {
        return Ok(());
    }
    for kind in KeyKind::ALL {
        certificates::ensure(c.builds(), kind)?;
    }
    Ok(())
}

/// Names the step a failed command was.
fn in_step(step: String) -> impl FnOnce(CommandError) -> SetupError {
    move |source| SetupError::Command { step, source }
}

/// `apt-get update`, then one `apt-get install` of `packages`; output to `log`. Waits
/// for another apt or dpkg holding the lock rather than failing at once.
pub fn install_debian(packages: &[String], log: &Path) -> Result<(), SetupError> {
    let names = packages.join(" ");
    let lock = "-oDPkg::Lock::Timeout=600";
    run(&format!("apt-get {lock} update -qq"), Path::new("/"), log)
        .map_err(in_step("apt-get update".into()))?;
    let install = format!(
        "DEBIAN_FRONTEND=noninteractive apt-get {lock} install -y -qq --no-install-recommends {names}"
    );
    run(&install, Path::new("/"), log).map_err(in_step(format!("apt-get install {names}")))
}

/// Runs `sh -c command` in `dir`, appending its output to `log`.
fn run(command: &str, dir: &Path, log: &Path) -> Result<(), CommandError> {
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .map_err(|source| CommandError::Log {
            path: log.to_path_buf(),
            source,
        })?;
    let err = file.try_clone().map_err(CommandError::Spawn)?;
    let status = Command::new("/bin/sh")
        .args(["-c", command])
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(file)
        .stderr(err)
        .status()
        .map_err(CommandError::Spawn)?;
    match status.success() {
        true => Ok(()),
        false => Err(CommandError::Failed {
            status,
            log: log.to_path_buf(),
        }),
    }
}

/// A digest of everything the build depends on: the manifest and the declared inputs.
fn fingerprint(c: &Contestant) -> String {
    let mut h = DefaultHasher::new();
    match c.origin {
        // An inline manifest is a part of its experiment file, whose other parts (loads,
        // durations) do not change the build: the manifest as read stands for it.
        Origin::Inline => format!("{:?}", c.manifest).hash(&mut h),
        Origin::Checkout | Origin::Folder => std::fs::read(&c.declared_in)
            .unwrap_or_default()
            .hash(&mut h),
    }
    for input in &c.manifest.setup.inputs {
        hash_path(&c.dir.join(input), &mut h);
    }
    format!("{:016x}", h.finish())
}

fn hash_path(p: &Path, h: &mut DefaultHasher) {
    p.to_string_lossy().hash(h);
    if p.is_dir() {
        let mut entries: Vec<_> = std::fs::read_dir(p)
            .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        entries.sort();
        for e in entries {
            hash_path(&e, h);
        }
    } else {
        std::fs::read(p).unwrap_or_default().hash(h);
    }
}
