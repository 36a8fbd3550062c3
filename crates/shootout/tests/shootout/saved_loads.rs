//! `shootout load --save` and `--out` as a user runs them, then `results`, `export` and
//! `compare` of what they kept, in every format. Loads go to a local test server only;
//! each test has its own SHOOTOUT_ROOT and removes it.

use crate::checkout;

use crate::mtls;

use checkout::{assert_one_line_error, shootout};
use mtls::holds_no_key;
use serde_json::Value;
use std::path::Path;
use std::process::Output;
use tempfile::TempDir;
use testserver::{Behavior, TestServer};

/// A folder of its own for one test, removed when the test ends (or fails).
struct Root(TempDir);

impl Root {
    fn new(tag: &str) -> Root {
        Root(checkout::temp_folder(&format!("saved-{tag}")))
    }

    fn dir(&self) -> &Path {
        self.0.path()
    }

    fn path(&self, name: &str) -> String {
        self.dir().join(name).to_string_lossy().into_owned()
    }
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Asserts success and returns stdout.
fn ok(out: Output) -> String {
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    stdout(&out)
}

/// A small bounded load of `url` with `extra` flags.
fn load(root: &Path, url: &str, extra: &[&str]) -> Output {
    let base = ["load", url, "-c", "2", "-t", "1", "-n", "300"];
    shootout(root, &[&base[..], extra].concat())
}

/// Checks the three formats of `compare before after` of two single loads.
fn compares_as_one_cell(root: &Path, before: &str, after: &str, kind: &str, names: &str) {
    let text = ok(shootout(root, &["compare", before, after]));
    assert!(text.starts_with("before: "), "{text}");
    assert!(text.contains("\nafter:  "), "{text}");
    assert!(text.contains(names), "{text}");
    assert!(
        text.contains("GET /hello, 2 connections, keep-alive"),
        "{text}"
    );
    assert!(text.contains("one load a side"), "{text}");

    let md = ok(shootout(
        root,
        &["compare", before, after, "--format", "markdown"],
    ));
    assert!(md.starts_with("- before: "), "{md}");
    assert!(md.contains("| loads | cell | runs |"), "{md}");
    assert!(md.contains("| 1→1 |"), "{md}");

    let args = [
        "compare",
        before,
        after,
        "--format",
        "json",
        "--fail-above",
        "5",
    ];
    let v: Value = serde_json::from_str(&ok(shootout(root, &args))).expect("JSON");
    assert_eq!(v["schema"], "shootout.compare/1");
    assert_eq!(
        (&v["before"]["kind"], &v["after"]["kind"]),
        (&kind.into(), &kind.into())
    );
    assert_eq!(v["before"]["reference"], before);
    let cells = v["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 1, "{v}");
    let rps = &cells[0]["rps"];
    assert_eq!(rps["before"].as_array().unwrap().len(), 1);
    assert!(rps["median_after"].as_f64().unwrap() > 0.0);
    assert!(rps["change_pct"].is_number() && rps["p"].is_number());
    assert_eq!(
        rps["significant"], false,
        "one load a side is never significant"
    );
    assert!(cells[0]["cpu_ms_per_response"]["change_pct"].is_null());
    assert_eq!(v["fail_above"], 5.0);
    assert_eq!(v["regressions"], serde_json::json!([]));
}

#[test]
fn saved_loads_are_listed_shown_exported_and_compared_by_label() {
    let root = Root::new("labels");
    let server = TestServer::start(Behavior::Hello).unwrap();
    let url = server.url("/hello");
    for label in ["a", "b"] {
        let out = load(root.dir(), &url, &["--save", "--label", label]);
        let err = stderr(&out);
        assert!(
            ok(out).contains("Requests/sec:"),
            "the summary still prints"
        );
        assert!(err.contains(&format!("label \"{label}\"")), "{err}");
        assert!(err.contains("shootout compare"), "{err}");
    }
    // Without --label, the URL names it.
    let out = load(root.dir(), &url, &["--save", "--json"]);
    let err = stderr(&out);
    let v: Value = serde_json::from_str(&ok(out)).expect("--json stays JSON with --save");
    assert_eq!(v["schema"], "shootout.load/1");
    let default = url.trim_start_matches("http://");
    assert!(
        err.contains(&format!("saved as load:3, label \"{default}\"")),
        "{err}"
    );

    let list = ok(shootout(root.dir(), &["results"]));
    for (id, label) in [("load:1", "a"), ("load:2", "b"), ("load:3", default)] {
        let row = list
            .lines()
            .find(|l| l.split_whitespace().next() == Some(id))
            .unwrap_or_else(|| panic!("no {id} in {list}"));
        let words: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(words[1..3], ["load", label], "{row}");
        assert!(row.contains(" UTC "), "a date: {row}");
    }
    let shown = ok(shootout(root.dir(), &["results", "a"]));
    assert!(
        shown.starts_with("saved load a (load:1), saved "),
        "{shown}"
    );
    assert!(shown.contains("command: shootout load http://"), "{shown}");
    let settings = format!("Running 300 requests @ {url}\n  GET, 2 connections at most");
    assert!(shown.contains(&settings), "the load's spec: {shown}");
    assert!(shown.contains("Requests/sec:"), "{shown}");
    assert_eq!(ok(shootout(root.dir(), &["results", "load:1"])), shown);

    compares_as_one_cell(root.dir(), "a", "b", "saved-load", "a → b");
    // The default label has a '/' and is no file: still a label.
    compares_as_one_cell(
        root.dir(),
        default,
        "load:1",
        "saved-load",
        &format!("{default} → a"),
    );

    // An export of a saved load is a load result that compare reads as a file.
    let exported = ok(shootout(root.dir(), &["export", "b"]));
    let v: Value = serde_json::from_str(&exported).unwrap();
    assert_eq!(
        (&v["schema"], &v["saved"]["label"]),
        (&"shootout.load/1".into(), &"b".into())
    );
    assert_eq!(
        (
            &v["saved"]["spec"]["url"],
            &v["saved"]["spec"]["connections"]
        ),
        (&url.as_str().into(), &2.into())
    );
    let file = root.path("b.json");
    std::fs::write(&file, exported).unwrap();
    let text = ok(shootout(root.dir(), &["compare", "a", &file]));
    assert!(text.contains("a → b.json"), "{text}");
    server.stop();
}

#[test]
fn names_shared_with_an_experiment_or_naming_nothing_are_one_line() {
    let root = Root::new("names");
    let server = TestServer::start(Behavior::Hello).unwrap();
    let url = server.url("/hello");
    ok(load(root.dir(), &url, &["--save", "--label", "quick"]));
    ok(load(root.dir(), &url, &["--save", "--label", "b"]));
    // An experiment named like the first label, stored as `shootout run` stores one.
    let db = root.dir().join("results").join("shootout.db");
    let mut store = shootout::store::Store::open(&db).unwrap();
    let machine = shootout::model::Machine::default();
    let new = shootout::store::NewExperiment {
        name: "quick",
        seed: 1,
        definition: "",
        plan: None,
        machine: &machine,
    };
    let id = store.begin(&new).unwrap();
    drop(store);
    assert_one_line_error(
        &shootout(root.dir(), &["compare", "quick", "b"]),
        &format!(
            "names both experiment quick (#{id}) and saved load quick (load:1): say {id} or load:1"
        ),
    );
    ok(shootout(root.dir(), &["compare", "load:1", "b"]));
    assert_one_line_error(
        &shootout(root.dir(), &["compare", &id.to_string(), "b"]),
        &format!("b is a single load and {id} an experiment"),
    );
    assert_one_line_error(
        &shootout(root.dir(), &["compare", "nothing", "b"]),
        "\"nothing\" is none of: an experiment (id or name), a saved load (label or load:ID), \
         a run (run:ID), a JSON file",
    );
    assert_one_line_error(
        &shootout(root.dir(), &["compare", "gone.json", "b"]),
        "(no such file)",
    );
    assert_one_line_error(
        &shootout(root.dir(), &["results", "nothing"]),
        "names no experiment",
    );
    assert_one_line_error(
        &load(root.dir(), &url, &["--save", "--label", "12"]),
        "--label \"12\": a number",
    );
    assert_one_line_error(
        &load(root.dir(), &url, &["--label", "x"]),
        "--label names a saved load: add --save",
    );
    server.stop();
}

#[test]
fn out_writes_the_json_while_the_summary_prints_and_two_files_compare() {
    let root = Root::new("out");
    let server = TestServer::start(Behavior::Hello).unwrap();
    let url = server.url("/hello");
    let (x, y) = (root.path("x.json"), root.path("y.json"));
    let ab = ok(load(root.dir(), &url, &["--format", "ab", "--out", &x]));
    assert!(ab.contains("Complete requests:      300"), "{ab}");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&x).unwrap()).unwrap();
    assert_eq!(v["schema"], "shootout.load/1");
    assert_eq!(v["requests"]["ok"].as_u64(), Some(300));
    let text = ok(load(root.dir(), &url, &["--out", &y]));
    assert!(text.contains("Requests/sec:"), "{text}");
    compares_as_one_cell(root.dir(), &x, &y, "file", "x.json → y.json");
    assert!(
        !root.dir().join("results").exists(),
        "files compare without opening the store"
    );
    let sent = server.requests();
    assert_one_line_error(
        &load(
            root.dir(),
            &url,
            &["--out", &root.path("no/such/folder/z.json")],
        ),
        "no folder",
    );
    assert_eq!(server.requests(), sent, "a bad --out starts nothing");
    std::fs::write(root.path("bad.json"), "{}").unwrap();
    assert_one_line_error(
        &shootout(root.dir(), &["compare", &x, &root.path("bad.json")]),
        "not a shootout.load result",
    );
    server.stop();
}

