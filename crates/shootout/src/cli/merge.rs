//! `shootout merge FILES...`: one result from the JSON results of a load's shards.

use super::load::{self, Format};
use anyhow::Context;
use clap::Args;
use engine::LoadResult;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Flags of `shootout merge`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// JSON results of `shootout load --json`, one per shard
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// How to print the merged result
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Print the merged result as JSON (same schema as `load --json`)
    #[arg(long)]
    json: bool,
    /// Also write the merged per-second histograms as an HdrHistogram interval log
    #[arg(long, value_name = "FILE")]
    hdr_log: Option<PathBuf>,
}

/// Reads, merges and prints.
pub fn run(args: MergeArgs) -> anyhow::Result<ExitCode> {
    let parts = args
        .files
        .iter()
        .map(|path| read(path).with_context(|| format!("merge: {}", path.display())))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let merged = engine::merge(&parts).context("merge")?;
    load::print(&merged, args.json, args.format, args.hdr_log.as_deref())?;
    Ok(ExitCode::SUCCESS)
}

fn read(path: &Path) -> anyhow::Result<LoadResult> {
    let text = std::fs::read_to_string(path)?;
    shootout::model::read_load_result(&text).context("not a shootout.load result")
}
