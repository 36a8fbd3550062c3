//! `shootout results [WHAT]` and `shootout export WHAT`: what the store holds, experiments
//! and saved loads alike.

use super::WorkFailed;
use anyhow::{bail, Context};
use clap::Args;
use engine::{LoadResult, LoadSpec};
use shootout::contestant::locations;
use shootout::machine::machine_lock::{self, Holder};
use shootout::model::capacity::CapacityResult;
use shootout::model::{ExperimentId, LoadKind, Machine, Point, RunId, Verdict};
use shootout::report::load_output;
use shootout::report::side::Reference;
use shootout::stats::measures;
use shootout::store::{
    End, ExperimentRow, Named, SavedLoad, SavedLoadRow, Status, Store, StoredRun,
};
use shootout::units::utc;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Flags of `shootout results`.
#[derive(Debug, Args)]
pub struct ResultsArgs {
    /// An experiment (id or name: its newest) to list its runs, or a saved load (label or
    /// load:ID) to show it, instead of listing everything stored
    what: Option<String>,
}

/// Flags of `shootout export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The experiment (id or name) or saved load (label or load:ID); see `shootout results`
    what: String,
    /// Write JSON (the only format so far; accepted for scripts that say it)
    #[arg(long)]
    json: bool,
}

/// The results store (the checkout's, or outside one the user's); failing to open it is
/// a failure of the work (exit 1).
pub fn open_store() -> anyhow::Result<Store> {
    Store::open(&store_path()?).map_err(|e| WorkFailed(e.into()).into())
}

/// Where the results store is: `shootout.db` in the results folder (`locations::results`).
pub fn store_path() -> anyhow::Result<PathBuf> {
    Ok(locations::results()?.join("shootout.db"))
}

/// `shootout results`.
pub fn results(args: ResultsArgs) -> anyhow::Result<ExitCode> {
    let store = open_store().context("results")?;
    let Some(what) = &args.what else {
        print_stored(&store, &Ends::now()?).context("results")?;
        return Ok(ExitCode::SUCCESS);
    };
    match named(&store, what).context("results")? {
        Named::Experiment(e) => print_runs(&store.runs(e.id).context("results")?),
        Named::SavedLoad(row) => print_saved_load(&store.saved_load(row.id).context("results")?),
    }
    Ok(ExitCode::SUCCESS)
}

/// The experiment or saved load `what` names.
fn named(store: &Store, what: &str) -> anyhow::Result<Named> {
    match Reference::parse(what)? {
        Reference::SavedLoad(id) => Ok(Named::SavedLoad(store.saved_load(id)?.row)),
        Reference::Word { text, .. } => store.named(&text)?.ok_or_else(|| {
            anyhow::anyhow!(
                "{text:?} names no experiment (id or name) and no saved load (label or \
                 load:ID) (see shootout results)"
            )
        }),
        Reference::Run(_) | Reference::File(_) => {
            bail!("{what:?}: give an experiment (id or name) or a saved load (label or load:ID)")
        }
    }
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
    fn of(&self, store: &Store, id: ExperimentId) -> anyhow::Result<(End, Status)> {
        let end = store.end_of(id)?;
        let running = self
            .holder
            .as_ref()
            .is_some_and(|h| h.runs(&self.store, id.0));
        Ok((end, end.status(running)))
    }
}

