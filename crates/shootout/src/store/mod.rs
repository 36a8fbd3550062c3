//! Results in SQLite (`results/shootout.db`): one row per experiment, one per run, each
//! run written in its own transaction as it ends, so an interrupted experiment keeps
//! everything it measured. Nothing is ever overwritten: rows are only inserted.

mod schema;

use crate::harness::run::Run;
use rusqlite::{params, Connection};
use std::path::Path;

/// An open results database.
pub struct Store {
    db: Connection,
}

/// What is recorded about an experiment besides its runs.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ExperimentRow {
    pub id: i64,
    pub name: String,
    pub started_unix_ms: i64,
    pub seed: i64,
    /// The experiment file as it was run.
    pub definition: String,
    /// CPU model, cores, kernel, shootout version and git commit, as JSON.
    pub machine: serde_json::Value,
    pub runs: i64,
}

impl Store {
    /// Opens (creating and migrating as needed) the database at `path`.
    pub fn open(path: &Path) -> Result<Store, String> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        let mut db = Connection::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
        db.pragma_update(None, "journal_mode", "WAL")
            .map_err(|e| e.to_string())?;
        schema::migrate(&mut db).map_err(|e| format!("{}: migration: {e}", path.display()))?;
        Ok(Store { db })
    }

    /// Records the start of an experiment; returns its id.
    pub fn begin(
        &mut self,
        name: &str,
        seed: u64,
        definition: &str,
        machine: &serde_json::Value,
    ) -> Result<i64, String> {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as i64);
        let tx = self.db.transaction().map_err(|e| e.to_string())?;
        tx.execute(
            "INSERT INTO experiments (name, started_unix_ms, seed, definition, machine) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![name, now, seed as i64, definition, machine.to_string()],
        )
        .map_err(|e| e.to_string())?;
        let id = tx.last_insert_rowid();
        tx.commit().map_err(|e| e.to_string())?;
        Ok(id)
    }

    /// Stores one run of experiment `experiment`, in its own transaction.
    pub fn add_run(&mut self, experiment: i64, r: &Run) -> Result<i64, String> {
        let result = r
            .result
            .as_ref()
            .map(serde_json::to_string)
            .transpose()
            .map_err(|e| e.to_string())?;
        let series = serde_json::to_string(&r.series).map_err(|e| e.to_string())?;
        let rps = r.result.as_ref().map(|x| x.rps);
        let p99 = r.result.as_ref().map(|x| x.latency_us.p99);
        let tx = self.db.transaction().map_err(|e| e.to_string())?;
        tx.execute(
            "INSERT INTO runs (experiment_id, contestant, endpoint, layout, load, connections, repeat, \
             label, reason, rps, p99_us, server_cpu_s, peak_rss_kb, wall_s, load_s, result, series, \
             rate, toolchain) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19)",
            params![
                experiment, r.contestant, r.endpoint, r.layout, r.load, r.connections as i64, r.repeat as i64,
                r.label.word(), r.reason, rps, p99, r.server_cpu_s, r.peak_rss_kb as i64,
                r.wall_s, r.load_s, result, series, r.rate, r.toolchain
            ],
        )
        .map_err(|e| e.to_string())?;
        let id = tx.last_insert_rowid();
        tx.commit().map_err(|e| e.to_string())?;
        Ok(id)
    }

    /// Every experiment, newest last.
    pub fn experiments(&self) -> Result<Vec<ExperimentRow>, String> {
        let mut q = self
            .db
            .prepare(
                "SELECT e.id, e.name, e.started_unix_ms, e.seed, e.definition, e.machine, \
                 (SELECT COUNT(*) FROM runs r WHERE r.experiment_id = e.id) FROM experiments e ORDER BY e.id",
            )
            .map_err(|e| e.to_string())?;
        let rows = q
            .query_map([], |row| {
                let machine: String = row.get(5)?;
                Ok(ExperimentRow {
                    id: row.get(0)?,
                    name: row.get(1)?,
                    started_unix_ms: row.get(2)?,
                    seed: row.get(3)?,
                    definition: row.get(4)?,
                    machine: serde_json::from_str(&machine).unwrap_or_default(),
                    runs: row.get(6)?,
                })
            })
            .map_err(|e| e.to_string())?;
        rows.collect::<Result<_, _>>().map_err(|e| e.to_string())
    }

    /// The runs of experiment `id` as JSON objects (summary columns, result and series).
    pub fn runs(&self, id: i64) -> Result<Vec<serde_json::Value>, String> {
        let mut q = self
            .db
            .prepare(
                "SELECT id, contestant, endpoint, layout, load, connections, repeat, label, reason, rps, \
                 p99_us, server_cpu_s, peak_rss_kb, wall_s, load_s, result, series, rate, toolchain FROM runs \
                 WHERE experiment_id = ?1 ORDER BY id",
            )
            .map_err(|e| e.to_string())?;
        let rows = q
            .query_map([id], |row| {
                let json = |i: usize| -> rusqlite::Result<serde_json::Value> {
                    let text: Option<String> = row.get(i)?;
                    Ok(text.and_then(|t| serde_json::from_str(&t).ok()).unwrap_or_default())
                };
                Ok(serde_json::json!({
                    "id": row.get::<_, i64>(0)?, "contestant": row.get::<_, String>(1)?,
                    "endpoint": row.get::<_, String>(2)?, "layout": row.get::<_, String>(3)?,
                    "load": row.get::<_, String>(4)?, "connections": row.get::<_, i64>(5)?,
                    "repeat": row.get::<_, i64>(6)?, "label": row.get::<_, String>(7)?,
                    "reason": row.get::<_, String>(8)?, "rps": row.get::<_, Option<f64>>(9)?,
                    "p99_us": row.get::<_, Option<f64>>(10)?, "server_cpu_s": row.get::<_, f64>(11)?,
                    "peak_rss_kb": row.get::<_, i64>(12)?, "wall_s": row.get::<_, f64>(13)?,
                    "load_s": row.get::<_, f64>(14)?, "result": json(15)?, "series": json(16)?,
                    "rate": row.get::<_, Option<String>>(17)?, "toolchain": row.get::<_, String>(18)?,
                }))
            })
            .map_err(|e| e.to_string())?;
        rows.collect::<Result<_, _>>().map_err(|e| e.to_string())
    }
}