/// A load with a client certificate (mTLS) saved: the server took the certificate, and
/// neither the store's file nor an export holds the key; `results` says it was not saved.
/// (Local shards get the key with the spec: spec_shards.rs.)
#[test]
fn a_saved_load_keeps_its_client_certificate_but_never_its_key() {
    let root = Root::new("mtls");
    let m = mtls::Setup::new(root.dir());
    let (url, ca_file) = (&m.url, &m.ca_file);
    let presented = m.flags();
    let save = ["--save", "--label", "mtls"];
    let text = ok(load(root.dir(), url, &[&presented[..], &save].concat()));
    assert!(text.contains("300 requests in"), "{text}");
    // Without the certificate the server refuses: the load above did present it.
    let refused = load(root.dir(), url, &["--cacert", ca_file]);
    assert!(
        stderr(&refused).contains("certificate_required"),
        "{}",
        stderr(&refused)
    );

    let db = root.dir().join("results").join("shootout.db");
    let mut bytes = std::fs::read(&db).unwrap();
    bytes.extend(std::fs::read(db.with_extension("db-wal")).unwrap_or_default());
    holds_no_key(&String::from_utf8_lossy(&bytes), &m.client_key, "the store");
    let shown = ok(shootout(root.dir(), &["results", "mtls"]));
    assert!(shown.contains("\n  TLS 1.2-1.3, ALPN http/1.1, trusting --cacert (1 certificate)"));
    assert!(
        shown.contains(
            "\n  client certificate (mTLS): 1 certificate, kept; its private key was not saved \
             (to repeat the load, give --cert and --key again)\n"
        ),
        "{shown}"
    );
    let exported = ok(shootout(root.dir(), &["export", "mtls"]));
    holds_no_key(&exported, &m.client_key, "the export");
    let v: Value = serde_json::from_str(&exported).unwrap();
    assert!(v["saved"]["spec"]["tls"]["client"].is_null(), "{exported}");
    assert!(v["saved"]["spec"]["tls"]["cacert"].is_string());
    let kept = v["saved"]["client_certificate"].as_str().unwrap();
    assert_eq!(
        mtls::der(kept),
        mtls::der(&m.client_cert),
        "the chain as presented"
    );
}
