//! `shootout run` of an experiment that repeats until sure, end to end against a made-up
//! contestant (a small Python server on 127.0.0.1): a target no cell can meet runs every
//! round up to `max` and is reported as not converged; a target any cell meets stops at
//! `min`. Each run lasts about a second.

use crate::checkout;

use checkout::{shootout, HELLO_SERVER};
use std::path::Path;
use tempfile::TempDir;

/// A checkout with the one contestant and an experiment per target.
fn fake_checkout() -> TempDir {
    let folder = checkout::temp_folder("sure");
    let root = folder.path();
    let dir = root.join("contestants/good");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("server.py"), HELLO_SERVER).unwrap();
    std::fs::write(
        dir.join("contestant.toml"),
        "name = \"good\"\nlanguage = \"Python\"\nframework = \"http.server\"\nversion = \"stdlib\"\n\
         endpoints = [\"hello\"]\n[requires]\ncommands = [\"python3\"]\n\
         [start]\ncommand = \"exec python3 server.py {port}\"\n",
    )
    .unwrap();
    std::fs::create_dir_all(root.join("experiments")).unwrap();
    for (name, target) in [("never", "0.0001%"), ("loose", "1000%")] {
        let text = format!(
            "name = \"{name}\"\ncontestants = [\"good\"]\nlayouts = [\"shared\"]\n\
             repeats = {{ min = 2, max = 4, target = \"{target}\" }}\n\
             warmup = \"0.2s\"\nduration = \"0.6s\"\nseed = 7\n\
             [[loads]]\nname = \"ka\"\nconnections = [4]\n\
             [verdict]\nforeign = \"100%\"\nsteal = \"100%\"\n"
        );
        std::fs::write(root.join(format!("experiments/{name}.toml")), text).unwrap();
    }
    folder
}

/// The stdout of a command that must succeed.
fn stdout_of(root: &Path, args: &[&str]) -> String {
    let out = shootout(root, args);
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "{args:?}: {text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

/// The labels of the runs of stored experiment `id`.
fn labels(root: &Path, id: &str) -> Vec<String> {
    let doc: serde_json::Value =
        serde_json::from_str(&stdout_of(root, &["export", id, "--json"])).unwrap();
    let runs = doc["runs"].as_array().unwrap();
    runs.iter()
        .map(|r| r["label"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn rounds_go_on_until_sure_or_max_and_the_report_names_what_did_not_converge() {
    let folder = fake_checkout();
    let root = folder.path();
    assert!(shootout(root, &["setup", "good"]).status.success());
    let cell = "good in /hello, layout shared, ka, 4 connections";

    let never = stdout_of(root, &["run", "never"]);
    assert_eq!(labels(root, "1"), ["ok"; 4], "max rounds: {never}");
    // The total grows as each round beyond the least starts.
    for line in ["[2/2]", "[3/3]", "[4/4]"] {
        assert!(never.contains(line), "{line}: {never}");
    }
    let note = "(2 to 4 rounds): 1 of 1 cells did not converge";
    assert!(never.contains(note), "{never}");
    assert!(
        never.contains(&format!("not converged: {cell}: ±")),
        "{never}"
    );
    let report = stdout_of(root, &["report", "1"]);
    assert!(
        report.contains(note) && report.contains(&format!("not converged: {cell}")),
        "{report}"
    );

    let loose = stdout_of(root, &["run", "loose"]);
    assert_eq!(labels(root, "2"), ["ok"; 2], "min rounds: {loose}");
    assert!(
        loose.contains("(2 to 4 rounds): every cell converged"),
        "{loose}"
    );
    assert!(!loose.contains("not converged"), "{loose}");
}
