//! One experiment, run: every cell of its matrix, repeats interleaved across contestants
//! in a shuffled order per round (the rounds planned by `experiment::Rounds`: a fixed
//! number, or until each cell is sure enough), each run started pinned, verified, loaded
//! in-process, watched, and stopped.

use super::catalog::{self, Catalog, Status};
use super::endpoint::Endpoint;
use super::experiment::{Experiment, MatrixCell, Rounds, Stop};
use super::group_cpu::Members;
use super::idle::{self, Quiet};
use super::launch::{launch, LaunchError, LaunchSpec};
use super::layout::Pinned;
use super::manifest::Contestant;
use super::monitor::{Monitor, Point};
use super::process::{Server, ServerError};
use super::running::RunningServer;
use super::server_files::FileRoom;
use super::toolchain;
use super::verdict;
use super::verify::{self, Check, Plan};
use crate::generators::{self, fleet, FleetError, Generators};
use crate::record::VerifyLevel;
use crate::record::{Bottleneck, Cell, Label, Outcome, RunRecord, Verdict};
use engine::{LoadResult, LoadSpec};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// What `run` tells its caller as it goes.
pub enum Event<'a> {
    /// A run is about to start: the contestant, and the cell.
    Started(&'a str, &'a MatrixCell),
    /// A run ended: it, how many have ended, and how many are known to come in all (the
    /// total grows when rounds beyond the least start).
    Finished(&'a RunRecord, usize, usize),
    /// No further round starts: why, after how many rounds.
    Stopped(Stop, usize),
    /// The machine was busy before round `usize` (from 0): what the wait found.
    Busy(usize, Quiet),
    /// A contestant was verified, once per experiment, before its first load: at which
    /// level, and what each check found (none at level `none`).
    Verified(&'a str, VerifyLevel, &'a [Check]),
}

/// What a caller can see and do while an experiment runs.
pub struct Controls<'a> {
    /// Set (Ctrl-C) to stop the current load and skip the rest.
    pub interrupt: &'a AtomicBool,
    /// Every load publishes its responses here, for a live requests/s.
    pub live: &'a engine::Live,
    /// No round starts once this much time has passed (a run in progress finishes).
    pub budget: Option<Duration>,
    /// Copy this binary to SSH generator hosts before each load's checks (`--push`).
    pub push: bool,
}

/// Runs `exp` round by round; `on_event` sees each run start and end (progress,
/// streaming to a store) and why the rounds stopped.
pub fn run(
    exp: &Experiment,
    cat: &Catalog,
    seed: u64,
    controls: &Controls,
    mut on_event: impl FnMut(Event),
) -> Vec<RunRecord> {
    let cells = exp.cells();
    let mut rounds = Rounds::new(exp, controls.budget);
    let mut known = Known::new(&exp.endpoints);
    let mut runs = Vec::with_capacity(exp.run_count());
    let mut rng = seed;
    let t0 = Instant::now();
    let stop = loop {
        let interrupted = controls.interrupt.load(Ordering::Relaxed);
        let round = match rounds.next(t0.elapsed(), interrupted) {
            Ok(round) => round,
            Err(stop) => break stop,
        };
        let (strictest, wait) = (exp.thresholds.strictest(), exp.thresholds.wait);
        let quiet = idle::wait_for_quiet(strictest.foreign, wait, controls.interrupt);
        if quiet != Quiet::Now {
            on_event(Event::Busy(round.number, quiet));
        }
        for (c, name) in shuffled(&exp.contestants, &mut rng) {
            for (i, cell) in cells.iter().enumerate().filter(|(i, _)| round.runs(c, *i)) {
                let mut r = run_or_skip(
                    cat,
                    name,
                    cell,
                    round.number,
                    &mut known,
                    controls,
                    &mut on_event,
                );
                r.make_up = round.makes_up(c, i);
                rounds.record(c, i, &r);
                on_event(Event::Finished(&r, runs.len() + 1, rounds.total()));
                runs.push(r);
            }
        }
    };
    on_event(Event::Stopped(stop, rounds.started()));
    runs
}

