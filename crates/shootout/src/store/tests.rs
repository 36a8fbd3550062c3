//! The store's own tests: rows round-trip, old databases migrate, bad rows name themselves.

use super::*;
use crate::model::{
    ExperimentId, Label, LoadKind, Machine, RunCoordinates, RunId, RunRecord, VerifyLevel,
};
use rusqlite::Connection;

fn run_row() -> RunRecord {
    let cell = RunCoordinates {
        contestant: "c".into(),
        endpoint: "hello".into(),
        layout: "split".into(),
        load: "ka".into(),
        connections: 10,
        streams: None,
        repeat: 0,
    };
    let kind = LoadKind::Rate {
        schedule: "0,500:2s".into(),
    };
    let mut r = RunRecord::not_run(cell, kind, Label::GeneratorBound, "busy");
    r.toolchain = "go version go1.22".into();
    r.verify = VerifyLevel::Http;
    r.server_cpu_s = 1.5;
    r.peak_rss_kb = 2048;
    r.wall_s = 3.0;
    r.load_s = 2.0;
    r.make_up = true;
    r
}

/// An experiment `name` without a plan, as a test begins one.
fn begin(
    s: &mut Store,
    name: &str,
    seed: u64,
    definition: &str,
    machine: &Machine,
) -> ExperimentId {
    let new = NewExperiment {
        name,
        seed,
        definition,
        plan: None,
        machine,
    };
    s.begin(&new).unwrap()
}

fn temp_db(name: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("shootout-{name}-{}.db", std::process::id()));
    let _ = std::fs::remove_file(&path);
    path
}

#[test]
fn runs_round_trip_and_reopening_migrates_nothing_twice() {
    let path = temp_db("store");
    let mut s = Store::open(&path).unwrap();
    let machine = Machine {
        cores: 2,
        ..Machine::default()
    };
    let id = begin(&mut s, "quick", 7, "name = \"quick\"", &machine);
    s.add_run(id, &run_row()).unwrap();
    drop(s);
    let mut s = Store::open(&path).unwrap();
    let e = &s.experiments().unwrap()[0];
    assert_eq!(
        (e.name.as_str(), e.seed, e.runs, e.machine.cores),
        ("quick", 7, 1, 2)
    );
    let r = &s.runs(id).unwrap()[0].record;
    assert_eq!(r.label(), Label::GeneratorBound);
    assert_eq!(r.peak_rss_kb, 2048);
    assert!(r.result().is_none());
    assert_eq!(
        (r.rate(), r.toolchain.as_str()),
        (Some("0,500:2s"), "go version go1.22")
    );
    assert_eq!(r.coordinates, run_row().coordinates);
    assert_eq!(r.verify, VerifyLevel::Http);
    assert!(r.make_up, "a make-up run reads back as one");
    let mut over_http2 = run_row();
    over_http2.coordinates.streams = Some(10);
    s.add_run(id, &over_http2).unwrap();
    let read = s.runs(id).unwrap();
    assert_eq!(
        (
            read[0].record.coordinates.streams,
            read[1].record.coordinates.streams
        ),
        (None, Some(10)),
        "HTTP/1.x reads back as such, and HTTP/2 with its streams"
    );
    let version: i64 =
        s.db.pragma_query_value(None, "user_version", |r| r.get(0))
            .unwrap();
    assert_eq!(version as usize, schema::VERSION);
    let _ = std::fs::remove_file(&path);
}

