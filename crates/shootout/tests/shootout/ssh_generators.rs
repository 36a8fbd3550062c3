//! SSH generators against real sshd, on hosts made of network namespaces (ssh_hosts).

use crate::ssh_hosts;

use engine::LoadResult;
use shootout::generators::ssh::{SshClient, SshLauncher, SshSettings};
use shootout::generators::{Launcher, SshHost};
use ssh_hosts::{Fleet, HostKind};
use std::path::PathBuf;
use tempfile::TempDir;

fn settings(fleet: &Fleet, push: Option<PathBuf>) -> SshSettings {
    SshSettings {
        client: SshClient::with_options(&fleet.ssh_options()).unwrap(),
        push,
    }
}

fn hosts(fleet: &Fleet, count: usize) -> Vec<SshHost> {
    (0..count).map(|i| fleet.host(i).parse().unwrap()).collect()
}

/// `shootout load URL ARGS --generators ssh:HOSTS --json`, run in the server namespace as
/// a user would, with the test's SSH options.
fn load_over(fleet: &Fleet, hosts: usize, url: &str, args: &[&str]) -> std::process::Output {
    let hosts: Vec<String> = (0..hosts).map(|i| fleet.host(i)).collect();
    fleet
        .server_command(env!("CARGO_BIN_EXE_shootout"))
        .args(["load", url])
        .args(args)
        .args([
            "--generators",
            &format!("ssh:{}", hosts.join(",")),
            "--json",
        ])
        .env("SHOOTOUT_SSH_OPTS", fleet.ssh_options())
        .output()
        .expect("shootout runs")
}

