//! One experiment, run: every cell of its matrix, repeats interleaved across contestants
//! in a shuffled order per round, each run started pinned, verified, loaded in-process,
//! watched, and stopped.

use super::catalog::{self, Catalog, Status};
use super::experiment::{Experiment, Load};
use super::layout::{self, Layout};
use super::manifest::Contestant;
use super::monitor::{Monitor, Point};
use super::process::{free_port, Server};
use super::toolchain;
use super::verify;
use engine::{LoadResult, RateSchedule};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How long a contestant may take to start listening.
const START_TIMEOUT: Duration = Duration::from_secs(60);

/// What a run says about the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Label {
    Ok,
    /// The generator was saturated: the numbers describe it, not the server.
    GeneratorBound,
    ServerFailed,
    VerifyFailed,
    Timeout,
    Interrupted,
    /// The generator could not run the load here (open-file limit, configuration): the
    /// server is not to blame.
    LoadRefused,
    /// Not run: the contestant is blocked or not set up, or lacks the endpoint.
    Skipped,
}

impl Label {
    /// The word stored and shown: `ok`, `generator-bound`...
    pub fn word(self) -> &'static str {
        match self {
            Label::Ok => "ok",
            Label::GeneratorBound => "generator-bound",
            Label::ServerFailed => "server-failed",
            Label::VerifyFailed => "verify-failed",
            Label::Timeout => "timeout",
            Label::Interrupted => "interrupted",
            Label::LoadRefused => "load-refused",
            Label::Skipped => "skipped",
        }
    }
}

/// One cell of the matrix, one repeat (as run, and as read back from the store).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Run {
    pub contestant: String,
    pub endpoint: String,
    pub layout: String,
    pub load: String,
    pub connections: usize,
    /// The rate schedule of an open-loop run, as written in the experiment.
    pub rate: Option<String>,
    /// The versions the contestant ran with (its manifest's `toolchain` command).
    #[serde(default)]
    pub toolchain: String,
    pub repeat: usize,
    pub label: Label,
    /// Why, for every label but ok.
    pub reason: String,
    pub result: Option<LoadResult>,
    /// Server process-group CPU seconds during the measured load.
    pub server_cpu_s: f64,
    pub peak_rss_kb: u64,
    pub series: Vec<Point>,
    /// Wall seconds of the whole run (start to stop) and of the load itself.
    pub wall_s: f64,
    pub load_s: f64,
}

/// What `run` tells its caller as it goes.
pub enum Event<'a> {
    /// A run is about to start.
    Started(&'a str, &'a Cell),
    /// A run ended: it, and how many of how many have ended.
    Finished(&'a Run, usize, usize),
}

/// What a caller can see and do while an experiment runs.
pub struct Controls<'a> {
    /// Set (Ctrl-C) to stop the current load and skip the rest.
    pub interrupt: &'a AtomicBool,
    /// Every load publishes its responses here, for a live requests/s.
    pub live: &'a engine::Live,
}

/// Runs `exp`; `on_event` sees each run start and end (progress, streaming to a store).
pub fn run(
    exp: &Experiment,
    cat: &Catalog,
    seed: u64,
    controls: &Controls,
    mut on_event: impl FnMut(Event),
) -> Vec<Run> {
    let interrupt = controls.interrupt;
    let cells = cells(exp);
    let total = exp.repeats * exp.contestants.len() * cells.len();
    let mut known = Known::default();
    let mut runs = Vec::with_capacity(total);
    let mut rng = seed;
    for repeat in 0..exp.repeats {
        for name in shuffled(&exp.contestants, &mut rng) {
            for cell in &cells {
                let r = if interrupt.load(Ordering::Relaxed) {
                    skipped(
                        name,
                        cell,
                        repeat,
                        Label::Interrupted,
                        "stopped by Ctrl-C before it ran",
                    )
                } else {
                    on_event(Event::Started(name, cell));
                    run_cell(exp, cat, name, cell, repeat, &mut known, controls)
                };
                on_event(Event::Finished(&r, runs.len() + 1, total));
                runs.push(r);
            }
        }
    }
    runs
}

/// What is found out once per contestant per experiment: whether it passes verification,
/// and the versions it runs with.
#[derive(Default)]
struct Known {
    verified: HashMap<String, Result<(), String>>,
    toolchains: HashMap<String, String>,
}

