//! `shootout results [ID]` and `shootout export ID`: what the store holds.

use super::WorkFailed;
use anyhow::Context;
use clap::Args;
use engine::LoadResult;
use shootout::harness::machine_lock::{self, Holder};
use shootout::harness::places;
use shootout::record::{Point, Verdict};
use shootout::report::document::utc;
use shootout::report::stats::measures;
use shootout::store::{End, ExperimentRow, Status, Store, StoredRun};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Flags of `shootout results`.
#[derive(Debug, Args)]
pub struct ResultsArgs {
    /// An experiment id: list its runs instead of the experiments
    id: Option<i64>,
}

/// Flags of `shootout export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The experiment id (see `shootout results`)
    id: i64,
    /// Write JSON (the only format so far; accepted for scripts that say it)
    #[arg(long)]
    json: bool,
}

/// The results store (the checkout's, or outside one the user's); failing to open it is
/// a failure of the work (exit 1).
pub fn open_store() -> anyhow::Result<Store> {
    Store::open(&store_path()?).map_err(|e| WorkFailed(e.into()).into())
}

/// Where the results store is: `shootout.db` in the results folder (`places::results`).
pub fn store_path() -> anyhow::Result<PathBuf> {
    Ok(places::results()?.join("shootout.db"))
}

/// `shootout results`.
pub fn results(args: ResultsArgs) -> anyhow::Result<ExitCode> {
    let store = open_store().context("results")?;
    match args.id {
        None => print_experiments(&store, &Ends::now()?).context("results")?,
        Some(id) => print_runs(&store.runs(id).context("results")?),
    }
    Ok(ExitCode::SUCCESS)
}

/// What decides an experiment's status besides the store: the harness running now.
struct Ends {
    store: PathBuf,
    holder: Option<Holder>,
}

impl Ends {
    fn now() -> anyhow::Result<Ends> {
        let store = store_path()?;
        Ok(Ends {
            // As `shootout run` names it in the lock.
            store: std::fs::canonicalize(&store).unwrap_or(store),
            holder: machine_lock::holder(&machine_lock::path()),
        })
    }

    /// Experiment `id`'s end and status.
    fn of(&self, store: &Store, id: i64) -> anyhow::Result<(End, Status)> {
        let end = store.end_of(id)?;
        let running = self
            .holder
            .as_ref()
            .is_some_and(|h| h.runs(&self.store, id));
        Ok((end, end.status(running)))
    }
}

fn print_experiments(store: &Store, ends: &Ends) -> anyhow::Result<()> {
    println!(
        "{:>4}  {:<20} {:<20}  {:<11} {:>9}  {:>5}  commit",
        "id", "experiment", "started", "status", "took", "runs"
    );
    for e in store.experiments()? {
        let (end, status) = ends.of(store, e.id)?;
        println!(
            "{:>4}  {:<20} {:<20}  {:<11} {:>9}  {:>5}  {}",
            e.id,
            e.name,
            utc(e.started_unix_ms),
            status.word(),
            took(&e, end),
            e.runs,
            e.machine.commit
        );
    }
    Ok(())
}

/// How long a finished experiment took, to the second ("-" when its end is not known).
fn took(e: &ExperimentRow, end: End) -> String {
    match end.finished_unix_ms() {
        Some(t) => {
            let secs = (t - e.started_unix_ms).max(0) as u64 / 1000;
            humantime::format_duration(Duration::from_secs(secs)).to_string()
        }
        None => "-".into(),
    }
}

fn print_runs(runs: &[StoredRun]) {
    for StoredRun { id, record: r } in runs {
        let c = &r.cell;
        println!(
            "{:>6}  {:<24} /{:<5} {:<8} {:<16} c={:<6} #{}  {:<15} {:>10}",
            id,
            c.contestant,
            c.endpoint,
            c.layout,
            c.load,
            c.connections,
            c.repeat + 1,
            r.label().word(),
            r.result()
                .map_or("-".into(), |x| format!("{:.0} req/s", x.rps)),
        );
    }
}

/// `shootout export`.
pub fn export(args: ExportArgs) -> anyhow::Result<ExitCode> {
    let _ = args.json;
    let store = open_store().context("export")?;
    let experiment = store
        .find(&args.id.to_string())
        .map_err(|_| anyhow::anyhow!("no experiment {}", args.id))
        .context("export")?;
    let runs = store.runs(experiment.id).context("export")?;
    let (end, status) = Ends::now()?.of(&store, experiment.id).context("export")?;
    let doc = Export {
        schema: "shootout.experiment/1",
        runs: runs.iter().map(ExportedRun::of).collect(),
        experiment: ExportedExperiment {
            status: status.word(),
            finished_unix_ms: end.finished_unix_ms(),
            row: experiment,
        },
    };
    println!("{}", serde_json::to_string(&doc)?);
    Ok(ExitCode::SUCCESS)
}

/// The JSON document `shootout export` writes (schema `shootout.experiment/1`).
#[derive(serde::Serialize)]
struct Export<'a> {
    schema: &'static str,
    experiment: ExportedExperiment,
    runs: Vec<ExportedRun<'a>>,
}

/// The experiment in the export: its row, and how it ended.
#[derive(serde::Serialize)]
struct ExportedExperiment {
    #[serde(flatten)]
    row: ExperimentRow,
    /// complete, interrupted, died, running, or unknown (stored before ends were).
    status: &'static str,
    finished_unix_ms: Option<i64>,
}

/// One run in the export: the store's columns, flat, as scripts read them.
#[derive(serde::Serialize)]
struct ExportedRun<'a> {
    id: i64,
    #[serde(flatten)]
    cell: &'a shootout::record::Cell,
    load_kind: &'static str,
    /// The open-loop schedule (rate loads only).
    rate: Option<&'a str>,
    /// A device ramp's stages (device loads only).
    stages: Option<&'a str>,
    label: &'static str,
    reason: &'a str,
    /// What bound the run (server, generator, both, neither); None when it did not load.
    bottleneck: Option<&'static str>,
    /// Whether the run says something about the server.
    valid: bool,
    /// The verdict's numbers: both sides' busy shares, foreign CPU and steal.
    verdict: Option<&'a Verdict>,
    rps: Option<f64>,
    p99_us: Option<f64>,
    /// Null when the server's CPU and memory could not be attributed to it (a running
    /// server without its process: see `verdict.unattributed`).
    server_cpu_s: Option<f64>,
    peak_rss_kb: Option<u64>,
    wall_s: f64,
    load_s: f64,
    result: Option<&'a LoadResult>,
    series: &'a [Point],
    toolchain: &'a str,
}

impl<'a> ExportedRun<'a> {
    fn of(run: &'a StoredRun) -> Self {
        let r = &run.record;
        ExportedRun {
            id: run.id,
            cell: &r.cell,
            load_kind: r.kind.word(),
            rate: r.rate(),
            stages: r.is_ramp().then(|| r.kind.schedule()).flatten(),
            label: r.label().word(),
            reason: r.reason(),
            bottleneck: r.verdict().map(|v| v.bottleneck.word()),
            valid: r.verdict().is_some_and(|v| v.valid),
            verdict: r.verdict(),
            rps: r.result().map(|x| x.rps),
            p99_us: r.result().map(|x| x.latency_us.p99),
            server_cpu_s: measures::server_known(r).then_some(r.server_cpu_s),
            peak_rss_kb: measures::server_known(r).then_some(r.peak_rss_kb),
            wall_s: r.wall_s,
            load_s: r.load_s,
            result: r.result(),
            series: &r.series,
            toolchain: &r.toolchain,
        }
    }
}