#[test]
fn a_load_over_two_hosts_merges_to_the_sum_of_its_shards() {
    let _cores = crate::checkout::fair_share_of_the_cores();
    let mut fleet = Fleet::new(&[HostKind::Ours, HostKind::Ours]);
    let url = fleet.start_nginx(1);
    let out = load_over(&fleet, 2, &url, &["-c", "10", "-t", "2", "-d", "1s"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let merged: LoadResult = serde_json::from_slice(&out.stdout).expect("one JSON result");
    let places: Vec<Option<&str>> = (merged.shards.iter()).map(|s| s.place.as_deref()).collect();
    let want = [Some("ssh:root@198.18.0.2"), Some("ssh:root@198.18.0.3")];
    assert_eq!(places, want);
    let sum = |f: fn(&engine::ShardFigures) -> u64| merged.shards.iter().map(f).sum::<u64>();
    assert_eq!(merged.requests.total(), sum(|s| s.requests.total()));
    assert_eq!(merged.requests.ok, sum(|s| s.requests.ok));
    assert!(
        merged.shards.iter().all(|s| s.requests.ok > 0),
        "every shard loaded"
    );
    let logged = fleet.nginx_requests();
    assert!(
        (merged.requests.ok..=merged.requests.total()).contains(&logged),
        "nginx logged {logged}, shards: ok {} of {}",
        merged.requests.ok,
        merged.requests.total()
    );
}

#[test]
fn the_hosts_clocks_are_measured_within_their_round_trip() {
    let _cores = crate::checkout::fair_share_of_the_cores();
    let fleet = Fleet::new(&[HostKind::Ours, HostKind::Ours]);
    let (settings, hosts) = (settings(&fleet, None), hosts(&fleet, 2));
    let launcher = fleet.in_server_namespace(|| SshLauncher::connect(&hosts, &settings).unwrap());
    assert_eq!(launcher.place(1), "ssh:root@198.18.0.3");
    // The hosts share this machine's clock.
    for i in 0..2 {
        let clock = launcher.clock(i);
        assert!(
            clock.offset_ms.unsigned_abs() as u128 <= clock.round_trip.as_millis() + 1,
            "{clock:?}"
        );
    }
}

#[test]
fn a_load_with_a_host_down_exits_1_naming_the_host() {
    let mut fleet = Fleet::new(&[HostKind::Ours, HostKind::Down]);
    let url = fleet.start_nginx(1);
    let out = load_over(&fleet, 2, &url, &["-c", "10", "-d", "1s"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.contains("ssh:root@198.18.0.3: checking its shootout version: "),
        "{err}"
    );
    assert!(out.stdout.is_empty(), "no result without every shard");
}

/// The error `SshLauncher::connect` gives for these hosts.
fn refusal(fleet: &Fleet, kinds: usize, push: Option<PathBuf>) -> String {
    let (settings, hosts) = (settings(fleet, push), hosts(fleet, kinds));
    fleet.in_server_namespace(|| {
        SshLauncher::connect(&hosts, &settings)
            .map(|_| ())
            .unwrap_err()
            .to_string()
    })
}

#[test]
fn a_host_whose_sshd_is_down_is_named_with_the_reason() {
    let fleet = Fleet::new(&[HostKind::Ours, HostKind::Down]);
    let err = refusal(&fleet, 2, None);
    assert!(
        err.starts_with("ssh:root@198.18.0.3: checking its shootout version: "),
        "{err}"
    );
    assert!(err.contains("Connection refused"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn a_host_with_another_shootout_version_is_refused() {
    let fleet = Fleet::new(&[HostKind::OtherVersion, HostKind::Ours]);
    let err = refusal(&fleet, 2, None);
    let ours = format!("shootout {}", env!("CARGO_PKG_VERSION"));
    assert_eq!(
        err,
        format!(
            "ssh:root@198.18.0.2: runs shootout 0.0.1, this is {ours}: every generator must \
             be the same version (--push copies this one there)"
        )
    );
}

#[test]
fn a_host_whose_clock_is_too_far_off_is_refused_with_its_offset() {
    let fleet = Fleet::new(&[HostKind::Ours, HostKind::ClockAhead]);
    let err = refusal(&fleet, 2, None);
    let prefix = "ssh:root@198.18.0.3: its clock is +";
    assert!(err.starts_with(prefix), "{err}");
    // `date` there adds 5 s to whole seconds: 4-5 s ahead, measured within half a round
    // trip, which a busy machine stretches (one sample is two processes there); still
    // far more than the barrier's 1 s.
    let offset: i64 = err[prefix.len()..]
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{err}"));
    assert!((3000..=6000).contains(&offset), "{err}");
    assert!(
        err.contains("more than the start barrier tolerates (1000 ms)"),
        "{err}"
    );
}

#[test]
fn push_copies_this_binary_to_a_host_that_has_none() {
    let fleet = Fleet::new(&[HostKind::NoShootout]);
    let without = refusal(&fleet, 1, None);
    assert!(
        without.contains("checking its shootout version"),
        "{without}"
    );
    // The copy lands in the login's home (root's: the hosts share this file system);
    // removed below unless it was there before the test.
    let home = PathBuf::from(std::env::var_os("HOME").unwrap_or("/root".into()));
    let pushed = home.join(format!(
        ".cache/shootout/shootout-{}",
        env!("CARGO_PKG_VERSION")
    ));
    let was_there = pushed.exists();
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_shootout"));
    let (settings, hosts) = (settings(&fleet, Some(binary.clone())), hosts(&fleet, 1));
    let connected =
        fleet.in_server_namespace(|| SshLauncher::connect(&hosts, &settings).map(|_| ()));
    let copied = std::fs::read(&pushed).ok();
    if !was_there {
        let _ = std::fs::remove_file(&pushed);
        // The folder too, when the push made it (remove_dir leaves a folder with files).
        let _ = pushed.parent().map(std::fs::remove_dir);
    }
    connected.unwrap();
    assert!(
        copied == std::fs::read(&binary).ok(),
        "the copy is this binary"
    );
}

#[test]
fn ctrl_c_stops_the_remote_shards_and_merges_what_they_measured() {
    let _cores = crate::checkout::fair_share_of_the_cores();
    use nix::sys::signal::{kill, Signal};
    use nix::unistd::Pid;
    let mut fleet = Fleet::new(&[HostKind::Ours, HostKind::Ours]);
    let url = fleet.start_nginx(1);
    let hosts = format!("ssh:{},{}", fleet.host(0), fleet.host(1));
    // Longer than the wait below can last, so that only Ctrl-C can end it early.
    let child = fleet
        .server_command(env!("CARGO_BIN_EXE_shootout"))
        .args(["load", &url, "-c", "4", "-t", "2", "-d", "120s"])
        .args(["--generators", &hosts, "--json"])
        .env("SHOOTOUT_SSH_OPTS", fleet.ssh_options())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("shootout runs");
    // `ip netns exec` execs shootout: the child is shootout itself. Ctrl-C once both
    // shards have counted an answer (past the checks and the barrier, however long those
    // take on this machine).
    fleet.wait_until_each_host_counted(2);
    kill(Pid::from_raw(child.id() as i32), Signal::SIGINT).unwrap();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    let merged: LoadResult = serde_json::from_slice(&out.stdout).expect("one JSON result");
    assert!(merged.interrupted);
    assert_eq!(merged.shards.len(), 2);
    assert!(merged.shards.iter().all(|s| s.requests.ok > 0), "{err}");
    assert!(
        merged.duration_s < 120.0,
        "stopped before its end: {}",
        merged.duration_s
    );
}

/// `shootout run FILE` in the server namespace as a user outside a checkout (results in
/// the fleet's folder), with the test's SSH options; its output and text.
fn run_experiment(
    fleet: &Fleet,
    dir: &std::path::Path,
    text: &str,
) -> (std::process::Output, String) {
    let file = dir.join("over-ssh.toml");
    std::fs::write(&file, text).unwrap();
    let out = fleet
        .server_command("env")
        .args(["-u", "SHOOTOUT_ROOT", "-u", "SHOOTOUT_CONTESTANTS"])
        .arg(format!("HOME={}", dir.join("home").display()))
        .arg(format!("XDG_DATA_HOME={}", dir.join("data").display()))
        .arg(format!(
            "SHOOTOUT_LOCK={}",
            dir.join("shootout.lock").display()
        ))
        .arg(format!("SHOOTOUT_SSH_OPTS={}", fleet.ssh_options()))
        .arg(env!("CARGO_BIN_EXE_shootout"))
        .args(["run", &file.to_string_lossy()])
        .current_dir(dir)
        .output()
        .expect("shootout runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out, text)
}

/// An experiment of a running server (nginx in the server namespace, by url) and one the
/// harness would start, loaded from the SSH hosts `generators`.
fn experiment_over(url: &str, generators: &str) -> String {
    format!(
        "name = \"over-ssh\"\ncontestants = [\"there\", \"started\"]\nendpoints = [\"hello\"]\n\
         layouts = [\"shared\"]\nrepeats = 1\nwarmup = \"0.2s\"\nduration = \"1s\"\n\
         generators = \"{generators}\"\n\
         [[loads]]\nname = \"keep-alive\"\nconnections = [4]\n\
         [verdict]\nforeign = \"100%\"\nsteal = \"100%\"\n\
         [contestant.there]\nurl = \"{url}\"\nverify = \"http\"\n\
         [contestant.started]\ncommand = \"sleep 30\"\nverify = \"none\"\n"
    )
}

#[test]
fn an_experiment_loads_a_server_by_url_from_two_hosts_and_refuses_one_it_would_start() {
    let _cores = crate::checkout::fair_share_of_the_cores();
    let mut fleet = Fleet::new(&[HostKind::Ours, HostKind::Ours]);
    let url = fleet.start_nginx(1);
    let base = url.trim_end_matches("/hello");
    let generators = format!("ssh:{},{}", fleet.host(0), fleet.host(1));
    let folder = tempfile_dir("ssh-run");
    let dir = folder.path();
    let (out, text) = run_experiment(&fleet, dir, &experiment_over(base, &generators));
    assert!(out.status.success(), "{text}");
    let export = fleet
        .server_command("env")
        .arg(format!("XDG_DATA_HOME={}", dir.join("data").display()))
        .arg(format!(
            "SHOOTOUT_LOCK={}",
            dir.join("shootout.lock").display()
        ))
        .args([env!("CARGO_BIN_EXE_shootout"), "export", "1"])
        .current_dir(dir)
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&export.stdout).expect("export JSON");
    let runs = doc["runs"].as_array().unwrap();
    let of = |name: &str| runs.iter().find(|r| r["contestant"] == name).unwrap();
    let there = of("there");
    assert!(
        ["ok", "generator-bound"].contains(&there["label"].as_str().unwrap()),
        "{there}"
    );
    let shards = there["result"]["shards"].as_array().expect("shards");
    assert_eq!(shards.len(), 2, "{there}");
    assert_eq!(shards[1]["place"], "ssh:root@198.18.0.3");
    let started = of("started");
    assert_eq!(started["label"], "load-refused", "{started}");
    assert!(
        started["reason"]
            .as_str()
            .unwrap()
            .contains("listen on 127.0.0.1 only"),
        "{started}"
    );
}

#[test]
fn an_experiment_with_a_host_down_labels_the_run_naming_the_host() {
    let mut fleet = Fleet::new(&[HostKind::Ours, HostKind::Down]);
    let url = fleet.start_nginx(1);
    let base = url.trim_end_matches("/hello");
    let generators = format!("ssh:{},{}", fleet.host(0), fleet.host(1));
    let folder = tempfile_dir("ssh-run-down");
    let dir = folder.path();
    let (_, text) = run_experiment(&fleet, dir, &experiment_over(base, &generators));
    assert!(text.contains("generator-failed"), "{text}");
    assert!(
        text.contains("ssh:root@198.18.0.3: checking its shootout version"),
        "{text}"
    );
}

/// A fresh folder under the system's temporary folder, for one test's results, removed
/// when dropped.
fn tempfile_dir(name: &str) -> TempDir {
    let dir = tempfile::Builder::new()
        .prefix(&format!("shootout-{name}-"))
        .tempdir()
        .expect("a temporary folder");
    std::fs::create_dir_all(dir.path().join("home")).unwrap();
    dir
}