#[test]
fn a_capacity_run_reads_back_with_its_search() {
    use crate::model::capacity::{self, Answer, CapacityResult, Ending, SearchPlan};
    let path = temp_db("capacity");
    let mut s = Store::open(&path).unwrap();
    let id = begin(&mut s, "capacity", 3, "", &Machine::default());
    let judged = [
        (1e3, true),
        (2e3, false),
        (1.41e3, true),
        (2e3, false),
        (1.41e3, true),
    ];
    let steps: Vec<_> = judged
        .iter()
        .map(|(r, met)| capacity::step(*r, *met))
        .collect();
    let search = CapacityResult {
        objectives: vec!["p99<10ms".into(), "errors<0.1%".into()],
        plan: SearchPlan::default(),
        answer: Answer::of(&steps, &Ending::Found),
        ending: Ending::Found,
        steps,
    };
    let mut r = run_row();
    r.kind = LoadKind::Capacity {
        objectives: "p99<10ms, errors<0.1%".into(),
    };
    r.capacity = Some(search.clone());
    s.add_run(id, &r).unwrap();
    s.add_run(id, &run_row()).unwrap();
    drop(s);
    let s = Store::open(&path).unwrap();
    let read = s.runs(id).unwrap();
    assert_eq!(read[0].record.kind, r.kind);
    assert_eq!(read[0].record.capacity.as_ref(), Some(&search));
    let at = search.at_capacity().unwrap();
    assert_eq!(
        (at.rate, at.server_cpu_us_per_response),
        (1410.0, Some(10.0))
    );
    assert!(read[1].record.capacity.is_none(), "other runs have none");
    let _ = std::fs::remove_file(&path);
}

#[test]
fn a_version_1_database_is_migrated_and_keeps_its_runs() {
    let path = temp_db("v1");
    let db = Connection::open(&path).unwrap();
    db.execute_batch(schema::MIGRATIONS[0]).unwrap();
    db.execute_batch(
        "PRAGMA user_version = 1;
         INSERT INTO experiments VALUES (1, 'old', 0, 1, '', '{}');
         INSERT INTO runs (experiment_id, contestant, endpoint, layout, load, connections, repeat, \
         label, reason, server_cpu_s, peak_rss_kb, wall_s, load_s, series) \
         VALUES (1, 'c', 'hello', 'split', 'ka', 5, 0, 'ok', '', 0.5, 10, 1.0, 1.0, '[]');",
    )
    .unwrap();
    drop(db);
    let s = Store::open(&path).unwrap();
    let r = &s.runs(ExperimentId(1)).unwrap()[0].record;
    assert_eq!(
        (r.coordinates.contestant.as_str(), r.toolchain.as_str()),
        ("c", "")
    );
    assert!(r.rate().is_none());
    assert_eq!(r.kind, LoadKind::Closed);
    assert_eq!(
        r.verify,
        VerifyLevel::Strict,
        "runs before levels were strict"
    );
    let _ = std::fs::remove_file(&path);
}