/// Experiments and saved loads, oldest first: how to refer to each, its kind, name or
/// label, date (an experiment's start, a load's save), status, how long, runs, commit.
fn print_stored(store: &Store, ends: &Ends) -> anyhow::Result<()> {
    let mut lines: Vec<(i64, String)> = Vec::new();
    for e in store.experiments()? {
        let (end, status) = ends.of(store, e.id)?;
        let took = took(&e, end);
        let what = (
            e.id.to_string(),
            "experiment",
            status.word(),
            e.runs.to_string(),
        );
        lines.push((
            e.started_unix_ms,
            line(what, &e.name, e.started_unix_ms, &took, &e.machine),
        ));
    }
    for l in store.saved_loads()? {
        let status = if l.interrupted {
            "interrupted"
        } else {
            "complete"
        };
        let took = seconds(l.duration_s.round() as u64);
        let kind = match l.kind {
            LoadKind::Capacity { .. } => "capacity",
            _ => "load",
        };
        let what = (format!("load:{}", l.id), kind, status, "-".to_string());
        lines.push((
            l.saved_unix_ms,
            line(what, &l.label, l.saved_unix_ms, &took, &l.machine),
        ));
    }
    // Stable: an experiment and a load of the same millisecond keep this order.
    lines.sort_by_key(|(at, _)| *at);
    println!(
        "{:>7}  {:<10}  {:<24} {:<20}  {:<11} {:>9}  {:>5}  commit",
        "id", "kind", "name", "date", "status", "took", "runs"
    );
    for (_, text) in lines {
        println!("{text}");
    }
    Ok(())
}

/// One row of `shootout results`; `what` is (id, kind, status, runs).
fn line(
    (id, kind, status, runs): (String, &str, &str, String),
    name: &str,
    at_unix_ms: i64,
    took: &str,
    machine: &Machine,
) -> String {
    format!(
        "{id:>7}  {kind:<10}  {name:<24} {:<20}  {status:<11} {took:>9}  {runs:>5}  {}",
        utc(at_unix_ms),
        machine.commit
    )
}

/// `2m 5s`, `0s`.
fn seconds(secs: u64) -> String {
    humantime::format_duration(Duration::from_secs(secs)).to_string()
}

/// How long a finished experiment took, to the second ("-" when its end is not known).
fn took(e: &ExperimentRow, end: End) -> String {
    match end.finished_unix_ms() {
        Some(t) => seconds((t - e.started_unix_ms).max(0) as u64 / 1000),
        None => "-".into(),
    }
}

fn print_runs(runs: &[StoredRun]) {
    for StoredRun { id, record: r, .. } in runs {
        let c = &r.coordinates;
        println!(
            "{:>6}  {:<24} /{:<5} {:<8} {:<16} {:<8} #{}  {:<15} {:>10}",
            id.0,
            c.contestant,
            c.endpoint,
            c.layout,
            c.load,
            format!("c={}{}", c.connections, c.streams_text()),
            c.repeat + 1,
            r.label().word(),
            r.result()
                .map_or("-".into(), |x| format!("{:.0} req/s", x.rps)),
        );
    }
}

/// A saved load: what it was, where, its settings laid out as `load`'s header, and its
/// summary as `load` printed it.
fn print_saved_load(load: &SavedLoad) {
    let row = &load.row;
    println!(
        "saved load {} (load:{}), saved {}",
        row.label,
        row.id,
        utc(row.saved_unix_ms)
    );
    println!("command: shootout load {}", row.command.join(" "));
    println!("machine: {}", row.machine.describe());
    // Saved before specs were kept: the command says what it was.
    if let Some(spec) = &load.spec {
        println!("{}", load_output::wrk::spec_header(spec));
    }
    if let Some(c) = &load.client_certificate {
        println!(
            "  client certificate (mTLS): {}, kept; its private key was not saved (to repeat \
             the load, give --cert and --key again)",
            load_output::tls_settings::certificates(c.certificates())
        );
    }
    if let Some(c) = &load.capacity {
        // A search: each step as `load --capacity` showed it, its answer, then the load at
        // capacity as `load` prints one.
        for (i, step) in c.steps.iter().enumerate() {
            println!("step {}: {}", i + 1, step.line());
        }
        println!("\n{}\n\nthe step at capacity:", c.summary());
    }
    load_output::wrk::print(&load.result);
}

