//! `shootout run [EXPERIMENT]`: an experiment end to end, with a table at the end.

use super::{interrupt, EXIT_INTERRUPTED};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use shootout::harness::catalog::{self, Catalog, Status};
use shootout::harness::experiment::{self, Experiment};
use shootout::harness::run::{self, Cell, Event, Label, Run};
use shootout::harness::setup;
use shootout::report::cells;
use shootout::report::document::Document;
use shootout::report::html;
use shootout::store::Store;
use std::path::{Path, PathBuf};
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
}

/// Runs the experiment; returns the exit code.
pub fn run(args: RunArgs) -> i32 {
    let root = match catalog::root() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: run: {e}");
            return 2;
        }
    };
    let path = experiment_path(&root, args.experiment.as_deref().unwrap_or("quick"));
    let exp = match experiment::read(&path, args.profile.as_deref()) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("error: experiment {e}");
            return 2;
        }
    };
    let cat = match Catalog::load(&root) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: contestants: {e}");
            return 2;
        }
    };
    if args.setup {
        set_up(&exp, &cat);
    }
    let seed = args.seed.or(exp.seed).unwrap_or_else(clock_seed);
    let db_path = root.join("results").join("shootout.db");
    let definition = std::fs::read_to_string(&path).unwrap_or_default();
    let stored = Store::open(&db_path).and_then(|mut s| {
        s.begin(&exp.name, seed, &definition, &machine(&root))
            .map(|id| (s, id))
    });
    let (mut store, id) = match stored {
        Ok(x) => x,
        Err(e) => {
            eprintln!("error: results store: {e}");
            return 1;
        }
    };
    interrupt::install();
    println!(
        "experiment {}: {} ({}), seed {seed}",
        exp.name,
        exp.description,
        path.display()
    );
    let bar = progress_bar(&exp);
    let live = engine::Live::new();
    let controls = run::Controls {
        interrupt: &interrupt::INTERRUPTED,
        live: &live,
    };
    let running = AtomicBool::new(true);
    let runs = std::thread::scope(|scope| {
        scope.spawn(|| show_live_rate(&bar, &live, &running));
        let runs = run::run(&exp, &cat, seed, &controls, |event| match event {
            Event::Started(name, cell) => bar.set_prefix(describe(name, cell)),
            Event::Finished(r, done, total) => {
                let line = progress(r, done, total);
                // Without a terminal the bar is hidden, and so would be its lines.
                if bar.is_hidden() {
                    println!("{line}");
                } else {
                    bar.println(line);
                }
                bar.set_position(done as u64);
                // Each run is stored as it ends: an interruption loses nothing measured.
                if let Err(e) = store.add_run(id, r) {
                    eprintln!("error: storing run {done}: {e}");
                }
            }
        });
        running.store(false, Ordering::Relaxed);
        runs
    });
    bar.finish_and_clear();
    cells::print_tables(&runs);
    println!(
        "\nstored as experiment {id} in {} (shootout results {id}; shootout export {id})",
        db_path.display()
    );
    let page = root
        .join("results")
        .join(format!("{}-{id}.html", exp.name.replace(':', "-")));
    match write_page(&store, id, &page) {
        Ok(()) => println!("report: {} (shootout report {id})", page.display()),
        Err(e) => eprintln!("error: report page {}: {e}", page.display()),
    }
    if interrupt::requested() {
        EXIT_INTERRUPTED
    } else {
        0
    }
}

/// The experiment's web page, as `shootout report ID --html PAGE` writes it.
fn write_page(store: &Store, id: i64, page: &Path) -> Result<(), String> {
    let doc = Document::load(store, &id.to_string())?;
    std::fs::write(page, html::page(&[doc])).map_err(|e| e.to_string())
}

fn experiment_path(root: &Path, name: &str) -> PathBuf {
    let p = PathBuf::from(name);
    if p.is_file() {
        p
    } else {
        root.join("experiments").join(format!("{name}.toml"))
    }
}

fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| d.as_nanos() as u64)
}

/// Sets up the experiment's contestants that need it; failures are one line each.
fn set_up(exp: &Experiment, cat: &Catalog) {
    for name in &exp.contestants {
        let Ok(c) = cat.get(name) else { continue };
        if let Status::NeedsSetup(_) = catalog::status(c) {
            let _ = std::fs::create_dir_all(&c.build);
            match setup::setup(c, &c.build.join("setup.log")) {
                Ok(()) => println!("{name}: set up"),
                Err(e) => eprintln!("error: {name}: setup: {e}"),
            }
        }
    }
}

/// A bar with the runs done, the time left, the current run and its live requests/s
/// (drawn only on a terminal).
fn progress_bar(exp: &Experiment) -> ProgressBar {
    let bar = ProgressBar::new(exp.run_count() as u64);
    let template = "{bar:24} {pos}/{len} runs, {elapsed} spent, about {eta} left | {prefix} {msg}";
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style);
    }
    bar
}

/// The run that is starting, as the progress bar names it.
fn describe(name: &str, cell: &Cell) -> String {
    let level = match &cell.rate {
        Some((text, _)) => format!("rate {text}"),
        None => format!("c={}", cell.connections),
    };
    format!("{name} /{} {} {level}", cell.endpoint, cell.load.name)
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
fn progress(r: &Run, done: usize, total: usize) -> String {
    let what = format!(
        "[{done}/{total}] {} /{} {} {} c={} #{}",
        r.contestant,
        r.endpoint,
        r.layout,
        r.load,
        r.connections,
        r.repeat + 1
    );
    match (&r.result, &r.label) {
        (Some(res), Label::Ok) => format!("{what}: {:.0} req/s", res.rps),
        (Some(res), label) => format!(
            "{what}: {:.0} req/s ({}: {})",
            res.rps,
            label.word(),
            r.reason
        ),
        (None, label) => format!("{what}: {}: {}", label.word(), r.reason),
    }
}

/// The machine and the software, recorded with every experiment.
fn machine(root: &Path) -> serde_json::Value {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .unwrap_or_default()
        .lines()
        .find_map(|l| {
            l.strip_prefix("model name")
                .map(|v| v.trim_start_matches([' ', '\t', ':']).to_string())
        })
        .unwrap_or_default();
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    let commit = std::process::Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .current_dir(root)
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    serde_json::json!({
        "cpu": cpu,
        "cores": engine::allowed_cpus(),
        "kernel": kernel.trim(),
        "shootout": env!("CARGO_PKG_VERSION"),
        "commit": commit,
    })
}
