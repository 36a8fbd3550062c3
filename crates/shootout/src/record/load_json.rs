//! A load's result read back from the JSON `load --json` and `--out` write (and the
//! store keeps): one reader for `merge`, `compare` and saved loads.

use engine::{HistogramError, LoadResult};

/// Why a result's JSON does not read back.
#[derive(Debug, thiserror::Error)]
pub enum LoadJsonError {
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    #[error("histograms.latency: {0}")]
    Histogram(#[from] HistogramError),
}

/// The result in `text`, with its latency histogram decoded (left empty when the JSON
/// carries none, as a result made by hand).
pub fn read_load_result(text: &str) -> Result<LoadResult, LoadJsonError> {
    let mut result: LoadResult = serde_json::from_str(text)?;
    if !result.histograms.latency.is_empty() {
        result.latency = engine::decode_histogram(&result.histograms.latency)?;
    }
    Ok(result)
}
