//! The real catalog: every manifest reads, and the contestants whose setup is quick here
//! set up and pass `shootout verify` (servers on 127.0.0.1, each check bounded).

use crate::checkout;
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;

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

/// The contestants that serve HTTP/2 both ways: cleartext with prior knowledge (`[h2c]`)
/// and over TLS by ALPN (`alpn` of `[tls]` offers `h2`).
const HTTP2: [&str; 6] = [
    "nginx-static",
    "c-h2o",
    "go-nethttp",
    "node-http",
    "rust-hyper",
    "java-netty",
];

/// The contestants with a WebSocket echo at /ws (a `[websocket]` table).
const WEBSOCKET: [&str; 7] = [
    "c-epoll",
    "rust-hyper",
    "go-nethttp",
    "java-netty",
    "node-http",
    "erlang-yaws",
    "python-sanic",
];

/// `list` says which contestants serve TLS (a `[tls]` table), HTTP/2 (h2c, h2) and
/// WebSocket (a `[websocket]` table): a column each, JSON fields.
#[test]
fn list_says_which_contestants_serve_tls_http2_and_websocket() {
    let out = shootout(&["list", "--json"]);
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let field = |name: &str, field: &str| {
        let row = rows.iter().find(|r| r["name"] == name).unwrap();
        row[field].as_bool().unwrap()
    };
    assert!(field("c-epoll-tls", "tls") && field("nginx-static", "tls"));
    assert!(!field("c-epoll", "tls"));
    for name in HTTP2 {
        assert!(field(name, "h2c") && field(name, "h2"), "{name}");
    }
    assert!(!field("c-epoll-tls", "h2c") && !field("c-epoll-tls", "h2"));
    let out = shootout(&["list"]);
    let text = String::from_utf8_lossy(&out.stdout);
    let header = text.lines().next().unwrap();
    let cell = |name: &str, column: &str, width: usize| {
        let at = header.find(&format!(" {column} ")).expect("the column") + 1;
        let row = text
            .lines()
            .find(|l| l.starts_with(&format!("{name} ")))
            .unwrap();
        row.get(at..at + width)
            .unwrap_or_default()
            .trim()
            .to_string()
    };
    assert_eq!(cell("nginx-static", "tls", 4), "yes", "{text}");
    assert_eq!(cell("python-gunicorn-gevent", "tls", 4), "no", "{text}");
    assert_eq!(cell("nginx-static", "http2", 6), "h2c,h2", "{text}");
    assert_eq!(cell("c-epoll-tls", "http2", 6), "no", "{text}");
    // The WebSocket echo (a [websocket] table): a column, and its path in the JSON.
    assert_eq!(cell("c-epoll", "ws", 3), "yes", "{text}");
    assert_eq!(cell("c-epoll-tls", "ws", 3), "no", "{text}");
    let path = |name: &str| {
        let row = rows.iter().find(|r| r["name"] == name).unwrap();
        row["websocket"].as_str().map(str::to_string)
    };
    for name in WEBSOCKET {
        assert_eq!(path(name).as_deref(), Some("/ws"), "{name}");
    }
    assert_eq!(path("nginx-static"), None);
}

/// `list` says which endpoints each serves, the workloads among them, in its column
/// (as wide as the longest list) and as JSON.
#[test]
fn list_says_which_workloads_each_contestant_serves() {
    let out = shootout(&["list", "--json"]);
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let endpoints = |name: &str| {
        let row = rows.iter().find(|r| r["name"] == name).unwrap();
        row["endpoints"].clone()
    };
    assert_eq!(
        endpoints("c-epoll"),
        serde_json::json!(["hello", "app", "baseline", "json"])
    );
    assert_eq!(
        endpoints("nginx-static"),
        serde_json::json!(["hello", "static"])
    );
    let every = [
        "hello", "app", "baseline", "json", "upload", "static", "db", "queries", "fortunes",
        "updates",
    ];
    let all_of_them = [
        "go-nethttp",
        "go-fasthttp",
        "node-http",
        "node-express",
        "python-sanic",
        "rust-hyper",
        "java-netty",
        "c-h2o",
    ];
    for name in all_of_them {
        assert_eq!(endpoints(name), serde_json::json!(every), "{name}");
    }
    let out = shootout(&["list"]);
    let text = String::from_utf8_lossy(&out.stdout);
    let header = text.lines().next().unwrap();
    let at = header.find(" endpoints ").expect("the column") + 1;
    let row = text.lines().find(|l| l.starts_with("c-epoll ")).unwrap();
    assert!(row[at..].starts_with("hello,app,baseline,json "), "{text}");
}

