//! A load's result read back from the JSON `load --json` and `--out` write (and the
//! store keeps): one reader for `merge`, `compare`, shards and saved loads.

use engine::{LoadResult, WireError, WireResult};

/// Why a result's JSON does not read back.
#[derive(Debug, thiserror::Error)]
pub enum LoadJsonError {
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    #[error(transparent)]
    Wire(#[from] WireError),
}

/// The result in `text`, its histograms decoded (empty when the JSON carries none, as a
/// result made by hand).
pub fn read_load_result(text: &str) -> Result<LoadResult, LoadJsonError> {
    let wire: WireResult = serde_json::from_str(text)?;
    Ok(LoadResult::try_from(wire)?)
}