/// `shootout export`.
pub fn export(args: ExportArgs) -> anyhow::Result<ExitCode> {
    let _ = args.json;
    let store = open_store().context("export")?;
    let experiment = match named(&store, &args.what).context("export")? {
        Named::Experiment(e) => e,
        Named::SavedLoad(row) => return export_saved_load(&store, &row),
    };
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

/// A saved load as JSON: its `shootout.load/1` result (so that `compare` and `merge` read
/// the file), with what was saved beside it under `saved`.
fn export_saved_load(store: &Store, row: &SavedLoadRow) -> anyhow::Result<ExitCode> {
    let load = store.saved_load(row.id).context("export")?;
    let r = &load.row;
    let doc = SavedExport {
        result: &load.result,
        saved: ExportedSave {
            id: r.id,
            reference: format!("load:{}", r.id),
            label: &r.label,
            saved_unix_ms: r.saved_unix_ms,
            command: &r.command,
            load_kind: r.kind.word(),
            schedule: r.kind.schedule(),
            machine: &r.machine,
            spec: load.spec.as_ref(),
            client_certificate: load.client_certificate.as_ref().map(|c| c.chain.to_pem()),
        },
        capacity: load.capacity.as_ref(),
    };
    println!("{}", serde_json::to_string(&doc)?);
    Ok(ExitCode::SUCCESS)
}

/// `shootout export` of a saved load.
#[derive(serde::Serialize)]
struct SavedExport<'a> {
    #[serde(flatten)]
    result: &'a LoadResult,
    saved: ExportedSave<'a>,
    /// A capacity search (`load --capacity --save`): its objectives, plan, steps and
    /// answer, whose step at capacity is the result above. Absent for any other load.
    #[serde(skip_serializing_if = "Option::is_none")]
    capacity: Option<&'a CapacityResult>,
}

/// What `--save` kept beside the result.
#[derive(serde::Serialize)]
struct ExportedSave<'a> {
    id: i64,
    /// How commands name it: `load:ID`.
    reference: String,
    label: &'a str,
    saved_unix_ms: i64,
    /// The flags of `shootout load` as given.
    command: &'a [String],
    /// `closed`, `rate`, `devices` or `capacity`, with the rate schedule, the devices'
    /// stages or the search's objectives.
    load_kind: &'static str,
    schedule: Option<&'a str>,
    machine: &'a Machine,
    /// Every setting of the load (`engine::LoadSpec`); null when saved before specs were
    /// kept. Never with `tls.client`: a client certificate is below, without its key.
    spec: Option<&'a LoadSpec>,
    /// The client certificate the load presented (mTLS), PEM; its private key is never
    /// stored. Null when it presented none.
    client_certificate: Option<String>,
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
    id: RunId,
    #[serde(flatten)]
    cell: &'a shootout::model::RunCoordinates,
    load_kind: &'static str,
    /// The open-loop schedule (rate loads only).
    rate: Option<&'a str>,
    /// A device ramp's stages (device loads only).
    stages: Option<&'a str>,
    label: &'static str,
    reason: &'a str,
    /// How the contestant was verified before its loads: strict, http, or none.
    verify: &'static str,
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
    /// Run again because its cell lacked runs that count (a make-up run), not one of the
    /// planned repeats.
    make_up: bool,
    /// A capacity load's search: its objectives, plan, steps and answer, whose step at
    /// capacity is the result above. Absent for any other load.
    #[serde(skip_serializing_if = "Option::is_none")]
    capacity: Option<&'a shootout::model::capacity::CapacityResult>,
}

impl<'a> ExportedRun<'a> {
    fn of(run: &'a StoredRun) -> Self {
        let r = &run.record;
        ExportedRun {
            id: run.id,
            cell: &r.coordinates,
            load_kind: r.kind.word(),
            rate: r.rate(),
            stages: r.is_ramp().then(|| r.kind.schedule()).flatten(),
            label: r.label().word(),
            reason: r.reason(),
            verify: r.verify.word(),
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
            make_up: r.make_up,
            capacity: r.capacity.as_ref(),
        }
    }
}
