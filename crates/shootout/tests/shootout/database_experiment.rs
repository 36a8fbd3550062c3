//! `shootout run` of an experiment with `[database]`: the harness starts its own
//! PostgreSQL in the results folder, hands the server DATABASE_URL, verifies the database
//! endpoints against it, watches its CPU as a third side, splits each run's CPU into the
//! server's, the database's and the generator's (which, with the foreign work, add up to
//! the cores' busy time within the monitor's error), and stops it at the end; and no
//! postgres process outlives a harness killed with SIGKILL in the middle of a run.
//!
//! The contestant is the honest database server of database_endpoints.rs (this test
//! binary, started by the harness as its server).

use crate::checkout::{self, command, run_to_end, wait_for, PATIENCE};
use crate::database::{ensure_postgresql, processes_in, wait_for_no_processes_in};
use crate::database_endpoints::{PORT_VAR, SERVED_VAR};
use shootout::model::RunRecord;
use shootout::store::Store;
use std::path::{Path, PathBuf};
use std::process::Stdio;

/// An experiment of the honest database server on `db` and `queries:2` with `load`, for
/// `duration` each, in `root`; postgres beside the server where there are two cores.
/// World keeps its 10,000 rows: the test server draws its ids from all of them.
fn experiment(root: &Path, duration: &str, load: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("this test binary");
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let layout = if cores >= 2 {
        "split+db:server"
    } else {
        "shared"
    };
    let text = format!(
        "name = \"db-test\"\ncontestants = [\"honest\"]\nendpoints = [\"db\", \"queries:2\"]\n\
         layouts = [\"{layout}\"]\nwarmup = \"500ms\"\nduration = \"{duration}\"\nseed = 1\n\
         [database]\nkind = \"postgresql\"\npool = 4\n\
         [contestant.honest]\n\
         command = \"{SERVED_VAR}=database {PORT_VAR}={{port}} exec '{}' \
         database_endpoints::serve_database --exact --ignored\"\n\
         verify = \"http\"\ndatabase = \"postgresql\"\nendpoints = [\"db\", \"queries\"]\n\
         [[loads]]\n{load}\n\
         [verdict]\nforeign = \"100%\"\nsteal = \"100%\"\n[make_up]\nruns = 0\n",
        exe.display()
    );
    let path = root.join("db-test.toml");
    std::fs::write(&path, text).expect("the experiment file");
    path
}

/// A checkout-like folder PostgreSQL's own user can enter (it runs the cluster when the
/// tests run as root).
fn root_folder(tag: &str) -> tempfile::TempDir {
    use std::os::unix::fs::PermissionsExt;
    let folder = checkout::temp_folder(tag);
    let open = std::fs::Permissions::from_mode(0o755);
    std::fs::set_permissions(folder.path(), open).expect("chmod");
    folder
}

/// Every run the experiment stored.
fn stored_runs(root: &Path) -> Vec<RunRecord> {
    let store = Store::open(&root.join("results/shootout.db")).expect("the store");
    let experiments = store.experiments().expect("its experiments");
    let runs = store.runs(experiments[0].id).expect("its runs");
    runs.into_iter().map(|r| r.record).collect()
}