#[test]
fn version_2_ramps_get_their_kind_from_the_data_once() {
    let path = temp_db("v2");
    let mut db = Connection::open(&path).unwrap();
    db.execute_batch(schema::MIGRATIONS[0]).unwrap();
    db.execute_batch(schema::MIGRATIONS[1]).unwrap();
    db.execute_batch(
        "PRAGMA user_version = 2;
         INSERT INTO experiments VALUES (1, 'old', 0, 1, '', '{}');
         INSERT INTO runs (experiment_id, contestant, endpoint, layout, load, connections, repeat, \
         label, reason, server_cpu_s, peak_rss_kb, wall_s, load_s, series, result, rate) VALUES
         (1, 'a', 'app', 'split', 'ramp', 5, 0, 'ok', '', 0.5, 10, 1.0, 1.0, '[]',
          '{\"per_second\": [{\"devices\": 0}, {\"devices\": 3}]}', NULL),
         (1, 'b', 'app', 'split', 'ramp', 5, 0, 'skipped', 'blocked', 0, 0, 0, 0, '[]', NULL, NULL),
         (1, 'a', 'hello', 'split', 'open', 5, 0, 'skipped', '', 0, 0, 0, 0, '[]', NULL, '1000'),
         (1, 'a', 'hello', 'split', 'ka', 5, 0, 'skipped', '', 0, 0, 0, 0, '[]', NULL, NULL);",
    )
    .unwrap();
    schema::migrate(&mut db).unwrap();
    let kinds: Vec<String> = db
        .prepare("SELECT load_kind FROM runs ORDER BY id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(kinds, ["devices", "devices", "rate", "closed"]);
    let _ = std::fs::remove_file(&path);
}

#[test]
fn an_experiment_is_open_until_its_end_is_recorded_and_older_ones_are_unrecorded() {
    let path = temp_db("end");
    let db = Connection::open(&path).unwrap();
    for sql in &schema::MIGRATIONS[..3] {
        db.execute_batch(sql).unwrap();
    }
    db.execute_batch(
        "PRAGMA user_version = 3; INSERT INTO experiments VALUES (1, 'old', 0, 1, '', '{}');",
    )
    .unwrap();
    drop(db);
    let mut s = Store::open(&path).unwrap();
    assert_eq!(s.end_of(ExperimentId(1)).unwrap(), End::Unrecorded);
    assert_eq!(
        s.end_of(ExperimentId(1)).unwrap().status(false),
        Status::Unknown
    );
    let id = begin(&mut s, "q", 1, "", &Machine::default());
    assert_eq!(s.end_of(id).unwrap(), End::Open);
    assert_eq!(End::Open.status(true), Status::Running);
    assert_eq!(End::Open.status(false), Status::Died);
    s.end(id, Ending::Interrupted).unwrap();
    let end = s.end_of(id).unwrap();
    assert_eq!(end.status(false), Status::Interrupted);
    assert!(end.finished_unix_ms().unwrap() > 0);
    assert!(matches!(
        s.end(ExperimentId(id.0 + 1), Ending::Complete),
        Err(StoreError::NoExperiment(_))
    ));
    assert!(matches!(
        s.end_of(ExperimentId(id.0 + 1)),
        Err(StoreError::NoExperiment(_))
    ));
    let _ = std::fs::remove_file(&path);
}

#[test]
fn saved_loads_keep_their_result_and_a_label_names_its_newest() {
    let path = temp_db("saved");
    let mut s = Store::open(&path).unwrap();
    let mut result = crate::report::fixture::result(crate::report::fixture::Measured {
        rps: 1000.0,
        p99_ms: 2.0,
        server_cpu_s: 0.0,
        errors: 0,
    });
    let kind = LoadKind::Rate {
        schedule: "0,500:2s".into(),
    };
    let command = vec!["http://127.0.0.1:9000/hello".to_string(), "-c".into()];
    let spec = spec();
    let mut save = |rps: f64, label: &str| {
        result.rps = rps;
        s.save_load(&NewSavedLoad {
            label,
            command: &command,
            kind: &kind,
            machine: &Machine::default(),
            spec: &spec,
            result: &result,
            capacity: None,
        })
        .unwrap()
    };
    let (first, _, newest) = (save(1.0, "a"), save(2.0, "b"), save(3.0, "a"));
    drop(s);
    let s = Store::open(&path).unwrap();
    let rows = s.saved_loads().unwrap();
    assert_eq!(rows.len(), 3);
    assert_eq!((rows[0].id, rows[0].label.as_str()), (first, "a"));
    assert_eq!((rows[0].duration_s, rows[0].interrupted), (4.0, false));
    let a = s.newest_saved_load("a").unwrap().unwrap();
    assert_eq!((a.id, a.rps, &a.kind), (newest, 3.0, &kind));
    assert!(s.newest_saved_load("c").unwrap().is_none());
    let full = s.saved_load(first).unwrap();
    assert_eq!((full.result.rps, full.row.command), (1.0, command));
    assert_eq!(full.result.latency_us.p99, 2000.0);
    assert_eq!(
        full.spec,
        Some(spec),
        "the spec reads back as the same load"
    );
    assert!(matches!(
        s.saved_load(newest + 1),
        Err(StoreError::NoSavedLoad(_))
    ));
    let _ = std::fs::remove_file(&path);
}

/// A load with most settings away from their defaults, to see each one kept.
fn spec() -> engine::LoadSpec {
    serde_json::from_str(
        r#"{"url": "http://127.0.0.1:9000/hello?x=1", "method": "POST",
            "headers": ["x-token: secret"], "body": "AAEC", "connections": 3, "threads": 2,
            "stop": {"requests": 500}, "warmup": "1500ms", "timeout": "2s", "pipeline": 4,
            "http10": true, "pace": {"rate": "0,500:2s"}, "io": "epoll"}"#,
    )
    .expect("the test's spec reads")
}

