//! The workload endpoints' checks (docs/workloads.md) against the test kit's servers: the
//! honest one passes every check of a strict verify; each cheat is caught by the check it
//! cheats, with a detail line naming the request and what was wrong; and the built-in
//! `baseline` endpoint's load varies its numbers and counts a cached answer as wrong.

use shootout::contestant::verify::{self, Check, Plan};
use shootout::model::endpoint::{Builtin, Endpoint};
use shootout::model::VerifyLevel;
use std::sync::atomic::AtomicBool;
use tempfile::TempDir;
use testserver::{Behavior, Cheat, TestServer, Workloads};

/// The workloads' data written as a set-up writes it, in a folder of the test's own.
fn data() -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    shootout::workload::ensure(&dir.path().join("workloads")).unwrap();
    dir
}

/// The test server serving `data`'s workloads, cheating as `cheat` says.
fn server(data: &TempDir, cheat: Option<Cheat>) -> TestServer {
    let dir = data.path().join("workloads");
    TestServer::start(Behavior::Workloads(Workloads { dir, cheat })).unwrap()
}

/// The checks of a verify at `level` of `server` serving `names`.
fn checks(server: &TestServer, level: VerifyLevel, names: &[&str]) -> Vec<Check> {
    let endpoints: Vec<Endpoint> = names
        .iter()
        .map(|n| Endpoint::builtin(n).unwrap())
        .collect();
    let plan = Plan {
        level,
        endpoints: &endpoints,
        parses_http: true,
        database: None,
    };
    verify::run(server.addr(), &plan)
}

/// The checks of a verify at `level` of a server cheating as `cheat`, serving `names`.
fn cheating(cheat: Cheat, level: VerifyLevel, names: &[&str]) -> Vec<Check> {
    let data = data();
    checks(&server(&data, Some(cheat)), level, names)
}

/// The check called `name`.
fn named<'a>(checks: &'a [Check], name: &str) -> &'a Check {
    let found = checks.iter().find(|c| c.name == name);
    found.unwrap_or_else(|| panic!("no check {name}: {checks:?}"))
}

/// Asserts the check `name` failed with a detail holding every one of `says`.
fn caught(checks: &[Check], name: &str, says: &[&str]) {
    let c = named(checks, name);
    assert!(!c.passed, "{name} passed: {c:?}");
    for said in says {
        assert!(
            c.detail.contains(said),
            "{name}: {said:?} not in {:?}",
            c.detail
        );
    }
}

const ALL: [&str; 5] = ["hello", "baseline", "json", "upload", "static"];

#[test]
fn an_honest_server_passes_every_workload_check() {
    let data = data();
    let server = server(&data, None);
    let checks = checks(&server, VerifyLevel::Strict, &ALL);
    for c in &checks {
        assert!(c.passed && !c.flagged, "{c:?}");
    }
    let names: Vec<&str> = checks.iter().map(|c| c.name.as_str()).collect();
    for name in ["baseline", "json", "upload", "static", "date"] {
        assert!(names.contains(&name), "{name}: {names:?}");
    }
    assert!(named(&checks, "upload").detail.contains(" chunked"));
    assert!(named(&checks, "static")
        .detail
        .contains("404 for /static/missing-"));
}

#[test]
fn a_server_that_caches_its_sum_is_caught_by_the_next_request() {
    let checks = cheating(Cheat::Cached, VerifyLevel::Strict, &["baseline"]);
    caught(
        &checks,
        "baseline",
        &["GET /baseline?a=", "body \"", "(want \""],
    );
}

#[test]
fn a_server_that_echoes_content_length_is_caught_by_the_chunked_upload() {
    let checks = cheating(Cheat::EchoLength, VerifyLevel::Http, &["upload"]);
    caught(
        &checks,
        "upload",
        &["POST /upload (", " bytes, chunked): body \"0\""],
    );
}

#[test]
fn a_server_that_ignores_m_is_caught_by_the_totals() {
    let checks = cheating(Cheat::Preserialised, VerifyLevel::Strict, &["json"]);
    caught(
        &checks,
        "json",
        &["GET /json/", "?m=", "item 0 (id 1): total "],
    );
}

#[test]
fn a_wrong_content_type_fails_a_strict_verify_only() {
    let data = data();
    let server = server(&data, Some(Cheat::WrongType));
    let strict = checks(
        &server,
        VerifyLevel::Strict,
        &["baseline", "json", "upload"],
    );
    let want = |t: &str| format!("Content-Type \"text/html\" (want {t})");
    caught(&strict, "baseline", &[&want("text/plain")]);
    caught(&strict, "json", &[&want("application/json")]);
    caught(&strict, "upload", &[&want("text/plain")]);
    let http = checks(&server, VerifyLevel::Http, &["baseline", "json", "upload"]);
    assert!(http.iter().all(|c| c.passed), "{http:?}");
}

#[test]
fn answers_without_a_date_are_caught() {
    let checks = cheating(Cheat::NoDate, VerifyLevel::Strict, &["baseline"]);
    caught(
        &checks,
        "baseline",
        &["GET /baseline?a=", ": no Date header"],
    );
    caught(&checks, "date", &["no Date header"]);
}

/// The built-in baseline's load against `server`: `requests` of them on 2 connections.
fn baseline_load(server: &TestServer, requests: u64) -> engine::LoadResult {
    let mut spec = Builtin::Baseline
        .endpoint()
        .load_spec(&server.addr().to_string())
        .unwrap();
    (spec.connections, spec.threads) = (2, Some(1));
    spec.stop = Some(engine::Stop::Requests(requests));
    let checked = engine::check(&spec.resolve().unwrap()).unwrap();
    engine::run_checked(&checked, &AtomicBool::new(false)).unwrap()
}

#[test]
fn the_baseline_load_varies_its_numbers_and_counts_a_cached_sum_wrong() {
    let data = data();
    let honest = server(&data, None);
    let r = baseline_load(&honest, 200);
    assert_eq!(
        (r.requests.ok, r.requests.wrong),
        (200, 0),
        "{:?}",
        r.requests
    );
    let cached = server(&data, Some(Cheat::Cached));
    let r = baseline_load(&cached, 200);
    // Two draws of 1-1000 agree on their sum at most a few times in 200.
    assert!(r.requests.wrong >= 150, "{:?}", r.requests);
}

#[test]
fn a_server_without_brotli_is_flagged_not_failed() {
    let data = data();
    let statics = data.path().join("workloads/static");
    for entry in std::fs::read_dir(&statics).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "br") {
            std::fs::remove_file(path).unwrap();
        }
    }
    let checks = checks(&server(&data, None), VerifyLevel::Strict, &["static"]);
    let c = named(&checks, "static");
    assert!(c.passed && c.flagged, "{c:?}");
    assert!(
        c.detail
            .ends_with("; br asked, not served (identity instead)"),
        "{c:?}"
    );
}
