//! Runs a load: checks it can start (check), splits it over share-nothing loops on their
//! own threads (split), and merges what they measured (summary).

mod check;
mod error;
mod split;
mod summary;

pub use check::{check, check_settings, CheckedLoad, Io};
pub use error::RunError;
pub use split::{run_checked, run_watched};

use crate::config::LoadConfig;
use crate::result::LoadResult;
use std::sync::atomic::AtomicBool;

/// Checks the load can run, runs it, and returns what it measured.
///
/// `interrupt` may be set from another thread (a signal handler) to stop early; the
/// result then says `interrupted` and keeps everything measured so far.
pub fn run(config: &LoadConfig, interrupt: &AtomicBool) -> Result<LoadResult, RunError> {
    run_checked(&check(config)?, interrupt)
}