/// One run of `name` in `cell`, or its record as interrupted when Ctrl-C came first.
fn run_or_skip(
    cat: &Catalog,
    name: &str,
    cell: &MatrixCell,
    repeat: usize,
    known: &mut Known,
    controls: &Controls,
    on_event: &mut impl FnMut(Event),
) -> RunRecord {
    if controls.interrupt.load(Ordering::Relaxed) {
        let why = "stopped by Ctrl-C before it ran";
        let names = named(name, cell, repeat);
        return RunRecord::not_run(names, cell.kind.clone(), Label::Interrupted, why);
    }
    on_event(Event::Started(name, cell));
    run_cell(cat, name, cell, repeat, known, controls, on_event)
}

/// What is found out once per contestant per experiment: whether it passes verification
/// (None) or why not, and the versions it runs with; and the experiment's endpoints,
/// which verification checks.
struct Known<'e> {
    endpoints: &'e [Endpoint],
    verify_failures: HashMap<String, Option<String>>,
    toolchains: HashMap<String, String>,
}

impl<'e> Known<'e> {
    fn new(endpoints: &'e [Endpoint]) -> Self {
        Known {
            endpoints,
            verify_failures: HashMap::new(),
            toolchains: HashMap::new(),
        }
    }
}

impl Known<'_> {
    /// Verifies `c` at `addr` (named `host` in requests) the first time it is loaded in
    /// this experiment; its failure, then and at every later run, as the run's label.
    fn verify_once(
        &mut self,
        c: &Contestant,
        addr: SocketAddr,
        host: &str,
        on_event: &mut impl FnMut(Event),
    ) -> Result<(), (Label, String)> {
        let endpoints = self.endpoints;
        let failed = (self.verify_failures.entry(c.name().to_string()))
            .or_insert_with(|| verify_failure(addr, host, c, endpoints, on_event));
        match failed {
            Some(why) => Err((Label::VerifyFailed, why.clone())),
            None => Ok(()),
        }
    }
}

/// The record's names for contestant `name` in `cell`, repeat `repeat`.
fn named(name: &str, cell: &MatrixCell, repeat: usize) -> Cell {
    Cell {
        contestant: name.to_string(),
        endpoint: cell.endpoint.name.clone(),
        layout: cell.layout.name.clone(),
        load: cell.load.name.clone(),
        connections: cell.connections,
        repeat,
    }
}

/// Fisher-Yates with splitmix64: the same seed, the same order; each name with its place.
fn shuffled<'a>(names: &'a [String], state: &mut u64) -> Vec<(usize, &'a String)> {
    let mut v: Vec<(usize, &String)> = names.iter().enumerate().collect();
    for i in (1..v.len()).rev() {
        *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        v.swap(i, ((z ^ (z >> 31)) % (i as u64 + 1)) as usize);
    }
    v
}

/// One run of `name` in `cell`: skipped when the contestant cannot run it, else measured.
fn run_cell(
    cat: &Catalog,
    name: &str,
    cell: &MatrixCell,
    repeat: usize,
    known: &mut Known,
    controls: &Controls,
    on_event: &mut impl FnMut(Event),
) -> RunRecord {
    let names = named(name, cell, repeat);
    let kind = cell.kind.clone();
    let c = match cat.get(name) {
        Ok(c) => c,
        Err(e) => return RunRecord::not_run(names, kind, Label::Skipped, e.to_string()),
    };
    let verify = c.manifest.verify;
    let skipped = |why: String| RunRecord {
        verify,
        ..RunRecord::not_run(names.clone(), kind.clone(), Label::Skipped, why)
    };
    if let s @ (Status::NeedsSetup(_) | Status::Blocked(_)) = catalog::status(c) {
        return skipped(format!("{}: {}", s.word(), s.reason()));
    }
    if !c.serves(&cell.endpoint.name) {
        return skipped(format!("does not implement /{}", cell.endpoint.name));
    }
    let t0 = Instant::now();
    let measured = measure(c, cell, known, controls, on_event);
    let toolchain = known
        .toolchains
        .entry(name.to_string())
        .or_insert_with(|| toolchain::versions(c))
        .clone();
    let mut record = match measured {
        Ok(m) => m.into_record(names, kind),
        Err((label, why)) => RunRecord::not_run(names, kind, label, why),
    };
    record.toolchain = toolchain;
    record.verify = verify;
    record.wall_s = t0.elapsed().as_secs_f64();
    record
}

