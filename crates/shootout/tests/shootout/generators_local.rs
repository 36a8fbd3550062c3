//! `--generators local:N` as a user runs it: one load of more connections than one
//! process may open (the open-file limit here is 20,000), run as two pinned shard
//! processes against a real nginx with two workers, merged exactly.

use crate::checkout;
use checkout::{PATIENCE, REQUEST_CLASSES};

use std::path::{Path, PathBuf};
use std::process::Command;

/// The open-file limit of one process here: what makes 30,000 connections need two.
const OPEN_FILE_LIMIT: u64 = 20_000;

/// A private nginx (scripts/nginx-bench) with an access log, stopped when dropped.
struct Nginx {
    pid: String,
    stopped: std::cell::Cell<bool>,
    port: u16,
    log: PathBuf,
}

impl Nginx {
    fn start(dir: &Path, workers: u32) -> Nginx {
        ensure_nginx();
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let log = dir.join("access.log");
        let out = Command::new(script("nginx-bench"))
            .args([
                "start",
                &port.to_string(),
                "--workers",
                &workers.to_string(),
            ])
            .arg("--access-log")
            .arg(&log)
            .output()
            .expect("nginx-bench runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "nginx did not start: {err}");
        let pid = String::from_utf8_lossy(&out.stdout).trim().to_string();
        Nginx {
            pid,
            stopped: false.into(),
            port,
            log,
        }
    }

    /// Requests nginx logged (complete once it stopped: QUIT flushes the log).
    fn logged(&self) -> u64 {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        text.lines().filter(|l| l.starts_with("/hello ")).count() as u64
    }

    fn stop(&self) {
        if self.stopped.replace(true) {
            return;
        }
        let _ = Command::new(script("nginx-bench"))
            .args(["stop", &self.pid])
            .status();
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        self.stop();
    }
}

fn script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scripts")
        .join(name)
}

/// nginx, installed as scripts/test does when it is missing.
fn ensure_nginx() {
    let found = |p: &str| Path::new(p).exists();
    if !(found("/usr/sbin/nginx") || found("/usr/bin/nginx")) {
        let ok = Command::new(script("install-test-deps")).status();
        assert!(
            ok.is_ok_and(|s| s.success()),
            "nginx could not be installed"
        );
    }
}

#[test]
fn thirty_thousand_connections_run_as_two_local_shards_and_add_up() {
    let _cores = checkout::fair_share_of_the_cores();
    let tmp = tempdir("generators-local");
    let nginx = Nginx::start(&tmp, 2);
    let url = format!("http://127.0.0.1:{}/hello", nginx.port);
    let out = checkout::command(
        &tmp,
        &[
            "load",
            &url,
            "-c",
            "30000",
            // Long enough for well over 20,000 connections to open on a machine busy with
            // the other tests (no warm-up: `opened` counts the measured part): 28,844 of
            // 30,000 had opened in one 3 s run beside other tests, 27,294 in 8 s beside
            // three others (scripts/test runs four at once); the connect timeout is
            // longer, so a connection still opening at the end is no error.
            "-d",
            "16s",
            "--timeout",
            "18s",
            "--generators",
            "local:2",
            "--json",
        ],
    )
    .output()
    .expect("shootout runs");
    nginx.stop();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "stderr: {err}");
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON result");

    // More connections opened than one process may hold, and none failed to. Not every
    // one of the 30,000 need have opened: on a busy machine nginx accepts slowly, its
    // accept queues (4,096 each) overflow, and a dropped SYN is retried 1, 3, 7 and 15 s
    // later; CI once saw 29,841 open in 16 s. How many open in a time is the machine's
    // speed, not what this test is about.
    assert_eq!(r["config"]["connections"], 30000, "{}", r["config"]);
    let opened = r["connections"]["opened"].as_u64().unwrap_or(0);
    assert!(opened > OPEN_FILE_LIMIT, "{}", r["connections"]);
    assert_eq!(r["requests"]["connect"], 0, "{}", r["requests"]);
    assert_eq!(r["config"]["shard"], "merged 2");

    // The merged counts are the sums of the shards', each within the open-file limit.
    let shards = r["shards"].as_array().expect("shards in the merged result");
    assert_eq!(shards.len(), 2);
    let n = |v: &serde_json::Value| v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"));
    let opened_by_shards: u64 = shards.iter().map(|s| n(&s["connections"]["opened"])).sum();
    assert_eq!(opened, opened_by_shards);
    for class in REQUEST_CLASSES {
        let sum: u64 = shards.iter().map(|s| n(&s["requests"][class])).sum();
        assert_eq!(n(&r["requests"][class]), sum, "{class}");
    }
    for (s, want) in shards.iter().zip(["1/2", "2/2"]) {
        assert_eq!(s["shard"], want);
        // A shard may open a few more than its 15,000: a connection a busy nginx closed
        // is opened again (CI once saw 15,029 with 913 read errors).
        assert!(n(&s["connections"]["opened"]) > 0, "{s}");
        assert!(
            s["place"].as_str().is_some_and(|p| p.starts_with("local ")),
            "{s}"
        );
        assert!(n(&s["requests"]["ok"]) > 0, "{s}");
        assert!(s["generator"]["cpu_seconds"].as_f64().is_some(), "{s}");
    }

    // nginx saw every request that ended ok, and no more than were started.
    let (ok, total) = (n(&r["requests"]["ok"]), n(&r["requests"]["total"]));
    let logged = nginx.logged();
    assert!(
        ok <= logged && logged <= total,
        "ok {ok}, nginx {logged}, total {total}"
    );
    let _ = std::fs::remove_dir_all(&tmp);
}

