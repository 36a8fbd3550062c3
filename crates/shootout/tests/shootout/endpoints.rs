//! Endpoints an experiment declares, and verification levels, end to end: a small Python
//! server (on 127.0.0.1) that answers `POST /greet` with `hi` only when it gets the
//! declared header and body, and sends no Date header (so only level `http` passes it).
//! Each run lasts about a second.

use crate::checkout;

use checkout::shootout;
use std::path::{Path, PathBuf};
use tempfile::TempDir;

/// `POST /greet` with `X-Token: secret` and the body `who?`: 200 `hi`; anything else 400.
const GREET_SERVER: &str = r#"
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        good = self.path == "/greet" and self.headers.get("X-Token") == "secret" and body == b"who?"
        self.answer(200 if good else 400, b"hi" if good else b"bad request")
    def do_GET(self):
        self.answer(404, b"no")
    def answer(self, status, body):
        # No Date header: level http does not ask for one, strict does.
        self.send_response_only(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass
ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
"#;

/// A contestant serving whatever the experiment names, verified at `level`.
fn contestant(root: &Path, name: &str, level: &str) {
    let dir = root.join("contestants").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("server.py"), GREET_SERVER).unwrap();
    let manifest = format!(
        "name = \"{name}\"\nlanguage = \"Python\"\nframework = \"http.server\"\nversion = \"stdlib\"\n\
         verify = \"{level}\"\n[requires]\ncommands = [\"python3\"]\n\
         [start]\ncommand = \"exec python3 server.py {{port}}\"\n"
    );
    std::fs::write(dir.join("contestant.toml"), manifest).unwrap();
    assert!(shootout(root, &["setup", name]).status.success(), "{name}");
}

/// A checkout with `mine` (level http) and `plain` (level none), and a folder for
/// experiment files outside it, with the body the endpoint sends.
fn fake_checkout(tag: &str) -> TempDir {
    let folder = checkout::temp_folder(&format!("ep-{tag}"));
    let root = folder.path();
    contestant(root, "mine", "http");
    contestant(root, "plain", "none");
    std::fs::create_dir_all(root.join("mine")).unwrap();
    std::fs::write(root.join("mine/who.txt"), "who?").unwrap();
    folder
}

