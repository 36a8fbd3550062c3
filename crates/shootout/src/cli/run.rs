//! `shootout run [EXPERIMENT]`: an experiment end to end, with a table at the end.

use super::catalog::Folders;
use super::{interrupt, WorkFailed, EXIT_INTERRUPTED};
use anyhow::{bail, Context};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use shootout::harness::catalog::{self, Catalog, Status};
use shootout::harness::experiment::{self, Experiment, MatrixCell, Repeats, Stop};
use shootout::harness::host_noise;
use shootout::harness::idle::Quiet;
use shootout::harness::machine_lock::{self, Holder, LockError, MachineLock};
use shootout::harness::manifest::{Contestant, Origin};
use shootout::harness::places;
use shootout::harness::run::{self, Event};
use shootout::harness::setup_all;
use shootout::harness::started_servers::{self, Leftover};
use shootout::harness::verify::Check;
use shootout::record::{HostNoise, Label, LoadKind, Machine, RunRecord, VerifyLevel};
use shootout::report::document::Document;
use shootout::report::experiment::leaders;
use shootout::report::experiment::summary::Summary;
use shootout::report::experiment::{cells, convergence, unverified};
use shootout::report::page::html;
use shootout::store::{Ending, Store};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Flags of `shootout run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// An experiment file, or a name in experiments/ [default: quick]
    experiment: Option<String>,
    /// Set up contestants that are not ready first (otherwise they are skipped)
    #[arg(long)]
    setup: bool,
    /// Seed of the run order's shuffles [default: from the clock; recorded]
    #[arg(long)]
    seed: Option<u64>,
    /// Apply a profile of the experiment file, e.g. `full` (the article's own parameters)
    #[arg(long)]
    profile: Option<String>,
    /// When another `shootout run` holds the machine, wait for it instead of exiting (2)
    #[arg(long)]
    wait: bool,
    /// Start no round after this much time, e.g. `10m` (the round in progress finishes)
    #[arg(long, value_parser = engine::parse_duration)]
    budget: Option<Duration>,
    /// Runs that may be made up when runs do not count (disturbed, the generator
    /// saturated or late); 0 turns make-ups off [default: the experiment's [make_up]
    /// runs, else half the planned runs]
    #[arg(long, value_name = "RUNS")]
    make_up_runs: Option<usize>,
    /// How long after the planned rounds a make-up round may start, e.g. `2m` [default:
    /// the experiment's [make_up] time, else a third of the planned rounds' time]
    #[arg(long, value_name = "TIME", value_parser = engine::parse_duration)]
    make_up_time: Option<Duration>,
    /// With ssh: generators, copy this binary to each host before each load (else each
    /// host runs the shootout on its PATH, which must be this version)
    #[arg(long)]
    push: bool,
    #[command(flatten)]
    folders: Folders,
}

/// What `shootout run` exits with, for `--help`.
pub const EXIT_CODES: &str = "Exit status:
  0    the experiment ran, some run was valid, and every [thresholds] entry held
  1    no run was valid (nothing measured a server; the tables say why), or the
       work failed (e.g. the results store could not be written)
  2    bad input: a flag, the experiment file (a field, a threshold, an unknown
       contestant), or another shootout run holds the machine; nothing started
  99   a threshold of [thresholds] was crossed: a table at the end says which,
       where and by how much
  130  stopped by Ctrl-C, SIGTERM or SIGHUP; what ran is stored
Tables, store and report page come first whatever the status; when more than
one applies, the first of 130, 1, 99 is the exit status.";

/// Runs the experiment: the exit code by [`EXIT_CODES`].
pub fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    let checkout = places::checkout().context("run")?;
    let results = places::results_of(checkout.as_deref()).context("run")?;
    let name = args.experiment.as_deref().unwrap_or("quick");
    let path = experiment_path(checkout.as_deref(), name)?;
    let mut exp = experiment::read(&path, args.profile.as_deref()).context("experiment")?;
    exp.make_up.runs = args.make_up_runs.or(exp.make_up.runs);
    exp.make_up.time = args.make_up_time.or(exp.make_up.time);
    let cat = gather(&exp, checkout.as_deref(), &args.folders, &results)?;
    let mut lock = match take_machine(&exp.name, args.wait) {
        Err(LockError::Interrupted) => return Ok(ExitCode::from(EXIT_INTERRUPTED)),
        taken => taken?,
    };
    stop_leftovers();
    set_up(&exp, &cat, args.setup);
    say_running(&exp, &cat);
    let seed = args.seed.or(exp.seed).unwrap_or_else(clock_seed);
    let db_path = results.join("shootout.db");
    let definition = std::fs::read_to_string(&path).unwrap_or_default();
    // Outside a checkout, the commit of the experiment's folder: the user's own
    // repository, when it is one.
    let commit_of = checkout.clone().unwrap_or_else(|| folder_of(&path));
    interrupt::install();
    let noise = host_noise::measure(host_noise::WATCH, &interrupt::INTERRUPTED);
    let machine = Machine {
        idle: Some(noise),
        ..Machine::here(&commit_of)
    };
    let stored = Store::open(&db_path).and_then(|mut s| {
        let id = s.begin(&exp.name, seed, &definition, &machine)?;
        Ok((s, id))
    });
    let (mut store, id) =
        stored.map_err(|e| WorkFailed(anyhow::Error::new(e).context("results store")))?;
    name_holder(&mut lock, &exp.name, Some((&db_path, id)));
    let about = match exp.description.is_empty() {
        true => String::new(),
        false => format!("{} ", exp.description),
    };
    println!(
        "experiment {}: {about}({}), seed {seed}",
        exp.name,
        path.display()
    );
    println!("{}", noise.line());
    for line in noise_warnings(&noise, &exp) {
        println!("{line}");
    }
    let (runs, out_of_budget) = run_with_progress(&exp, &cat, seed, &args, &mut store, id);
    let ending = match interrupt::requested() {
        true => Ending::Interrupted,
        false => Ending::Complete,
    };
    if let Err(e) = store.end(id, ending) {
        eprintln!("error: recording the end of experiment {id}: {e}");
    }
    cells::print_tables(&runs);
    for line in unverified::lines(&runs) {
        println!("{line}");
    }
    print_convergence(&exp, &runs, out_of_budget);
    println!("\n{}", Summary::of(&runs).line());
    for finding in leaders::all(&runs) {
        println!("{}", finding.line());
    }
    println!(
        "\nstored as experiment {id} in {} (shootout results {id}; shootout export {id})",
        db_path.display()
    );
    let page = results.join(format!("{}-{id}.html", exp.name.replace(':', "-")));
    match write_page(&store, id, &page) {
        Ok(()) => println!("report: {} (shootout report {id})", page.display()),
        Err(e) => eprintln!("error: report page {}: {e:#}", page.display()),
    }
    Ok(exit_status(&exp, &runs))
}

/// After the tables, the store and the page: the thresholds judged, and a line when no
/// run was valid; the exit code (interrupted 130, none valid 1, a threshold crossed 99,
/// else 0).
fn exit_status(exp: &Experiment, runs: &[RunRecord]) -> ExitCode {
    let held = judge_thresholds(exp, runs);
    let valid = runs.iter().any(|r| r.label() == Label::Ok);
    if !valid {
        let s = if runs.len() == 1 { "" } else { "s" };
        eprintln!(
            "no run was valid ({} run{s}, none ok; the tables above say why)",
            runs.len()
        );
    }
    super::ending(valid, held)
}

/// Judges the experiment's `[thresholds]` per contestant and cell and prints what they
/// came to; true when every one held (or there are none).
fn judge_thresholds(exp: &Experiment, runs: &[RunRecord]) -> bool {
    if exp.gates.is_empty() {
        return true;
    }
    let judged = exp.gates.judge(runs);
    print!(
        "\n{}",
        shootout::report::thresholds::experiment_text(&judged)
    );
    judged.iter().all(|c| c.judgement.held())
}

/// The contestants `exp` may name: the checkout's, those of `folders`, and its own
/// inline ones (built under `results`), every one it names known. Servers already
/// running are found now: before anything starts.
fn gather(
    exp: &Experiment,
    checkout: Option<&Path>,
    folders: &Folders,
    results: &Path,
) -> anyhow::Result<Catalog> {
    let builds = places::builds(results);
    let mut cat = Catalog::gather(checkout, &folders.all()?, &builds).context("contestants")?;
    let inline = exp.inline_contestants(&builds).context("experiment")?;
    cat.add(inline).context("contestants")?;
    exp.check_contestants(&cat, &exp.file)
        .context("experiment")?;
    Ok(cat)
}

/// Says of each server already running that shootout neither starts, stops nor pins it,
/// and whose CPU it counts as the server's.
fn say_running(exp: &Experiment, cat: &Catalog) {
    for c in exp.contestants.iter().filter_map(|n| cat.get(n).ok()) {
        let Some(r) = &c.running else { continue };
        let cpu = match r.pid {
            Some(pid) => format!("its CPU and memory: the process tree of pid {pid}"),
            None => "no pid or process given: its CPU and memory cannot be attributed \
                     (shown as unknown) and foreign CPU is not judged"
                .into(),
        };
        println!(
            "{}: already running at {}: not started, stopped or pinned by shootout (the \
             generator is pinned by the layout); {cpu}",
            c.name(),
            r.url
        );
    }
}

/// The folder a file is in ("." for a bare file name).
fn folder_of(file: &Path) -> PathBuf {
    match file.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// The machine lock, named after this run of `experiment`: at once, or, with `wait`,
/// once its holder lets go (Ctrl-C ends the wait).
fn take_machine(experiment: &str, wait: bool) -> Result<MachineLock, LockError> {
    let path = machine_lock::path();
    let mut lock = match wait {
        false => MachineLock::take(&path)?,
        true => {
            interrupt::install();
            MachineLock::take_waiting(&path, &interrupt::INTERRUPTED, |busy| {
                if let LockError::Held {
                    holder: Some(h), ..
                } = busy
                {
                    eprintln!("waiting for the machine: {h}");
                }
            })?
        }
    };
    name_holder(&mut lock, experiment, None);
    Ok(lock)
}

/// Writes who holds the lock into it: this process, `experiment`, and once stored, its
/// store and id (which tell `shootout results` that it is running, not dead).
fn name_holder(lock: &mut MachineLock, experiment: &str, stored: Option<(&Path, i64)>) {
    let mut me = Holder::me(experiment);
    if let Some((db, id)) = stored {
        me.store = Some(std::fs::canonicalize(db).unwrap_or_else(|_| db.to_path_buf()));
        me.experiment_id = Some(id);
    }
    // Best effort: a lock file of another user's is read-only; the lock holds all the same.
    let _ = lock.publish(&me);
}

/// Stops what harnesses that died left running, and says so in one line.
fn stop_leftovers() {
    match started_servers::stop_leftovers(&started_servers::path()) {
        Ok(stopped) if stopped.is_empty() => {}
        Ok(stopped) => println!(
            "stopped what a harness that died left running: {}",
            stopped
                .iter()
                .map(describe_leftover)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Err(e) => eprintln!(
            "error: servers left by a harness that died: {}: {e}",
            started_servers::path().display()
        ),
    }
}

fn describe_leftover(l: &Leftover) -> String {
    let s = if l.processes == 1 { "" } else { "es" };
    format!(
        "group {} ({} process{s}, started by pid {})",
        l.server.group, l.processes, l.server.harness.pid
    )
}

/// Runs the experiment under a progress bar, storing each run as it ends; the runs, and
/// the rounds run when the budget stopped them.
fn run_with_progress(
    exp: &Experiment,
    cat: &Catalog,
    seed: u64,
    args: &RunArgs,
    store: &mut Store,
    id: i64,
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
            Event::Verified(name, level, checks) => say(verified_line(name, level, checks)),
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

/// What the host's noise at idle means for this experiment's verdicts, said before the
/// first run: nothing on a quiet host.
fn noise_warnings(noise: &HostNoise, exp: &Experiment) -> Vec<String> {
    let limits = exp.thresholds.strictest();
    let wait = exp.thresholds.wait;
    let mut out = Vec::new();
    if noise.steal > limits.steal {
        out.push(format!(
            "warning: the hypervisor steals {:.0}% of the cores at idle, above the {:.0}% that \
             disturbs a run: expect many runs to be made up ({}) or marked. For figures that \
             hold: a quieter host or hour, longer runs (duration), more repeats, or the \
             generator on another machine (--generators ssh:...)",
            noise.steal * 100.0,
            limits.steal * 100.0,
            exp.make_up.describe(exp.run_count()),
        ));
    }
    if noise.busy > limits.foreign {
        out.push(format!(
            "warning: other work keeps {:.0}% of the cores busy before the first run (over the \
             {:.0}% that disturbs a run): rounds wait up to {:.0} s for a quiet machine; stop it \
             if you can",
            noise.busy * 100.0,
            limits.foreign * 100.0,
            wait.as_secs_f64()
        ));
    }
    out
}

/// What the check for a quiet machine before a round found, in one line.
fn busy_line(round: usize, quiet: &Quiet) -> String {
    let before = format!("before round {}", round + 1);
    match quiet {
        Quiet::Now => format!("{before}: the machine is quiet"),
        Quiet::After(d) => format!(
            "{before}: waited {:.1} s for a quiet machine",
            d.as_secs_f64()
        ),
        Quiet::Busy(share) => format!(
            "{before}: the machine stayed busy ({:.0}% of the cores, other work); running anyway, \
             and the runs it disturbs are labelled disturbed",
            share * 100.0
        ),
    }
}

/// How a contestant was verified, in one line: the level and the checks it passed, or
/// the ones it failed.
fn verified_line(name: &str, level: VerifyLevel, checks: &[Check]) -> String {
    if level == VerifyLevel::None {
        return format!("{name}: not verified (verify = \"none\"): its results carry a warning");
    }
    let failed: Vec<String> = (checks.iter().filter(|k| !k.passed))
        .map(|k| format!("{}: {}", k.name, k.detail))
        .collect();
    if !failed.is_empty() {
        return format!(
            "{name}: failed verification at level {}: {}",
            level.word(),
            failed.join("; ")
        );
    }
    let passed: Vec<String> = (checks.iter())
        .map(|k| match k.flagged {
            true => format!("{} (flagged: {})", k.name, k.detail),
            false => k.name.clone(),
        })
        .collect();
    format!(
        "{name}: verified at level {} ({}): {}",
        level.word(),
        level.meaning(),
        passed.join(", ")
    )
}

/// After the tables: that the budget stopped the rounds, and for an experiment that
/// repeats until sure, the cells that did not converge.
fn print_convergence(exp: &Experiment, runs: &[RunRecord], out_of_budget: Option<usize>) {
    let spent = out_of_budget
        .map(|rounds| format!("the budget was spent after round {rounds}: no round started since"));
    let lines: Vec<String> = spent
        .into_iter()
        .chain(convergence::lines(runs, &exp.repeats))
        .collect();
    if !lines.is_empty() {
        println!("{}", lines.join("\n"));
    }
}

/// The experiment's web page, as `shootout report ID --html PAGE` writes it.
fn write_page(store: &Store, id: i64, page: &Path) -> anyhow::Result<()> {
    let doc = Document::load(store, &id.to_string())?;
    std::fs::write(page, html::page(&[doc]))?;
    Ok(())
}

/// An experiment file, or the checkout's `experiments/NAME.toml`.
fn experiment_path(checkout: Option<&Path>, name: &str) -> anyhow::Result<PathBuf> {
    let p = PathBuf::from(name);
    match checkout {
        _ if p.is_file() => Ok(p),
        Some(root) => Ok(root.join("experiments").join(format!("{name}.toml"))),
        None => bail!(
            "experiment {name:?}: no such file, and no checkout with experiments/ here: point \
             at one with --root DIR or SHOOTOUT_ROOT"
        ),
    }
}

fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| d.as_nanos() as u64)
}

/// Sets up the experiment's contestants that need it: every one with `--setup`, else
/// those from outside the checkout (the user's own: inline or from a folder, which a run
/// should not need a separate step for); all at once (harness::setup_all). Failures are
/// one line each.
fn set_up(exp: &Experiment, cat: &Catalog, all: bool) {
    let chosen: Vec<&Contestant> = (exp.contestants.iter())
        .filter_map(|name| cat.get(name).ok())
        .filter(|c| all || c.origin != Origin::Checkout)
        .filter(|c| matches!(catalog::status(c), Status::NeedsSetup(_)))
        .collect();
    setup_all::set_up_all(&chosen, &|o| match &o.result {
        Ok(()) => println!(
            "{}: set up ({:.1}s)",
            o.contestant.name(),
            o.took.as_secs_f64()
        ),
        Err(e) => eprintln!("error: {}: setup: {e}", o.contestant.name()),
    });
}

/// A bar with the runs done, the time left, the current run and its live requests/s
/// (drawn only on a terminal). Its length is the runs known to come; when the experiment
/// repeats until sure it grows with the rounds and says how far it may go.
fn progress_bar(exp: &Experiment) -> ProgressBar {
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
fn describe(name: &str, cell: &MatrixCell) -> String {
    let level = match &cell.kind {
        LoadKind::Rate { schedule } => format!("rate {schedule}"),
        _ => format!("c={}", cell.connections),
    };
    format!("{name} /{} {} {level}", cell.endpoint.name, cell.load.name)
}

/// Shows the responses/s of the last half second on the bar until `running` is cleared.
fn show_live_rate(bar: &ProgressBar, live: &engine::Live, running: &AtomicBool) {
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
fn progress(r: &RunRecord, done: usize, total: usize) -> String {
    let c = &r.cell;
    let make_up = if r.make_up { " (make-up)" } else { "" };
    let what = format!(
        "[{done}/{total}] {} /{} {} {} c={} #{}{make_up}",
        c.contestant,
        c.endpoint,
        c.layout,
        c.load,
        c.connections,
        c.repeat + 1
    );
    let unknown = r.verdict().and_then(|v| v.unattributed.as_deref());
    match (r.result(), r.label()) {
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
        (None, label) => format!("{what}: {}: {}", label.word(), r.reason()),
    }
}
