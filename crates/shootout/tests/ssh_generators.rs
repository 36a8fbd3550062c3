//! SSH generators against real sshd, on hosts made of network namespaces (ssh_hosts).

mod ssh_hosts;

use engine::LoadResult;
use shootout::generators::ssh::{SshClient, SshLauncher, SshSettings};
use shootout::generators::{Launcher, SshHost};
use ssh_hosts::{Fleet, HostKind};
use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

fn settings(fleet: &Fleet, push: Option<PathBuf>) -> SshSettings {
    SshSettings {
        client: SshClient::with_options(&fleet.ssh_options()).unwrap(),
        push,
    }
}

fn hosts(fleet: &Fleet, count: usize) -> Vec<SshHost> {
    (0..count).map(|i| fleet.host(i).parse().unwrap()).collect()
}

/// Starts every shard of `load` (flags after the URL) on one barrier, as the fleet does,
/// and reads each one's JSON result.
fn run_shards(launcher: &SshLauncher, url: &str, load: &[&str]) -> Vec<LoadResult> {
    let now_ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    let barrier = now_ms + launcher.lead().as_millis() as i64;
    let n = launcher.shards();
    let children: Vec<_> = (0..n)
        .map(|i| {
            let at = barrier + launcher.clock_offset_ms(i);
            let mut args: Vec<String> = ["load", url].iter().map(|s| s.to_string()).collect();
            args.extend(load.iter().map(|s| s.to_string()));
            args.extend([
                "--shard".into(),
                format!("{}/{n}", i + 1),
                "--start-at".into(),
                at.to_string(),
                "--json".into(),
            ]);
            launcher.start(i, &args).unwrap()
        })
        .collect();
    children
        .into_iter()
        .enumerate()
        .map(|(i, child)| {
            let out = child.wait_with_output().unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success(), "shard {i}: {err}");
            serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("shard {i}: {e}"))
        })
        .collect()
}

#[test]
fn a_load_over_two_hosts_merges_to_the_sum_of_its_shards() {
    let mut fleet = Fleet::new(&[HostKind::Ours, HostKind::Ours]);
    let url = fleet.start_nginx(1);
    let settings = settings(&fleet, None);
    let hosts = hosts(&fleet, 2);
    let parts = fleet.in_server_namespace(|| {
        let launcher = SshLauncher::connect(&hosts, &settings).unwrap();
        assert_eq!(launcher.place(1), "ssh:root@198.18.0.3");
        // The hosts share this machine's clock: measured within the round trip.
        for i in 0..2 {
            let clock = launcher.clock(i);
            assert!(
                clock.offset_ms.unsigned_abs() as u128 <= clock.round_trip.as_millis() + 1,
                "{clock:?}"
            );
        }
        run_shards(&launcher, &url, &["-c", "10", "-t", "1", "-d", "1s"])
    });
    let merged = engine::merge(&parts).unwrap();
    let sum = |f: fn(&LoadResult) -> u64| parts.iter().map(f).sum::<u64>();
    assert_eq!(merged.requests.total(), sum(|p| p.requests.total()));
    assert_eq!(merged.requests.ok, sum(|p| p.requests.ok));
    assert!(
        parts.iter().all(|p| p.requests.ok > 0),
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
    // `date` there adds 5 s to whole seconds: 4-5 s ahead.
    let offset: i64 = err[prefix.len()..]
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{err}"));
    assert!((4000..=5100).contains(&offset), "{err}");
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
