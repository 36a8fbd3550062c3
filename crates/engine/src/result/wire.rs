//! A result as JSON: what `load --json` prints, a shard sends back, `--out` writes and
//! the store keeps. Its histograms are encoded; [`LoadResult`] holds them decoded. The
//! two conversions between them are here and only here. The field-by-field reference is
//! docs/schema/shootout.load-1.schema.json.

use super::{
    Bytes, ConfigEcho, Connections, Generator, H2Summary, Histograms, LoadResult, Percentiles,
    RateSummary, SecondSummary, ShardFigures, Spread, TlsSummary, WsSummary,
};
use crate::histcodec::{EncodedHistogram, HistogramError};
use crate::outcome::Counts;
use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The JSON schema name and version of [`WireResult`].
pub const SCHEMA: &str = "shootout.load/1";

/// Why JSON is not a result this build reads.
#[derive(Debug, thiserror::Error)]
pub enum WireError {
    #[error("schema {found:?}: this shootout reads {SCHEMA:?}")]
    Schema { found: String },
    #[error("histograms.{which}: {source}")]
    Histogram {
        which: &'static str,
        source: HistogramError,
    },
}

/// A load's result as JSON (schema [`SCHEMA`]); see [`LoadResult`] for each field.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WireResult {
    pub schema: String,
    pub url: String,
    #[serde(default)]
    pub started_unix_ms: u64,
    pub config: ConfigEcho,
    pub duration_s: f64,
    pub requests: Counts,
    pub rps: f64,
    pub bytes: Bytes,
    pub transfer_per_s: f64,
    pub latency_us: Percentiles,
    pub latency_raw_us: Percentiles,
    pub rate: Option<RateSummary>,
    pub connect_us: Percentiles,
    /// Only in a TLS load's result (and absent from results written before TLS).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls: Option<TlsSummary>,
    /// Only in an HTTP/2 load's result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub h2: Option<H2Summary>,
    /// Only in a WebSocket load's result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ws: Option<WsSummary>,
    pub thread_rps: Spread,
    pub status_codes: BTreeMap<String, u64>,
    pub connections: Connections,
    pub per_second: Vec<SecondSummary>,
    pub generator: Generator,
    pub interrupted: bool,
    pub warnings: Vec<String>,
    pub histograms: EncodedHistograms,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shards: Vec<ShardFigures>,
}

/// The merged histograms, encoded (HdrHistogram V2, compressed, base64), in nanoseconds.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct EncodedHistograms {
    pub latency: EncodedHistogram,
    pub latency_raw: EncodedHistogram,
    pub connect: EncodedHistogram,
    /// TLS handshakes; absent in clear text (and before TLS), read as empty.
    #[serde(default, skip_serializing_if = "EncodedHistogram::is_empty")]
    pub handshake: EncodedHistogram,
    /// WebSocket upgrades; absent over HTTP (and before WebSocket), read as empty.
    #[serde(default, skip_serializing_if = "EncodedHistogram::is_empty")]
    pub upgrade: EncodedHistogram,
}

impl From<LoadResult> for WireResult {
    fn from(r: LoadResult) -> WireResult {
        let h = &r.histograms;
        WireResult {
            schema: SCHEMA.to_string(),
            histograms: EncodedHistograms {
                latency: EncodedHistogram::encode(&h.latency),
                latency_raw: EncodedHistogram::encode(&h.latency_raw),
                connect: EncodedHistogram::encode(&h.connect),
                handshake: encoded_unless_empty(&h.handshake),
                upgrade: encoded_unless_empty(&h.upgrade),
            },
            url: r.url,
            started_unix_ms: r.started_unix_ms,
            config: r.config,
            duration_s: r.duration_s,
            requests: r.requests,
            rps: r.rps,
            bytes: r.bytes,
            transfer_per_s: r.transfer_per_s,
            latency_us: r.latency_us,
            latency_raw_us: r.latency_raw_us,
            rate: r.rate,
            connect_us: r.connect_us,
            tls: r.tls,
            h2: r.h2,
            ws: r.ws,
            thread_rps: r.thread_rps,
            status_codes: r.status_codes,
            connections: r.connections,
            per_second: r.per_second,
            generator: r.generator,
            interrupted: r.interrupted,
            warnings: r.warnings,
            shards: r.shards,
        }
    }
}

impl TryFrom<WireResult> for LoadResult {
    type Error = WireError;

    fn try_from(w: WireResult) -> Result<LoadResult, WireError> {
        if w.schema != SCHEMA {
            return Err(WireError::Schema { found: w.schema });
        }
        let h = &w.histograms;
        let histograms = Histograms {
            latency: decoded("latency", &h.latency)?,
            latency_raw: decoded("latency_raw", &h.latency_raw)?,
            connect: decoded("connect", &h.connect)?,
            handshake: decoded("handshake", &h.handshake)?,
            upgrade: decoded("upgrade", &h.upgrade)?,
        };
        Ok(LoadResult {
            histograms,
            url: w.url,
            started_unix_ms: w.started_unix_ms,
            config: w.config,
            duration_s: w.duration_s,
            requests: w.requests,
            rps: w.rps,
            bytes: w.bytes,
            transfer_per_s: w.transfer_per_s,
            latency_us: w.latency_us,
            latency_raw_us: w.latency_raw_us,
            rate: w.rate,
            connect_us: w.connect_us,
            tls: w.tls,
            h2: w.h2,
            ws: w.ws,
            thread_rps: w.thread_rps,
            status_codes: w.status_codes,
            connections: w.connections,
            per_second: w.per_second,
            generator: w.generator,
            interrupted: w.interrupted,
            warnings: w.warnings,
            shards: w.shards,
        })
    }
}

/// A histogram encoded, or left out of the JSON when empty (a protocol's own histogram
/// in a load of another).
fn encoded_unless_empty(h: &Histogram<u64>) -> EncodedHistogram {
    match h.is_empty() {
        true => EncodedHistogram::default(),
        false => EncodedHistogram::encode(h),
    }
}

/// One histogram of the JSON, decoded; an empty text (a result made by hand) is an
/// empty histogram.
fn decoded(which: &'static str, text: &EncodedHistogram) -> Result<Histogram<u64>, WireError> {
    let h = text
        .decode()
        .map_err(|source| WireError::Histogram { which, source })?;
    Ok(h.unwrap_or_else(crate::stats::latency_histogram))
}
