//! `shootout run [EXPERIMENT]`: an experiment end to end, with a table at the end.

mod lines;
mod machine;
mod not_set_up;
mod progress;

use super::catalog::Folders;
use super::{interrupt, WorkFailed, EXIT_INTERRUPTED};
use anyhow::{bail, Context};
use clap::Args;
use shootout::contestant::catalog::{self, Catalog, Status};
use shootout::contestant::locations;
use shootout::contestant::manifest::{Contestant, Origin};
use shootout::contestant::setup_all;
use shootout::experiment::{self, Experiment};
use shootout::machine::host_noise;
use shootout::machine::machine_lock::LockError;
use shootout::model::{ExperimentId, Label, Machine, RunRecord};
use shootout::report::declared;
use shootout::report::document::Document;
use shootout::report::experiment::leaders;
use shootout::report::experiment::summary::Summary;
use shootout::report::experiment::{cells, convergence, unverified};
use shootout::report::page::html;
use shootout::store::{Ending, NewExperiment, Plan, Store};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

/// Flags of `shootout run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// An experiment file, or a name in experiments/ [default: quick]
    experiment: Option<String>,
    /// Set up contestants that are not ready first (otherwise the run stops before it
    /// starts, naming them)
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
    /// How long a round waits for a quiet machine before it runs anyway, e.g. `5s`
    /// [default: the experiment's [verdict] wait, else 30s]
    #[arg(long, value_name = "TIME", value_parser = engine::parse_duration)]
    quiet_wait: Option<Duration>,
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
       contestant), contestants that are not set up (without --setup), or another
       shootout run holds the machine; nothing started
  99   a threshold of [thresholds] was crossed: a table at the end says which,
       where and by how much
  130  stopped by Ctrl-C, SIGTERM or SIGHUP; what ran is stored
Tables, store and report page come first whatever the status; when more than
one applies, the first of 130, 1, 99 is the exit status.";

/// Runs the experiment: the exit code by [`EXIT_CODES`].
pub fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    let checkout = locations::checkout().context("run")?;
    let results = locations::results_of(checkout.as_deref()).context("run")?;
    let name = args.experiment.as_deref().unwrap_or("quick");
    let path = experiment_path(checkout.as_deref(), name)?;
    let mut exp = experiment::read(&path, args.profile.as_deref()).context("experiment")?;
    exp.make_up.runs = args.make_up_runs.or(exp.make_up.runs);
    exp.make_up.time = args.make_up_time.or(exp.make_up.time);
    if let Some(wait) = args.quiet_wait {
        exp.verdict_policy.wait = wait;
    }
    let cat = gather(&exp, checkout.as_deref(), &args.folders, &results)?;
    refuse_not_set_up(&args, &exp, &cat)?;
    let mut lock = match machine::take_machine(&exp.name, args.wait) {
        Err(LockError::Interrupted) => return Ok(ExitCode::from(EXIT_INTERRUPTED)),
        taken => taken?,
    };
    machine::stop_leftovers();
    set_up(&exp, &cat, args.setup);
    say_running(&exp, &cat);
    let seed = args.seed.or(exp.seed).unwrap_or_else(clock_seed);
    let db_path = results.join("shootout.db");
    // Outside a checkout, the commit of the experiment's folder: the user's own
    // repository, when it is one.
    let commit_of = checkout.clone().unwrap_or_else(|| folder_of(&path));
    interrupt::install();
    let noise = host_noise::measure(host_noise::WATCH, &interrupt::INTERRUPTED);
    let machine = Machine {
        idle: Some(noise),
        ..Machine::here(&commit_of)
    };
    let plan = Plan::of(&exp, args.budget);
    let new = NewExperiment {
        name: &exp.name,
        seed,
        definition: &exp.text,
        plan: Some(&plan),
        machine: &machine,
    };
    let stored = Store::open(&db_path).and_then(|mut s| {
        let id = s.begin(&new)?;
        Ok((s, id))
    });
    let (mut store, id) =
        stored.map_err(|e| WorkFailed(anyhow::Error::new(e).context("results store")))?;
    machine::name_holder(&mut lock, &exp.name, Some((&db_path, id)));
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
    for line in lines::noise_warnings(&noise, &exp) {
        println!("{line}");
    }
    let (runs, out_of_budget) =
        progress::run_with_progress(&exp, &cat, seed, &args, &mut store, id);
    let ending = match interrupt::requested() {
        true => Ending::Interrupted,
        false => Ending::Complete,
    };
    if let Err(e) = store.end(id, ending) {
        eprintln!("error: recording the end of experiment {id}: {e}");
    }
    cells::print_tables(&runs);
    for t in declared::of_plan(&plan)
        .iter()
        .flat_map(|d| d.tables(&plan, &runs))
    {
        println!("\n{}", t.text());
    }
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
    if exp.thresholds.is_empty() {
        return true;
    }
    let judged = exp.thresholds.judge(runs);
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
    let builds = locations::builds(results);
    let mut cat = Catalog::gather(checkout, &folders.all()?, &builds).context("contestants")?;
    let inline = exp.inline_contestants(&builds).context("experiment")?;
    cat.add(inline).context("contestants")?;
    exp.check_contestants(&cat, &exp.file)
        .context("experiment")?;
    Ok(cat)
}

/// Unless `--setup` was given, an error (exit 2) when catalog contestants of `exp` are
/// not set up: one line each, and the commands that set them up.
fn refuse_not_set_up(args: &RunArgs, exp: &Experiment, cat: &Catalog) -> anyhow::Result<()> {
    if args.setup {
        return Ok(());
    }
    let name = args.experiment.as_deref().unwrap_or("quick");
    let profile = args.profile.iter().flat_map(|p| ["--profile", p.as_str()]);
    let given: Vec<&str> = std::iter::once(name).chain(profile).collect();
    match not_set_up::check(exp, cat, &given) {
        Some(lacking) => {
            Err(anyhow::Error::new(lacking).context(format!("experiment {}", exp.name)))
        }
        None => Ok(()),
    }
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
fn write_page(store: &Store, id: ExperimentId, page: &Path) -> anyhow::Result<()> {
    let doc = Document::of(store, store.experiment(id)?)?;
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
/// should not need a separate step for); all at once (contestant::setup_all). Failures are
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
