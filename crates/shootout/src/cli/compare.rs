//! `shootout compare A B`: two stored experiments cell by cell, or two single loads (saved
//! loads, JSON files, runs) as one cell; as text, Markdown or JSON, with a verdict that
//! can gate CI (`--fail-above PCT`).

use super::results::open_store;
use anyhow::{bail, Context};
use clap::{Args, ValueEnum};
use shootout::report::comparison::document::{CellChange, ComparisonDocument, SideSummary, SCHEMA};
use shootout::report::comparison::{self, Compared};
use shootout::report::side::{Reference, Side, Single};
use shootout::report::table::Table;
use shootout::store::Store;
use std::process::ExitCode;

/// Flags of `shootout compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// Before: an experiment id or name (its newest run), a saved load's label or
    /// load:ID, run:ID, or a JSON file from `load --json` or `--out`
    before: String,
    /// After: the same kinds as before
    after: String,
    /// Exit 1 when a cell is significantly worse by more than PCT percent (req/s or the
    /// capacity at objective down, or p99 or CPU per request up)
    #[arg(long, value_name = "PCT")]
    fail_above: Option<f64>,
    /// How to print the comparison (json: schema shootout.compare/1, see docs/load.md)
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

/// Output layouts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Text,
    Markdown,
    Json,
}

/// Compares: exit 1 on a significant regression beyond the threshold.
pub fn run(args: CompareArgs) -> anyhow::Result<ExitCode> {
    let mut store = None;
    let before = side(&mut store, &args.before).context("compare")?;
    let after = side(&mut store, &args.after).context("compare")?;
    let (rows, tables) = compared(&args, &before, &after).context("compare")?;
    let worse = args.fail_above.map(|pct| regressions(&rows, pct));
    let sides = [
        SideSummary::of(&before, &args.before),
        SideSummary::of(&after, &args.after),
    ];
    match args.format {
        Format::Json => print_json(sides, &rows, &tables, args.fail_above, worse.as_deref())?,
        Format::Text => {
            println!("before: {}", sides[0].title);
            println!("after:  {}\n", sides[1].title);
            let texts: Vec<String> = tables.iter().map(Table::text).collect();
            print!("{}", texts.join("\n"));
            print_verdict(args.fail_above, worse.as_deref(), "\n");
        }
        Format::Markdown => {
            println!("- before: {}", sides[0].title);
            println!("- after: {}\n", sides[1].title);
            let texts: Vec<String> = tables.iter().map(Table::markdown).collect();
            print!("{}", texts.join("\n"));
            print_verdict(args.fail_above, worse.as_deref(), "\n");
        }
    }
    Ok(match worse.is_some_and(|w| !w.is_empty()) {
        true => ExitCode::FAILURE,
        false => ExitCode::SUCCESS,
    })
}

/// The side `text` names. The store is opened only when a side is stored, so that two
/// JSON files compare anywhere.
fn side(store: &mut Option<Store>, text: &str) -> anyhow::Result<Side> {
    let reference = Reference::parse(text)?;
    if let Reference::File(path) = &reference {
        return Ok(Side::File(Single::file(path)?));
    }
    let store = match store {
        Some(s) => s,
        None => store.insert(open_store()?),
    };
    Ok(Side::find(store, reference)?)
}

/// The cells compared and their tables: two single loads as one cell, else two sets of
/// stored runs cell by cell (the capacity cells in a table of their own).
fn compared(
    args: &CompareArgs,
    before: &Side,
    after: &Side,
) -> anyhow::Result<(Vec<Compared>, Vec<Table>)> {
    // A run against an experiment is one of its cells; against a single load, a load.
    let experiment = |s: &Side| matches!(s, Side::Experiment(_));
    if !experiment(before) && !experiment(after) {
        if let (Some(a), Some(b)) = (before.single()?, after.single()?) {
            let row = comparison::singles(&a, &b);
            let mut table = comparison::single_table(&row);
            table
                .notes
                .extend(a.warnings().into_iter().chain(b.warnings()));
            return Ok((vec![row], vec![table]));
        }
    }
    let (Some(a), Some(b)) = (before.document(), after.document()) else {
        let (one, other) = match before.document() {
            None => (&args.before, &args.after),
            Some(_) => (&args.after, &args.before),
        };
        bail!(
            "{one} is a single load and {other} an experiment: compare a single load with \
             another (a saved load, a JSON file or run:ID), an experiment with an experiment"
        );
    };
    let rows = comparison::compare(&a.runs, &b.runs);
    if rows.is_empty() {
        bail!("{} and {} share no cell", args.before, args.after);
    }
    let tables = comparison::tables(&rows);
    Ok((rows, tables))
}

/// `contestant cell` of each cell significantly worse by more than `pct` percent.
fn regressions(rows: &[Compared], pct: f64) -> Vec<String> {
    rows.iter()
        .filter(|c| c.regressed(pct))
        .map(|c| format!("{} {}", c.contestant, c.cell))
        .collect()
}

/// The verdict of `--fail-above`, after `gap`; nothing without the flag.
fn print_verdict(fail_above: Option<f64>, worse: Option<&[String]>, gap: &str) {
    let (Some(pct), Some(worse)) = (fail_above, worse) else {
        return;
    };
    match worse.is_empty() {
        true => println!("{gap}no significant regression beyond {pct}%"),
        false => println!(
            "{gap}significant regression beyond {pct}% in: {}",
            worse.join("; ")
        ),
    }
}

fn print_json(
    [before, after]: [SideSummary; 2],
    rows: &[Compared],
    tables: &[Table],
    fail_above: Option<f64>,
    regressions: Option<&[String]>,
) -> anyhow::Result<()> {
    let notes: Vec<String> = tables.iter().flat_map(|t| t.notes.clone()).collect();
    let doc = ComparisonDocument {
        schema: SCHEMA,
        before,
        after,
        alpha: comparison::ALPHA,
        cells: rows.iter().map(CellChange::of).collect(),
        notes: &notes,
        fail_above,
        regressions,
    };
    println!("{}", serde_json::to_string_pretty(&doc)?);
    Ok(())
}
