//! `shootout load --capacity` as a user runs it: the search against a test server whose
//! capacity is known in closed form (W workers each holding a request for a fixed
//! service time: W/service requests/s), a server that meets the objectives at every
//! rate the search may send (a bound, with its reason), the capacity gate, saving and
//! exporting a search, and the objectives' errors; and, step by step against the
//! closed-form server, that a step's verdict does not hang on the step before it (the
//! search waits for the server to drain). Loads go to local test servers only; each test
//! has its own SHOOTOUT_ROOT and removes it.

use crate::checkout;

use checkout::{assert_one_line_error, shootout};
use serde_json::Value;
use shootout::capacity::drain::Signal;
use shootout::capacity::{judge, Drain, Objectives, Probe, StepMeasure};
use shootout::model::capacity::Step;
use std::path::Path;
use std::process::Output;
use std::sync::atomic::AtomicBool;
use std::time::Duration;
use testserver::{Behavior, TestServer};

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The search's JSON (schema shootout.capacity/1) from a run that exited 0.
fn json(out: &Output) -> Value {
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).expect("stdout is one JSON object");
    assert_eq!(v["schema"], "shootout.capacity/1");
    v
}

/// `load URL` searching for p99<2s from 500/s up to `max`, in short steps, with `extra`.
fn short_search(root: &Path, url: &str, max: &str, extra: &[&str]) -> Output {
    let search = [
        "--capacity",
        "p99<2s",
        "--capacity-start",
        "500",
        "--capacity-max",
        max,
    ];
    let pace = ["--step", "300ms", "--warmup", "100ms"];
    shootout(root, &[&["load", url][..], &search, &pace, extra].concat())
}

#[test]
fn the_search_finds_a_capacity_known_in_closed_form() {
    let _cores = checkout::fair_share_of_the_cores();
    // 8 workers of 5 ms: at most 1,600 requests/s, each answered in about 5 ms below it;
    // above it the queue grows without bound. p90 needs few samples: short steps. The
    // climb starts at 250/s, so that no step lands on 1,600/s itself: there the queue is
    // critical, a step from a drained server meets or misses by chance, and one miss in
    // its confirmations would leave the interval's low end at the climb's 800/s.
    let service = Duration::from_millis(5);
    let server = TestServer::start(Behavior::Workers {
        workers: 8,
        service,
    })
    .unwrap();
    let root = checkout::temp_folder("capacity-closed-form");
    let url = server.url("/");
    let flags = ["--capacity", "p90<40ms", "--capacity-start", "250"];
    let pace = [
        "--step", "500ms", "--warmup", "200ms", "-c", "64", "-t", "1",
    ];
    let args = [&["load", url.as_str(), "--json"][..], &flags, &pace].concat();
    let v = json(&shootout(root.path(), &args));
    let answer = &v["answer"];
    assert_eq!(answer["kind"], "interval", "{answer}");
    let (low, high) = (
        answer["low"].as_f64().unwrap(),
        answer["high"].as_f64().unwrap(),
    );
    let truth = 1600.0;
    // The truth is the upper edge of what meets (at exactly 1,600/s the queue is
    // critical); sleeps overshoot on a busy machine, so the real edge may sit a little
    // below, and a step from a drained server a little above it may meet (its queue grows
    // by a few requests in its 0.7 s). The interval must come within 10% of it, and not
    // be vague.
    assert!(
        low <= 1.1 * truth && high >= 0.9 * truth,
        "[{low}, {high}] against {truth}"
    );
    assert!(low >= 0.75 * truth, "[{low}, {high}] is too wide a claim");
    let steps = v["steps"].as_array().unwrap();
    assert!(
        steps.len() >= 6,
        "a climb, a bisection and confirmations: {steps:?}"
    );
    let judged = |word: &str| steps.iter().filter(|s| s["verdict"] == word).count();
    assert!(judged("met") >= 3 && judged("missed") >= 2, "{steps:?}");
    // Every boundary rate was judged three times.
    let at = |rate: f64| {
        steps
            .iter()
            .filter(|s| s["rate"].as_f64() == Some(rate))
            .count()
    };
    let estimate = answer["estimate"].as_f64().unwrap();
    assert!(
        at(estimate) >= 3,
        "the estimate {estimate} was judged {} times",
        at(estimate)
    );
    assert!(server.responses() > 0);
}