/// One endpoint × layout × load × connections (× rate) combination.
#[derive(Debug, Clone)]
pub struct Cell {
    pub endpoint: String,
    pub layout: Layout,
    pub load: Load,
    pub connections: usize,
    /// The open-loop schedule, as written and parsed.
    pub rate: Option<(String, RateSchedule)>,
}

fn cells(exp: &Experiment) -> Vec<Cell> {
    let mut out = Vec::new();
    for endpoint in &exp.endpoints {
        for l in &exp.layouts {
            let layout = Layout::parse(l).expect("layouts are checked when the file is read");
            for load in &exp.loads {
                let schedules = load.schedules().expect("rates are checked when read");
                let rates: Vec<Option<(String, RateSchedule)>> = if schedules.is_empty() {
                    vec![None]
                } else {
                    load.rate.iter().cloned().zip(schedules).map(Some).collect()
                };
                for connections in load.levels() {
                    for rate in &rates {
                        out.push(Cell {
                            endpoint: endpoint.clone(),
                            layout: layout.clone(),
                            load: load.clone(),
                            connections,
                            rate: rate.clone(),
                        });
                    }
                }
            }
        }
    }
    out
}

/// Fisher-Yates with splitmix64: the same seed, the same order.
fn shuffled<'a>(names: &'a [String], state: &mut u64) -> Vec<&'a String> {
    let mut v: Vec<&String> = names.iter().collect();
    for i in (1..v.len()).rev() {
        *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        v.swap(i, ((z ^ (z >> 31)) % (i as u64 + 1)) as usize);
    }
    v
}

fn skipped(name: &str, cell: &Cell, repeat: usize, label: Label, reason: &str) -> Run {
    Run {
        contestant: name.to_string(),
        endpoint: cell.endpoint.clone(),
        layout: cell.layout.name.clone(),
        load: cell.load.name.clone(),
        connections: cell.connections,
        rate: cell.rate.as_ref().map(|r| r.0.clone()),
        toolchain: String::new(),
        repeat,
        label,
        reason: reason.to_string(),
        result: None,
        server_cpu_s: 0.0,
        peak_rss_kb: 0,
        series: Vec::new(),
        wall_s: 0.0,
        load_s: 0.0,
    }
}

fn run_cell(
    exp: &Experiment,
    cat: &Catalog,
    name: &str,
    cell: &Cell,
    repeat: usize,
    known: &mut Known,
    controls: &Controls,
) -> Run {
    let c = match cat.get(name) {
        Ok(c) => c,
        Err(e) => return skipped(name, cell, repeat, Label::Skipped, &e),
    };
    match catalog::status(c) {
        Status::Ready => {}
        s => {
            return skipped(
                name,
                cell,
                repeat,
                Label::Skipped,
                &format!("{}: {}", s.word(), s.reason()),
            )
        }
    }
    if !c.serves(&cell.endpoint) {
        let why = format!("does not implement /{}", cell.endpoint);
        return skipped(name, cell, repeat, Label::Skipped, &why);
    }
    let t0 = Instant::now();
    let mut r = measure(exp, c, cell, repeat, &mut known.verified, controls);
    r.wall_s = t0.elapsed().as_secs_f64();
    r.toolchain = known
        .toolchains
        .entry(name.to_string())
        .or_insert_with(|| toolchain::versions(c))
        .clone();
    r
}

/// Start, verify (once per contestant), load with monitoring, stop.
fn measure(
    exp: &Experiment,
    c: &Contestant,
    cell: &Cell,
    repeat: usize,
    verified: &mut HashMap<String, Result<(), String>>,
    controls: &Controls,
) -> Run {
    let fail = |label, why: String| skipped(c.name(), cell, repeat, label, &why);
    let port = match free_port() {
        Ok(p) => p,
        Err(e) => return fail(Label::ServerFailed, e),
    };
    let log = c.build.join("server.log");
    let threads = cell.layout.server_threads();
    let mut server = match Server::start(c, port, threads, cell.layout.server.as_deref(), &log) {
        Ok(s) => s,
        Err(e) => return fail(Label::ServerFailed, format!("start: {e}")),
    };
    if let Err(e) = server.wait_ready(START_TIMEOUT) {
        return fail(Label::Timeout, format!("start: {e}"));
    }
    let check = verified
        .entry(c.name().to_string())
        .or_insert_with(|| verify_result(port, c))
        .clone();
    if let Err(e) = check {
        return fail(Label::VerifyFailed, e);
    }
    let mut r = fail(Label::Ok, String::new());
    load(exp, cell, &mut server, &mut r, controls);
    server.stop();
    r
}

