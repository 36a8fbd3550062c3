//! The real catalog: every manifest reads, and the contestants whose setup is quick here
//! set up and pass `shootout verify` (servers on 127.0.0.1, each check bounded).

use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
#[allow(dead_code)] // each test file uses part of it
mod checkout;

use shootout::contestant::catalog::Catalog;
use shootout::contestant::certificates::{self, KeyKind};
use shootout::contestant::manifest::Contestant;
use shootout::contestant::verify::{self, Plan};
use shootout::model::endpoint::Endpoint;
use shootout::process::launch::{launch_over_tls, LaunchSpec};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Command, Output};
use tempfile::TempDir;

/// Set up and verified in CI: one of each runtime whose setup takes seconds, not minutes.
const QUICK: [&str; 7] = [
    "c-epoll",
    "c-epoll-tls",
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

/// The quick contestants with `[tls]`, started over TLS with each kind of certificate,
/// pass verification over TLS (the chain, what they negotiate, the HTTP checks on TLS).
#[test]
fn quick_contestants_set_up_and_speak_http_in_clear_text_and_over_tls() {
    let catalog = Catalog::gather(Some(&root()), &[], &root().join("target")).unwrap();
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
        let c = catalog.get(name).unwrap();
        if c.manifest.tls.is_some() {
            for kind in KeyKind::ALL {
                verify_over_tls(c, kind);
            }
        }
    }
}

/// By hand, for any contestant with `[tls]` (set up first) until `shootout verify` has a
/// flag for it: `SHOOTOUT_TLS_CONTESTANT=c-h2o cargo test --release -p shootout --test
/// contestants -- --ignored --nocapture`.
#[test]
#[ignore]
fn a_named_contestant_passes_verify_over_tls() {
    let Ok(name) = std::env::var("SHOOTOUT_TLS_CONTESTANT") else {
        panic!("name the contestant in SHOOTOUT_TLS_CONTESTANT");
    };
    let catalog = Catalog::gather(Some(&root()), &[], &root().join("target")).unwrap();
    for kind in KeyKind::ALL {
        verify_over_tls(catalog.get(&name).unwrap(), kind);
    }
}

/// Starts `c` over TLS with the certificate of `kind` and runs its verification over TLS;
/// fails with every check's line unless all pass. The server is stopped when dropped.
fn verify_over_tls(c: &Contestant, kind: KeyKind) {
    let name = c.name();
    let certificate = certificates::ensure(c.builds(), kind).unwrap();
    let spec = LaunchSpec {
        threads: 1,
        ..LaunchSpec::default()
    };
    let server = launch_over_tls(c, &spec, &certificate)
        .unwrap_or_else(|e| panic!("{name} over TLS ({}): {e}", kind.word()));
    let endpoints: Vec<Endpoint> = (c.manifest.endpoints.iter())
        .filter_map(|e| Endpoint::builtin(e))
        .collect();
    let plan = Plan {
        level: c.manifest.verify,
        endpoints: &endpoints,
        parses_http: c.manifest.parses_http,
    };
    let addr = SocketAddr::from(([127, 0, 0, 1], server.port));
    let checks = verify::run_over_tls(addr, &plan, &certificate).unwrap();
    let lines: Vec<String> = (checks.iter())
        .map(|k| {
            let mark = match (k.passed, k.flagged) {
                (false, _) => "FAIL",
                (true, true) => "FLAG",
                (true, false) => "ok",
            };
            format!(
                "{name} ({}): {:<16} {mark:<4} {}",
                kind.word(),
                k.name,
                k.detail
            )
        })
        .collect();
    // Shown with --nocapture: what each server negotiates.
    eprintln!("{}", lines.join("\n"));
    assert!(checks.iter().any(|k| k.name == "tls"), "{lines:#?}");
    assert!(checks.iter().all(|k| k.passed), "{lines:#?}");
}

/// A throwaway checkout holding two made-up contestants: one that builds, one that fails.
fn fake_root(tag: &str) -> TempDir {
    let folder = checkout::temp_folder(&format!("fake-{tag}"));
    let root = folder.path();
    let manifest = |build: &str| {
        format!(
            "name = \"NAME\"\nlanguage = \"Python\"\nframework = \"http.server\"\nversion = \"stdlib\"\n\
             endpoints = [\"hello\"]\n[requires]\ncommands = [\"python3\"]\n[setup]\nbuild = \"{build}\"\n\
             [start]\ncommand = \"exec python3 -m http.server --bind 127.0.0.1 {{port}}\"\n"
        )
    };
    for (name, build) in [("good", "true"), ("bad", "exit 3")] {
        let dir = root.join("contestants").join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("contestant.toml"),
            manifest(build).replace("NAME", name),
        )
        .unwrap();
    }
    folder
}

