//! What the tests that drive the `shootout` binary share: a made-up contestant's server,
//! the way to run shootout in a made-up checkout, and waiting for a state. Each test file
//! uses part of it.

use std::path::Path;
use std::process::{Command, Output};
use std::sync::{PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::{Duration, Instant};

/// The made-up contestants' server, `server.py PORT [MARK] [--nodelay]`: keep-alive
/// HTTP/1.1 with /hello (404 elsewhere). With MARK it creates that file once a load has
/// measured answers ([`wait_for_load`]); the file says why it is a Python process.
pub const HELLO_SERVER: &str = include_str!("hello_server.py");

/// A temporary folder of the test's own, `shootout-TAG-XXXXXX`, removed when dropped
/// (a failed assertion included).
pub fn temp_folder(tag: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("shootout-{tag}-"))
        .tempdir()
        .expect("a temporary folder")
}

/// How long a test waits for a state before it fails. Generous: a busy shared machine
/// (steal of 5-35%, other tests beside) takes many times what an idle one does, and a
/// test must not fail for that; a state that never comes still fails, naming it.
pub const PATIENCE: Duration = Duration::from_secs(60);

/// The tests of this binary run side by side. Two kinds must not overlap: those that load
/// the server's core on purpose (a busy loop, a fork loop beside a run, under test) and
/// those whose assertions need each core's fair share in time (shards that must begin
/// within 250 ms of their barrier, a capacity search's latency objectives). The first hold
/// this lock alone, the second together.
static CORES: RwLock<()> = RwLock::new(());

/// Held by a test that loads a core on purpose, for as long as it does.
pub fn loading_a_core() -> RwLockWriteGuard<'static, ()> {
    CORES.write().unwrap_or_else(PoisonError::into_inner)
}

/// Held by a test that needs each core's fair share in time.
pub fn fair_share_of_the_cores() -> RwLockReadGuard<'static, ()> {
    CORES.read().unwrap_or_else(PoisonError::into_inner)
}

/// Polls `found` until it gives a value, for at most `deadline`; fails naming `what`.
pub fn wait_for<T>(what: &str, deadline: Duration, mut found: impl FnMut() -> Option<T>) -> T {
    let until = Instant::now() + deadline;
    loop {
        if let Some(value) = found() {
            return value;
        }
        assert!(Instant::now() < until, "waited {deadline:?} for {what}");
        // Between polls only: what is waited for comes when it comes.
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Waits until HELLO_SERVER has created `mark`: a load has measured answers.
pub fn wait_for_load(mark: &Path) {
    let what = format!("a load to be answered ({} to appear)", mark.display());
    wait_for(&what, PATIENCE, || mark.exists().then_some(()));
}

/// Waits until `child` has exited; its status.
pub fn wait_for_exit(what: &str, child: &mut std::process::Child) -> std::process::ExitStatus {
    wait_for(what, PATIENCE, || {
        child.try_wait().expect("waiting on a child")
    })
}

/// `shootout ARGS` with this process's environment, for commands that touch no checkout
/// or store (`load`, `k8s job`, `--help`).
pub fn bare(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_shootout"))
        .args(args)
        .output()
        .expect("the shootout binary runs")
}

/// How many of an export's runs were planned: a run that did not count for its table
/// (disturbed, or the generator saturated, as a busy machine makes runs) is made up by
/// more, which are marked.
pub fn planned_runs(doc: &serde_json::Value) -> usize {
    let runs = doc["runs"].as_array().expect("runs in the export");
    runs.iter().filter(|r| r["make_up"] != true).count()
}

/// How a load's requests ended, as its JSON names them under `requests`: each request in
/// exactly one, so they add up to `total`.
pub const REQUEST_CLASSES: [&str; 13] = [
    "ok",
    "status",
    "timeout",
    "connect",
    "read",
    "write",
    "parse",
    "tls",
    "reset",
    "h2",
    "wrong",
    "dropped",
    "in_flight",
];

/// `shootout ARGS` in the checkout at `root`, with its own machine lock: tests run at
/// once, and beside a developer's real runs.
pub fn command(root: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_shootout"));
    cmd.args(args)
        .env("SHOOTOUT_ROOT", root)
        .env("SHOOTOUT_LOCK", root.join("shootout.lock"));
    cmd
}

/// A bad input's answer: exit 2, one line on stderr that contains `needle`, nothing on
/// stdout.
pub fn assert_one_line_error(out: &Output, needle: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "stderr: {err}");
    assert!(err.contains(needle), "want {needle:?} in stderr: {err}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.is_empty(), "stdout: {stdout}");
}

/// `shootout ARGS` run from `tmp` as a user outside any checkout: SHOOTOUT_ROOT and
/// SHOOTOUT_CONTESTANTS unset, HOME in `tmp/home`, results in `tmp/data/shootout`, its
/// own machine lock.
pub fn outside(tmp: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_shootout"));
    cmd.args(args)
        .current_dir(tmp)
        .env_remove("SHOOTOUT_ROOT")
        .env_remove("SHOOTOUT_CONTESTANTS")
        .env("HOME", tmp.join("home"))
        .env("XDG_DATA_HOME", tmp.join("data"))
        .env("SHOOTOUT_LOCK", tmp.join("shootout.lock"));
    cmd
}

/// `cmd` run to its end: its output, and its stdout and stderr as one text.
pub fn run_to_end(cmd: &mut Command) -> (Output, String) {
    let out = cmd.output().expect("the shootout binary runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out, text)
}

/// `shootout ARGS` in the checkout at `root`, run to its end.
pub fn shootout(root: &Path, args: &[&str]) -> Output {
    command(root, args)
        .output()
        .expect("the shootout binary runs")
}

/// The repository's own contestants folder.
fn real_contestants() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../contestants")
}

/// A checkout (`temp_folder(tag)`) of the repository's own `contestants`, linked so that
/// builds and results stay in the temporary folder, and `experiments/NAME.toml` holding
/// `text`. c-epoll-tls's rustls-ffi takes minutes to build from nothing: the cargo folder
/// of the repository's own build is shared (cargo locks it), so only its C is built here.
pub fn with_real_contestants(
    tag: &str,
    contestants: &[&str],
    (name, text): (&str, &str),
) -> tempfile::TempDir {
    let folder = temp_folder(tag);
    let root = folder.path();
    std::fs::create_dir_all(root.join("contestants")).unwrap();
    std::fs::create_dir_all(root.join("experiments")).unwrap();
    for name in contestants {
        let real = real_contestants().join(name).canonicalize().unwrap();
        std::os::unix::fs::symlink(real, root.join("contestants").join(name)).unwrap();
    }
    if contestants.contains(&"c-epoll-tls") {
        let cargo = real_contestants().join("../target/contestants/c-epoll-tls/cargo");
        std::fs::create_dir_all(&cargo).unwrap();
        let build = root.join("target/contestants/c-epoll-tls");
        std::fs::create_dir_all(&build).unwrap();
        std::os::unix::fs::symlink(cargo.canonicalize().unwrap(), build.join("cargo")).unwrap();
    }
    std::fs::write(root.join(format!("experiments/{name}.toml")), text).unwrap();
    folder
}

/// Each run of the checkout's first stored experiment, as `shootout export` gives it.
pub fn exported_runs(root: &Path) -> Vec<serde_json::Value> {
    let out = shootout(root, &["export", "1", "--json"]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("export prints JSON");
    doc["runs"].as_array().expect("runs").clone()
}
