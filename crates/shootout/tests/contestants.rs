//! The real catalog: every manifest reads, and the contestants whose setup is quick here
//! set up and pass `shootout verify` (servers on 127.0.0.1, each check bounded).

use std::path::PathBuf;
use std::process::{Command, Output};

/// Set up and verified in CI: one of each runtime whose setup takes seconds, not minutes.
const QUICK: [&str; 5] = [
    "nginx-static",
    "go-nethttp",
    "node-http",
    "python-gunicorn-gevent",
    "java-netty",
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn shootout(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_shootout"))
        .args(args)
        .env("SHOOTOUT_ROOT", root())
        .output()
        .expect("the shootout binary runs")
}

#[test]
fn every_manifest_reads_and_blocked_rows_say_why() {
    let out = shootout(&["list", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert!(rows.len() >= 20, "{} contestants", rows.len());
    for r in &rows {
        let (name, status) = (r["name"].as_str().unwrap(), r["status"].as_str().unwrap());
        assert_ne!(status, "broken", "{name}: {}", r["reason"]);
        if status == "blocked" {
            assert!(
                r["reason"].as_str().unwrap().len() > 20,
                "{name}: say why it is blocked"
            );
        }
    }
}

#[test]
fn quick_contestants_set_up_and_speak_http() {
    for name in QUICK {
        let setup = shootout(&["setup", name]);
        assert!(
            setup.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&setup.stderr)
        );
        let verify = shootout(&["verify", name]);
        let text = String::from_utf8_lossy(&verify.stdout);
        assert!(
            verify.status.success(),
            "{name}:\n{text}{}",
            String::from_utf8_lossy(&verify.stderr)
        );
        assert!(text.contains("hello            ok"), "{name}:\n{text}");
    }
}
