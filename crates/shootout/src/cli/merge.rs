//! `shootout merge FILES...`: one result from the JSON results of a load's shards.

use super::load::{self, Format};
use super::EXIT_USAGE;
use clap::Args;
use engine::LoadResult;
use std::path::PathBuf;

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

/// Reads, merges and prints; returns the exit code.
pub fn run(args: MergeArgs) -> i32 {
    let mut parts = Vec::with_capacity(args.files.len());
    for path in &args.files {
        match read(path) {
            Ok(r) => parts.push(r),
            Err(e) => {
                eprintln!("error: merge: {}: {e}", path.display());
                return EXIT_USAGE;
            }
        }
    }
    let merged = match engine::merge(&parts) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("error: merge: {e}");
            return EXIT_USAGE;
        }
    };
    match load::print(&merged, args.json, args.format, args.hdr_log.as_deref()) {
        Ok(()) => 0,
        Err(code) => code,
    }
}

fn read(path: &PathBuf) -> Result<LoadResult, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let mut r: LoadResult =
        serde_json::from_str(&text).map_err(|e| format!("not a shootout.load result: {e}"))?;
    r.latency = engine::decode_histogram(&r.histograms.latency).map_err(|e| e.to_string())?;
    Ok(r)
}