#[test]
fn a_load_over_the_open_file_limit_says_how_many_processes_it_needs() {
    let tmp = tempdir("generators-limit");
    let server = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/hello", server.local_addr().unwrap());
    let limit = open_file_limit();
    let wanted = (2 * limit).to_string();
    let out = checkout::shootout(&tmp, &["load", &url, "-c", &wanted, "-t", "1"]);
    checkout::assert_one_line_error(
        &out,
        "split the load over 3 processes (--generators local:3)",
    );
    // Split over too few processes, each shard's part is refused before any starts.
    let args = [
        "load",
        &url,
        "-c",
        &wanted,
        "-t",
        "1",
        "--generators",
        "local:2",
    ];
    let out = checkout::shootout(&tmp, &args);
    checkout::assert_one_line_error(&out, "(--generators local:3)");
    let _ = std::fs::remove_dir_all(&tmp);
}

#[test]
fn a_shard_that_fails_fails_the_load_by_name() {
    let tmp = tempdir("generators-refused");
    let url = "http://127.0.0.1:9/hello";
    let out = checkout::shootout(&tmp, &["load", url, "--generators", "local:2", "-c", "1"]);
    checkout::assert_one_line_error(&out, "this shard would get no connections");
    let out = checkout::shootout(&tmp, &["load", url, "--generators", "k8s"]);
    checkout::assert_one_line_error(&out, "`shootout k8s job` prints it");
    let _ = std::fs::remove_dir_all(&tmp);
}

/// The hard open-file limit a shootout started here raises itself to.
fn open_file_limit() -> u64 {
    let limits = std::fs::read_to_string("/proc/self/limits").unwrap();
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .unwrap();
    line.split_whitespace().nth(4).unwrap().parse().unwrap()
}

fn tempdir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("shootout-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A checkout with one Python contestant and experiment `t`, whose text is `experiment`.
fn checkout_with(tag: &str, experiment: &str) -> PathBuf {
    let root = tempdir(tag);
    let dir = root.join("contestants/good");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("server.py"), checkout::HELLO_SERVER).unwrap();
    let manifest = "name = \"good\"\nlanguage = \"Python\"\nframework = \"http.server\"\n\
         version = \"stdlib\"\ntoolchain = \"python3 --version\"\nendpoints = [\"hello\"]\n\
         [requires]\ncommands = [\"python3\"]\n[start]\ncommand = \"exec python3 server.py {port}\"\n";
    std::fs::write(dir.join("contestant.toml"), manifest).unwrap();
    std::fs::create_dir_all(root.join("experiments")).unwrap();
    std::fs::write(root.join("experiments/t.toml"), experiment).unwrap();
    root
}