#[test]
fn a_failed_build_is_one_line_naming_contestant_and_step_and_the_others_go_on() {
    let folder = fake_root("setup");
    let root = folder.path();
    let out = checkout::shootout(root, &["setup", "--all"]);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    assert!(stdout.contains("good: ready"), "{stdout}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("error: bad: setup: build `exit 3`: failed"),
        "{stderr}"
    );
}

#[test]
fn start_runs_until_interrupted_and_leaves_no_process() {
    use std::net::TcpStream;
    let folder = fake_root("start");
    let root = folder.path();
    assert!(checkout::shootout(root, &["setup", "good"])
        .status
        .success());
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut child = Command::new(env!("CARGO_BIN_EXE_shootout"))
        .args(["start", "good", "--port", &port.to_string(), "--cpus", "0"])
        .env("SHOOTOUT_ROOT", root)
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    checkout::wait_for("the server to listen", checkout::PATIENCE, || {
        TcpStream::connect(addr).ok()
    });
    kill(Pid::from_raw(child.id() as i32), Signal::SIGINT).unwrap();
    let status = checkout::wait_for_exit("shootout start to stop on Ctrl-C", &mut child);
    assert!(status.success(), "{status}");
    assert!(
        TcpStream::connect(addr).is_err(),
        "the server outlived shootout start"
    );
}

/// `shootout run` end to end against real servers: a checkout whose contestants are the
/// real nginx-static and go-nethttp folders (linked), so its results and builds stay out
/// of the repository's own.
#[test]
fn an_experiment_runs_nginx_and_go_pinned_and_leaves_no_process() {
    let folder = checkout::temp_folder("life");
    let root = folder.path();
    std::fs::create_dir_all(root.join("contestants")).unwrap();
    std::fs::create_dir_all(root.join("experiments")).unwrap();
    for name in ["nginx-static", "go-nethttp"] {
        let real = self::root().join("contestants").join(name);
        std::os::unix::fs::symlink(
            real.canonicalize().unwrap(),
            root.join("contestants").join(name),
        )
        .unwrap();
    }
    std::fs::write(
        root.join("experiments/life.toml"),
        "name = \"life\"\ncontestants = [\"nginx-static\", \"go-nethttp\"]\nlayouts = [\"split\"]\n\
         warmup = \"0.2s\"\nduration = \"1s\"\n[[loads]]\nname = \"ka\"\nconnections = [10]\n\
         [[loads]]\nname = \"new connection\"\nconnections = [10]\nkeepalive = false\n\
         [verdict]\nforeign = \"100%\"\nsteal = \"100%\"\n",
    )
    .unwrap();
    let out = checkout::shootout(root, &["run", "life", "--setup"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let export = checkout::shootout(root, &["export", "1", "--json"]);
    let doc: serde_json::Value = serde_json::from_slice(&export.stdout).unwrap();
    assert_eq!(checkout::planned_runs(&doc), 4, "{text}");
    let runs = doc["runs"].as_array().unwrap();
    for r in runs {
        let label = r["label"].as_str().unwrap();
        // Disturbed too: other tests of this file run beside it.
        assert!(
            ["ok", "generator-bound", "disturbed"].contains(&label),
            "{r}"
        );
        assert!(
            r["bottleneck"].is_string(),
            "every measured run is judged: {r}"
        );
        assert!(r["result"]["requests"]["ok"].as_u64().unwrap() > 0, "{r}");
        assert!(
            r["server_cpu_s"].as_f64().unwrap() > 0.0,
            "the server was sampled: {r}"
        );
        assert!(!r["toolchain"].as_str().unwrap().is_empty(), "{r}");
    }
    assert!(
        text.contains("report: "),
        "the run ends with its web page: {text}"
    );
    let build = root.join("target");
    let survivors = std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| std::fs::read(e.ok()?.path().join("cmdline")).ok())
        .filter(|cmd| String::from_utf8_lossy(cmd).contains(build.to_str().unwrap()))
        .count();
    assert_eq!(survivors, 0, "a server outlived its experiment");
}