/// One step of a search as `load --capacity` runs it: an open loop at `rate` from
/// `connections` connections, 200 ms of warm-up then 1 s measured, judged.
fn step(url: &str, connections: usize, rate: f64, objectives: &Objectives) -> Step {
    let mut spec = engine::LoadSpec::new(url.parse().expect("the test server's URL"));
    spec.connections = connections;
    spec.threads = Some(1);
    spec.pace = engine::Pace::Open(engine::RateSchedule::constant(rate));
    spec.warmup = Duration::from_millis(200);
    spec.stop = Some(engine::Stop::After(Duration::from_secs(1)));
    let config = spec.resolve().expect("a load of the test server");
    let result = engine::run(&config, &AtomicBool::new(false)).expect("the step runs");
    let measure = StepMeasure {
        result,
        server_cpu_s: None,
    };
    judge::judged(rate, &measure, objectives)
}

#[test]
fn a_steps_verdict_does_not_depend_on_the_step_before_it() {
    let _cores = checkout::fair_share_of_the_cores();
    // 2 workers of 20 ms: 100 requests/s. A step far past it ends with a request in
    // flight on each of its 50 connections; the server still serves them (500 ms of
    // work), and a step at 60/s that inherited them would work them off for most of its
    // measured second, at p90 far above 100 ms. Sleeping workers and few connections:
    // the test leaves the machine's cores to the tests beside it.
    let service = Duration::from_millis(20);
    let server = TestServer::start(Behavior::Workers {
        workers: 2,
        service,
    })
    .unwrap();
    let (url, connections, rate) = (server.url("/"), 50, 60.0);
    let objectives = Objectives::parse(&["p90<100ms"]).unwrap();
    let mut spec = engine::LoadSpec::new(url.parse().unwrap());
    spec.connections = connections;
    let probe = Probe::new(&spec.resolve().unwrap()).expect("a probe at rest is answered");
    let signals: Vec<Box<dyn Signal>> = vec![Box::new(probe)];
    let not_interrupted = AtomicBool::new(false);
    let mut drain = Drain::new(signals, &not_interrupted);
    let at_rest = step(&url, connections, rate, &objectives);
    drain.wait();
    let after_met = step(&url, connections, rate, &objectives);
    drain.wait();
    let past = step(&url, connections, 6.0 * rate, &objectives);
    assert!(!past.verdict.met(), "far past capacity: {}", past.line());
    let wait = drain.wait();
    let waited = wait.as_ref().map(|w| w.text()).unwrap_or_default();
    let after_missed = step(&url, connections, rate, &objectives);
    let steps = [&at_rest, &after_met, &past, &after_missed].map(Step::line);
    assert_eq!(
        after_met.verdict.met(),
        after_missed.verdict.met(),
        "the same rate after a step that met and after one past capacity ({waited}): \
         {steps:#?}"
    );
    // The wait was for the queue the step past capacity left, and it ended.
    let wait = wait.expect("the server was still serving the step past capacity");
    assert!(!wait.gave_up, "{waited}");
}

#[test]
fn a_server_that_meets_every_rate_tried_gives_a_bound_with_its_reason_and_the_gate_judges_it() {
    let server = TestServer::start(Behavior::Hello).unwrap();
    let root = checkout::temp_folder("capacity-bound");
    let url = server.url("/");
    let search = |threshold: &str| {
        let extra = ["-c", "4", "-t", "1", "--threshold", threshold];
        short_search(root.path(), &url, "2k", &extra)
    };
    let held = search("capacity>=2000/s");
    let said = text(&held.stdout);
    assert_eq!(
        held.status.code(),
        Some(0),
        "{said}\n{}",
        text(&held.stderr)
    );
    let steps: Vec<&str> = said.lines().filter(|l| l.starts_with("step ")).collect();
    assert_eq!(steps.len(), 3, "500, 1,000 and 2,000/s: {said}");
    // A step that waited for the server to drain says so after its verdict.
    let verdict = |l: &&str| l.split("; waited ").next().unwrap_or_default().to_string();
    assert!(
        steps.iter().map(verdict).all(|v| v.ends_with(": meets")),
        "{said}"
    );
    let bound = "at least 2,000/s meets p99<2s: every step met, up to the search's highest \
                 rate (2,000/s)";
    assert!(said.contains(bound), "{said}");
    let crossed = search("capacity>30k/s");
    let said = text(&crossed.stdout);
    assert_eq!(crossed.status.code(), Some(99), "{said}");
    assert!(
        said.contains("capacity>30k/s") && said.contains("2,000/s"),
        "{said}"
    );
}

