//! `shootout run` end to end against made-up contestants (small Python servers on
//! 127.0.0.1): a good one is measured, one that does not speak HTTP properly is
//! verify-failed and not measured, one that dies mid-run is server-failed, and the
//! experiment goes on. Each run lasts about a second.

use crate::checkout;
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;

use checkout::{shootout, HELLO_SERVER};
use std::path::Path;
use std::process::Command;
use tempfile::TempDir;

fn contestant(root: &Path, name: &str, start: &str) {
    let dir = root.join("contestants").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("server.py"), HELLO_SERVER).unwrap();
    let manifest = format!(
        "name = \"{name}\"\nlanguage = \"Python\"\nframework = \"http.server\"\nversion = \"stdlib\"\n\
         toolchain = \"python3 --version\"\n\
         endpoints = [\"hello\"]\n[requires]\ncommands = [\"python3\"]\n[start]\ncommand = \"{start}\"\n"
    );
    std::fs::write(dir.join("contestant.toml"), manifest).unwrap();
}

fn fake_checkout(tag: &str) -> TempDir {
    let folder = checkout::temp_folder(&format!("run-{tag}"));
    let root = folder.path();
    contestant(root, "good", "exec python3 server.py {port}");
    // Serves files, not /hello: it answers 404, so verify fails.
    contestant(
        root,
        "wrong",
        "exec python3 -m http.server --bind 127.0.0.1 {port}",
    );
    // Starts fine, then is killed (-9) in the middle of its load: once a connection
    // carries its 4th request (HELLO_SERVER's mark), however long the start, the
    // verification and the warm-up took. The shell polls for the mark; the harness's
    // stop ends it if the load never comes.
    contestant(
        root,
        "dies",
        "rm -f {dir}/loading; python3 server.py {port} {dir}/loading & pid=$!; \
         while [ ! -e {dir}/loading ]; do sleep 0.05; done; kill -9 $pid; wait",
    );
    // Cannot be installed here: blocked, so its runs are skipped with the reason.
    contestant(root, "lacking", "exec python3 server.py {port}");
    let manifest = root.join("contestants/lacking/contestant.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let blocked = "blocked = \"no registry here has shootout-no-such-command\"\n";
    std::fs::write(&manifest, format!("{blocked}{text}")).unwrap();
    std::fs::create_dir_all(root.join("experiments")).unwrap();
    std::fs::write(
        root.join("experiments/t.toml"),
        "name = \"t\"\ncontestants = [\"good\", \"wrong\", \"dies\", \"lacking\"]\nlayouts = [\"shared\"]\n\
         warmup = \"0.2s\"\nduration = \"1s\"\nseed = 42\n[[loads]]\nname = \"ka\"\nconnections = [4]\n\
         [verdict]\nforeign = \"100%\"\nsteal = \"100%\"\n",
    )
    .unwrap();
    folder
}

/// The first stored experiment of a checkout, through `shootout export`.
fn export(root: &Path) -> serde_json::Value {
    let out = shootout(root, &["export", "1", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("export prints JSON")
}

#[test]
fn runs_are_labelled_and_the_experiment_goes_on() {
    let folder = fake_checkout("labels");
    let root = folder.path();
    for name in ["good", "wrong", "dies"] {
        assert!(shootout(root, &["setup", name]).status.success(), "{name}");
    }
    let out = shootout(root, &["run", "t"]);
    let text = String::from_utf8_lossy(&out.stdout);
    let doc = export(root);
    assert_eq!(doc["experiment"]["seed"], 42);
    let label = |name: &str| {
        doc["runs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["contestant"] == name)
            .unwrap()["label"]
            .as_str()
            .unwrap()
            .to_string()
    };
    // The experiment lets any foreign CPU pass: the tests of this file run side by side,
    // and their servers and loads are foreign to each other's runs.
    assert!(
        ["ok", "generator-bound"].contains(&label("good").as_str()),
        "{text}"
    );
    assert_eq!(label("wrong"), "verify-failed", "{text}");
    assert_eq!(label("dies"), "server-failed", "{text}");
    assert_eq!(label("lacking"), "skipped", "{text}");
    let lacking = (doc["runs"].as_array().unwrap().iter())
        .find(|r| r["contestant"] == "lacking")
        .unwrap();
    let reason = lacking["reason"].as_str().unwrap();
    assert!(reason.contains("no registry here has"), "{reason}");
    // Only "good" can be valid: without it, no run was.
    let valid = label("good") == "ok";
    assert_eq!(
        out.status.code(),
        Some(if valid { 0 } else { 1 }),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let good = doc["runs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["contestant"] == "good")
        .unwrap();
    assert!(good["result"]["requests"]["ok"].as_u64().unwrap() > 0);
    assert!(
        !good["series"].as_array().unwrap().is_empty(),
        "the server was sampled"
    );
    let versions = good["toolchain"].as_str().unwrap();
    assert!(versions.starts_with("Python 3."), "{versions}");
}

#[test]
fn contestants_not_set_up_stop_the_run_before_it_starts_unless_it_sets_them_up() {
    let folder = fake_checkout("not-set-up");
    let root = folder.path();
    assert!(shootout(root, &["setup", "wrong"]).status.success());
    // "good" and "dies" are not built; "lacking" is blocked, which no setup changes.
    let out = shootout(root, &["run", "t"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(
        err,
        "error: experiment t: 2 contestants are not set up (nothing ran):\n\
         \x20 good: needs setup: not built yet\n\
         \x20 dies: needs setup: not built yet\n\
         set them up and run: shootout run t --setup\n\
         or set them up first: shootout setup good dies\n"
    );
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(!root.join("results/shootout.db").exists(), "nothing stored");

    // With --setup they are set up and run; the blocked one keeps its row, with why.
    std::fs::write(
        root.join("experiments/two.toml"),
        "name = \"two\"\ncontestants = [\"good\", \"lacking\"]\nlayouts = [\"shared\"]\n\
         warmup = \"0.2s\"\nduration = \"0.5s\"\n[[loads]]\nname = \"ka\"\nconnections = [4]\n\
         [verdict]\nforeign = \"100%\"\nsteal = \"100%\"\n",
    )
    .unwrap();
    let out = shootout(root, &["run", "two", "--setup"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("good: set up ("), "{text}");
    let doc = export(root);
    let labels: Vec<(&str, &str)> = (doc["runs"].as_array().unwrap().iter())
        .map(|r| {
            (
                r["contestant"].as_str().unwrap(),
                r["label"].as_str().unwrap(),
            )
        })
        .collect();
    assert!(labels.contains(&("lacking", "skipped")), "{labels:?}");
    let good = labels.iter().find(|(c, _)| *c == "good").map(|(_, l)| *l);
    assert!(
        matches!(good, Some("ok" | "generator-bound")),
        "{labels:?}: {text}"
    );
}

#[test]
fn a_mistake_in_an_experiment_file_starts_nothing() {
    let folder = checkout::temp_folder("run-bad");
    let root = folder.path();
    std::fs::create_dir_all(root.join("experiments")).unwrap();
    std::fs::create_dir_all(root.join("contestants")).unwrap();
    std::fs::write(
        root.join("experiments/x.toml"),
        "name = \"x\"\ncontestants = [\"a\"]\nrepeat = 2\n",
    )
    .unwrap();
    let out = shootout(root, &["run", "x"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("x.toml: line 3, column 1: unknown field `repeat`"),
        "{err}"
    );
    assert!(
        !root.join("results").exists(),
        "nothing started, nothing stored"
    );
}

#[test]
fn a_busy_loop_on_the_servers_core_makes_the_run_disturbed() {
    let _cores = checkout::loading_a_core();
    let folder = fake_checkout("disturbed");
    let root = folder.path();
    assert!(shootout(root, &["setup", "good"]).status.success());
    // One run, no make-up run (the spinner disturbs every run while it spins).
    std::fs::write(
        root.join("experiments/busy.toml"),
        "name = \"busy\"\ncontestants = [\"good\"]\nlayouts = [\"split\"]\n\
         warmup = \"0.5s\"\nduration = \"2s\"\n[[loads]]\nname = \"ka\"\nconnections = [4]\n\
         [verdict]\nwait = \"0s\"\n[make_up]\nruns = 0\n",
    )
    .unwrap();
    // Spins on the server's core (the last one) until the run is over (killed below),
    // or for 300 s at most, whatever happens here: it is the foreign work under test.
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let spin = format!(
        "import os, time\nos.sched_setaffinity(0, {{{}}})\nend = time.time() + 300\n\
         while time.time() < end: pass\n",
        cores - 1
    );
    let mut busy = Command::new("python3").args(["-c", &spin]).spawn().unwrap();
    let out = shootout(root, &["run", "busy"]);
    let _ = busy.kill();
    let _ = busy.wait();
    // Its one run was not valid: the experiment says so and exits 1, all stored.
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("no run was valid (1 run, none ok; the tables above say why)"),
        "{err}"
    );
    let doc = export(root);
    let r = &doc["runs"][0];
    assert_eq!(r["label"], "disturbed", "{r}");
    assert_eq!(r["valid"], false, "{r}");
    let foreign = r["verdict"]["foreign"].as_f64().unwrap();
    assert!(foreign > 0.1, "a spinning core is foreign CPU: {foreign}");
    assert!(
        r["reason"].as_str().unwrap().starts_with("foreign CPU"),
        "{r}"
    );
}

#[test]
fn a_fork_loop_on_the_servers_core_makes_its_runs_disturbed_and_they_are_made_up() {
    let _cores = checkout::loading_a_core();
    let folder = fake_checkout("forks");
    let root = folder.path();
    assert!(shootout(root, &["setup", "good"]).status.success());
    // One planned run and one make-up, both beside the loop; no wait for a quiet machine.
    std::fs::write(
        root.join("experiments/forks.toml"),
        "name = \"forks\"\ncontestants = [\"good\"]\nlayouts = [\"split\"]\n\
         warmup = \"0.5s\"\nduration = \"2s\"\n[[loads]]\nname = \"ka\"\nconnections = [4]\n\
         [verdict]\nwait = \"0s\"\n[make_up]\nruns = 1\ntime = \"5m\"\n",
    )
    .unwrap();
    // A neighbour that forks on the server's core (the last one): each /bin/true lives
    // about a millisecond, between two of the monitor's samples. Bounded in count (a few
    // minutes of forks), and killed below once the experiment is over.
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let server_core = (cores - 1).to_string();
    let forks = "i=0; while [ $i -lt 200000 ]; do /bin/true; i=$((i+1)); done";
    let mut neighbour = Command::new("taskset")
        .args(["-c", &server_core, "sh", "-c", forks])
        .spawn()
        .unwrap();
    let out = shootout(root, &["run", "forks"]);
    let _ = neighbour.kill();
    let _ = neighbour.wait();
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    // No run was valid: the experiment says so and exits 1, all stored.
    assert_eq!(out.status.code(), Some(1), "{text}{err}");
    let doc = export(root);
    let runs = doc["runs"].as_array().unwrap();
    let made_up: Vec<bool> = runs.iter().map(|r| r["make_up"] == true).collect();
    assert_eq!(
        made_up,
        [false, true],
        "the planned run, then its make-up: {text}"
    );
    for r in runs {
        assert_eq!(r["label"], "disturbed", "{r}");
        let reason = r["reason"].as_str().unwrap();
        assert!(reason.starts_with("foreign CPU"), "{reason}");
        // The loop took a share of the server's core, about half of it while the server
        // was busy: a quarter of 2 cores. Its children, missed by every sample, read a
        // few percent when only live processes were counted.
        let foreign = r["verdict"]["foreign"].as_f64().unwrap();
        assert!(foreign > 0.10, "the fork loop is foreign CPU: {foreign}");
    }
    assert!(text.contains("(make-up)"), "{text}");
    assert!(
        text.contains("2 runs: 0 valid, 1 re-run, 1 marked"),
        "{text}"
    );
}

#[test]
fn an_unknown_contestant_is_a_check_error_and_nothing_is_stored() {
    let folder = fake_checkout("unknown");
    let root = folder.path();
    std::fs::write(
        root.join("experiments/typo.toml"),
        "name = \"typo\"\ncontestants = [\"good\", \"godo\"]\n[[loads]]\nname = \"ka\"\nconnections = [1]\n",
    )
    .unwrap();
    let out = shootout(root, &["run", "typo"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("typo.toml: contestants: unknown contestant \"godo\""),
        "{err}"
    );
    assert!(
        !root.join("results").exists(),
        "nothing started, nothing stored"
    );
}

#[test]
fn a_crossed_threshold_is_a_table_at_the_end_and_exit_99() {
    let folder = fake_checkout("gates");
    let root = folder.path();
    for name in ["good", "wrong"] {
        assert!(shootout(root, &["setup", name]).status.success(), "{name}");
    }
    std::fs::write(
        root.join("experiments/gates.toml"),
        "name = \"gates\"\ncontestants = [\"good\", \"wrong\"]\nlayouts = [\"shared\"]\n\
         warmup = \"0.2s\"\nduration = \"1s\"\n[[loads]]\nname = \"ka\"\nconnections = [4]\n\
         [verdict]\nforeign = \"100%\"\nsteal = \"100%\"\n\
         [thresholds]\nall = [\"p99 < 1us\"]\ngood = [\"rps>0\", \"errors<50%\"]\n",
    )
    .unwrap();
    let out = shootout(root, &["run", "gates"]);
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    let doc = export(root);
    let good = doc["runs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["contestant"] == "good")
        .unwrap();
    // On a loaded machine the one valid candidate may be generator-bound: then no run
    // was valid, which exits 1 before any threshold counts.
    if good["label"] != "ok" {
        assert_eq!(out.status.code(), Some(1), "{text}{err}");
        eprintln!("skipped the thresholds' table: good was {}", good["label"]);
        return;
    }
    assert_eq!(out.status.code(), Some(99), "{text}{err}");
    // After the tables, the store and the page: the table comes last.
    let (before, table) = text
        .split_once("thresholds crossed: 2 of 4 ")
        .unwrap_or_else(|| panic!("{text}"));
    assert!(before.contains("stored as experiment 1") && before.contains("report: "));
    let rows: Vec<&str> = table.lines().skip(2).take(2).collect();
    let cell = "/hello, layout shared, ka, 4 connections";
    assert!(rows[0].contains("good") && rows[0].contains(cell), "{text}");
    assert!(
        rows[0].contains("p99 < 1us") && rows[0].contains('+'),
        "{text}"
    );
    assert!(
        rows[1].contains("wrong") && rows[1].contains("p99 < 1us"),
        "{text}"
    );
    assert!(rows[1].contains("no valid run (verify-failed)"), "{text}");
    assert!(!table.contains("rps>0"), "held: {text}");
}

#[test]
fn a_bad_threshold_in_an_experiment_is_one_line_and_starts_nothing() {
    let folder = fake_checkout("bad-gates");
    let root = folder.path();
    for (table, needle) in [
        (
            "godo = [\"p99<5ms\"]",
            "bad.toml: thresholds.godo: unknown contestant \"godo\"",
        ),
        (
            "good = [\"p99<5\"]",
            "bad.toml: thresholds.good: \"p99<5\": \"5\" needs a unit (us, ms or s)",
        ),
    ] {
        std::fs::write(
            root.join("experiments/bad.toml"),
            format!(
                "name = \"bad\"\ncontestants = [\"good\"]\n[[loads]]\nname = \"ka\"\n\
                 connections = [1]\n[thresholds]\n{table}\n"
            ),
        )
        .unwrap();
        let out = shootout(root, &["run", "bad"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(needle), "{err}");
        assert!(!root.join("results").exists(), "nothing stored");
    }
}

#[test]
fn ctrl_c_stops_the_experiment_keeps_what_ran_and_leaves_no_process() {
    stops_on(Signal::SIGINT);
}

#[test]
fn sigterm_stops_the_experiment_as_ctrl_c_does() {
    stops_on(Signal::SIGTERM);
}

#[test]
fn a_closed_terminal_sighup_stops_the_experiment_as_ctrl_c_does() {
    stops_on(Signal::SIGHUP);
}

/// Sends `signal` to a running experiment; it must stop, keep what it measured, and
/// leave no process behind.
fn stops_on(signal: Signal) {
    let folder = checkout::temp_folder(&format!("run-int-{signal}"));
    let root = folder.path();
    contestant(root, "good", "exec python3 server.py {port} {dir}/loading");
    std::fs::create_dir_all(root.join("experiments")).unwrap();
    std::fs::write(
        root.join("experiments/long.toml"),
        "name = \"long\"\ncontestants = [\"good\"]\nlayouts = [\"shared\"]\nrepeats = 3\n\
         warmup = \"0s\"\nduration = \"30s\"\n[[loads]]\nname = \"ka\"\nconnections = [2]\n\
         [verdict]\nforeign = \"100%\"\nsteal = \"100%\"\n",
    )
    .unwrap();
    assert!(shootout(root, &["setup", "good"]).status.success());
    let mut child = checkout::command(root, &["run", "long"])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Once the first run has measured answers (warm-up 0 s), well inside its 30 s.
    checkout::wait_for_load(&root.join("contestants/good/loading"));
    kill(Pid::from_raw(child.id() as i32), signal).unwrap();
    let status = checkout::wait_for_exit("shootout run to stop on the signal", &mut child);
    assert_eq!(status.code(), Some(130));
    let doc = export(root);
    let labels: Vec<&str> = doc["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["label"].as_str().unwrap())
        .collect();
    assert_eq!(
        labels, ["interrupted"; 3],
        "the measured part is kept, the rest marked"
    );
    let first = &doc["runs"][0]["result"]["requests"]["ok"];
    assert!(
        first.as_u64().unwrap() > 0,
        "what was measured before Ctrl-C is kept"
    );
    // Every point has the generator's CPU (cumulative, in 10 ms ticks: it may still read
    // 0 early on), the server's user/sys split and every core's use. (How many points
    // there are depends on how soon the signal came.)
    let series = doc["runs"][0]["series"].as_array().unwrap();
    assert!(!series.is_empty(), "the server was sampled");
    let generator = |i: usize| series[i]["generator_cpu_s"].as_f64().unwrap();
    assert!(generator(series.len() - 1) >= generator(0), "{series:?}");
    for point in series {
        assert!(!point["cores"].as_array().unwrap().is_empty(), "{point}");
        assert!(point["user_s"].is_number() && point["sys_s"].is_number());
    }
    // No process of the experiment survives: none runs in the contestant's folder.
    let survivors = std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| std::fs::read_link(e.ok()?.path().join("cwd")).ok())
        .filter(|cwd| cwd.starts_with(root))
        .count();
    assert_eq!(survivors, 0, "a contestant process outlived shootout run");
}