#[test]
fn a_version_9_saved_load_has_no_spec_and_keeps_its_result() {
    let path = temp_db("v9");
    let mut db = Connection::open(&path).unwrap();
    for sql in &schema::MIGRATIONS[..9] {
        db.execute_batch(sql).unwrap();
    }
    let result = crate::report::fixture::result(crate::report::fixture::Measured {
        rps: 1000.0,
        p99_ms: 2.0,
        server_cpu_s: 0.0,
        errors: 0,
    });
    db.execute(
        "INSERT INTO saved_loads (label, saved_unix_ms, command, load_kind, machine, rps, \
         p99_us, result) VALUES ('old', 1, '[\"http://127.0.0.1:9000/\"]', 'closed', '{}', \
         1000, 2000, ?1)",
        [serde_json::to_string(&result).unwrap()],
    )
    .unwrap();
    db.pragma_update(None, "user_version", 9).unwrap();
    schema::migrate(&mut db).unwrap();
    drop(db);
    let s = Store::open(&path).unwrap();
    let rows = s.saved_loads().unwrap();
    assert_eq!((rows.len(), rows[0].label.as_str()), (1, "old"));
    let old = s.saved_load(rows[0].id).unwrap();
    assert_eq!((old.spec, old.result.rps), (None, 1000.0));
    assert_eq!(old.row.command, ["http://127.0.0.1:9000/"]);
    let _ = std::fs::remove_file(&path);
}

/// A client certificate and its key, as PEM (made by rcgen for the test).
fn client_identity() -> (String, String) {
    let key = rcgen::KeyPair::generate().unwrap();
    let params = rcgen::CertificateParams::new(vec!["client.test".to_string()]).unwrap();
    (params.self_signed(&key).unwrap().pem(), key.serialize_pem())
}

/// An https load presenting the client certificate `cert` with `key`.
fn mtls_spec(cert: &str, key: &str) -> engine::LoadSpec {
    let spec = serde_json::json!({
        "url": "https://localhost:9443/hello",
        "tls": {"version": "1.3", "client": {"cert": cert, "key": key}}
    });
    serde_json::from_value(spec).expect("the test's spec reads")
}

/// The database file's bytes, the store closed (its WAL checkpointed into it), with any
/// WAL left beside it.
fn file_bytes(path: &std::path::Path) -> Vec<u8> {
    let mut bytes = std::fs::read(path).unwrap();
    let wal = path.with_extension("db-wal");
    bytes.extend(std::fs::read(wal).unwrap_or_default());
    bytes
}

/// Asserts `bytes` hold neither the key's PEM label nor any line of its base64.
fn holds_no_key(bytes: &[u8], key: &str) {
    let text = String::from_utf8_lossy(bytes);
    assert!(
        !text.contains("PRIVATE KEY"),
        "a key's PEM label in the file"
    );
    for line in key.lines().filter(|l| !l.starts_with("-----")) {
        assert!(
            !text.contains(line),
            "a line of the key in the file: {line}"
        );
    }
}

#[test]
fn a_client_certificates_key_is_never_stored_its_chain_is() {
    let path = temp_db("mtls");
    let (cert, key) = client_identity();
    let spec = mtls_spec(&cert, &key);
    let mut s = Store::open(&path).unwrap();
    let result = crate::report::fixture::result(crate::report::fixture::Measured {
        rps: 1000.0,
        p99_ms: 2.0,
        server_cpu_s: 0.0,
        errors: 0,
    });
    let id = s
        .save_load(&NewSavedLoad {
            label: "mtls",
            command: &["https://localhost:9443/hello".to_string()],
            kind: &LoadKind::Closed,
            machine: &Machine::default(),
            spec: &spec,
            result: &result,
            capacity: None,
        })
        .unwrap();
    drop(s);
    holds_no_key(&file_bytes(&path), &key);
    let saved = Store::open(&path).unwrap().saved_load(id).unwrap();
    let mut without = spec.clone();
    let identity = without.tls.client.take().unwrap();
    assert_eq!(saved.spec, Some(without), "the rest of the load is kept");
    let kept = saved.client_certificate.expect("the fact it presented one");
    assert_eq!((kept.certificates(), kept.chain), (1, identity.cert));
    let _ = std::fs::remove_file(&path);
}

