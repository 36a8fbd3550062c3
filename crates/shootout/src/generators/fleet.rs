//! Driving a load's shards: one start barrier, every shard started, a bounded wait, each
//! shard's JSON result read back, and the exact merge. A shard that fails, starts late or
//! returns nothing fails the load by name: nothing is merged without it.

use super::{Launcher, ShardCommand};
use crate::model::read_load_result;
use engine::{LoadResult, LoadSpec, Shard, Stop};
use std::io::Read;
use std::process::{Child, ExitStatus};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// A shard that began measuring this long after the barrier did not run with the others.
const LATE_MS: u64 = 250;
/// Time a shard may take beyond its load (in-flight requests ending, its result written).
const GRACE: Duration = Duration::from_secs(10);
/// A load of a request count has no known length: the longest wait for its shards.
const LONGEST_COUNTED_LOAD: Duration = Duration::from_secs(3600);
/// How often the driver looks at its shards while they run.
const POLL: Duration = Duration::from_millis(50);

/// Why a load over shards did not give one result.
#[derive(Debug, thiserror::Error)]
pub enum FleetError {
    #[error("the load is already shard {0}: a fleet splits a whole load")]
    AlreadySharded(Shard),
    /// The spec does not make a load (a warm-up as long as its stages).
    #[error(transparent)]
    Spec(#[from] engine::SpecError),
    #[error("writing the shards' spec: {0}")]
    Encode(#[from] serde_json::Error),
    /// A shard's load checked here, before any started (local shards).
    #[error(transparent)]
    Check(#[from] engine::RunError),
    #[error("{}", failures(.0))]
    Shards(Vec<ShardFailure>),
    #[error("merging the shards: {0}")]
    Merge(#[from] engine::MergeError),
}

fn failures(all: &[ShardFailure]) -> String {
    let lines: Vec<String> = all.iter().map(ShardFailure::to_string).collect();
    lines.join("; ")
}

/// One shard that gave no result to merge: `2/3 on ssh:root@198.18.0.3: why`.
#[derive(Debug, thiserror::Error)]
#[error("shard {shard} on {place}: {why}")]
pub struct ShardFailure {
    pub shard: String,
    pub place: String,
    pub why: Why,
}

/// What went wrong with one shard.
#[derive(Debug, thiserror::Error)]
pub enum Why {
    #[error("did not start: {0}")]
    Start(std::io::Error),
    #[error("{status}, no result: {detail}")]
    NoResult { status: String, detail: String },
    #[error("began measuring {late_ms} ms after the start barrier; shards must begin within {LATE_MS} ms")]
    Late { late_ms: u64 },
    #[error("still running after {0:?}, past its load's end: killed")]
    Overran(Duration),
}

/// Runs `spec` as `launcher.shards()` shards started on one barrier, and merges them.
/// `interrupt` (Ctrl-C) is passed on to the shards, which stop and report what they
/// measured.
pub fn run(
    launcher: &dyn Launcher,
    spec: &LoadSpec,
    interrupt: &AtomicBool,
) -> Result<LoadResult, FleetError> {
    if spec.shard.count > 1 {
        return Err(FleetError::AlreadySharded(spec.shard));
    }
    let n = launcher.shards();
    if launcher.checks_here() {
        check_here(spec, n)?;
    }
    let barrier = unix_ms_now() + launcher.lead().as_millis() as u64;
    let commands = (0..n)
        .map(|i| command(spec, launcher, i, barrier))
        .collect::<Result<Vec<_>, _>>()?;
    let mut children = Vec::with_capacity(n);
    for (i, command) in commands.iter().enumerate() {
        match launcher.start(i, command) {
            Ok(child) => children.push(child),
            Err(e) => {
                stop_all(&mut children);
                return Err(FleetError::Shards(vec![failure(
                    launcher,
                    i,
                    Why::Start(e),
                )]));
            }
        }
    }
    let wait = launcher.lead() + length(spec)? + spec.timeout + GRACE;
    let ended = collect(launcher, children, wait, interrupt);
    let parts = results(launcher, ended)?;
    let mut merged = engine::merge(&parts)?;
    for (i, figures) in merged.shards.iter_mut().enumerate() {
        figures.place = Some(launcher.place(i));
    }
    Ok(merged)
}

/// The first shard's load (the largest share) checked here as the shards will check
/// it, and the last one's (the smallest) validated: a load no shard can run starts none.
fn check_here(spec: &LoadSpec, n: usize) -> Result<(), FleetError> {
    let mut shard = spec.resolve()?;
    shard.shard = Shard {
        index: n as u64 - 1,
        count: n as u64,
    };
    shard.validate().map_err(engine::RunError::from)?;
    shard.shard.index = 0;
    engine::check(&shard)?;
    Ok(())
}

/// Shard `i`'s command: the spec with its share of the threads, and its place in the
/// split and the barrier in its host's clock as flags, the same for every kind of shard
/// (a Kubernetes pod knows its index only when it runs).
fn command(
    spec: &LoadSpec,
    launcher: &dyn Launcher,
    i: usize,
    barrier: u64,
) -> Result<ShardCommand, serde_json::Error> {
    let n = launcher.shards();
    let threads = spec.threads.unwrap_or_else(engine::allowed_cpus);
    let mut mine = spec.clone();
    mine.threads = Some(
        Shard {
            index: i as u64,
            count: n as u64,
        }
        .share(threads as u64)
        .max(1) as usize,
    );
    let start_at = barrier as i64 + launcher.clock_offset_ms(i);
    let args = [
        "load",
        "--spec",
        "-",
        "--shard",
        &format!("{}/{n}", i + 1),
        "--start-at",
        &start_at.max(0).to_string(),
        "--json",
    ];
    Ok(ShardCommand {
        args: args.map(String::from).to_vec(),
        spec: serde_json::to_string(&mine)?,
    })
}

/// How long the load runs once started: its warm-up and measurement.
fn length(spec: &LoadSpec) -> Result<Duration, engine::SpecError> {
    Ok(spec.warmup
        + match spec.ends()? {
            Stop::After(d) => d,
            Stop::Requests(_) => LONGEST_COUNTED_LOAD,
        })
}

/// What one shard left: its exit, its standard output and error, or that it overran.
struct Ended {
    status: Option<ExitStatus>,
    stdout: String,
    stderr: String,
    overran: Option<Duration>,
}

/// Waits up to `wait` for every child (passing an interrupt on through the launcher),
/// kills those still running then, and reads what each wrote.
fn collect(
    launcher: &dyn Launcher,
    mut children: Vec<Child>,
    wait: Duration,
    interrupt: &AtomicBool,
) -> Vec<Ended> {
    let deadline = Instant::now() + wait;
    std::thread::scope(|s| {
        // Read while they run: a full pipe would stop a shard.
        let readers: Vec<_> = children
            .iter_mut()
            .map(|c| {
                let (out, err) = (c.stdout.take(), c.stderr.take());
                (s.spawn(|| read_all(out)), s.spawn(|| read_all(err)))
            })
            .collect();
        let mut statuses: Vec<Option<ExitStatus>> = vec![None; children.len()];
        let mut passed_on = false;
        // Bounded by the deadline.
        while statuses.iter().any(Option::is_none) && Instant::now() < deadline {
            for (child, status) in children.iter_mut().zip(&mut statuses) {
                if status.is_none() {
                    *status = child.try_wait().ok().flatten();
                }
            }
            if interrupt.load(Ordering::Relaxed) && !passed_on {
                passed_on = true;
                let running = children.iter().zip(&statuses).enumerate();
                for (i, (child, _)) in running.filter(|(_, (_, s))| s.is_none()) {
                    launcher.interrupt(i, child);
                }
            }
            std::thread::sleep(POLL);
        }
        let mut ended = Vec::with_capacity(children.len());
        for ((child, status), (out, err)) in children.iter_mut().zip(statuses).zip(readers) {
            let overran = status.is_none().then(|| {
                let _ = child.kill();
                let _ = child.wait();
                wait
            });
            ended.push(Ended {
                status,
                stdout: out.join().unwrap_or_default(),
                stderr: err.join().unwrap_or_default(),
                overran,
            });
        }
        ended
    })
}

fn read_all(pipe: Option<impl Read>) -> String {
    let mut text = String::new();
    if let Some(mut p) = pipe {
        let _ = p.read_to_string(&mut text);
    }
    text
}

/// Every shard's result, or every shard's failure.
fn results(launcher: &dyn Launcher, ended: Vec<Ended>) -> Result<Vec<LoadResult>, FleetError> {
    let mut parts = Vec::with_capacity(ended.len());
    let mut failed = Vec::new();
    for (i, e) in ended.into_iter().enumerate() {
        match result(e) {
            Ok(r) => parts.push(r),
            Err(why) => failed.push(failure(launcher, i, why)),
        }
    }
    match failed.is_empty() {
        true => Ok(parts),
        false => Err(FleetError::Shards(failed)),
    }
}

/// A shard's result when it gave one and began with the others.
fn result(e: Ended) -> Result<LoadResult, Why> {
    if let Some(waited) = e.overran {
        return Err(Why::Overran(waited));
    }
    let status = e
        .status
        .map_or_else(|| "no exit status".into(), |s| s.to_string());
    let r = read_load_result(&e.stdout).map_err(|json| Why::NoResult {
        status,
        detail: last_line(&e.stderr)
            .unwrap_or_else(|| format!("its output is not a result ({json})")),
    })?;
    let began = r
        .started_unix_ms
        .saturating_sub((r.config.warmup_s * 1000.0) as u64);
    let late_ms = r.config.start_at.map_or(0, |at| began.saturating_sub(at));
    match late_ms > LATE_MS {
        true => Err(Why::Late { late_ms }),
        false => Ok(r),
    }
}

fn last_line(text: &str) -> Option<String> {
    let line = text.lines().rev().find(|l| !l.trim().is_empty())?;
    Some(line.trim().to_string())
}

fn failure(launcher: &dyn Launcher, i: usize, why: Why) -> ShardFailure {
    ShardFailure {
        shard: format!("{}/{}", i + 1, launcher.shards()),
        place: launcher.place(i),
        why,
    }
}

/// Kills shards already started when a later one could not be.
fn stop_all(children: &mut [Child]) {
    for c in children {
        let _ = c.kill();
        let _ = c.wait();
    }
}

fn unix_ms_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixture::{result, Measured};
    use std::process::{Command, Stdio};

    /// Shards that are shell scripts: each prints what a shard would, or fails as one.
    struct Scripts(Vec<String>);

    impl Launcher for Scripts {
        fn shards(&self) -> usize {
            self.0.len()
        }
        fn place(&self, index: usize) -> String {
            format!("script {}", index + 1)
        }
        fn clock_offset_ms(&self, _: usize) -> i64 {
            0
        }
        fn lead(&self) -> Duration {
            Duration::ZERO
        }
        fn start(&self, index: usize, _shard: &ShardCommand) -> std::io::Result<Child> {
            Command::new("sh")
                .args(["-c", &self.0[index]])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
        }
    }

    /// A shard's JSON result that began `late_ms` after its barrier, as a `cat` of a file.
    fn shard(dir: &std::path::Path, i: usize, late_ms: u64) -> String {
        let mut r = result(Measured {
            rps: 100.0 * (i + 1) as f64,
            p99_ms: 2.0,
            server_cpu_s: 0.1,
            errors: 0,
        });
        r.config.shard = format!("{}/2", i + 1);
        r.started_unix_ms = 1_800_000_000_000;
        r.config.start_at = Some(r.started_unix_ms - (r.config.warmup_s * 1000.0) as u64 - late_ms);
        let path = dir.join(format!("shard-{i}.json"));
        std::fs::write(&path, serde_json::to_string(&r).unwrap()).unwrap();
        format!("cat {}", path.display())
    }

    fn load() -> LoadSpec {
        let mut s = LoadSpec::new(engine::parse_url("http://127.0.0.1:9/").unwrap());
        s.stop = Some(Stop::After(Duration::from_millis(100)));
        s
    }

    fn dir(tag: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("shootout-fleet-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn shards_merge_with_their_places() {
        let d = dir("merge");
        let scripts = Scripts(vec![shard(&d, 0, 0), shard(&d, 1, 10)]);
        let m = run(&scripts, &load(), &AtomicBool::new(false)).unwrap();
        let ok: u64 = m.shards.iter().map(|s| s.requests.ok).sum();
        assert_eq!((m.requests.ok, ok), (1200, 1200));
        let places: Vec<_> = m.shards.iter().map(|s| s.place.clone().unwrap()).collect();
        assert_eq!(places, ["script 1", "script 2"]);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_shard_that_fails_or_starts_late_is_named_and_nothing_is_merged() {
        let d = dir("fail");
        let scripts = Scripts(vec![shard(&d, 0, 0), "echo boom >&2; exit 3".into()]);
        let e = run(&scripts, &load(), &AtomicBool::new(false)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "shard 2/2 on script 2: exit status: 3, no result: boom"
        );
        let scripts = Scripts(vec![shard(&d, 0, 900), "echo '{}'".into()]);
        let e = run(&scripts, &load(), &AtomicBool::new(false)).unwrap_err();
        let e = e.to_string();
        assert!(
            e.starts_with(
                "shard 1/2 on script 1: began measuring 900 ms after the start barrier; shards \
                 must begin within 250 ms; shard 2/2 on script 2: exit status: 0, no result: its output is not a result"
            ),
            "{e}"
        );
        let _ = std::fs::remove_dir_all(&d);
    }
}
