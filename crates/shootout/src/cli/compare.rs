//! `shootout compare A B`: two stored experiments, cell by cell, with a verdict that can
//! gate CI (`--fail-above PCT`).

use clap::Args;
use shootout::report::comparison;
use shootout::report::document::Document;
use shootout::store::Store;

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

/// Compares; returns the exit code (1 on a significant regression beyond the threshold).
pub fn run(args: CompareArgs) -> i32 {
    let docs = shootout::harness::catalog::root()
        .and_then(|root| Store::open(&root.join("results").join("shootout.db")))
        .and_then(|s| {
            Ok((
                Document::load(&s, &args.before)?,
                Document::load(&s, &args.after)?,
            ))
        });
    let (before, after) = match docs {
        Ok(d) => d,
        Err(e) => {
            eprintln!("error: compare: {e}");
            return 2;
        }
    };
    let rows = comparison::compare(&before.runs, &after.runs);
    if rows.is_empty() {
        eprintln!(
            "error: compare: experiments {} and {} share no cell",
            args.before, args.after
        );
        return 2;
    }
    println!("before: {}", before.header()[0]);
    println!("after:  {}\n", after.header()[0]);
    print!("{}", comparison::table(&rows).text());
    let Some(pct) = args.fail_above else { return 0 };
    let worse: Vec<String> = rows
        .iter()
        .filter(|c| c.rps.regressed(pct) || c.p99.regressed(pct) || c.cpu.regressed(pct))
        .map(|c| format!("{} {}", c.contestant, c.key.title()))
        .collect();
    if worse.is_empty() {
        println!("\nno significant regression beyond {pct}%");
        0
    } else {
        println!(
            "\nsignificant regression beyond {pct}% in: {}",
            worse.join("; ")
        );
        1
    }
}
