//! `shootout load URL --capacity EXPR`: a search for the highest rate that meets every
//! objective, each step shown as it is judged, the answer printed and gated. The steps
//! are fixed-rate open loops of the load the other flags describe (connections,
//! keep-alive, protocol, TLS, generators), run by this process or by shards.

use super::destinations::Destinations;
use super::{interrupt, WorkFailed};
use clap::Args;
use engine::{LoadResult, LoadSpec, Pace, RateSchedule, RunError, Stop};
use shootout::capacity::drain::Signal;
use shootout::capacity::StepMeasure;
use shootout::capacity::{self, objective, Drain, Objectives, Probe, StepFailed, StepLoad};
use shootout::generators::{fleet, FleetError, Launcher};
use shootout::model::capacity::{CapacityResult, SearchPlan, Step};
use shootout::threshold::{self, Judgement, Metric, Threshold};
use shootout::units::grouped;
use std::time::Duration;

/// The flags of a capacity search.
#[derive(Debug, Args)]
pub struct CapacityFlags {
    /// Search for the highest rate that meets this objective, e.g. 'p99<20ms',
    /// 'errors<0.1%' (repeatable: every one must hold): open-loop steps at fixed rates,
    /// latency from each request's intended send time
    #[arg(long = "capacity", value_name = "OBJECTIVE", value_parser = objective::objective,
          conflicts_with_all = ["duration", "requests", "rate", "devices"])]
    objectives: Vec<Threshold>,
    /// Capacity search: the first rate tried, requests/s [default: 1000]
    #[arg(long, value_name = "RATE", value_parser = parse_rate, requires = "objectives")]
    capacity_start: Option<f64>,
    /// Capacity search: the highest rate tried; a server that meets every objective there
    /// is "at least" it [default: 10M]
    #[arg(long, value_name = "RATE", value_parser = parse_rate, requires = "objectives")]
    capacity_max: Option<f64>,
    /// Capacity search: each step's least measured time (longer at low rates, to time
    /// enough responses for the objectives' percentiles) [default: 2s]
    #[arg(long, value_name = "DURATION", value_parser = engine::parse_duration,
          requires = "objectives")]
    step: Option<Duration>,
}

/// A search asked for: its objectives and plan.
pub struct Asked {
    pub objectives: Objectives,
    pub plan: SearchPlan,
}

impl CapacityFlags {
    /// Whether a search was asked for.
    pub fn searching(&self) -> bool {
        !self.objectives.is_empty()
    }

    /// The search these flags ask for, if any; `warmup` is the load's own (`--warmup`),
    /// each step's warm-up when it is not zero.
    pub fn asked(&self, warmup: Duration) -> Option<Asked> {
        let objectives = Objectives::new(self.objectives.clone()).ok()?;
        let default = SearchPlan::default();
        let plan = SearchPlan {
            start: self.capacity_start.unwrap_or(default.start),
            max: self.capacity_max.unwrap_or(default.max),
            step: self.step.unwrap_or(default.step),
            warmup: if warmup.is_zero() {
                default.warmup
            } else {
                warmup
            },
            ..default
        };
        Some(Asked { objectives, plan })
    }
}

/// `50000`, `50k`, `1.5M`, `50000/s`: requests/s, above zero and within the engine's range.
fn parse_rate(text: &str) -> Result<f64, String> {
    match threshold::parse_rate(text) {
        Ok(rate) if rate > 0.0 && rate <= 1e9 => Ok(rate),
        _ => Err(format!(
            "{text:?} is not a rate in requests/s (e.g. 5000, 50k, 1.5M)"
        )),
    }
}

