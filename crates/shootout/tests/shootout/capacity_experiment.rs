//! `shootout run` of a capacity load end to end, against a server whose capacity is known
//! in closed form: the test server's `workers:4,10ms` (4 workers shared by every
//! connection, each request holding one for 10 ms: 400 requests/s). The search must find
//! it within what its steps can resolve, every step must carry the server's CPU per
//! response, and the run must read back from the store as it was shown while it ran.
//!
//! The contestant's server is this test binary itself, started by the harness with
//! `serve_workers` (an ignored test that serves when the harness asks it to): a test of
//! the `shootout` package cannot name the testserver package's binary, and building it
//! from here would wait on the lock of the cargo that runs the tests.

use crate::checkout;

use crate::served_contestant::serve_until_stopped;
use checkout::{command, run_to_end};
use shootout::model::capacity::{Answer, CapacityResult};
use shootout::model::{Label, LoadKind, RunRecord};
use shootout::store::Store;
use std::path::Path;
use std::time::Duration;
use testserver::Behavior;

/// Set by the experiment's contestant command: the port `serve_workers` serves on.
const PORT_VAR: &str = "SHOOTOUT_TEST_WORKERS_PORT";

/// The closed-form capacity of `workers:4,10ms`, requests/s.
const TRUTH: f64 = 400.0;

/// Not a test of its own: the contestant's server, when the harness starts this binary
/// as one (with PORT_VAR set); without it, it returns at once.
#[test]
#[ignore = "the capacity experiment's contestant runs it as its server"]
fn serve_workers() {
    let Ok(port) = std::env::var(PORT_VAR) else {
        return;
    };
    let behavior = Behavior::Workers {
        workers: 4,
        service: Duration::from_millis(10),
    };
    serve_until_stopped(port.parse().expect("a port"), behavior);
}

/// An experiment of one capacity load against `serve_workers`, in `root`.
fn experiment(root: &Path) -> std::path::PathBuf {
    let exe = std::env::current_exe().expect("this test binary");
    let text = format!(
        "name = \"capacity-test\"\ncontestants = [\"workers\"]\nlayouts = [\"shared\"]\n\
         warmup = \"500ms\"\nduration = \"1s\"\nseed = 1\n\
         [contestant.workers]\n\
         command = \"{PORT_VAR}={{port}} exec '{}' capacity_experiment::serve_workers --exact --ignored\"\n\
         verify = \"http\"\n\
         [[loads]]\nname = \"keep-alive\"\nconnections = [50]\ncapacity = [\"p99<50ms\"]\n\
         start = \"100\"\n\
         [verdict]\nforeign = \"100%\"\nsteal = \"100%\"\n",
        exe.display()
    );
    let path = root.join("capacity.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// The one run the experiment stored, read back from the store.
fn stored_run(root: &Path) -> RunRecord {
    let store = Store::open(&root.join("results/shootout.db")).expect("the store");
    let experiments = store.experiments().unwrap();
    assert_eq!(experiments.len(), 1);
    let mut runs = store.runs(experiments[0].id).unwrap();
    assert_eq!(runs.len(), 1, "one search, one run");
    runs.remove(0).record
}

#[test]
fn a_capacity_search_finds_the_servers_closed_form_capacity() {
    let _cores = checkout::fair_share_of_the_cores();
    let folder = checkout::temp_folder("capacity");
    let root = folder.path();
    let file = experiment(root);
    let (out, text) = run_to_end(&mut command(root, &["run", file.to_str().unwrap()]));
    assert!(matches!(out.status.code(), Some(0 | 1)), "{text}");
    let r = stored_run(root);
    let objectives = "p99<50ms".to_string();
    assert_eq!(r.kind, LoadKind::Capacity { objectives }, "{text}");
    assert_eq!(r.label(), Label::Ok, "{}: {text}", r.reason());
    let search = r.capacity.as_ref().expect("the run keeps its search");
    found_the_truth(search, &text);
    steps_carry_the_servers_cost(search, &text);
    shown_as_stored(search, &text);
    keeps_the_step_at_capacity(&r, search);
}

/// The answer is an interval within [300, 520] that holds 400 or comes within 10% of it:
/// the boundary's steps are about 5% apart, and a 1 s step cannot see a queue that grows
/// by a few requests a second.
fn found_the_truth(search: &CapacityResult, text: &str) {
    let Answer::Interval { low, high, .. } = search.answer else {
        panic!("an interval: {} ({text})", search.summary());
    };
    let summary = search.summary();
    assert!(300.0 <= low && high <= 520.0, "{summary}: {text}");
    assert!(
        low <= TRUTH * 1.1 && high >= TRUTH * 0.9,
        "{summary} misses {TRUTH}/s: {text}"
    );
}

/// Every step was watched: the server's CPU per response is known.
fn steps_carry_the_servers_cost(search: &CapacityResult, text: &str) {
    for step in &search.steps {
        let cost = step.server_cpu_us_per_response;
        assert!(cost.is_some_and(|us| us >= 0.0), "{}: {text}", step.line());
    }
}

/// Each step was shown as it was judged, one line each, and the answer when the search
/// ended; both read back as shown.
fn shown_as_stored(search: &CapacityResult, text: &str) {
    let ended = format!(
        "[1/1] workers /hello shared keep-alive c=50 #1: {}",
        search.summary()
    );
    assert!(text.contains(&ended), "{ended:?} not in: {text}");
    let shown = text
        .lines()
        .filter(|l| l.contains(" capacity keep-alive step "));
    assert_eq!(shown.count(), search.steps.len(), "{text}");
    for (i, step) in search.steps.iter().enumerate() {
        let line = format!(
            "  workers capacity keep-alive step {}: {}",
            i + 1,
            step.line()
        );
        assert!(text.contains(&line), "{line:?} not in: {text}");
    }
}

/// The run's result and server CPU are the step at capacity's.
fn keeps_the_step_at_capacity(r: &RunRecord, search: &CapacityResult) {
    let at = search.at_capacity().expect("a step met");
    let result = r.result().expect("a measured run");
    let rate = result.rate.as_ref().expect("an open loop");
    // The engine's target is what it scheduled over the time it ran: near the step's rate.
    let off = (rate.target_rps - at.rate).abs() / at.rate;
    assert!(off < 0.05, "{} against {}", rate.target_rps, at.rate);
    assert_eq!(
        (rate.scheduled, result.requests.total()),
        (at.scheduled, at.requests)
    );
    assert!(!r.series.is_empty(), "the server was watched");
}