#[test]
fn each_step_of_a_sharded_search_is_merged_before_it_is_judged() {
    let _cores = checkout::fair_share_of_the_cores();
    let server = TestServer::start(Behavior::Hello).unwrap();
    let root = checkout::temp_folder("capacity-sharded");
    let url = server.url("/");
    let extra = ["-c", "4", "--json", "--generators", "local:2"];
    let v = json(&short_search(root.path(), &url, "1k", &extra));
    let steps = v["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 2, "{steps:?}");
    for step in steps {
        // Both shards' requests, in one step: the merged schedule is the whole rate.
        let (rate, scheduled) = (step["rate"].as_f64().unwrap(), step["scheduled"].as_f64());
        let measured = step["measured_s"].as_f64().unwrap();
        let whole = rate * measured;
        assert!(
            scheduled.is_some_and(|n| (n - whole).abs() <= 0.02 * whole + 2.0),
            "{step}"
        );
    }
    assert_eq!(v["answer"]["kind"], "at-least");
}

#[test]
fn a_saved_search_is_listed_and_exported_whole() {
    let server = TestServer::start(Behavior::Hello).unwrap();
    let root = checkout::temp_folder("capacity-saved");
    let url = server.url("/");
    let out = root.path().join("search.json");
    let out = out.to_string_lossy();
    let extra = [
        "-c", "2", "-t", "1", "--save", "--label", "search", "--out", &out,
    ];
    let ran = short_search(root.path(), &url, "1k", &extra);
    assert_eq!(ran.status.code(), Some(0), "{}", text(&ran.stderr));
    assert!(
        text(&ran.stderr).contains("saved as load:1"),
        "{}",
        text(&ran.stderr)
    );
    let written: Value = serde_json::from_slice(&std::fs::read(&*out).unwrap()).unwrap();
    assert_eq!(written["schema"], "shootout.capacity/1");
    assert_eq!(written["steps"].as_array().map(Vec::len), Some(2));
    let listed = text(&shootout(root.path(), &["results"]).stdout);
    assert!(
        listed.contains("search") && listed.contains("capacity"),
        "{listed}"
    );
    let exported = shootout(root.path(), &["export", "search"]);
    let v: Value = serde_json::from_slice(&exported.stdout).expect("export is JSON");
    assert_eq!(v["capacity"]["answer"]["kind"], "at-least", "{v}");
    assert_eq!(v["capacity"]["steps"], written["steps"]);
}

#[test]
fn objectives_and_their_companions_fail_in_one_line_naming_the_flag() {
    let root = checkout::temp_folder("capacity-errors");
    let url = "http://127.0.0.1:9/";
    let cases: [(&[&str], &str); 6] = [
        (&["--capacity", "p99>5ms"], "--capacity"),
        (&["--capacity", "rps<5k"], "rps is not an objective"),
        (&["--capacity", "p99<5"], "needs a unit"),
        (
            &["--capacity", "p99<5ms", "--rate", "100"],
            "cannot be used with",
        ),
        (
            &["--capacity", "p99<5ms", "--threshold", "p99<5ms"],
            "only capacity thresholds apply",
        ),
        (&["--threshold", "capacity>5k/s"], "needs --capacity"),
    ];
    for (flags, needle) in cases {
        let out = shootout(root.path(), &[&["load", url][..], flags].concat());
        assert_one_line_error(&out, needle);
    }
}