/// What one load measured, and the server's side of it.
struct Measurement {
    outcome: Outcome,
    series: Vec<Point>,
    server_cpu_s: f64,
    peak_rss_kb: u64,
    load_s: f64,
}

impl Measurement {
    fn into_record(self, cell: Cell, kind: crate::record::LoadKind) -> RunRecord {
        RunRecord {
            cell,
            kind,
            toolchain: String::new(),
            verify: VerifyLevel::default(),
            outcome: self.outcome,
            server_cpu_s: self.server_cpu_s,
            peak_rss_kb: self.peak_rss_kb,
            series: self.series,
            wall_s: 0.0,
            load_s: self.load_s,
            make_up: false,
        }
    }
}

/// Start, verify (once per contestant), load with monitoring, stop; a server already
/// running is verified and loaded as it is. A failure before the load is its label and
/// reason.
fn measure(
    c: &Contestant,
    cell: &MatrixCell,
    known: &mut Known,
    controls: &Controls,
    on_event: &mut impl FnMut(Event),
) -> Result<Measurement, (Label, String)> {
    if let Some(running) = &c.running {
        return measure_running(c, running, cell, known, controls, on_event);
    }
    if let Generators::Ssh(_) = &cell.load.generators {
        return Err((Label::LoadRefused, UNREACHABLE_FROM_HOSTS.into()));
    }
    let spec = LaunchSpec {
        port: None,
        threads: cell.layout.server_threads(),
        cpus: cell.layout.server.as_deref(),
    };
    let mut server = launch(c, &spec).map_err(|e| match e {
        LaunchError::Start(_) | LaunchError::NotReady(ServerError::Exited { .. }) => {
            (Label::ServerFailed, e.to_string())
        }
        LaunchError::NotReady(_) => (Label::Timeout, e.to_string()),
    })?;
    // A server shootout started listens on loopback at the port it was given.
    let addr = SocketAddr::from(([127, 0, 0, 1], server.port));
    known.verify_once(c, addr, &addr.to_string(), on_event)?;
    let load_of = load_spec(cell, &addr.to_string(), addr);
    let (spec, config) = load_of.map_err(|e| (Label::ServerFailed, e.to_string()))?;
    let room = FileRoom::of_group(server.pid());
    if let Some(why) = room.and_then(|r| r.refusal(cell.connections)) {
        server.stop();
        return Err((Label::LoadRefused, why));
    }
    let m = load(
        cell,
        (&spec, &config),
        &mut Watched::Started(&mut server),
        controls,
    );
    server.stop();
    Ok(m)
}

/// Why a contestant the harness starts cannot be loaded from SSH hosts.
const UNREACHABLE_FROM_HOSTS: &str = "SSH generators reach the server over the network, and \
     contestants shootout starts listen on 127.0.0.1 only: start it yourself where the hosts \
     reach it and give it by url (docs/generators.md)";

/// Verify (once per contestant) and load a server that was already running, at its URL's
/// address and with its URL's host; it is neither started, stopped nor pinned.
fn measure_running(
    c: &Contestant,
    running: &RunningServer,
    cell: &MatrixCell,
    known: &mut Known,
    controls: &Controls,
    on_event: &mut impl FnMut(Event),
) -> Result<Measurement, (Label, String)> {
    known.verify_once(c, running.addr, &running.host, on_event)?;
    let load_of = load_spec(cell, &running.host, running.addr);
    let (spec, config) = load_of.map_err(|e| (Label::ServerFailed, e.to_string()))?;
    Ok(load(
        cell,
        (&spec, &config),
        &mut Watched::Running(running),
        controls,
    ))
}

/// Verifies `c` at `addr` (named `host` in requests) on the endpoints of `endpoints` it
/// serves, at its level, and tells `on_event`; the checks it fails as one reason, None
/// when it passes them all.
fn verify_failure(
    addr: SocketAddr,
    host: &str,
    c: &Contestant,
    endpoints: &[Endpoint],
    on_event: &mut impl FnMut(Event),
) -> Option<String> {
    let served: Vec<Endpoint> = (endpoints.iter().filter(|e| c.serves(&e.name)))
        .cloned()
        .collect();
    let plan = Plan {
        level: c.manifest.verify,
        endpoints: &served,
        parses_http: c.manifest.parses_http,
    };
    let checks = verify::run_as(addr, host, &plan);
    on_event(Event::Verified(c.name(), plan.level, &checks));
    let failed: Vec<String> = (checks.iter().filter(|k| !k.passed))
        .map(|k| format!("{}: {}", k.name, k.detail))
        .collect();
    (!failed.is_empty()).then(|| failed.join("; "))
}

