//! A capacity cell's run: its server started (or found running) and verified once, then a
//! search ([`crate::capacity::run`]) of fixed-rate open-loop steps, each loaded by the
//! cell's generators while a monitor watches the server, so that every step carries the
//! server's CPU per response. Before each step but the first, the search waits for the
//! server to drain the step before: its CPU back near its use at rest ([`CpuAtRest`]),
//! then a probe answered at the unloaded latency (both read before the first step). Every step's load result is kept until the search ends: the
//! run's result is the one at capacity. A server that exits, a step that cannot run, or
//! Ctrl-C ends the search with what it measured so far.

use super::cpu_at_rest::CpuAtRest;
use super::failure::RunFailure;
use super::judge;
use super::measure::{load_spec, watched_load, Measurement, Ready};
use super::{Controls, Event, Runner};
use crate::capacity::drain::Signal;
use crate::capacity::{self, Drain, Probe, StepFailed, StepLoad, StepMeasure};
use crate::contestant::manifest::Contestant;
use crate::experiment::{verdict, CapacityLoad, MatrixCell};
use crate::model::capacity::{CapacityResult, Ending};
use crate::model::{Label, Outcome, Point, Verdict};
use engine::{LoadResult, Pace, RateSchedule};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

impl<F: FnMut(Event)> Runner<'_, F> {
    /// The search of `cell` on `c`'s server (`name` in the steps' events), each step shown
    /// as it is judged. A failure before the first step (start, verify, the load's spec) is
    /// returned; one during the search ends it, and its measurement keeps the steps so far.
    pub(super) fn search(
        &mut self,
        name: &str,
        c: &Contestant,
        cell: &MatrixCell,
        search: &CapacityLoad,
    ) -> Result<Measurement, RunFailure> {
        let mut ready = self.ready(c, cell)?;
        // Every step's spec is this one at another rate: a mistake shows before the first.
        let (_, config) = load_spec(cell, &ready)?;
        let (controls, on_event) = (self.controls, &mut self.on_event);
        let mut drain = Drain::new(at_rest(&ready, &config), controls.interrupt);
        let mut steps = Steps::new();
        let mut number = 0;
        let found = capacity::run(
            &search.plan,
            &search.objectives,
            &mut drain,
            |load| steps.run(cell, load, &mut ready, controls),
            |step| {
                number += 1;
                on_event(Event::Step(name, cell, number, step));
            },
        );
        ready.watched.stop();
        Ok(steps.measurement(cell, found, &ready, controls.interrupt))
    }
}

/// What says the server of `ready` is still busy between steps, read at rest now: its CPU
/// when its processes are known, and a probe of the load `config` when one answers (a
/// server that does not answer a lone request fails the search's first step anyway).
fn at_rest(ready: &Ready, config: &engine::LoadConfig) -> Vec<Box<dyn Signal>> {
    let mut signals: Vec<Box<dyn Signal>> = Vec::new();
    if let Some(cpu) = CpuAtRest::new(ready.watched.members()) {
        signals.push(Box::new(cpu));
    }
    if let Ok(probe) = Probe::new(config) {
        signals.push(Box::new(probe));
    }
    signals
}

/// Why a search ended before its plan did.
enum Cut {
    /// Ctrl-C, between steps.
    Interrupted,
    /// A step could not run, or the server exited during it.
    Failed(RunFailure),
}

/// What the search's steps measured, beside the steps it judged (one each, in order):
/// each step's load result and server CPU seconds, and the server watched over them all.
struct Steps {
    results: Vec<LoadResult>,
    server_cpu_s: Vec<f64>,
    /// Every step's samples, their times from the search's start.
    series: Vec<Point>,
    load_s: f64,
    t0: Instant,
}

impl Steps {
    fn new() -> Steps {
        Steps {
            results: Vec::new(),
            server_cpu_s: Vec::new(),
            series: Vec::new(),
            load_s: 0.0,
            t0: Instant::now(),
        }
    }

    /// Runs one step: an open loop at its rate, the server watched; its measure, or why
    /// the search ends here.
    fn run(
        &mut self,
        cell: &MatrixCell,
        load: StepLoad,
        ready: &mut Ready,
        controls: &Controls,
    ) -> Result<StepMeasure, Cut> {
        if controls.interrupt.load(Ordering::Relaxed) {
            return Err(Cut::Interrupted);
        }
        let step = step_cell(cell, load);
        let (spec, config) = load_spec(&step, ready).map_err(|e| Cut::Failed(e.into()))?;
        let started = self.t0.elapsed();
        let w = watched_load(&step, (&spec, &config), ready, controls);
        self.load_s += w.load_s;
        let (cpu_s, _) = judge::server_usage(&w.series, load.warmup);
        self.keep(w.series, started);
        if !ready.watched.alive() {
            let exited = RunFailure::ServerExited { rate: load.rate };
            return Err(Cut::Failed(exited));
        }
        let result = w.result.map_err(Cut::Failed)?;
        self.results.push(result.clone());
        self.server_cpu_s.push(cpu_s);
        let attributed = ready.watched.unattributed().is_none();
        Ok(StepMeasure {
            result,
            server_cpu_s: attributed.then_some(cpu_s),
        })
    }

