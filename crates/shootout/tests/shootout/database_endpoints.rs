//! `shootout verify` of TechEmpower's database endpoints (`db`, `queries`, `fortunes`,
//! `updates`) against the database it starts: the test server serving them honestly
//! passes every check, and each cheat (`db` from a cache, fortunes unsorted or unescaped,
//! updates that write fewer rows than they answer) fails the check it should, with the
//! line that says why. No postgres process is left once verify ends.
//!
//! The contestants' server is this test binary itself, started by the harness with
//! `serve_database` (an ignored test that serves when the harness asks it to), as
//! capacity_experiment.rs does and for the same reasons.

use crate::checkout::{outside, run_to_end, temp_folder};
use crate::database::{ensure_postgresql, processes_in, wait_for_no_processes_in};
use crate::served_contestant::serve_until_stopped;
use std::path::Path;
use testserver::Behavior;

/// Set by each contestant's command: how the server serves, and its port.
pub const SERVED_VAR: &str = "SHOOTOUT_TEST_DATABASE_SERVED";
pub const PORT_VAR: &str = "SHOOTOUT_TEST_DATABASE_PORT";

/// Each contestant, and the behavior its server serves.
const CONTESTANTS: [(&str, &str); 5] = [
    ("honest", "database"),
    ("cached-db", "database:cached-db"),
    ("unsorted", "database:unsorted-fortunes"),
    ("unescaped", "database:unescaped-fortunes"),
    ("writes-fewer", "database:updates-write-fewer"),
];

/// Not a test of its own: a contestant's server, when the harness starts this binary as
/// one (with SERVED_VAR and PORT_VAR set, and DATABASE_URL); without them, it returns.
#[test]
#[ignore = "the database contestants run it as their server"]
fn serve_database() {
    let (Ok(served), Ok(port)) = (std::env::var(SERVED_VAR), std::env::var(PORT_VAR)) else {
        return;
    };
    let behavior: Behavior = served.parse().expect("a behavior");
    serve_until_stopped(port.parse().expect("a port"), behavior);
}

/// A folder of contestants, one per entry of CONTESTANTS, each serving its behavior.
fn contestants(dir: &Path) {
    let exe = std::env::current_exe().expect("this test binary");
    for (name, served) in CONTESTANTS {
        let folder = dir.join(name);
        std::fs::create_dir_all(&folder).expect("a contestant folder");
        let manifest = format!(
            "name = \"{name}\"\nlanguage = \"Rust\"\nframework = \"testserver\"\n\
             version = \"test\"\nendpoints = [\"db\", \"queries\", \"fortunes\", \"updates\"]\n\
             database = \"postgresql\"\n[start]\ncommand = \"{SERVED_VAR}={served} \
             {PORT_VAR}={{port}} exec '{}' database_endpoints::serve_database --exact \
             --ignored\"\n",
            exe.display()
        );
        std::fs::write(folder.join("contestant.toml"), manifest).expect("a manifest");
    }
}

/// The line verify printed for `contestant`'s check `check`.
fn line<'a>(text: &'a str, contestant: &str, check: &str) -> &'a str {
    let start = format!("{contestant}: {check} ");
    let found = text.lines().find(|l| l.starts_with(&start));
    found.unwrap_or_else(|| panic!("no {start:?} line in:\n{text}"))
}

#[test]
fn verify_passes_the_honest_database_server_and_catches_each_cheat() {
    ensure_postgresql();
    let folder = temp_folder("database-endpoints");
    let tmp = folder.path();
    // Open to PostgreSQL's own user, which runs the cluster when the tests run as root.
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(tmp, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    contestants(&tmp.join("mine"));
    let cluster = tmp.join("cluster");
    let mine = tmp.join("mine").display().to_string();
    let names = CONTESTANTS.map(|(name, _)| name);
    let mut args = vec![
        "verify",
        "--setup",
        "--contestants",
        &mine,
        "--database-dir",
    ];
    let cluster_arg = cluster.display().to_string();
    args.push(&cluster_arg);
    args.extend(names);
    let (out, text) = run_to_end(&mut outside(tmp, &args));
    assert_eq!(out.status.code(), Some(1), "{text}");

    for check in [
        "db",
        "queries",
        "fortunes",
        "updates",
        "keep-alive",
        "parses-http",
    ] {
        let l = line(&text, "honest", check);
        assert!(l.contains(" ok "), "{l}");
    }
    let db = line(&text, "honest", "db");
    assert!(
        db.ends_with("16 random rows as World holds them; 16 SELECTs on World returned 16 rows"),
        "{db}"
    );
    let queries = line(&text, "honest", "queries");
    assert!(
        queries.contains("6 requests (q = ") && queries.contains(", 0, none, foo, 501)"),
        "{queries}"
    );
    assert!(
        line(&text, "honest", "database").contains("PostgreSQL"),
        "{text}"
    );

    let failed = |contestant, check, why: &str| {
        let l = line(&text, contestant, check);
        assert!(
            l.contains(" FAIL ") && l.contains(why),
            "{contestant} {check}: want {why:?}: {l}"
        );
    };
    failed("cached-db", "db", "GET /db: 16 requests made 1 SELECTs on World returning 10000 rows (want at least 16 returning at least 16): answered without asking the database");
    failed(
        "unsorted",
        "fortunes",
        "GET /fortunes: not sorted by message: row 1 is id 0 (want id 11)",
    );
    failed(
        "unescaped",
        "fortunes",
        "GET /fortunes: a <script> element in the page: a message is not HTML-escaped",
    );
    failed("writes-fewer", "updates", ": not written back");
    // Each cheat fails its own check only.
    for (contestant, check) in [
        ("cached-db", "queries"),
        ("unsorted", "updates"),
        ("writes-fewer", "fortunes"),
    ] {
        assert!(line(&text, contestant, check).contains(" ok "), "{text}");
    }
    // The cluster ran where it was asked (not under a fallback folder), so that the
    // processes looked for below are the ones it had.
    assert!(cluster.join("postgres.log").is_file(), "{text}");
    wait_for_no_processes_in(&cluster.join("data"));
    assert!(processes_in(&cluster).is_empty());
}