/// An experiment file in `root/mine/`, the greet endpoint declared as the issue writes
/// it (`[endpoints.greet]`), expecting `expect`.
fn experiment(root: &Path, contestants: &str, expect: &str) -> PathBuf {
    let path = root.join("mine/mine.toml");
    let text = format!(
        "name = \"mine\"\ncontestants = [{contestants}]\nendpoints = [\"greet\"]\n\
         layouts = [\"shared\"]\nwarmup = \"0.2s\"\nduration = \"1s\"\n\n\
         [endpoints.greet]\nmethod = \"POST\"\npath = \"/greet\"\n\
         headers = {{ X-Token = \"secret\" }}\nbody_file = \"who.txt\"\n\
         expect = {{ status = 200, body = \"{expect}\" }}\n\n\
         [[loads]]\nname = \"keep-alive\"\nconnections = [4]\n\
         [verdict]\nforeign = \"100%\"\nsteal = \"100%\"\n"
    );
    std::fs::write(&path, text).unwrap();
    path
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Experiment 1 of the checkout, through `shootout export`: its runs.
fn exported_runs(root: &Path) -> Vec<serde_json::Value> {
    let out = shootout(root, &["export", "1", "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    doc["runs"].as_array().unwrap().clone()
}

#[test]
fn a_declared_post_endpoint_is_verified_at_level_http_loaded_stored_and_warned_of() {
    let folder = fake_checkout("post");
    let root = folder.path();
    let path = experiment(root, "\"mine\", \"plain\"", "hi");
    let out = shootout(root, &["run", path.to_str().unwrap()]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{stdout}{stderr}");
    assert!(
        stdout.contains("mine: verified at level http (")
            && stdout.contains("): greet, keep-alive, connection-close, http/1.0"),
        "{stdout}"
    );
    assert!(
        stdout.contains("plain: not verified (verify = \"none\")"),
        "{stdout}"
    );
    let warning = "warning: plain ran unverified (verify = \"none\")";
    assert!(stdout.contains(warning), "{stdout}");
    assert!(!stdout.contains("warning: mine"), "{stdout}");
    for r in exported_runs(root) {
        let name = r["contestant"].as_str().unwrap();
        assert_eq!(
            r["verify"],
            if name == "mine" { "http" } else { "none" },
            "{r}"
        );
        assert_eq!(r["endpoint"], "greet");
        assert!(
            ["ok", "generator-bound"].contains(&r["label"].as_str().unwrap()),
            "{r}"
        );
        // Every request carried the declared method, path, header and body: none got 400.
        let requests = &r["result"]["requests"];
        assert!(requests["ok"].as_u64().unwrap() > 0, "{r}");
        assert_eq!(requests["status"], 0, "{r}");
        assert_eq!(r["result"]["config"]["method"], "POST");
    }
    for format in ["text", "markdown"] {
        let report = shootout(root, &["report", "1", "--format", format]);
        assert!(report.status.success(), "{}", text(&report.stderr));
        let shown = text(&report.stdout);
        assert_eq!(shown.matches(warning).count(), 1, "{format}: {shown}");
    }
    let page = root.join("page.html");
    let html = shootout(root, &["report", "1", "--html", page.to_str().unwrap()]);
    assert!(html.status.success(), "{}", text(&html.stderr));
    let page = std::fs::read_to_string(&page).unwrap();
    assert!(
        page.contains("<p class=\"warn\">warning: plain ran unverified"),
        "{page}"
    );
}

#[test]
fn a_wrong_expectation_fails_verification_with_a_one_line_reason() {
    let folder = fake_checkout("wrong");
    let root = folder.path();
    let path = experiment(root, "\"mine\"", "hello");
    let out = shootout(root, &["run", path.to_str().unwrap()]);
    let stdout = text(&out.stdout);
    // Its one run failed verification: no run was valid, exit 1.
    assert_eq!(out.status.code(), Some(1), "{stdout}{}", text(&out.stderr));
    let said: Vec<&str> = (stdout.lines())
        .filter(|l| l.starts_with("mine: failed verification at level http: "))
        .collect();
    assert_eq!(said.len(), 1, "{stdout}");
    assert!(
        said[0].contains("greet: body \"hi\" (want \"hello\")"),
        "{stdout}"
    );
    let runs = exported_runs(root);
    assert_eq!(runs[0]["label"], "verify-failed");
    assert_eq!(runs[0]["verify"], "http");
    let reason = runs[0]["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("greet: body \"hi\" (want \"hello\")"),
        "{reason}"
    );
    assert_eq!(reason.lines().count(), 1, "{reason}");
    // The same server at level strict fails for what http forgives: no Date header.
    let strict = root.join("contestants/mine/contestant.toml");
    let manifest = std::fs::read_to_string(&strict).unwrap();
    std::fs::write(&strict, manifest.replace("\"http\"", "\"strict\"")).unwrap();
    assert!(shootout(root, &["setup", "mine"]).status.success());
    let path = experiment(root, "\"mine\"", "hi");
    let out = shootout(root, &["run", path.to_str().unwrap()]);
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("mine: failed verification at level strict: greet: no Date header"),
        "{stdout}"
    );
}

#[test]
fn a_mistake_in_an_endpoint_is_one_line_naming_file_entry_and_field_and_starts_nothing() {
    let folder = fake_checkout("bad");
    let root = folder.path();
    let good = std::fs::read_to_string(experiment(root, "\"mine\"", "hi")).unwrap();
    let cases = [
        (
            "path = \"/greet\"",
            "path = \"greet\"",
            "endpoint.greet: path: \"greet\" does not start with /",
        ),
        (
            "path = \"/greet\"",
            "paht = \"/greet\"",
            "endpoint.greet: unknown field `paht`",
        ),
        (
            "body_file = \"who.txt\"",
            "body_file = \"gone.txt\"",
            "endpoint.greet: body_file: ",
        ),
        (
            "endpoints = [\"greet\"]",
            "endpoints = [\"gret\"]",
            "endpoints: unknown endpoint \"gret\"",
        ),
    ];
    for (i, (from, to, expected)) in cases.into_iter().enumerate() {
        let path = root.join(format!("mine/bad{i}.toml"));
        std::fs::write(&path, good.replace(from, to)).unwrap();
        let out = shootout(root, &["run", path.to_str().unwrap()]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{to}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(&format!("bad{i}.toml: ")), "{err}");
        assert!(err.contains(expected), "{to}: {err}");
    }
    assert!(
        !root.join("results").exists(),
        "nothing started, nothing stored"
    );
}