    /// A step's samples, moved to the search's time (they start at the step's start).
    fn keep(&mut self, series: Vec<Point>, started: Duration) {
        let offset = started.as_millis() as u64;
        let moved = series.into_iter().map(|p| Point {
            t_ms: p.t_ms + offset,
            ..p
        });
        self.series.extend(moved);
    }

    /// The run's measurement: the search as found (or as far as it went), the load result
    /// and server CPU of the step at capacity, the whole search's series and its verdict.
    fn measurement(
        mut self,
        cell: &MatrixCell,
        found: Result<CapacityResult, StepFailed<Cut>>,
        ready: &Ready,
        interrupt: &AtomicBool,
    ) -> Measurement {
        let (search, cut) = match found {
            Ok(search) => (search, None),
            Err(StepFailed { error, so_far }) => (*so_far, Some(error)),
        };
        let steps = search.steps.len();
        let Some(i) = kept_step(&search) else {
            let (label, reason) = cut_short(cut.as_ref(), steps)
                .unwrap_or((Label::Interrupted, "the search ran no step".into()));
            return self.into_measurement(Outcome::NotRun { label, reason }, 0.0, None);
        };
        let v = self.verdict(cell, ready.watched.unattributed());
        let ended = (&search.ending, interrupt.load(Ordering::Relaxed));
        let (label, reason) = cut_short(cut.as_ref(), steps)
            .or_else(|| interrupted(ended, steps))
            .unwrap_or_else(|| judged(&v));
        let outcome = Outcome::Measured {
            label,
            reason,
            result: Box::new(self.results.swap_remove(i)),
            verdict: Some(v),
        };
        let server_cpu_s = self.server_cpu_s[i];
        self.into_measurement(outcome, server_cpu_s, Some(search))
    }

    /// What the whole search's CPU says of it. The generator was judged step by step (a
    /// step it could not keep ends the search with a bound, which the answer says): one
    /// step's own flag is not the search's.
    fn verdict(&self, cell: &MatrixCell, unattributed: Option<String>) -> Verdict {
        let limits = cell.verdict_policy.limits(&cell.kind);
        let (warmup, layout) = (cell.warmup, &cell.layout);
        verdict::judge(&self.series, warmup, layout, false, &limits, unattributed)
    }

    /// The measurement of `outcome`, with the server's CPU seconds of the step kept and
    /// its peak memory over the whole search (unknown when its CPU cannot be told apart).
    fn into_measurement(
        self,
        outcome: Outcome,
        server_cpu_s: f64,
        capacity: Option<CapacityResult>,
    ) -> Measurement {
        let unattributed = outcome.verdict().is_some_and(|v| v.unattributed.is_some());
        let peak_rss_kb = match unattributed {
            false => judge::server_usage(&self.series, Duration::ZERO).1,
            true => 0,
        };
        Measurement {
            outcome,
            series: self.series,
            server_cpu_s,
            peak_rss_kb,
            load_s: self.load_s,
            capacity,
        }
    }
}

/// `cell` as one step of its search runs it: an open loop at the step's rate, for the
/// step's warm-up and measured time.
fn step_cell(cell: &MatrixCell, load: StepLoad) -> MatrixCell {
    MatrixCell {
        pace: Pace::Open(RateSchedule::constant(load.rate)),
        warmup: load.warmup,
        measured: load.measured,
        ..cell.clone()
    }
}

/// The step whose load result the run keeps: the one at capacity, else (no step met) the
/// lowest rate's; None without steps.
fn kept_step(search: &CapacityResult) -> Option<usize> {
    let steps = &search.steps;
    let at = (search.at_capacity()).and_then(|at| steps.iter().position(|s| std::ptr::eq(s, at)));
    at.or_else(|| (0..steps.len()).min_by(|&a, &b| steps[a].rate.total_cmp(&steps[b].rate)))
}

/// The label and reason of a search cut short after `steps` steps, when it was.
fn cut_short(cut: Option<&Cut>, steps: usize) -> Option<(Label, String)> {
    match cut? {
        Cut::Interrupted => Some((Label::Interrupted, ctrl_c(steps))),
        Cut::Failed(f) => Some((f.label(), format!("{f} (step {})", steps + 1))),
    }
}

/// Interrupted, when a step's load was (Ctrl-C during it) or Ctrl-C came since.
fn interrupted((ending, ctrl_c_now): (&Ending, bool), steps: usize) -> Option<(Label, String)> {
    (*ending == Ending::Interrupted || ctrl_c_now).then(|| (Label::Interrupted, ctrl_c(steps)))
}

fn ctrl_c(steps: usize) -> String {
    format!("stopped by Ctrl-C after {steps} steps")
}

/// What the whole search's CPU says: disturbed, or ok (a bound is ok too: its answer says
/// that it is one, and why).
fn judged(v: &Verdict) -> (Label, String) {
    match &v.disturbed {
        Some(why) => (Label::Disturbed, why.clone()),
        None => (Label::Ok, String::new()),
    }
}