/// Version 10 kept the spec whole, a client key included: migrating takes the key out
/// (and keeps the chain apart), and leaves none of its text in the file.
#[test]
fn a_version_10_saved_load_loses_its_key_when_migrated() {
    let path = temp_db("v10");
    let (cert, key) = client_identity();
    let spec = mtls_spec(&cert, &key);
    let db = Connection::open(&path).unwrap();
    db.pragma_update(None, "journal_mode", "WAL").unwrap();
    for sql in &schema::MIGRATIONS[..10] {
        db.execute_batch(sql).unwrap();
    }
    let result = crate::report::fixture::result(crate::report::fixture::Measured {
        rps: 1000.0,
        p99_ms: 2.0,
        server_cpu_s: 0.0,
        errors: 0,
    });
    // Three, so that the key's text fills pages of its own, as a store's would.
    for _ in 0..3 {
        db.execute(
            "INSERT INTO saved_loads (label, saved_unix_ms, command, load_kind, machine, rps, \
             p99_us, result, spec) VALUES ('old', 1, '[]', 'closed', '{}', 1000, 2000, ?1, ?2)",
            [
                serde_json::to_string(&result).unwrap(),
                serde_json::to_string(&spec).unwrap(),
            ],
        )
        .unwrap();
    }
    db.pragma_update(None, "user_version", 10).unwrap();
    drop(db);
    assert!(String::from_utf8_lossy(&file_bytes(&path)).contains("PRIVATE KEY"));
    let s = Store::open(&path).unwrap();
    let old = s.saved_load(s.saved_loads().unwrap()[0].id).unwrap();
    let mut without = spec.clone();
    let identity = without.tls.client.take().unwrap();
    assert_eq!(old.spec, Some(without));
    assert_eq!(old.client_certificate.unwrap().chain, identity.cert);
    drop(s);
    holds_no_key(&file_bytes(&path), &key);
    let _ = std::fs::remove_file(&path);
}

#[test]
fn a_row_that_does_not_decode_is_an_error_naming_the_run() {
    let path = temp_db("bad");
    let mut s = Store::open(&path).unwrap();
    let id = begin(&mut s, "q", 1, "", &Machine::default());
    let run = s.add_run(id, &run_row()).unwrap();
    s.db.execute("UPDATE runs SET series = 'not json' WHERE id = ?1", [run])
        .unwrap();
    let err = s.runs(id).unwrap_err().to_string();
    assert!(
        err.starts_with(&format!("runs row {}: series:", run.0)),
        "{err}"
    );
    let err = s.find_run(run).unwrap_err().to_string();
    assert!(err.starts_with(&format!("runs row {}:", run.0)), "{err}");
    assert_eq!(
        s.find_run(RunId(run.0 + 1)).unwrap_err().to_string(),
        format!(
            "no stored run {} (see `shootout results EXPERIMENT`)",
            run.0 + 1
        )
    );
    let _ = std::fs::remove_file(&path);
}

