//! One harness per machine and no orphans, with real processes: a second `shootout run`
//! exits 2 at once naming the first (or waits with --wait); `kill -9` of `shootout run`
//! leaves no contestant behind; `shootout results` says which experiment died, with
//! dates people read, and the next run stops what the dead one left. Each test has its
//! own checkout and its own machine lock (SHOOTOUT_LOCK), so they run side by side and
//! beside a developer's real run.

use crate::checkout;
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;

use checkout::{wait_for, PATIENCE};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;
use tempfile::TempDir;

/// A checkout in its own temporary folder, removed when dropped (processes it started
/// are the test's to stop).
struct Checkout {
    folder: TempDir,
}

impl Checkout {
    fn new(tag: &str) -> Checkout {
        let folder = checkout::temp_folder(&format!("one-harness-{tag}"));
        std::fs::create_dir_all(folder.path().join("experiments")).unwrap();
        Checkout { folder }
    }

    fn root(&self) -> &Path {
        self.folder.path()
    }

    /// A contestant serving /hello, started with `start` (a shell command; `{port}`,
    /// `{dir}` are filled in).
    fn contestant(&self, name: &str, start: &str) {
        let dir = self.root().join("contestants").join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("server.py"), checkout::HELLO_SERVER).unwrap();
        let manifest = format!(
            "name = \"{name}\"\nlanguage = \"Python\"\nframework = \"http.server\"\nversion = \"stdlib\"\n\
             endpoints = [\"hello\"]\n[requires]\ncommands = [\"python3\"]\n[start]\ncommand = \"{start}\"\n"
        );
        std::fs::write(dir.join("contestant.toml"), manifest).unwrap();
        assert!(self.shootout(&["setup", name]).status.success(), "{name}");
    }

    /// An experiment of one contestant, one run of `duration`.
    fn experiment(&self, name: &str, contestant: &str, duration: &str) {
        std::fs::write(
            self.root().join("experiments").join(format!("{name}.toml")),
            format!(
                "name = \"{name}\"\ncontestants = [\"{contestant}\"]\nlayouts = [\"shared\"]\n\
                 warmup = \"0s\"\nduration = \"{duration}\"\nseed = 1\n\
                 [[loads]]\nname = \"ka\"\nconnections = [2]\n\
                 [verdict]\nforeign = \"100%\"\nsteal = \"100%\"\n"
            ),
        )
        .unwrap();
    }

    fn lock(&self) -> PathBuf {
        self.root().join("shootout.lock")
    }

    fn command(&self, args: &[&str]) -> Command {
        checkout::command(self.root(), args)
    }

    fn shootout(&self, args: &[&str]) -> Output {
        self.command(args)
            .output()
            .expect("the shootout binary runs")
    }

    /// `shootout run NAME` in the background, its stderr in a file of the checkout (read
    /// while it runs; its stdout is not read: it is short).
    fn start_run(&self, name: &str, extra: &[&str]) -> Started {
        static RUNS: AtomicUsize = AtomicUsize::new(0);
        let n = RUNS.fetch_add(1, Ordering::Relaxed);
        let err = self.root().join(format!("run-{n}.stderr"));
        let mut args = vec!["run", name];
        args.extend(extra);
        let child = self
            .command(&args)
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&err).unwrap())
            .spawn()
            .unwrap();
        Started { child, err }
    }

    /// Waits until the lock file contains `text` (the holder naming itself).
    fn wait_for_lock_text(&self, text: &str) {
        wait_for(&format!("the lock to say {text:?}"), PATIENCE, || {
            let lock = std::fs::read_to_string(self.lock()).ok()?;
            lock.contains(text).then_some(())
        });
    }

    /// `shootout results`, as lines.
    fn results(&self) -> Vec<String> {
        let out = self.shootout(&["results"]);
        assert!(out.status.success(), "{}", stderr(&out));
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::to_string)
            .collect()
    }
}

