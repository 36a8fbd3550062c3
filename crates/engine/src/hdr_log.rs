//! The HdrHistogram interval log of a result: one histogram per second of corrected
//! latency, in nanoseconds, readable by HdrHistogram's own tools (HistogramLogProcessor).

use crate::result::LoadResult;
use hdrhistogram::serialization::interval_log::IntervalLogWriterBuilder;
use hdrhistogram::serialization::V2DeflateSerializer;
use hdrhistogram::Histogram;
use std::io::{self, Write};
use std::time::{Duration, UNIX_EPOCH};

/// Writes `result`'s per-second latency histograms as an interval log.
pub fn write_hdr_log(result: &LoadResult, out: &mut impl Write) -> io::Result<()> {
    let start = UNIX_EPOCH + Duration::from_millis(result.started_unix_ms);
    let mut serializer = V2DeflateSerializer::new();
    let mut builder = IntervalLogWriterBuilder::new();
    builder
        .add_comment(&format!("shootout load of {}", result.url))
        .add_comment("latency from the intended send time, in nanoseconds")
        .with_start_time(start)
        .with_base_time(start);
    let mut log = builder.begin_log_with(out, &mut serializer)?;
    for s in &result.per_second {
        let h: Histogram<u32> = (s.hist.decode().map_err(io::Error::other)?)
            .unwrap_or_else(|| Histogram::new(2).expect("2 significant digits are valid"));
        let from = Duration::from_secs(s.second as u64 - 1);
        log.write_histogram(&h, from, Duration::from_secs(1), None)
            .map_err(|e| io::Error::other(e.to_string()))?;
    }
    Ok(())
}
