//! `shootout results [ID]` and `shootout export ID`: what the store holds.

use clap::Args;
use shootout::harness::catalog;
use shootout::store::Store;

/// Flags of `shootout results`.
#[derive(Debug, Args)]
pub struct ResultsArgs {
    /// An experiment id: list its runs instead of the experiments
    id: Option<i64>,
}

/// Flags of `shootout export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The experiment id (see `shootout results`)
    id: i64,
    /// Write JSON (the only format so far; accepted for scripts that say it)
    #[arg(long)]
    json: bool,
}

fn open() -> Result<Store, i32> {
    let root = catalog::root().map_err(|e| {
        eprintln!("error: results: {e}");
        2
    })?;
    Store::open(&root.join("results").join("shootout.db")).map_err(|e| {
        eprintln!("error: results: {e}");
        1
    })
}

/// `shootout results`.
pub fn results(args: ResultsArgs) -> i32 {
    let Ok(store) = open() else { return 1 };
    let shown = match args.id {
        None => store.experiments().map(|rows| {
            println!(
                "{:>4}  {:<20} {:>14}  {:>5}  commit",
                "id", "experiment", "started (ms)", "runs"
            );
            for e in rows {
                println!(
                    "{:>4}  {:<20} {:>14}  {:>5}  {}",
                    e.id,
                    e.name,
                    e.started_unix_ms,
                    e.runs,
                    e.machine["commit"].as_str().unwrap_or("")
                );
            }
        }),
        Some(id) => store.runs(id).map(|runs| {
            for r in runs {
                println!(
                    "{:>6}  {:<24} /{:<5} {:<8} {:<16} c={:<6} #{}  {:<15} {:>10}",
                    r["id"],
                    r["contestant"].as_str().unwrap_or(""),
                    r["endpoint"].as_str().unwrap_or(""),
                    r["layout"].as_str().unwrap_or(""),
                    r["load"].as_str().unwrap_or(""),
                    r["connections"],
                    r["repeat"].as_i64().unwrap_or(0) + 1,
                    r["label"].as_str().unwrap_or(""),
                    r["rps"]
                        .as_f64()
                        .map_or("-".into(), |x| format!("{x:.0} req/s")),
                );
            }
        }),
    };
    match shown {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("error: results: {e}");
            1
        }
    }
}

/// `shootout export`.
pub fn export(args: ExportArgs) -> i32 {
    let _ = args.json;
    let Ok(store) = open() else { return 1 };
    let doc = store.experiments().and_then(|all| {
        let e = all
            .into_iter()
            .find(|e| e.id == args.id)
            .ok_or(format!("no experiment {}", args.id))?;
        let runs = store.runs(e.id)?;
        Ok(serde_json::json!({"schema": "shootout.experiment/1", "experiment": e, "runs": runs}))
    });
    match doc {
        Ok(d) => {
            println!("{d}");
            0
        }
        Err(e) => {
            eprintln!("error: export: {e}");
            2
        }
    }
}