/// A `shootout run` the test started: killed if the test ends (or fails) before it does.
struct Started {
    child: Child,
    /// The file its stderr goes to.
    err: PathBuf,
}

impl Started {
    fn pid(&self) -> Pid {
        Pid::from_raw(self.child.id() as i32)
    }

    /// Its exit code, once it has exited (`what` names the wait).
    fn exit_code(&mut self, what: &str) -> Option<i32> {
        checkout::wait_for_exit(what, &mut self.child).code()
    }

    /// What it has written to stderr so far.
    fn stderr(&self) -> String {
        std::fs::read_to_string(&self.err).unwrap_or_default()
    }

    /// Waits until its stderr contains `text`.
    fn wait_for_stderr(&self, text: &str) {
        wait_for(&format!("{text:?} on stderr"), PATIENCE, || {
            self.stderr().contains(text).then_some(())
        });
    }
}

impl Drop for Started {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// True while process `pid` runs (a zombie, dead but not yet reaped, does not).
fn running(pid: i32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    // The state follows the command name, which is in parentheses.
    let state = stat
        .rsplit(')')
        .next()
        .and_then(|s| s.trim().chars().next());
    !matches!(state, Some('Z' | 'X') | None)
}

fn read_pid(path: &Path) -> Option<i32> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

/// The row of experiment `id` in `shootout results`.
fn row(lines: &[String], id: i64) -> String {
    let found = lines
        .iter()
        .find(|l| l.split_whitespace().next() == Some(&id.to_string()));
    found
        .cloned()
        .unwrap_or_else(|| panic!("no row {id} in {lines:#?}"))
}

/// True when `line` has a date such as `2026-11-22 18:31 UTC`.
fn has_date(line: &str) -> bool {
    let words: Vec<&str> = line.split_whitespace().collect();
    words.windows(3).any(|w| {
        let digits = |s: &str, shape: &str| {
            s.len() == shape.len()
                && s.chars().zip(shape.chars()).all(|(c, k)| {
                    if k == 'd' {
                        c.is_ascii_digit()
                    } else {
                        c == k
                    }
                })
        };
        digits(w[0], "dddd-dd-dd") && digits(w[1], "dd:dd") && w[2] == "UTC"
    })
}

#[test]
fn a_second_run_exits_2_at_once_naming_the_holder_and_wait_waits_for_it() {
    let co = Checkout::new("second");
    co.contestant("good", "exec python3 server.py {port}");
    co.experiment("slow", "good", "60s");
    co.experiment("short", "good", "1s");
    let mut first = co.start_run("slow", &[]);
    let pid = first.pid();
    // Named with its store and id: it is past its start.
    co.wait_for_lock_text("\"experiment_id\":1");

    let t0 = Instant::now();
    let out = co.shootout(&["run", "short"]);
    let took = t0.elapsed();
    // At once: while the first still runs (its 60 s run holds the lock), not after.
    assert!(
        first.child.try_wait().unwrap().is_none(),
        "the first run ended"
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains(&format!("the machine is busy: pid {pid} (")) && err.contains("shootout"),
        "{err}"
    );
    assert!(err.contains("runs experiment slow (id 1 in "), "{err}");
    assert!(err.contains("--wait waits for it"), "{err}");
    eprintln!("a second run was refused in {took:?}");
    assert!(row(&co.results(), 1).contains(" running "));

    // Ctrl-C ends a wait: it exits 130 while the first still runs.
    let waiting = format!("waiting for the machine: pid {pid} (");
    let mut waiter = co.start_run("short", &["--wait"]);
    waiter.wait_for_stderr(&waiting);
    kill(waiter.pid(), Signal::SIGINT).unwrap();
    assert_eq!(waiter.exit_code("the waiter to stop on Ctrl-C"), Some(130));
    assert!(
        first.child.try_wait().unwrap().is_none(),
        "the first run ended"
    );

    // A waiting run starts once the first lets go, and both ends are recorded.
    let mut second = co.start_run("short", &["--wait"]);
    second.wait_for_stderr(&waiting);
    kill(pid, Signal::SIGINT).unwrap();
    assert_eq!(
        first.exit_code("the first run to stop on Ctrl-C"),
        Some(130)
    );
    assert_eq!(second.exit_code("the second run to end"), Some(0));
    let err = second.stderr();
    assert!(err.contains(&waiting), "{err}");
    let lines = co.results();
    assert!(row(&lines, 1).contains(" interrupted "), "{lines:#?}");
    let complete = row(&lines, 2);
    assert!(complete.contains(" complete "), "{lines:#?}");
    assert!(has_date(&complete), "{lines:#?}");
    let export = co.shootout(&["export", "2"]);
    let doc: serde_json::Value = serde_json::from_slice(&export.stdout).unwrap();
    assert_eq!(doc["experiment"]["status"], "complete");
    assert!(doc["experiment"]["finished_unix_ms"].as_i64().unwrap() > 0);
}

#[test]
fn kill_9_of_run_leaves_no_contestant_and_the_next_run_stops_what_escaped() {
    let co = Checkout::new("kill9");
    let dir = co.root().join("contestants/forks");
    // The server is a child of the shell (which the parent-death signal does not reach);
    // a second process leaves the group for a session of its own (which the group's
    // guard does not reach either): only the next run can find it.
    co.contestant(
        "forks",
        "setsid sh -c 'echo $$ > {dir}/escaped.pid; exec sleep 600' & \
         python3 server.py {port} {dir}/loading & echo $! > {dir}/server.pid; wait",
    );
    co.contestant("good", "exec python3 server.py {port}");
    co.experiment("slow", "forks", "60s");
    co.experiment("short", "good", "1s");
    let mut run = co.start_run("slow", &[]);
    let (server, escaped) = wait_for("the contestant to start", PATIENCE, || {
        Some((
            read_pid(&dir.join("server.pid"))?,
            read_pid(&dir.join("escaped.pid"))?,
        ))
    });
    // Into the load: it has measured answers.
    checkout::wait_for_load(&dir.join("loading"));
    assert!(running(server));

    let t0 = Instant::now();
    run.child.kill().unwrap();
    let _ = run.child.wait();
    // Its guard stops the group (TERM, then KILL a second later); were it not, the
    // server would run on for good.
    wait_for(
        "the contestant to end after kill -9 of shootout run",
        PATIENCE,
        || (!running(server)).then_some(()),
    );
    eprintln!("the contestant ended {:?} after kill -9", t0.elapsed());

    let lines = co.results();
    let died = row(&lines, 1);
    assert!(died.contains(" died "), "{lines:#?}");
    assert!(has_date(&died), "{lines:#?}");

    let next = co.shootout(&["run", "short"]);
    let text = String::from_utf8_lossy(&next.stdout);
    assert_eq!(next.status.code(), Some(0), "{text}{}", stderr(&next));
    let stopped = running(escaped);
    let _ = kill(Pid::from_raw(escaped), Signal::SIGKILL);
    assert!(!stopped, "the escaped process was not stopped");
    let said = text
        .lines()
        .filter(|l| l.starts_with("stopped what a harness that died left running: group "))
        .count();
    assert_eq!(said, 1, "{text}");
    let lines = co.results();
    assert!(row(&lines, 1).contains(" died "), "{lines:#?}");
    assert!(row(&lines, 2).contains(" complete "), "{lines:#?}");
    // Nothing of either experiment runs: no process works in the checkout.
    let survivors = std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| std::fs::read_link(e.ok()?.path().join("cwd")).ok())
        .filter(|cwd| cwd.starts_with(co.root()))
        .count();
    assert_eq!(survivors, 0, "a contestant process outlived its harness");
}