#[test]
fn an_experiment_runs_its_loads_on_local_shards() {
    let _cores = checkout::fair_share_of_the_cores();
    let root = checkout_with(
        "generators-run",
        "name = \"t\"\ncontestants = [\"good\"]\nlayouts = [\"shared\"]\ngenerators = \"local:2\"\n\
         warmup = \"0.2s\"\nduration = \"1s\"\nseed = 1\n\
         [[loads]]\nname = \"sharded\"\nconnections = [4]\n\
         [[loads]]\nname = \"own\"\nconnections = [2]\ngenerators = \"process\"\n\
         [verdict]\nforeign = \"100%\"\nsteal = \"100%\"\n",
    );
    assert!(checkout::shootout(&root, &["setup", "good"])
        .status
        .success());
    let out = checkout::shootout(&root, &["run", "t"]);
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.code().is_some_and(|c| c == 0 || c == 1),
        "{text}"
    );
    let out = checkout::shootout(&root, &["export", "1", "--json"]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("export JSON");
    let run = |load: &str| {
        let runs = doc["runs"].as_array().unwrap();
        runs.iter().find(|r| r["load"] == load).unwrap().clone()
    };
    let sharded = run("sharded");
    assert!(
        ["ok", "generator-bound"].contains(&sharded["label"].as_str().unwrap()),
        "{sharded}"
    );
    let shards = sharded["result"]["shards"].as_array().expect("shards kept");
    let ok: u64 = shards
        .iter()
        .map(|s| s["requests"]["ok"].as_u64().unwrap())
        .sum();
    assert_eq!(sharded["result"]["requests"]["ok"].as_u64(), Some(ok));
    assert_eq!(shards.len(), 2);
    assert!(ok > 0);
    // The load that keeps the harness's own generator has no shards.
    assert!(run("own")["result"]["shards"].is_null(), "{}", run("own"));
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn an_experiment_with_generators_it_cannot_drive_is_refused_by_field() {
    let root = checkout_with(
        "generators-bad",
        "name = \"t\"\ncontestants = [\"good\"]\n[[loads]]\nname = \"a\"\nconnections = [4]\n\
         generators = \"k8s\"\n",
    );
    let out = checkout::shootout(&root, &["run", "t"]);
    checkout::assert_one_line_error(&out, "loads \"a\": generators: k8s: the harness cannot");
    let _ = std::fs::remove_dir_all(&root);
}

/// The processes whose parent is `pid`.
fn children(pid: u32) -> Vec<u32> {
    let all = std::fs::read_dir("/proc").into_iter().flatten().flatten();
    all.filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|p| {
            let stat = std::fs::read_to_string(format!("/proc/{p}/stat")).unwrap_or_default();
            // pid (comm) state ppid ...: the fields after the last ')'.
            let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
            after.split_whitespace().nth(1) == Some(&pid.to_string())
        })
        .collect()
}

#[test]
fn ctrl_c_stops_every_shard_and_keeps_what_they_measured() {
    let _cores = checkout::fair_share_of_the_cores();
    use nix::sys::signal::{kill, Signal};
    use nix::unistd::Pid;
    let tmp = tempdir("generators-interrupt");
    let nginx = Nginx::start(&tmp, 1);
    let url = format!("http://127.0.0.1:{}/hello", nginx.port);
    let args = [
        "load",
        &url,
        "-c",
        "8",
        // Longer than the waits below can last: only Ctrl-C ends it early.
        "-d",
        "150s",
        "--generators",
        "local:2",
        "--json",
    ];
    let child = checkout::command(&tmp, &args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let shards = checkout::wait_for("the shard processes", PATIENCE, || {
        Some(children(child.id())).filter(|s| s.len() >= 2)
    });
    assert_eq!(shards.len(), 2, "two shard processes");
    // Ctrl-C once a shard has measured something: when nginx has logged more requests
    // than there are connections, one connection carried a second request, which its
    // shard sent only after it had counted the answer to the first (closed loop, no
    // pipelining; the checks before a load connect without a request).
    checkout::wait_for("a shard to count an answer", PATIENCE, || {
        (nginx.logged() > 8).then_some(())
    });
    kill(Pid::from_raw(child.id() as i32), Signal::SIGINT).unwrap();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "stderr: {err}");
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON result");
    assert_eq!(r["interrupted"], true);
    assert_eq!(r["shards"].as_array().map(Vec::len), Some(2), "{r}");
    assert!(r["requests"]["ok"].as_u64().is_some_and(|n| n > 0), "{r}");
    for pid in shards {
        assert!(
            !Path::new(&format!("/proc/{pid}")).exists(),
            "shard {pid} still runs"
        );
    }
    nginx.stop();
    let _ = std::fs::remove_dir_all(&tmp);
}

#[test]
fn a_load_beyond_the_servers_own_open_files_is_refused_with_the_number() {
    let limit = open_file_limit();
    let connections = limit + 5000;
    let root = checkout_with(
        "generators-server-limit",
        &format!(
            "name = \"t\"\ncontestants = [\"good\"]\nlayouts = [\"shared\"]\n\
             generators = \"local:2\"\nwarmup = \"0s\"\nduration = \"1s\"\n\
             [[loads]]\nname = \"many\"\nconnections = [{connections}]\n"
        ),
    );
    assert!(checkout::shootout(&root, &["setup", "good"])
        .status
        .success());
    let out = checkout::shootout(&root, &["run", "t"]);
    let text = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "no valid run: {text}");
    let out = checkout::shootout(&root, &["export", "1", "--json"]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("export JSON");
    let run = &doc["runs"][0];
    assert_eq!(run["label"], "load-refused", "{run}");
    let want = format!("the server cannot hold {connections} connections: its 1 process(es) may open {limit} files");
    assert!(run["reason"].as_str().unwrap().contains(&want), "{run}");
    let _ = std::fs::remove_dir_all(&root);
}
