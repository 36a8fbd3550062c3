//! The real catalog: every manifest reads, and the contestants whose setup is quick here
//! set up and pass `shootout verify` (servers on 127.0.0.1, each check bounded).

use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
#[allow(dead_code)] // each test file uses part of it
mod checkout;

use checkout::assert_one_line_error;
use shootout::contestant::catalog::Catalog;
use shootout::contestant::certificates::KeyKind;
use shootout::contestant::manifest::Contestant;
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

/// `list` says which contestants serve TLS (a `[tls]` table): a column, a JSON field.
#[test]
fn list_says_which_contestants_serve_tls() {
    let out = shootout(&["list", "--json"]);
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let tls = |name: &str| {
        let row = rows.iter().find(|r| r["name"] == name).unwrap();
        row["tls"].as_bool().unwrap()
    };
    assert!(tls("c-epoll-tls") && tls("nginx-static"));
    assert!(!tls("c-epoll"));
    let out = shootout(&["list"]);
    let text = String::from_utf8_lossy(&out.stdout);
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    let column = header.find(" tls ").expect("a tls column") + 1;
    let cell = |name: &str| {
        let row = text
            .lines()
            .find(|l| l.starts_with(&format!("{name} ")))
            .unwrap();
        row.get(column..column + 4)
            .unwrap_or_default()
            .trim()
            .to_string()
    };
    assert_eq!(cell("nginx-static"), "yes", "{text}");
    assert_eq!(cell("python-gunicorn-gevent"), "no", "{text}");
}

/// The quick contestants pass `verify`, and those with `[tls]` `verify --tls` with each
/// kind of certificate (the chain, what they negotiate, the HTTP checks on TLS).
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

/// `shootout verify NAME --tls --certificate KIND` for `c`: starts it with its `[tls]`
/// command serving that test certificate and passes every check, the TLS ones first (the
/// chain, and what it negotiates, printed).
fn verify_over_tls(c: &Contestant, kind: KeyKind) {
    let name = c.name();
    let out = shootout(&["verify", name, "--tls", "--certificate", kind.word()]);
    let text = String::from_utf8_lossy(&out.stdout);
    // Shown with --nocapture: what each server negotiates.
    eprintln!("{text}");
    assert!(
        out.status.success(),
        "{name} over TLS ({}):\n{text}{}",
        kind.word(),
        String::from_utf8_lossy(&out.stderr)
    );
    let dir = format!("/tls/{}/cert.pem", kind.word());
    assert!(
        text.contains(&dir),
        "{name}: the certificate served:\n{text}"
    );
    let tls = format!("{name}: tls              ok   TLS 1.");
    assert!(text.contains(&tls), "{name}: the tls check first:\n{text}");
    assert!(text.contains("ALPN http/1.1; chain verified for localhost (SNI) and 127.0.0.1"));
    assert!(text.contains(&format!("{name}: tls-resume  ")), "{text}");
}

/// `verify --tls` end to end on the TLS ceiling (set up in seconds), with each kind of
/// certificate and a load over TLS; a contestant without `[tls]` is one line (exit 2)
/// before anything starts, as is `--certificate` without `--tls`.
#[test]
fn verify_tls_checks_a_contestant_over_tls_and_refuses_one_without_tls() {
    let setup = shootout(&["setup", "c-epoll-tls"]);
    assert!(
        setup.status.success(),
        "{}",
        String::from_utf8_lossy(&setup.stderr)
    );
    let catalog = Catalog::gather(Some(&root()), &[], &root().join("target")).unwrap();
    let c = catalog.get("c-epoll-tls").unwrap();
    verify_over_tls(c, KeyKind::Rsa);
    let out = shootout(&["verify", "c-epoll-tls", "--tls", "--load"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("/tls/ecdsa/cert.pem"),
        "ecdsa by default:\n{text}"
    );
    let load = text
        .lines()
        .find(|l| l.starts_with("c-epoll-tls: load "))
        .unwrap();
    assert!(load.contains(" req/s, 0 errors, server busy "), "{text}");
    assert_one_line_error(
        &shootout(&["verify", "c-epoll-tls", "c-epoll", "--tls"]),
        "error: c-epoll: serves no TLS (its contestant.toml has no [tls] table): verify it \
         without --tls",
    );
    assert_one_line_error(
        &shootout(&["verify", "c-epoll-tls", "--certificate", "rsa"]),
        "the following required arguments were not provided: --tls",
    );
    assert_one_line_error(
        &shootout(&["verify", "c-epoll-tls", "--tls", "--certificate", "dsa"]),
        "invalid value 'dsa' for '--certificate <KIND>' (did you mean 'rsa'?",
    );
}

/// `start --tls` serves HTTPS with the test certificate it names (a load trusting only
/// that CA gets its answers), and stops on Ctrl-C; `start` of a contestant without
/// `[tls]` is one line, exit 2.
#[test]
fn start_tls_serves_https_with_the_test_certificate() {
    let setup = shootout(&["setup", "c-epoll-tls"]);
    assert!(
        setup.status.success(),
        "{}",
        String::from_utf8_lossy(&setup.stderr)
    );
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
        .to_string();
    let mut child = Command::new(env!("CARGO_BIN_EXE_shootout"))
        .args([
            "start",
            "c-epoll-tls",
            "--port",
            &port,
            "--tls",
            "--certificate",
            "rsa",
        ])
        .env("SHOOTOUT_ROOT", root())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port.parse::<u16>().unwrap()));
    checkout::wait_for("the server to listen", checkout::PATIENCE, || {
        std::net::TcpStream::connect(addr).ok()
    });
    let ca = root().join("target/contestants/tls/rsa/ca.pem");
    let url = format!("https://localhost:{port}/hello");
    let ca = ca.to_string_lossy();
    let load = shootout(&[
        "load", &url, "--cacert", &ca, "-n", "20", "-c", "2", "--json",
    ]);
    kill(Pid::from_raw(child.id() as i32), Signal::SIGINT).unwrap();
    let status = checkout::wait_for_exit("shootout start to stop on Ctrl-C", &mut child);
    let text = String::from_utf8_lossy(&load.stdout);
    assert!(
        load.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&load.stderr)
    );
    let result: serde_json::Value = serde_json::from_slice(&load.stdout).unwrap();
    assert_eq!(result["requests"]["ok"], 20, "{text}");
    assert!(status.success(), "{status}");
    assert_one_line_error(
        &shootout(&["start", "c-epoll", "--port", &port, "--tls"]),
        "error: c-epoll: serves no TLS (its contestant.toml has no [tls] table): start it \
         without --tls",
    );
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