fn verify_result(port: u16, c: &Contestant) -> Result<(), String> {
    let failed: Vec<String> = verify::run(port, c.serves("app"), c.manifest.parses_http)
        .into_iter()
        .filter(|k| !k.passed)
        .map(|k| format!("{}: {}", k.name, k.detail))
        .collect();
    if failed.is_empty() {
        Ok(())
    } else {
        Err(failed.join("; "))
    }
}

/// Loads the server from the generator's CPUs, watching it, and fills in `r`.
fn load(exp: &Experiment, cell: &Cell, server: &mut Server, r: &mut Run, controls: &Controls) {
    let config = match config(exp, cell, server.port) {
        Ok(c) => c,
        Err(e) => {
            (r.label, r.reason) = (Label::ServerFailed, e);
            return;
        }
    };
    let pinned = cell.layout.generator.as_deref().and_then(layout::pin_self);
    let monitor = Monitor::start(server.pid());
    let t0 = Instant::now();
    let result = engine::check(&config)
        .and_then(|load| engine::run_watched(&load, controls.interrupt, controls.live));
    r.load_s = t0.elapsed().as_secs_f64();
    r.series = monitor.finish();
    if let Some(old) = pinned {
        layout::restore(old);
    }
    summarise(r, result, server, config.warmup, controls.interrupt);
}

/// The engine's configuration for one run of `cell` against the server on `port`.
fn config(exp: &Experiment, cell: &Cell, port: u16) -> Result<engine::LoadConfig, String> {
    let url = format!("http://127.0.0.1:{port}/{}", cell.endpoint);
    let target = engine::Target::parse(&url).map_err(|e| e.to_string())?;
    let mut config = engine::LoadConfig::new(target);
    config.connections = cell.connections;
    config.threads = cell
        .layout
        .generator
        .as_ref()
        .map_or(engine::allowed_cpus(), Vec::len);
    config.keepalive = cell.load.keepalive;
    config.http10 = cell.load.http10;
    config.pipeline = cell.load.pipeline;
    config.timeout = engine::parse_duration(&cell.load.timeout).map_err(|e| e.to_string())?;
    config.rate = cell.rate.as_ref().map(|r| r.1.clone());
    config.devices = cell.load.device_script()?;
    let (warmup, measured) = exp.times(&cell.load, config.rate.as_ref());
    config.warmup = warmup;
    config.stop = engine::Stop::After(measured);
    Ok(config)
}

fn summarise(
    r: &mut Run,
    result: Result<LoadResult, engine::RunError>,
    server: &mut Server,
    warmup: Duration,
    interrupt: &AtomicBool,
) {
    // CPU over the measured part: from the first sample after the warm-up to the last.
    let after_warmup = r
        .series
        .iter()
        .find(|p| p.t_ms as f64 >= warmup.as_millis() as f64);
    if let (Some(first), Some(last)) = (after_warmup, r.series.last()) {
        r.server_cpu_s = last.cpu_s - first.cpu_s;
    }
    r.peak_rss_kb = r.series.iter().map(|p| p.rss_kb).max().unwrap_or(0);
    match result {
        Err(e @ engine::RunError::Unreachable { .. }) => {
            (r.label, r.reason) = (Label::ServerFailed, e.to_string())
        }
        Err(e) => (r.label, r.reason) = (Label::LoadRefused, e.to_string()),
        Ok(res) => {
            if !server.alive() {
                (r.label, r.reason) = (
                    Label::ServerFailed,
                    "the server exited during the load".into(),
                );
            } else if res.interrupted || interrupt.load(Ordering::Relaxed) {
                (r.label, r.reason) = (Label::Interrupted, "stopped by Ctrl-C".into());
            } else if res.generator.bound {
                (r.label, r.reason) = (Label::GeneratorBound, res.warnings.join("; "));
            }
            r.result = Some(res);
        }
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
        assert_eq!(sorted, names.iter().collect::<Vec<_>>());
    }
}
