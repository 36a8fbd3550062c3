//! The database the harness owns (`shootout database`, `start NAME --database`): a private
//! PostgreSQL made, loaded with TechEmpower's tables and stopped, and none of its
//! processes left behind when the harness is killed.

use crate::checkout::{self, PATIENCE};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Instant;

/// A small World: the tables' content is what is checked, not their size.
const WORLD_ROWS: &str = "100";

fn tempdir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("shootout-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    dir
}

/// PostgreSQL, installed as scripts/test does when it is missing.
pub fn ensure_postgresql() {
    let installed = std::fs::read_dir("/usr/lib/postgresql")
        .is_ok_and(|d| d.flatten().any(|v| v.path().join("bin/postgres").exists()));
    if !installed {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/install-test-deps");
        let ok = Command::new(script).status();
        assert!(
            ok.is_ok_and(|s| s.success()),
            "PostgreSQL could not be installed"
        );
    }
}

/// `shootout database` started in `tmp`, and the DATABASE_URL it printed once it was up.
fn start_database(tmp: &Path) -> (Child, String) {
    ensure_postgresql();
    let dir = tmp.join("cluster");
    let mut child = checkout::command(tmp, &["database", "--world", WORLD_ROWS])
        .arg("--database-dir")
        .arg(&dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("shootout runs");
    let out = child.stdout.take().expect("its output");
    // The first line comes once the cluster answers with its tables loaded; a failed
    // start ends the output instead (and the child's stderr says why).
    let mut lines = BufReader::new(out).lines();
    let line = lines.next();
    // The rest is read until the child ends (the test stops it), so that the pipe stays
    // open: a line written to a closed pipe would end `shootout database` early.
    std::thread::spawn(move || lines.count());
    let Some(Ok(line)) = line else {
        let status = child.wait();
        let err = std::io::read_to_string(child.stderr.take().expect("stderr"));
        panic!("no DATABASE_URL line: {status:?} {err:?}");
    };
    let url = line
        .strip_prefix("DATABASE_URL=")
        .unwrap_or_else(|| panic!("{line}"));
    (child, url.to_string())
}

/// `sql`'s answer from psql, connected by `url` as a contestant connects.
fn query(url: &str, sql: &str) -> String {
    let psql = std::fs::read_dir("/usr/lib/postgresql")
        .expect("PostgreSQL installed")
        .flatten()
        .map(|v| v.path().join("bin/psql"))
        .find(|p| p.exists())
        .expect("psql");
    let out = Command::new(psql)
        .args(["-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", url, "-c", sql])
        .output()
        .expect("psql runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{sql}: {err}");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// Processes whose command line names `dir` (the cluster's postmaster and backends).
pub fn processes_in(dir: &Path) -> Vec<String> {
    let needle = dir.to_string_lossy().into_owned();
    let all = std::fs::read_dir("/proc").expect("/proc").flatten();
    all.filter_map(|p| std::fs::read(p.path().join("cmdline")).ok())
        .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
        .filter(|c| c.contains(&needle) && c.contains("postgres"))
        .collect()
}

/// Polls until no process names `dir`, or fails naming them after `PATIENCE`.
pub fn wait_for_no_processes_in(dir: &Path) {
    let started = Instant::now();
    while !processes_in(dir).is_empty() {
        assert!(
            started.elapsed() < PATIENCE,
            "postgres processes left: {:?}",
            processes_in(dir)
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

#[test]
fn the_database_starts_with_techempowers_tables_and_stops_on_ctrl_c() {
    let tmp = tempdir("database");
    let (mut child, url) = start_database(&tmp);
    assert!(
        url.starts_with("postgres://benchmarkdbuser:benchmarkdbpass@127.0.0.1:"),
        "{url}"
    );
    assert!(url.ends_with("/hello_world"), "{url}");

    assert_eq!(query(&url, "SELECT count(*) FROM world"), WORLD_ROWS);
    let range = query(
        &url,
        "SELECT min(randomnumber) >= 1 AND max(randomnumber) <= 10000 FROM world",
    );
    assert_eq!(range, "t");
    assert_eq!(query(&url, "SELECT count(*) FROM fortune"), "12");
    assert_eq!(
        query(&url, "SELECT message FROM fortune WHERE id = 12"),
        "フレームワークのベンチマーク"
    );
    let script = query(&url, "SELECT message FROM fortune WHERE id = 11");
    assert!(script.starts_with("<script>alert("), "{script}");
    // Statements are counted from zero once the tables are loaded.
    let counted = query(&url, "SELECT count(*) > 0 FROM pg_stat_statements");
    assert_eq!(counted, "t", "pg_stat_statements counts this query");

    let data = tmp.join("cluster/data");
    assert!(
        !processes_in(&data).is_empty(),
        "the cluster runs from {}",
        data.display()
    );
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .expect("SIGINT");
    let status = child.wait().expect("shootout ends");
    let err = std::io::read_to_string(child.stderr.take().expect("stderr"));
    assert_eq!(status.code(), Some(0), "{err:?}");
    wait_for_no_processes_in(&data);
    assert!(!data.exists(), "the data is removed");
    assert!(tmp.join("cluster/postgres.log").exists(), "the log stays");
    let _ = std::fs::remove_dir_all(&tmp);
}

#[test]
fn no_postgres_process_outlives_a_harness_killed_with_sigkill() {
    let tmp = tempdir("database-kill");
    let (mut child, url) = start_database(&tmp);
    assert_eq!(query(&url, "SELECT count(*) FROM fortune"), "12");
    let data = tmp.join("cluster/data");
    assert!(!processes_in(&data).is_empty());
    child.kill().expect("SIGKILL");
    let _ = child.wait();
    wait_for_no_processes_in(&data);
    let _ = std::fs::remove_dir_all(&tmp);
}
