//! `shootout run [EXPERIMENT]`: an experiment end to end, with a table at the end.

use super::{interrupt, EXIT_INTERRUPTED};
use crate::harness::catalog::{self, Catalog, Status};
use crate::harness::experiment::{self, Experiment};
use crate::harness::run::{self, Label, Run};
use crate::harness::setup;
use crate::report::spread;
use crate::store::Store;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};

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
    let exp = match experiment::read(&path) {
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
    let runs = run::run(
        &exp,
        &cat,
        seed,
        &interrupt::INTERRUPTED,
        |r, done, total| {
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
        },
    );
    bar.finish_and_clear();
    print_tables(&runs);
    println!(
        "\nstored as experiment {id} in {} (shootout results {id}; shootout export {id})",
        db_path.display()
    );
    if interrupt::requested() {
        EXIT_INTERRUPTED
    } else {
        0
    }
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

/// A bar with the runs done and the time left (drawn only on a terminal).
fn progress_bar(exp: &Experiment) -> ProgressBar {
    let cells: usize = exp.endpoints.len()
        * exp.layouts.len()
        * exp.loads.iter().map(|l| l.connections.len()).sum::<usize>();
    let bar = ProgressBar::new((exp.repeats * exp.contestants.len() * cells) as u64);
    if let Ok(style) =
        ProgressStyle::with_template("{bar:30} {pos}/{len} runs, {elapsed} spent, about {eta} left")
    {
        bar.set_style(style);
    }
    bar
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
        (Some(res), label) => format!("{what}: {:.0} req/s ({label:?}: {})", res.rps, r.reason),
        (None, label) => format!("{what}: {label:?}: {}", r.reason),
    }
}

/// One table per endpoint × layout × load × connections, a row per contestant, ranked.
fn print_tables(runs: &[Run]) {
    let mut keys: Vec<(&str, &str, &str, usize)> = Vec::new();
    for r in runs {
        let k = (
            r.endpoint.as_str(),
            r.layout.as_str(),
            r.load.as_str(),
            r.connections,
        );
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    for (endpoint, layout, load, conns) in keys {
        println!("\n/{endpoint}, layout {layout}, {load}, {conns} connections");
        println!(
            "  {:>4}  {:<24} {:>10} {:>21} {:>10} {:>10} {:>9} {:>8} {:>14} {:>9}  notes",
            "rank",
            "contestant",
            "req/s",
            "95% CI",
            "min",
            "max",
            "p99 ms",
            "errors",
            "CPU-s/1k req",
            "RSS MiB"
        );
        let mut names: Vec<&str> = runs.iter().map(|r| r.contestant.as_str()).collect();
        names.sort();
        names.dedup();
        let cells: Vec<(&str, Vec<&Run>)> = names
            .into_iter()
            .map(|name| {
                let cell = runs
                    .iter()
                    .filter(|r| {
                        r.contestant == name
                            && (
                                r.endpoint.as_str(),
                                r.layout.as_str(),
                                r.load.as_str(),
                                r.connections,
                            ) == (endpoint, layout, load, conns)
                    })
                    .collect();
                (name, cell)
            })
            .collect();
        print_cell(&cells);
    }
}

/// Requests/s of the runs that measured the server (ok), the only ones ranked.
fn ok_rps(cell: &[&Run]) -> Vec<f64> {
    cell.iter()
        .filter(|r| r.label == Label::Ok)
        .filter_map(|r| r.result.as_ref().map(|x| x.rps))
        .collect()
}

fn print_cell(cells: &[(&str, Vec<&Run>)]) {
    let ranked: Vec<(&str, &Vec<&Run>, (f64, f64))> = cells
        .iter()
        .filter(|(_, c)| !ok_rps(c).is_empty())
        .map(|(n, c)| (*n, c, spread::interval95(&ok_rps(c))))
        .collect();
    let ranks = spread::ranks(&ranked.iter().map(|r| r.2).collect::<Vec<_>>());
    let mut order: Vec<usize> = (0..ranked.len()).collect();
    order.sort_by(|&a, &b| {
        ranks[a]
            .cmp(&ranks[b])
            .then(median(&ok_rps(ranked[b].1)).total_cmp(&median(&ok_rps(ranked[a].1))))
    });
    for i in order {
        let (name, cell, ci) = ranked[i];
        print_row(ranks[i], name, cell, ci);
    }
    for (name, cell) in cells.iter().filter(|(_, c)| ok_rps(c).is_empty()) {
        println!("  {:>4}  {name:<24} {:>10}  {}", "-", "-", notes(cell));
    }
}

fn print_row(rank: usize, name: &str, cell: &[&Run], ci: (f64, f64)) {
    let ok: Vec<&Run> = cell
        .iter()
        .filter(|r| r.label == Label::Ok && r.result.is_some())
        .copied()
        .collect();
    let of = |f: &dyn Fn(&Run, &engine::LoadResult) -> f64| -> Vec<f64> {
        ok.iter()
            .filter_map(|r| r.result.as_ref().map(|x| f(r, x)))
            .collect()
    };
    let rps = of(&|_, x| x.rps);
    let p99 = of(&|_, x| x.latency_us.p99 / 1000.0);
    let errors = of(&|_, x| x.requests.errors() as f64);
    let cpu =
        of(&|r, x| r.server_cpu_s * 1000.0 / (x.requests.ok + x.requests.status).max(1) as f64);
    let rss = ok.iter().map(|r| r.peak_rss_kb).max().unwrap_or(0) as f64 / 1024.0;
    let interval = if rps.len() > 1 {
        format!("{:.0}..{:.0}", ci.0, ci.1)
    } else {
        "(1 run)".into()
    };
    println!(
        "  {rank:>4}  {name:<24} {:>10.0} {interval:>21} {:>10.0} {:>10.0} {:>9.2} {:>8.0} {:>14.4} {:>9.1}  {}",
        median(&rps),
        rps.iter().cloned().fold(f64::INFINITY, f64::min),
        rps.iter().cloned().fold(0.0, f64::max),
        median(&p99),
        median(&errors),
        median(&cpu),
        rss,
        notes(cell)
    );
}

/// The runs that are not ok, counted by label, with the first reason of each label.
fn notes(cell: &[&Run]) -> String {
    let mut out: Vec<String> = Vec::new();
    for label in [
        Label::GeneratorBound,
        Label::ServerFailed,
        Label::VerifyFailed,
        Label::Timeout,
        Label::Interrupted,
        Label::Skipped,
    ] {
        let these: Vec<&&Run> = cell.iter().filter(|r| r.label == label).collect();
        if let Some(first) = these.first() {
            let word = serde_json::to_value(&label)
                .ok()
                .and_then(|v| v.as_str().map(String::from))
                .unwrap_or_default();
            let why: String = first.reason.chars().take(70).collect();
            out.push(if label == Label::GeneratorBound {
                format!("{} {word} (not ranked)", these.len())
            } else {
                format!("{} {word}: {why}", these.len())
            });
        }
    }
    out.join("; ")
}

fn median(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
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
        "cores": engine::cpu::allowed_cpus(),
        "kernel": kernel.trim(),
        "shootout": env!("CARGO_PKG_VERSION"),
        "commit": commit,
    })
}