/// Thresholds a search can be gated by: `capacity` only (its objectives are what the
/// other metrics would say); a `capacity` threshold without a search cannot be judged.
pub fn check_thresholds(thresholds: &[Threshold], searching: bool) -> anyhow::Result<()> {
    let capacity = |t: &&Threshold| t.metric == Metric::Capacity;
    match (
        searching,
        thresholds.iter().find(|t| capacity(t) != searching),
    ) {
        (true, Some(t)) => anyhow::bail!(
            "--threshold {t}: with --capacity only capacity thresholds apply (the \
             objectives are --capacity's), e.g. --threshold 'capacity>30000/s'"
        ),
        (false, Some(t)) => anyhow::bail!(
            "--threshold {t}: needs --capacity OBJECTIVE (a search finds the capacity)"
        ),
        (_, None) => Ok(()),
    }
}

/// Where each step's load runs: this process's loops, or shards.
pub enum StepRunner<'a> {
    InProcess,
    Sharded(&'a dyn Launcher),
}

/// Why a step could not run: the engine's refusal or failure, or a shard's.
#[derive(Debug, thiserror::Error)]
pub enum StepError {
    #[error(transparent)]
    Engine(#[from] RunError),
    #[error(transparent)]
    Fleet(#[from] FleetError),
    #[error(transparent)]
    Spec(#[from] engine::SpecError),
}

/// The search as run, with the load result of each step (for the one at capacity).
pub struct Searched {
    pub capacity: CapacityResult,
    pub results: Vec<LoadResult>,
}

/// Runs the search `asked` of the load `spec`, printing each step; a step that could not
/// run ends it, keeping the steps before it (printed, and returned in the error's text).
pub fn search(
    asked: &Asked,
    spec: &LoadSpec,
    runner: &StepRunner,
    quiet: bool,
) -> anyhow::Result<Searched> {
    interrupt::install();
    let mut drain = Drain::new(probe(spec), &interrupt::INTERRUPTED);
    let mut results = Vec::new();
    let mut number = 0;
    let found = capacity::run(
        &asked.plan,
        &asked.objectives,
        &mut drain,
        |load| {
            let result = run_step(spec, load, runner)?;
            results.push(result.clone());
            Ok::<_, StepError>(StepMeasure {
                result,
                server_cpu_s: None,
            })
        },
        |step| {
            number += 1;
            show_step(number, step, quiet);
        },
    );
    match found {
        Ok(capacity) => Ok(Searched { capacity, results }),
        Err(StepFailed { error, so_far }) => Err(step_failed(error, &so_far, results.len())),
    }
}

/// A probe of the server `spec` loads, timed at rest now, for the wait between steps;
/// none, with a line on stderr saying so, when it cannot reach the server from here (the
/// search goes on without waiting: its shards may reach what this process cannot).
fn probe(spec: &LoadSpec) -> Vec<Box<dyn Signal>> {
    let probe = (spec.resolve().map_err(|e| e.to_string())).and_then(|c| Probe::new(&c));
    match probe {
        Ok(probe) => vec![Box::new(probe)],
        Err(why) => {
            eprintln!(
                "capacity search: steps will not wait for the server to drain the step \
                 before: {why}"
            );
            Vec::new()
        }
    }
}

/// One step's load: the spec at a fixed rate, for the step's warm-up and measured time.
fn run_step(spec: &LoadSpec, load: StepLoad, runner: &StepRunner) -> Result<LoadResult, StepError> {
    let step = LoadSpec {
        pace: Pace::Open(RateSchedule::constant(load.rate)),
        warmup: load.warmup,
        stop: Some(Stop::After(load.measured)),
        ..spec.clone()
    };
    match runner {
        StepRunner::InProcess => {
            let config = step.resolve()?;
            Ok(engine::run(&config, &interrupt::INTERRUPTED)?)
        }
        StepRunner::Sharded(launcher) => Ok(fleet::run(*launcher, &step, &interrupt::INTERRUPTED)?),
    }
}

/// A step that could not run, saying at which step and what the steps before it found:
/// the failure of the work (exit 1), but a first step the target or the flags refused
/// before sending anything is the user's input (exit 2), as for any load.
fn step_failed(error: StepError, so_far: &CapacityResult, steps: usize) -> anyhow::Error {
    let found = match steps {
        0 => String::new(),
        n => format!(" (after {n} steps: {})", so_far.summary()),
    };
    let refused = match &error {
        StepError::Engine(RunError::Loop { .. }) => false,
        StepError::Engine(_) | StepError::Spec(_) => steps == 0,
        StepError::Fleet(FleetError::Check(_) | FleetError::Spec(_)) => steps == 0,
        StepError::Fleet(_) => false,
    };
    let e = anyhow::Error::new(error).context(format!("load: capacity step {}{found}", steps + 1));
    match refused {
        true => e,
        false => WorkFailed(e).into(),
    }
}

/// `step 3: 4,000/s for 2.0s: answered 4,000/s, p99 1.20ms, errors 0.00%: meets`, on
/// stdout, or stderr when stdout is JSON.
fn show_step(number: usize, step: &Step, quiet: bool) {
    let line = format!("step {number}: {}", step.line());
    match quiet {
        true => eprintln!("{line}"),
        false => println!("{line}"),
    }
}

/// The header before the first step: what is searched, and over which load.
pub fn header(asked: &Asked, spec: &LoadSpec) -> String {
    let keepalive = match (spec.http2, spec.keepalive) {
        (true, _) => format!("HTTP/2, {} streams each", spec.streams),
        (false, true) => "keep-alive".into(),
        (false, false) => "a new connection per request".into(),
    };
    format!(
        "capacity search: {} with {} connections, {keepalive}, for the highest rate that \
         meets {} (steps from {}/s, each {} measured after {} of warm-up)",
        spec.url,
        spec.connections,
        asked.objectives,
        grouped(asked.plan.start),
        engine::format_duration(asked.plan.step),
        engine::format_duration(asked.plan.warmup),
    )
}

/// The answer as the last lines of the text output: the capacity, and the step at it.
pub fn summary_text(searched: &Searched) -> String {
    let c = &searched.capacity;
    let mut text = format!("\n{}\n", c.summary());
    if let Some(step) = c.at_capacity() {
        let l = &step.latency_us;
        let ms = shootout::units::micros;
        text += &format!(
            "at {}/s: p50 {}, p90 {}, p99 {}, p99.9 {}, max {} ({} steps)\n",
            grouped(step.rate),
            ms(l.p50),
            ms(l.p90),
            ms(l.p99),
            ms(l.p999),
            ms(l.max),
            c.steps.len()
        );
    }
    text
}

/// The load result kept beside the search: the step at capacity's, else the first's.
pub fn kept_result(searched: &Searched) -> Option<&LoadResult> {
    let c = &searched.capacity;
    let at = c.at_capacity().map(|s| s.rate);
    let index = at.and_then(|rate| c.steps.iter().position(|s| s.rate == rate));
    searched.results.get(index.unwrap_or(0))
}

/// Writes `--out` and `--save` for a search (a search with no step keeps nothing).
pub fn keep(searched: &Searched, destinations: Destinations) -> anyhow::Result<Option<String>> {
    match kept_result(searched) {
        Some(result) => destinations.write_with(result, Some(&searched.capacity)),
        None => Ok(None),
    }
}

/// Judges capacity thresholds on the answer and prints them; true when all held.
pub fn judge_thresholds(c: &CapacityResult, thresholds: &[Threshold], json: bool) -> bool {
    if thresholds.is_empty() {
        return true;
    }
    let judged: Vec<Judgement> = thresholds
        .iter()
        .map(|t| Judgement::of(t, c.answer.rate(), "no step met the objectives"))
        .collect();
    let text = shootout::report::thresholds::load_text(&judged);
    match json {
        true => eprint!("\n{text}"),
        false => print!("\n{text}"),
    }
    judged.iter().all(Judgement::held)
}