/// The server a load watches: one shootout started (its process group), or one that was
/// already running (its process tree, when its process is known).
enum Watched<'s> {
    Started(&'s mut Server),
    Running(&'s RunningServer),
}

impl Watched<'_> {
    /// The processes whose CPU and memory are the server's.
    fn members(&self) -> Members {
        match self {
            Watched::Started(server) => Members::Group(server.pid()),
            Watched::Running(r) => r.pid.map_or(Members::Unknown, Members::Tree),
        }
    }

    /// False when a server shootout started exited. A running server's process may
    /// exit without the server going (a wrapper): its load's errors tell.
    fn alive(&mut self) -> bool {
        match self {
            Watched::Started(server) => server.alive(),
            Watched::Running(_) => true,
        }
    }

    /// Why its CPU cannot be attributed to it, or None when it can.
    fn unattributed(&self) -> Option<String> {
        match self {
            Watched::Started(_) => None,
            Watched::Running(r) => r.unattributed(),
        }
    }
}

/// Loads the server from the generator's CPUs, watching it.
fn load(
    cell: &MatrixCell,
    (spec, config): (&LoadSpec, &engine::LoadConfig),
    server: &mut Watched,
    controls: &Controls,
) -> Measurement {
    // Best effort, as taskset: a kernel that refuses leaves the generator unpinned, and
    // the verdict's CPU samples show it.
    let pinned = (cell.layout.generator.as_deref()).and_then(|cpus| Pinned::thread(cpus).ok());
    let monitor = Monitor::start(server.members());
    let t0 = Instant::now();
    let result = generate(cell, (spec, config), controls);
    let load_s = t0.elapsed().as_secs_f64();
    let series = monitor.finish();
    drop(pinned);
    let side = ServerSide {
        alive: server.alive(),
        unattributed: server.unattributed(),
    };
    let (server_cpu_s, peak_rss_kb) = match side.unattributed {
        None => server_usage(&series, cell.warmup),
        Some(_) => (0.0, 0),
    };
    let outcome = judge(result, &series, cell, side, controls.interrupt);
    Measurement {
        outcome,
        series,
        server_cpu_s,
        peak_rss_kb,
        load_s,
    }
}

/// The load run by the cell's generators: this process's loops, or shards started on
/// one barrier and merged; what went wrong as the run's label and reason.
fn generate(
    cell: &MatrixCell,
    (spec, config): (&LoadSpec, &engine::LoadConfig),
    controls: &Controls,
) -> Result<LoadResult, (Label, String)> {
    let cpus = cell.layout.generator.as_deref();
    let launcher = generators::launcher(&cell.load.generators, cpus, controls.push)
        .map_err(|e| (Label::GeneratorFailed, e.to_string()))?;
    let Some(launcher) = launcher else {
        return engine::check(config)
            .and_then(|load| engine::run_watched(&load, controls.interrupt, controls.live))
            .map_err(refused);
    };
    fleet::run(launcher.as_ref(), spec, controls.interrupt).map_err(|e| match e {
        FleetError::Check(e) => refused(e),
        e @ (FleetError::Spec(_) | FleetError::AlreadySharded(_)) => {
            (Label::LoadRefused, e.to_string())
        }
        e => (Label::GeneratorFailed, e.to_string()),
    })
}

/// A load the engine would not start: the server's fault when it does not answer.
fn refused(e: engine::RunError) -> (Label, String) {
    match e {
        e @ engine::RunError::Unreachable { .. } => (Label::ServerFailed, e.to_string()),
        e => (Label::LoadRefused, e.to_string()),
    }
}