fn plan() -> Plan {
    Plan {
        contestants: vec!["c-epoll".into(), "nginx-static".into()],
        endpoints: vec!["hello".into()],
        layouts: vec!["split".into()],
        loads: vec![PlannedLoad {
            name: "rate".into(),
            kind: "rate".into(),
            schedules: vec!["2000".into(), "8000".into()],
            levels: vec![50],
            duration_s: Some(5.0),
            keepalive: false,
            tls: Some(PlannedTls {
                certificate: Certificate::Rsa,
                resume: engine::Resume::Off,
                version: engine::TlsVersions::every(),
            }),
            http2: Some(PlannedHttp2 {
                streams: vec![1, 10],
            }),
            endpoints: Some(vec!["hello".into()]),
        }],
        repeats: PlannedRepeats::UntilSure {
            min: 3,
            max: 9,
            target_percent: 2.5,
        },
        warmup_s: 1.0,
        duration_s: 10.0,
        budget: Budget {
            time_s: Some(600.0),
            make_up_runs: 4,
            make_up_time_s: None,
        },
        tables: vec![crate::experiment::Table {
            title: "CPU over HTTP/2".into(),
            columns: vec![crate::experiment::TableColumn {
                header: "h2 ×10".into(),
                load: "rate".into(),
                endpoint: None,
                layout: None,
                streams: Some(10),
                measure: crate::experiment::TableMeasure::Cpu,
                baseline: None,
            }],
            order: 0,
            charts: vec![0],
        }],
        database: Some(crate::store::PlannedDatabase {
            pool: 16,
            world_rows: 10_000,
        }),
    }
}

#[test]
fn an_experiment_keeps_its_plan_and_the_report_reads_its_repeats_there() {
    let path = temp_db("plan");
    let mut s = Store::open(&path).unwrap();
    let new = NewExperiment {
        name: "planned",
        seed: 3,
        // The file says otherwise: the plan, resolved at the start, is what counts.
        definition: "name = \"planned\"\nrepeats = 1\n",
        plan: Some(&plan()),
        machine: &Machine::default(),
    };
    let id = s.begin(&new).unwrap();
    drop(s);
    let s = Store::open(&path).unwrap();
    let e = s.experiment(id).unwrap();
    assert_eq!(e.plan, Some(plan()));
    assert_eq!(s.find("planned").unwrap().id, id);
    assert_eq!(s.find(&id.to_string()).unwrap().plan, Some(plan()));
    let doc = crate::report::document::Document::of(&s, e).unwrap();
    let sure = crate::experiment::Repeats::UntilSure(crate::experiment::UntilSure {
        min: 3,
        max: 9,
        target_percent: 2.5,
    });
    assert_eq!(doc.repeats, Some(sure));
    let _ = std::fs::remove_file(&path);
}

#[test]
fn a_plan_stored_before_tls_loads_reads_as_clear_text_kept_alive() {
    let mut json = serde_json::to_value(plan()).unwrap();
    let load = json["loads"][0].as_object_mut().unwrap();
    load.remove("keepalive");
    load.remove("tls");
    let old: Plan = serde_json::from_value(json).unwrap();
    assert!(old.loads[0].keepalive);
    assert_eq!(old.loads[0].tls, None);
    let tls = serde_json::to_value(plan()).unwrap()["loads"][0]["tls"].clone();
    assert_eq!(
        tls,
        serde_json::json!({"certificate": "rsa", "resume": "off", "version": "1.2-1.3"})
    );
}

#[test]
fn a_version_8_experiment_has_no_plan_and_keeps_its_repeats() {
    let path = temp_db("v8");
    let mut db = Connection::open(&path).unwrap();
    for sql in &schema::MIGRATIONS[..8] {
        db.execute_batch(sql).unwrap();
    }
    db.execute_batch(
        "PRAGMA user_version = 8;
         INSERT INTO experiments (id, name, started_unix_ms, seed, definition, machine) \
         VALUES (1, 'old', 0, 1, 'name = \"old\"\ncontestants = [\"c\"]\nrepeats = 4\n\
         [[loads]]\nname = \"ka\"\nconnections = [5]\n', '{}');",
    )
    .unwrap();
    schema::migrate(&mut db).unwrap();
    drop(db);
    let s = Store::open(&path).unwrap();
    let e = s.experiment(ExperimentId(1)).unwrap();
    assert_eq!((e.name.as_str(), e.plan.as_ref()), ("old", None));
    let doc = crate::report::document::Document::of(&s, e).unwrap();
    assert_eq!(doc.repeats, Some(crate::experiment::Repeats::Fixed(4)));
    let _ = std::fs::remove_file(&path);
}