/// The quick contestants pass `verify`, and those with `[tls]` `verify --tls` with each
/// kind of certificate (the chain, what they negotiate, the HTTP checks on TLS); those
/// that serve HTTP/2 answer h2load over h2c and over TLS by ALPN (here, after their
/// set-up: the HTTP/2 checks of `verify` are to come).
#[test]
fn quick_contestants_set_up_and_speak_http_in_clear_text_over_tls_and_over_http2() {
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
        if c.manifest.serves_h2c() {
            h2load(name, Http2::Cleartext);
        }
        if c.manifest.serves_h2() {
            h2load(name, Http2::OverTls);
        }
    }
}

/// How a contestant is loaded over HTTP/2.
#[derive(Debug, Clone, Copy)]
enum Http2 {
    /// `start --h2c`, `http://`: prior knowledge.
    Cleartext,
    /// `start --tls`, `https://`: h2 by ALPN (h2load does not check the certificate).
    OverTls,
}

/// Starts `name` with `shootout start` serving HTTP/2 as `how` says, and loads its
/// /hello with `h2load -n 200 -c 2 -m 10`: every request succeeds, over the protocol
/// asked for (h2load says which it negotiated).
fn h2load(name: &str, how: Http2) {
    let (flag, scheme, protocol) = match how {
        Http2::Cleartext => ("--h2c", "http", "h2c"),
        Http2::OverTls => ("--tls", "https", "h2"),
    };
    let port = free_port();
    let mut child = Command::new(env!("CARGO_BIN_EXE_shootout"))
        .args(["start", name, "--port", &port.to_string(), flag])
        .env("SHOOTOUT_ROOT", root())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    checkout::wait_for("the server to listen", checkout::PATIENCE, || {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("{name}: shootout start {flag} exited first: {status}");
        }
        std::net::TcpStream::connect(addr).ok()
    });
    let url = format!("{scheme}://127.0.0.1:{port}/hello");
    // -T: a server that stops answering ends the load, not the test run.
    let load = Command::new("h2load")
        .args(["-n", "200", "-c", "2", "-m", "10", "-T", "60", &url])
        .output()
        .expect("h2load runs (scripts/install-test-deps installs nghttp2-client)");
    kill(Pid::from_raw(child.id() as i32), Signal::SIGINT).unwrap();
    let status = checkout::wait_for_exit("shootout start to stop on Ctrl-C", &mut child);
    let text = String::from_utf8_lossy(&load.stdout);
    assert!(
        text.contains("200 succeeded, 0 failed, 0 errored"),
        "{name} {flag}:\n{text}{}",
        String::from_utf8_lossy(&load.stderr)
    );
    let negotiated = format!("Application protocol: {protocol}\n");
    assert!(text.contains(&negotiated), "{name} {flag}:\n{text}");
    assert!(status.success(), "{name} {flag}: {status}");
}

fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
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

/// `verify --websocket` on the ceiling (set up in seconds): its hand-written echo passes
/// every one of HttpArena's checks, and nothing but them is checked; a contestant without
/// `[websocket]` is one line (exit 2) before anything starts, as is `--websocket --tls`.
#[test]
fn verify_websocket_checks_the_ceilings_echo_and_refuses_one_without_it() {
    let setup = shootout(&["setup", "c-epoll"]);
    assert!(
        setup.status.success(),
        "{}",
        String::from_utf8_lossy(&setup.stderr)
    );
    let out = shootout(&["verify", "--websocket", "c-epoll"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Only the WebSocket rows (the unit tests name each), every one passed.
    let rows: Vec<&str> = (text.lines())
        .filter_map(|l| l.strip_prefix("c-epoll: "))
        .filter(|l| !l.starts_with("level") && !l.starts_with("websocket"))
        .collect();
    assert_eq!(rows.len(), 7, "{text}");
    let passed = |r: &&str| r.starts_with("ws ") && r[17..].starts_with("ok ");
    assert!(rows.iter().all(passed), "{text}");
    assert_one_line_error(
        &shootout(&["verify", "--websocket", "c-epoll", "c-epoll-tls"]),
        "error: c-epoll-tls: serves no WebSocket (its contestant.toml has no [websocket] \
         table): verify it without --websocket",
    );
    assert_one_line_error(
        &shootout(&["verify", "--websocket", "--tls", "c-epoll"]),
        "the argument '--websocket' cannot be used with '--tls'",
    );
}

/// `start --tls` serves HTTPS with the test certificate it names (a load trusting only
/// that CA gets its answers), and stops on Ctrl-C; `start` of a contestant without
/// `[tls]` (`--tls`) or without `[h2c]` (`--h2c`) is one line, exit 2.
#[test]
fn start_tls_serves_https_with_the_test_certificate() {
    let setup = shootout(&["setup", "c-epoll-tls"]);
    assert!(
        setup.status.success(),
        "{}",
        String::from_utf8_lossy(&setup.stderr)
    );
    let port = free_port().to_string();
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
    assert_one_line_error(
        &shootout(&["start", "c-epoll-tls", "--port", &port, "--h2c"]),
        "error: c-epoll-tls: serves no h2c (its contestant.toml has no [h2c] table): start \
         it without --h2c",
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
    let port = free_port();
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
