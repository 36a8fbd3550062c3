//! A run read back from the results store is the run that ran: its full latency
//! histogram, the same percentiles, and it merges with another run exactly. The loads go
//! to a test server on loopback; the database is a temporary file, removed at the end.

use engine::{LoadConfig, LoadResult, Stop, Target};
use shootout::model::{Label, LoadKind, Machine, Outcome, RunCoordinates, RunRecord};
use shootout::store::{NewExperiment, Store};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Duration;
use testserver::{Behavior, TestServer};

/// A database file of its own, removed when the test ends (or fails).
struct TempDb(PathBuf);

impl TempDb {
    fn new(tag: &str) -> TempDb {
        let name = format!("shootout-roundtrip-{tag}-{}.db", std::process::id());
        let path = std::env::temp_dir().join(name);
        let _ = std::fs::remove_file(&path);
        TempDb(path)
    }
}

impl Drop for TempDb {
    fn drop(&mut self) {
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", self.0.display()));
        }
    }
}

/// A bounded load of `requests` on 2 connections against `server`.
fn load(server: &TestServer, requests: u64) -> LoadResult {
    let mut c = LoadConfig::new(Target::parse(&server.url("/hello")).unwrap());
    c.connections = 2;
    c.threads = 1;
    c.stop = Stop::Requests(requests);
    c.timeout = Duration::from_secs(30);
    let r = engine::run(&c, &AtomicBool::new(false)).expect("the load runs");
    assert_eq!(r.requests.ok, requests, "{:?}", r.requests);
    r
}

fn record(result: LoadResult, repeat: usize) -> RunRecord {
    let coordinates = RunCoordinates {
        contestant: "testserver".into(),
        endpoint: "hello".into(),
        layout: "shared".into(),
        load: "ka".into(),
        connections: 2,
        streams: None,
        repeat,
    };
    let mut r = RunRecord::not_run(coordinates, LoadKind::Closed, Label::Ok, "");
    r.outcome = Outcome::Measured {
        label: Label::Ok,
        reason: String::new(),
        result: Box::new(result),
        verdict: None,
    };
    r
}

/// p50, p99 and p99.9 of a result's latency histogram, in nanoseconds.
fn quantiles(r: &LoadResult) -> [u64; 3] {
    [0.5, 0.99, 0.999].map(|q| r.histograms.latency.value_at_quantile(q))
}

#[test]
fn a_stored_run_keeps_its_histogram_and_merges_exactly() {
    let server = TestServer::start(Behavior::Delay(Duration::from_micros(500))).unwrap();
    let live = [load(&server, 400), load(&server, 300)];
    let db = TempDb::new("merge");
    let mut store = Store::open(&db.0).unwrap();
    let new = NewExperiment {
        name: "roundtrip",
        seed: 1,
        definition: "",
        plan: None,
        machine: &Machine::default(),
    };
    let id = store.begin(&new).unwrap();
    for (repeat, r) in live.iter().enumerate() {
        store.add_run(id, &record(r.clone(), repeat)).unwrap();
    }
    drop(store);

    let store = Store::open(&db.0).unwrap();
    let runs = store.load_runs(id).unwrap();
    let back: Vec<LoadResult> = runs.iter().map(|r| r.result().unwrap().clone()).collect();
    for (ran, read) in live.iter().zip(&back) {
        assert_eq!(
            read.histograms, ran.histograms,
            "every histogram read back whole"
        );
        assert_eq!(read.histograms.latency.len(), ran.requests.ok);
        assert_eq!(quantiles(read), quantiles(ran));
        let p = |r: &LoadResult| [r.latency_us.p50, r.latency_us.p99, r.latency_us.p999];
        assert_eq!(p(read), p(ran), "the stored percentiles");
    }

    let merged_live = engine::merge(&live).unwrap();
    let merged_back = engine::merge(&back).unwrap();
    assert_eq!(merged_back.histograms, merged_live.histograms);
    assert_eq!(merged_back.histograms.latency.len(), 700);
    let mut union = live[0].histograms.latency.clone();
    union.add(&live[1].histograms.latency).unwrap();
    assert_eq!(
        quantiles(&merged_back),
        [0.5, 0.99, 0.999].map(|q| union.value_at_quantile(q)),
        "merged percentiles are those of the union of samples"
    );
    assert_eq!(
        merged_back.latency_us.p99,
        union.value_at_quantile(0.99) as f64 / 1000.0
    );
    assert_eq!(merged_back.requests, merged_live.requests);
}
