//! A run record as a row of the `runs` table, every column written and read by its
//! name. `rps` and `p99_us` repeat two numbers of `result`, and `bottleneck` and `valid`
//! two of `verdict`, so that SQL can sort and filter on them; they are written, never
//! read back.

use super::{StoreError, StoredRun};
use crate::model::{
    ExperimentId, Label, LoadKind, Outcome, RunCoordinates, RunId, RunRecord, VerifyLevel,
};
use rusqlite::types::{ToSql, Value};

/// The columns a run reads back, besides its `id` and `experiment_id`.
const READ: [&str; 22] = [
    "contestant",
    "endpoint",
    "layout",
    "load",
    "connections",
    "streams",
    "repeat",
    "load_kind",
    "schedule",
    "label",
    "reason",
    "server_cpu_s",
    "peak_rss_kb",
    "wall_s",
    "load_s",
    "result",
    "series",
    "toolchain",
    "verdict",
    "verify",
    "make_up",
    "capacity",
];

/// Every run column and its value for `r` in experiment `experiment`.
fn named_values(
    experiment: ExperimentId,
    r: &RunRecord,
) -> Result<Vec<(String, Value)>, StoreError> {
    let values = values(r)?;
    let experiment = ("experiment_id", Value::Integer(experiment.0));
    Ok(std::iter::once(experiment)
        .chain(values)
        .map(|(name, v)| (format!(":{name}"), v))
        .collect())
}

/// Inserts `r` as a run of `experiment`; its id.
pub(super) fn insert(
    db: &rusqlite::Connection,
    experiment: ExperimentId,
    r: &RunRecord,
) -> Result<RunId, StoreError> {
    let values = named_values(experiment, r)?;
    let names: Vec<&str> = values.iter().map(|(mark, _)| &mark[1..]).collect();
    let marks: Vec<&str> = values.iter().map(|(mark, _)| mark.as_str()).collect();
    let sql = format!(
        "INSERT INTO runs ({}) VALUES ({})",
        names.join(", "),
        marks.join(", ")
    );
    let params: Vec<(&str, &dyn ToSql)> = (values.iter())
        .map(|(mark, v)| (mark.as_str(), v as &dyn ToSql))
        .collect();
    db.execute(&sql, params.as_slice())?;
    Ok(RunId(db.last_insert_rowid()))
}

/// `SELECT` of what [`read`] takes, from `runs`.
pub(super) fn select_sql() -> String {
    format!("SELECT id, experiment_id, {} FROM runs", READ.join(", "))
}

/// The columns of `r`, by name.
fn values(r: &RunRecord) -> Result<[(&'static str, Value); 26], StoreError> {
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
    let capacity = (r.capacity.as_ref())
        .map(serde_json::to_string)
        .transpose()
        .map_err(|e| json("capacity", e))?;
    let c = &r.coordinates;
    let text = |s: &str| Value::Text(s.to_string());
    let real_or_null = |x: Option<f64>| x.map_or(Value::Null, Value::Real);
    Ok([
        ("contestant", text(&c.contestant)),
        ("endpoint", text(&c.endpoint)),
        ("layout", text(&c.layout)),
        ("load", text(&c.load)),
        ("connections", Value::Integer(c.connections as i64)),
        (
            "streams",
            c.streams.map_or(Value::Null, |n| Value::Integer(n as i64)),
        ),
        ("repeat", Value::Integer(c.repeat as i64)),
        ("load_kind", text(r.kind.word())),
        ("schedule", r.kind.schedule().map_or(Value::Null, text)),
        ("label", text(r.label().word())),
        ("reason", text(r.reason())),
        ("rps", real_or_null(r.result().map(|x| x.rps))),
        ("p99_us", real_or_null(r.result().map(|x| x.latency_us.p99))),
        ("server_cpu_s", Value::Real(r.server_cpu_s)),
        ("peak_rss_kb", Value::Integer(r.peak_rss_kb as i64)),
        ("wall_s", Value::Real(r.wall_s)),
        ("load_s", Value::Real(r.load_s)),
        ("result", result.map_or(Value::Null, Value::Text)),
        ("series", Value::Text(series)),
        ("toolchain", text(&r.toolchain)),
        (
            "bottleneck",
            (r.verdict()).map_or(Value::Null, |v| text(v.bottleneck.word())),
        ),
        (
            "valid",
            (r.verdict()).map_or(Value::Null, |v| Value::Integer(v.valid.into())),
        ),
        ("verdict", verdict.map_or(Value::Null, Value::Text)),
        ("verify", text(r.verify.word())),
        ("make_up", Value::Integer(r.make_up.into())),
        ("capacity", capacity.map_or(Value::Null, Value::Text)),
    ])
}

/// A row as read, before its JSON columns and words are decoded (which may fail, and
/// then names the run).
pub(super) struct RawRun {
    id: RunId,
    experiment: ExperimentId,
    coordinates: RunCoordinates,
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
    capacity: Option<String>,
}

/// Reads a row of [`select_sql`], each column by its name.
pub(super) fn read(row: &rusqlite::Row) -> rusqlite::Result<RawRun> {
    Ok(RawRun {
        id: row.get("id")?,
        experiment: row.get("experiment_id")?,
        coordinates: RunCoordinates {
            contestant: row.get("contestant")?,
            endpoint: row.get("endpoint")?,
            layout: row.get("layout")?,
            load: row.get("load")?,
            connections: row.get::<_, i64>("connections")? as usize,
            streams: (row.get::<_, Option<i64>>("streams")?).map(|n| n as usize),
            repeat: row.get::<_, i64>("repeat")? as usize,
        },
        load_kind: row.get("load_kind")?,
        schedule: row.get("schedule")?,
        label: row.get("label")?,
        reason: row.get("reason")?,
        server_cpu_s: row.get("server_cpu_s")?,
        peak_rss_kb: row.get("peak_rss_kb")?,
        wall_s: row.get("wall_s")?,
        load_s: row.get("load_s")?,
        result: row.get("result")?,
        series: row.get("series")?,
        toolchain: row.get("toolchain")?,
        verdict: row.get("verdict")?,
        verify: row.get("verify")?,
        make_up: row.get("make_up")?,
        capacity: row.get("capacity")?,
    })
}

impl RawRun {
    /// The record, or an error naming the run and the column that does not decode.
    pub(super) fn decode(self) -> Result<StoredRun, StoreError> {
        let id = self.id;
        let bad = |what: String| StoreError::Decode {
            table: "runs",
            id: id.0,
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
        let capacity = (self.capacity.as_deref())
            .map(serde_json::from_str)
            .transpose()
            .map_err(|e| bad(format!("capacity: {e}")))?;
        Ok(StoredRun {
            id,
            experiment: self.experiment,
            record: RunRecord {
                coordinates: self.coordinates,
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
                capacity,
            },
        })
    }
}
