//! The experiment running under a progress bar, each run stored as it ends.

use super::super::interrupt;
use super::lines::{busy_line, verified_line};
use super::RunArgs;
use indicatif::{ProgressBar, ProgressStyle};
use shootout::contestant::catalog::Catalog;
use shootout::experiment::run::{self, Event};
use shootout::experiment::{Experiment, MatrixCell, Repeats, Stop};
use shootout::model::capacity::Step;
use shootout::model::{ExperimentId, Label, LoadKind, RunRecord};
use shootout::store::Store;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Runs the experiment under a progress bar, storing each run as it ends; the runs, and
/// the rounds run when the budget stopped them.
pub(super) fn run_with_progress(
    exp: &Experiment,
    cat: &Catalog,
    seed: u64,
    args: &RunArgs,
    store: &mut Store,
    id: ExperimentId,
) -> (Vec<RunRecord>, Option<usize>) {
    let bar = progress_bar(exp);
    let live = engine::Live::new();
    let controls = run::Controls {
        interrupt: &interrupt::INTERRUPTED,
        live: &live,
        budget: args.budget,
        push: args.push,
    };
    let mut out_of_budget = None;
    let running = AtomicBool::new(true);
    let runs = std::thread::scope(|scope| {
        scope.spawn(|| show_live_rate(&bar, &live, &running));
        // On this, the main thread, which lives as long as the run: servers are started
        // from the thread that runs the experiment, and their parent-death signal fires
        // when that thread ends (see `Server::start`).
        // Without a terminal the bar is hidden, and so would be its lines.
        let say = |line: String| match bar.is_hidden() {
            true => println!("{line}"),
            false => bar.println(line),
        };
        let runs = run::run(exp, cat, seed, &controls, |event| match event {
            Event::Started(name, cell) => bar.set_prefix(describe(name, cell)),
            Event::Busy(round, quiet) => say(busy_line(round, &quiet)),
            Event::Database(line) => say(line.to_string()),
            Event::Verified(name, level, checks) => say(verified_line(name, level, checks)),
            Event::Step(name, cell, number, step) => say(step_line(name, cell, number, step)),
            Event::Finished(r, done, total) => {
                say(progress(r, done, total));
                bar.set_length(total as u64);
                bar.set_position(done as u64);
                // Each run is stored as it ends: an interruption loses nothing measured.
                if let Err(e) = store.add_run(id, r) {
                    eprintln!("error: storing run {done}: {e}");
                }
            }
            Event::Stopped(Stop::OutOfBudget, rounds) => out_of_budget = Some(rounds),
            Event::Stopped(..) => {}
        });
        running.store(false, Ordering::Relaxed);
        runs
    });
    bar.finish_and_clear();
    (runs, out_of_budget)
}

/// A bar with the runs done, the time left, the current run and its live requests/s
/// (drawn only on a terminal). Its length is the runs known to come; when the experiment
/// repeats until sure it grows with the rounds and says how far it may go.
pub(super) fn progress_bar(exp: &Experiment) -> ProgressBar {
    let bar = ProgressBar::new(exp.run_count() as u64);
    let most = match exp.repeats {
        Repeats::Fixed(_) => String::new(),
        Repeats::UntilSure(_) => format!(" (up to {})", exp.most_runs()),
    };
    let template = format!(
        "{{bar:24}} {{pos}}/{{len}} runs{most}, {{elapsed}} spent, about {{eta}} left | {{prefix}} {{msg}}"
    );
    if let Ok(style) = ProgressStyle::with_template(&template) {
        bar.set_style(style);
    }
    bar
}

/// The run that is starting, as the progress bar names it.
pub(super) fn describe(name: &str, cell: &MatrixCell) -> String {
    let level = match &cell.kind {
        LoadKind::Rate { schedule } => format!("rate {schedule}"),
        _ => format!("c={}", cell.connections),
    };
    let streams = (cell.streams).map_or(String::new(), |n| format!(" streams={n}"));
    format!(
        "{name} /{} {} {level}{streams}",
        cell.endpoint.name, cell.load.name
    )
}

/// One line about a capacity search's step, as it is judged: `  nginx-static capacity
/// keep-alive step 5: 16,000/s for 1.0s: answered 16,000/s, p99 1.20ms, errors 0.00%:
/// meets`.
pub(super) fn step_line(name: &str, cell: &MatrixCell, number: usize, step: &Step) -> String {
    let load = &cell.load.name;
    format!("  {name} capacity {load} step {number}: {}", step.line())
}

/// Shows the responses/s of the last half second on the bar until `running` is cleared.
pub(super) fn show_live_rate(bar: &ProgressBar, live: &engine::Live, running: &AtomicBool) {
    let (mut t0, mut n0) = (Instant::now(), live.responses());
    // Bounded by `running`, which is cleared as soon as the experiment ends.
    while running.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(500));
        let (t, n) = (Instant::now(), live.responses());
        let rate = (n - n0) as f64 / (t - t0).as_secs_f64().max(1e-3);
        bar.set_message(format!("{rate:.0} req/s"));
        (t0, n0) = (t, n);
    }
}

/// One line about a finished run.
pub(super) fn progress(r: &RunRecord, done: usize, total: usize) -> String {
    let c = &r.coordinates;
    let make_up = if r.make_up { " (make-up)" } else { "" };
    let what = format!(
        "[{done}/{total}] {} /{} {} {} c={}{} #{}{make_up}",
        c.contestant,
        c.endpoint,
        c.layout,
        c.load,
        c.connections,
        c.streams_text(),
        c.repeat + 1
    );
    let unknown = r.verdict().and_then(|v| v.unattributed.as_deref());
    if let Some(search) = &r.capacity {
        // A search cut short says why in its label: its answer's own reason would not.
        let (said, reason) = (search.summary(), r.reason());
        return match r.label() {
            Label::Ok => format!("{what}: {said}"),
            Label::Disturbed => format!("{what}: {said} (disturbed: {reason})"),
            label => format!(
                "{what}: {} ({}: {reason})",
                search.answer.short(),
                label.word()
            ),
        };
    }
    // With a database, what bound the run among the three sides.
    let bound =
        (r.verdict().and_then(|v| v.bound_line())).map_or(String::new(), |b| format!("; {b}"));
    let said = match (r.result(), r.label()) {
        (Some(res), Label::Ok) => match unknown {
            None => format!("{what}: {:.0} req/s", res.rps),
            Some(why) => format!("{what}: {:.0} req/s (server CPU unknown: {why})", res.rps),
        },
        (Some(res), label) => format!(
            "{what}: {:.0} req/s ({}: {})",
            res.rps,
            label.word(),
            r.reason()
        ),
        (None, label) => return format!("{what}: {}: {}", label.word(), r.reason()),
    };
    format!("{said}{bound}")
}