/// The load of one run of `cell` against the server at `addr`, named `host` in its
/// requests: its endpoint's request and its load's pace, as the spec shards receive and
/// as this process runs it.
fn load_spec(
    cell: &MatrixCell,
    host: &str,
    addr: SocketAddr,
) -> Result<(LoadSpec, engine::LoadConfig), engine::SpecError> {
    let e = &cell.endpoint;
    let mut spec = LoadSpec::new(engine::parse_url(&format!("http://{host}{}", e.path))?);
    spec.method = engine::parse_method(&e.method)?;
    spec.headers = (e.headers.iter())
        .map(|(name, value)| format!("{name}: {value}").parse())
        .collect::<Result<_, _>>()?;
    spec.body = e.body.clone();
    spec.connections = cell.connections;
    let generator = cell.layout.generator.as_ref();
    spec.threads = Some(generator.map_or(engine::allowed_cpus(), Vec::len));
    spec.keepalive = cell.load.keepalive;
    spec.http10 = cell.load.http10;
    spec.pipeline = cell.load.pipeline;
    spec.timeout = cell.load.timeout;
    spec.pace = cell.pace.clone();
    spec.warmup = cell.warmup;
    spec.stop = Some(engine::Stop::After(cell.measured));
    let config = spec.resolve_at(addr)?;
    Ok((spec, config))
}

/// Server CPU seconds over the measured part (from the first sample after the warm-up
/// to the last) and its peak memory.
fn server_usage(series: &[Point], warmup: Duration) -> (f64, u64) {
    let after_warmup = series.iter().find(|p| p.t_ms as u128 >= warmup.as_millis());
    let cpu_s = match (after_warmup, series.last()) {
        (Some(first), Some(last)) => last.cpu_s - first.cpu_s,
        _ => 0.0,
    };
    (cpu_s, series.iter().map(|p| p.rss_kb).max().unwrap_or(0))
}

/// What the harness knows of the server after a load.
struct ServerSide {
    /// False when a server shootout started exited during the load.
    alive: bool,
    /// Why its CPU could not be attributed to it (a running server), or None.
    unattributed: Option<String>,
}

/// What the load's result and both sides' CPU say of the server.
fn judge(
    result: Result<LoadResult, (Label, String)>,
    series: &[Point],
    cell: &MatrixCell,
    server: ServerSide,
    interrupt: &AtomicBool,
) -> Outcome {
    let res = match result {
        Ok(res) => res,
        Err((label, reason)) => return Outcome::NotRun { label, reason },
    };
    let bound = res.generator.bound;
    let (warmup, layout) = (cell.warmup, &cell.layout);
    let limits = cell.thresholds.limits(&cell.kind);
    let v = verdict::judge(series, warmup, layout, bound, &limits, server.unattributed);
    let (label, reason) = if !server.alive {
        (
            Label::ServerFailed,
            "the server exited during the load".into(),
        )
    } else if res.interrupted || interrupt.load(Ordering::Relaxed) {
        (Label::Interrupted, "stopped by Ctrl-C".into())
    } else if let Some(why) = &v.disturbed {
        (Label::Disturbed, why.clone())
    } else if v.bottleneck == Bottleneck::Generator {
        (Label::GeneratorBound, generator_bound_reason(&res, &v))
    } else {
        (Label::Ok, String::new())
    };
    Outcome::Measured {
        label,
        reason,
        result: Box::new(res),
        verdict: Some(v),
    }
}

/// The generator's own warnings, or its cores' busy share when it gave none.
fn generator_bound_reason(res: &LoadResult, v: &Verdict) -> String {
    if res.warnings.is_empty() {
        format!(
            "the generator's cores were {:.0}% busy, the server's {:.0}%",
            v.generator_busy * 100.0,
            v.server_busy * 100.0
        )
    } else {
        res.warnings.join("; ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shuffles_are_repeatable_and_vary_by_round() {
        let names: Vec<String> = (0..6).map(|i| format!("c{i}")).collect();
        let (mut a, mut b) = (7, 7);
        let first = shuffled(&names, &mut a);
        assert_eq!(first, shuffled(&names, &mut b));
        let second = shuffled(&names, &mut a);
        assert_ne!(first, second);
        let mut sorted = second.clone();
        sorted.sort();
        assert_eq!(sorted, names.iter().enumerate().collect::<Vec<_>>());
    }
}
