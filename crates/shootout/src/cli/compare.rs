//! `shootout compare A B`: two stored experiments, cell by cell, with a verdict that can
//! gate CI (`--fail-above PCT`).

use super::results::open_store;
use anyhow::{bail, Context};
use clap::Args;
use shootout::report::document::Document;
use shootout::report::experiment::comparison;
use std::process::ExitCode;

/// Flags of `shootout compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// The experiment before (an id, or a name: its newest run of it; or run:ID)
    before: String,
    /// The experiment after
    after: String,
    /// Exit 1 when a cell is significantly worse by more than PCT percent (req/s down,
    /// or p99 or CPU per request up)
    #[arg(long, value_name = "PCT")]
    fail_above: Option<f64>,
}

/// Compares: exit 1 on a significant regression beyond the threshold.
pub fn run(args: CompareArgs) -> anyhow::Result<ExitCode> {
    let store = open_store().context("compare")?;
    let before = Document::load(&store, &args.before).context("compare")?;
    let after = Document::load(&store, &args.after).context("compare")?;
    let rows = comparison::compare(&before.runs, &after.runs);
    if rows.is_empty() {
        bail!(
            "compare: experiments {} and {} share no cell",
            args.before,
            args.after
        );
    }
    println!("before: {}", before.header()[0]);
    println!("after:  {}\n", after.header()[0]);
    print!("{}", comparison::table(&rows).text());
    let Some(pct) = args.fail_above else {
        return Ok(ExitCode::SUCCESS);
    };
    let worse: Vec<String> = rows
        .iter()
        .filter(|c| c.rps.regressed(pct) || c.p99.regressed(pct) || c.cpu.regressed(pct))
        .map(|c| format!("{} {}", c.contestant, c.key.title()))
        .collect();
    if worse.is_empty() {
        println!("\nno significant regression beyond {pct}%");
        Ok(ExitCode::SUCCESS)
    } else {
        println!(
            "\nsignificant regression beyond {pct}% in: {}",
            worse.join("; ")
        );
        Ok(ExitCode::FAILURE)
    }
}
