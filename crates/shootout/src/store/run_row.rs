//! A run record as a row of the `runs` table: one column list, read and written in the
//! same order. `rps` and `p99_us` repeat two numbers of `result`, and `bottleneck` and
//! `valid` two of `verdict`, so that SQL can sort and filter on them; they are written,
//! never read back.

use super::{StoreError, StoredRun};
use crate::record::{Cell, Label, LoadKind, Outcome, RunRecord, VerifyLevel};
use rusqlite::types::Value;

/// The columns after `experiment_id`, in the order of [`values`] and [`read`].
const COLUMNS: [&str; 24] = [
    "contestant",
    "endpoint",
    "layout",
    "load",
    "connections",
    "repeat",
    "load_kind",
    "schedule",
    "label",
    "reason",
    "rps",
    "p99_us",
    "server_cpu_s",
    "peak_rss_kb",
    "wall_s",
    "load_s",
    "result",
    "series",
    "toolchain",
    "bottleneck",
    "valid",
    "verdict",
    "verify",
    "make_up",
];

pub(super) fn insert_sql() -> String {
    let marks: Vec<String> = (1..=COLUMNS.len() + 1).map(|i| format!("?{i}")).collect();
    format!(
        "INSERT INTO runs (experiment_id, {}) VALUES ({})",
        COLUMNS.join(", "),
        marks.join(", ")
    )
}

pub(super) fn select_sql() -> String {
    format!("SELECT id, {} FROM runs", COLUMNS.join(", "))
}

/// The values of [`COLUMNS`] for `r`.
pub(super) fn values(r: &RunRecord) -> Result<[Value; COLUMNS.len()], StoreError> {
    let json = |what: &str, e: serde_json::Error| StoreError::Decode {
        table: "runs",
        id: 0,
        what: format!("{what}: {e}"),
    };
    let result = r
        .result()
        .map(serde_json::to_string)
        .transpose()
        .map_err(|e| json("result", e))?;
    let series = serde_json::to_string(&r.series).map_err(|e| json("series", e))?;
    let verdict = r
        .verdict()
        .map(serde_json::to_string)
        .transpose()
        .map_err(|e| json("verdict", e))?;
    let c = &r.cell;
    let text = |s: &str| Value::Text(s.to_string());
    let real_or_null = |x: Option<f64>| x.map_or(Value::Null, Value::Real);
    Ok([
        text(&c.contestant),
        text(&c.endpoint),
        text(&c.layout),
        text(&c.load),
        Value::Integer(c.connections as i64),
        Value::Integer(c.repeat as i64),
        text(r.kind.word()),
        r.kind.schedule().map_or(Value::Null, text),
        text(r.label().word()),
        text(r.reason()),
        real_or_null(r.result().map(|x| x.rps)),
        real_or_null(r.result().map(|x| x.latency_us.p99)),
        Value::Real(r.server_cpu_s),
        Value::Integer(r.peak_rss_kb as i64),
        Value::Real(r.wall_s),
        Value::Real(r.load_s),
        result.map_or(Value::Null, Value::Text),
        Value::Text(series),
        text(&r.toolchain),
        r.verdict()
            .map_or(Value::Null, |v| text(v.bottleneck.word())),
        r.verdict()
            .map_or(Value::Null, |v| Value::Integer(v.valid.into())),
        verdict.map_or(Value::Null, Value::Text),
        text(r.verify.word()),
        Value::Integer(r.make_up.into()),
    ])
}

/// A row as read, before its JSON columns and words are decoded (which may fail, and
/// then names the run).
pub(super) struct RawRun {
    id: i64,
    cell: Cell,
    load_kind: String,
    schedule: Option<String>,
    label: String,
    reason: String,
    server_cpu_s: f64,
    peak_rss_kb: i64,
    wall_s: f64,
    load_s: f64,
    result: Option<String>,
    series: String,
    toolchain: String,
    verdict: Option<String>,
    verify: String,
    make_up: bool,
}

/// Reads a row of [`select_sql`]: `id`, then [`COLUMNS`] in order.
pub(super) fn read(row: &rusqlite::Row) -> rusqlite::Result<RawRun> {
    Ok(RawRun {
        id: row.get(0)?,
        cell: Cell {
            contestant: row.get(1)?,
            endpoint: row.get(2)?,
            layout: row.get(3)?,
            load: row.get(4)?,
            connections: row.get::<_, i64>(5)? as usize,
            repeat: row.get::<_, i64>(6)? as usize,
        },
        load_kind: row.get(7)?,
        schedule: row.get(8)?,
        label: row.get(9)?,
        reason: row.get(10)?,
        // 11 and 12 (rps, p99_us) are in `result`.
        server_cpu_s: row.get(13)?,
        peak_rss_kb: row.get(14)?,
        wall_s: row.get(15)?,
        load_s: row.get(16)?,
        result: row.get(17)?,
        series: row.get(18)?,
        toolchain: row.get(19)?,
        // 20 and 21 (bottleneck, valid) are in `verdict`.
        verdict: row.get(22)?,
        verify: row.get(23)?,
        make_up: row.get(24)?,
    })
}

impl RawRun {
    /// The record, or an error naming the run and the column that does not decode.
    pub(super) fn decode(self) -> Result<StoredRun, StoreError> {
        let id = self.id;
        let bad = |what: String| StoreError::Decode {
            table: "runs",
            id,
            what,
        };
        let label = Label::from_word(&self.label)
            .ok_or_else(|| bad(format!("label: unknown label {:?}", self.label)))?;
        let kind = LoadKind::from_stored(&self.load_kind, self.schedule)
            .ok_or_else(|| bad(format!("load_kind: unknown kind {:?}", self.load_kind)))?;
        let verify = VerifyLevel::from_word(&self.verify)
            .ok_or_else(|| bad(format!("verify: unknown level {:?}", self.verify)))?;
        let outcome = match self.result {
            None => Outcome::NotRun {
                label,
                reason: self.reason,
            },
            Some(text) => Outcome::Measured {
                label,
                reason: self.reason,
                result: serde_json::from_str(&text).map_err(|e| bad(format!("result: {e}")))?,
                verdict: self
                    .verdict
                    .map(|v| serde_json::from_str(&v))
                    .transpose()
                    .map_err(|e| bad(format!("verdict: {e}")))?,
            },
        };
        let series = serde_json::from_str(&self.series).map_err(|e| bad(format!("series: {e}")))?;
        Ok(StoredRun {
            id,
            record: RunRecord {
                cell: self.cell,
                kind,
                toolchain: self.toolchain,
                verify,
                outcome,
                server_cpu_s: self.server_cpu_s,
                peak_rss_kb: self.peak_rss_kb as u64,
                series,
                wall_s: self.wall_s,
                load_s: self.load_s,
                make_up: self.make_up,
            },
        })
    }
}