#[test]
fn a_run_with_a_database_splits_each_responses_cpu_three_ways() {
    ensure_postgresql();
    let _cores = checkout::fair_share_of_the_cores();
    let folder = root_folder("database-run");
    let root = folder.path();
    let file = experiment(
        root,
        "2s",
        "name = \"at 200/s\"\nconnections = [4]\nrate = [\"200\"]",
    );
    let (out, text) = run_to_end(&mut command(root, &["run", file.to_str().unwrap()]));
    // 1 when no run counted: on a busy machine the generator may start late.
    assert!(matches!(out.status.code(), Some(0 | 1)), "{text}");
    assert!(text.contains("database: PostgreSQL "), "{text}");
    assert!(
        text.contains("pool 4 per server"),
        "the table says the pool: {text}"
    );
    let runs = stored_runs(root);
    assert_eq!(runs.len(), 2, "db and queries:2: {text}");
    for r in &runs {
        let at = &r.coordinates.endpoint;
        let v = r
            .verdict()
            .unwrap_or_else(|| panic!("{at}: measured: {text}"));
        let s = v.split.unwrap_or_else(|| panic!("{at}: a split: {v:?}"));
        assert!(s.database_s > 0.0, "{at}: postgres worked: {s:?}");
        assert!(s.server_s > 0.0 && s.generator_s > 0.0, "{at}: {s:?}");
        // What the sides' processes used, against what /proc/stat says the cores were
        // busy: the two are booked differently (ticks against nanoseconds, softirq work
        // in whichever process it interrupts), the monitor's error. The sides never
        // account for more than the cores did; with the others' work they account for
        // all of it, which only a quiet machine shows: a busy one's foreign count holds
        // the children its builds reaped, whose time was partly spent before the window.
        let cores = r.series[0].cores.len() as f64;
        let sides = s.server_s + s.database_s + s.generator_s;
        let error = 0.15 * s.cores_busy_s + 0.05 * s.wall_s * cores;
        let said = format!(
            "{at}: server {:.3} + postgres {:.3} + generator {:.3} = {sides:.3} core-s, \
             foreign {:.0}% of the cores, the cores were busy {:.3} (error allowed {error:.3})",
            s.server_s,
            s.database_s,
            s.generator_s,
            v.foreign * 100.0,
            s.cores_busy_s
        );
        assert!(sides <= s.cores_busy_s + error, "{said}");
        if v.foreign < 0.05 {
            let counted = sides + v.foreign * s.wall_s * cores;
            assert!((counted - s.cores_busy_s).abs() <= error, "{said}");
        } else {
            eprintln!("a busy machine: the sum with foreign work is not checked: {said}");
        }
    }
    let database = root.join("results/database");
    wait_for_no_processes_in(&database);
}

/// The postmaster under `dir` and every process below it, as (pid, start time).
fn cluster_processes(dir: &Path) -> Vec<(i32, u64)> {
    let stats: Vec<procfs::process::Stat> = (procfs::process::all_processes().unwrap())
        .flatten()
        .filter_map(|p| p.stat().ok())
        .collect();
    let needle = dir.to_string_lossy().into_owned();
    let is_postmaster = |pid: i32| {
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        cmdline.contains(&needle) && cmdline.contains("postgres")
    };
    let mut tree: Vec<i32> = (stats.iter())
        .map(|s| s.pid)
        .filter(|&p| is_postmaster(p))
        .collect();
    // Bounded: a process joins once, and there are finitely many.
    let mut grew = true;
    while grew {
        let before = tree.len();
        let children = (stats.iter()).filter(|s| tree.contains(&s.ppid) && !tree.contains(&s.pid));
        let new: Vec<i32> = children.map(|s| s.pid).collect();
        tree.extend(new);
        grew = tree.len() > before;
    }
    (stats.iter())
        .filter(|s| tree.contains(&s.pid))
        .map(|s| (s.pid, s.starttime))
        .collect()
}

/// Whether the process `pid` that started at `start` still runs (not a zombie).
fn running((pid, start): (i32, u64)) -> bool {
    procfs::process::Process::new(pid)
        .and_then(|p| p.stat())
        .is_ok_and(|s| s.starttime == start && s.state != 'Z')
}

#[test]
fn no_postgres_process_outlives_a_run_killed_with_sigkill() {
    ensure_postgresql();
    let folder = root_folder("database-run-kill");
    let root = folder.path();
    let file = experiment(root, "60s", "name = \"keep-alive\"\nconnections = [4]");
    let mut child = command(root, &["run", file.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("shootout runs");
    let database = root.join("results/database");
    // The cluster (the postmaster, its five helpers) and a connection to it at least:
    // the load is on.
    let cluster = wait_for("postgres with the server's backends", PATIENCE * 2, || {
        let cluster = cluster_processes(&database);
        (cluster.len() >= 7).then_some(cluster)
    });
    child.kill().expect("SIGKILL");
    let _ = child.wait();
    wait_for("every postgres process to end", PATIENCE, || {
        (!cluster.iter().any(|&p| running(p))).then_some(())
    });
    assert!(processes_in(&database).is_empty());
}