impl Store {
    /// The runs of experiment `id`, read back as the harness wrote them.
    pub fn load_runs(&self, id: i64) -> Result<Vec<Run>, String> {
        self.runs(id)?
            .into_iter()
            .map(|v| {
                let run_id = v["id"].as_i64().unwrap_or(0);
                serde_json::from_value(v).map_err(|e| format!("run {run_id}: {e}"))
            })
            .collect()
    }

    /// Run `id` and the experiment it belongs to.
    pub fn find_run(&self, id: i64) -> Result<(ExperimentRow, Run), String> {
        let experiment: i64 = self
            .db
            .query_row("SELECT experiment_id FROM runs WHERE id = ?1", [id], |r| {
                r.get(0)
            })
            .map_err(|_| format!("no stored run {id} (see `shootout results EXPERIMENT`)"))?;
        let row = self.runs(experiment)?.into_iter().find(|v| v["id"] == id);
        let run = row
            .map(serde_json::from_value)
            .transpose()
            .map_err(|e| format!("run {id}: {e}"))?
            .ok_or(format!("no stored run {id}"))?;
        Ok((self.find(&experiment.to_string())?, run))
    }

    /// The experiment `what` names: an id, or a name (its newest experiment).
    pub fn find(&self, what: &str) -> Result<ExperimentRow, String> {
        let all = self.experiments()?;
        let found = match what.parse::<i64>() {
            Ok(id) => all.into_iter().find(|e| e.id == id),
            Err(_) => all.into_iter().rev().find(|e| e.name == what),
        };
        found.ok_or_else(|| format!("no stored experiment {what:?} (see `shootout results`)"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::run::Label;

    fn run_row() -> Run {
        Run {
            contestant: "c".into(),
            endpoint: "hello".into(),
            layout: "split".into(),
            load: "ka".into(),
            connections: 10,
            rate: Some("0,500:2s".into()),
            toolchain: "go version go1.22".into(),
            repeat: 0,
            label: Label::GeneratorBound,
            reason: "busy".into(),
            result: None,
            server_cpu_s: 1.5,
            peak_rss_kb: 2048,
            series: Vec::new(),
            wall_s: 3.0,
            load_s: 2.0,
        }
    }

    #[test]
    fn runs_round_trip_and_reopening_migrates_nothing_twice() {
        let path = std::env::temp_dir().join(format!("shootout-store-{}.db", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let mut s = Store::open(&path).unwrap();
        let id = s
            .begin(
                "quick",
                7,
                "name = \"quick\"",
                &serde_json::json!({"cores": 2}),
            )
            .unwrap();
        s.add_run(id, &run_row()).unwrap();
        drop(s);
        let s = Store::open(&path).unwrap();
        let e = &s.experiments().unwrap()[0];
        assert_eq!(
            (e.name.as_str(), e.seed, e.runs, e.machine["cores"].as_i64()),
            ("quick", 7, 1, Some(2))
        );
        let r = &s.runs(id).unwrap()[0];
        assert_eq!(r["label"], "generator-bound");
        assert_eq!(r["peak_rss_kb"], 2048);
        assert!(r["rps"].is_null());
        assert_eq!(
            (r["rate"].as_str(), r["toolchain"].as_str()),
            (Some("0,500:2s"), Some("go version go1.22"))
        );
        let version: i64 =
            s.db.pragma_query_value(None, "user_version", |r| r.get(0))
                .unwrap();
        assert_eq!(version as usize, schema::VERSION);
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn a_version_1_database_is_migrated_and_keeps_its_runs() {
        let path = std::env::temp_dir().join(format!("shootout-v1-{}.db", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let db = Connection::open(&path).unwrap();
        db.execute_batch(schema::MIGRATIONS[0]).unwrap();
        db.execute_batch(
            "PRAGMA user_version = 1;
             INSERT INTO experiments VALUES (1, 'old', 0, 1, '', '{}');
             INSERT INTO runs (experiment_id, contestant, endpoint, layout, load, connections, repeat, \
             label, reason, server_cpu_s, peak_rss_kb, wall_s, load_s, series) \
             VALUES (1, 'c', 'hello', 'split', 'ka', 5, 0, 'ok', '', 0.5, 10, 1.0, 1.0, '[]');",
        )
        .unwrap();
        drop(db);
        let s = Store::open(&path).unwrap();
        let r = &s.runs(1).unwrap()[0];
        assert_eq!(
            (r["contestant"].as_str(), r["toolchain"].as_str()),
            (Some("c"), Some(""))
        );
        assert!(r["rate"].is_null());
        let _ = std::fs::remove_file(&path);
    }
}
