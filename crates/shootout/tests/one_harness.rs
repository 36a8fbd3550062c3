//! One harness per machine and no orphans, with real processes: a second `shootout run`
//! exits 2 at once naming the first (or waits with --wait); `kill -9` of `shootout run`
//! leaves no contestant behind; `shootout results` says which experiment died, with
//! dates people read, and the next run stops what the dead one left. Each test has its
//! own checkout and its own machine lock (SHOOTOUT_LOCK), so they run side by side and
//! beside a developer's real run.

use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
#[allow(dead_code)] // each test file uses part of it
mod checkout;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A keep-alive HTTP/1.1 server with /hello, as a contestant must have.
const SERVER: &str = r#"
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_GET(self):
        body = b"Hello World"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass
ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
"#;

/// A checkout in its own temporary folder, removed when dropped (processes it started
/// are the test's to stop).
struct Checkout {
    root: PathBuf,
}

impl Checkout {
    fn new(tag: &str) -> Checkout {
        let root =
            std::env::temp_dir().join(format!("shootout-one-harness-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("experiments")).unwrap();
        Checkout { root }
    }

    /// A contestant serving /hello, started with `start` (a shell command; `{port}`,
    /// `{dir}` are filled in).
    fn contestant(&self, name: &str, start: &str) {
        let dir = self.root.join("contestants").join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("server.py"), SERVER).unwrap();
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
            self.root.join("experiments").join(format!("{name}.toml")),
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
        self.root.join("shootout.lock")
    }

    fn command(&self, args: &[&str]) -> Command {
        checkout::command(&self.root, args)
    }

    fn shootout(&self, args: &[&str]) -> Output {
        self.command(args)
            .output()
            .expect("the shootout binary runs")
    }

    /// `shootout run NAME` in the background (its output is not read: it is short).
    fn start_run(&self, name: &str, extra: &[&str]) -> Started {
        let mut args = vec!["run", name];
        args.extend(extra);
        let child = self
            .command(&args)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        Started(child)
    }

    /// Waits until the lock file contains `text` (the holder naming itself).
    fn wait_for_lock_text(&self, text: &str) {
        let found = wait_until(Duration::from_secs(20), || {
            std::fs::read_to_string(self.lock()).is_ok_and(|t| t.contains(text))
        });
        assert!(found, "the lock never said {text:?}");
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

/// A process the test started: killed if the test ends (or fails) before it does.
struct Started(Child);

impl Started {
    fn pid(&self) -> Pid {
        Pid::from_raw(self.0.id() as i32)
    }

    /// Its exit code, if it exits within `limit`.
    fn exit_code_within(&mut self, limit: Duration) -> Option<i32> {
        let mut code = None;
        wait_until(limit, || match self.0.try_wait() {
            Ok(Some(status)) => {
                code = status.code();
                true
            }
            _ => false,
        });
        code
    }

    /// What it wrote to stderr (once it has exited).
    fn stderr(&mut self) -> String {
        let mut text = String::new();
        if let Some(mut err) = self.0.stderr.take() {
            let _ = std::io::Read::read_to_string(&mut err, &mut text);
        }
        text
    }
}

impl Drop for Started {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Drop for Checkout {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Polls `done` every 20 ms for up to `limit`.
fn wait_until(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let until = Instant::now() + limit;
    while Instant::now() < until {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    done()
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
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains(&format!("the machine is busy: pid {pid} (")) && err.contains("shootout"),
        "{err}"
    );
    assert!(err.contains("runs experiment slow (id 1 in "), "{err}");
    assert!(err.contains("--wait waits for it"), "{err}");
    assert!(took < Duration::from_secs(1), "refused after {took:?}");
    eprintln!("a second run was refused in {took:?}");
    assert!(row(&co.results(), 1).contains(" running "));

    // Ctrl-C ends a wait at once.
    let mut waiter = co.start_run("short", &["--wait"]);
    std::thread::sleep(Duration::from_millis(500));
    kill(waiter.pid(), Signal::SIGINT).unwrap();
    assert_eq!(waiter.exit_code_within(Duration::from_secs(5)), Some(130));

    // A waiting run starts once the first lets go, and both ends are recorded.
    let mut second = co.start_run("short", &["--wait"]);
    std::thread::sleep(Duration::from_millis(500));
    kill(pid, Signal::SIGINT).unwrap();
    assert_eq!(first.exit_code_within(Duration::from_secs(20)), Some(130));
    assert_eq!(second.exit_code_within(Duration::from_secs(60)), Some(0));
    let err = second.stderr();
    assert!(
        err.contains(&format!("waiting for the machine: pid {pid} (")),
        "{err}"
    );
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
    let dir = co.root.join("contestants/forks");
    // The server is a child of the shell (which the parent-death signal does not reach);
    // a second process leaves the group for a session of its own (which the group's
    // guard does not reach either): only the next run can find it.
    co.contestant(
        "forks",
        "setsid sh -c 'echo $$ > {dir}/escaped.pid; exec sleep 600' & \
         python3 server.py {port} & echo $! > {dir}/server.pid; wait",
    );
    co.contestant("good", "exec python3 server.py {port}");
    co.experiment("slow", "forks", "60s");
    co.experiment("short", "good", "1s");
    let mut run = co.start_run("slow", &[]);
    let found = wait_until(Duration::from_secs(20), || {
        read_pid(&dir.join("server.pid")).is_some() && read_pid(&dir.join("escaped.pid")).is_some()
    });
    assert!(found, "the contestant did not start");
    let server = read_pid(&dir.join("server.pid")).unwrap();
    let escaped = read_pid(&dir.join("escaped.pid")).unwrap();
    // Into the load.
    std::thread::sleep(Duration::from_millis(1500));
    assert!(running(server));

    let t0 = Instant::now();
    run.0.kill().unwrap();
    let _ = run.0.wait();
    let gone = wait_until(Duration::from_secs(2), || !running(server));
    eprintln!("the contestant ended {:?} after kill -9", t0.elapsed());
    assert!(
        gone,
        "the contestant outlived kill -9 of shootout run by 2 s"
    );

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
        .filter(|cwd| cwd.starts_with(&co.root))
        .count();
    assert_eq!(survivors, 0, "a contestant process outlived its harness");
}
