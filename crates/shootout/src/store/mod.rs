//! Results in SQLite (`results/shootout.db`): one row per experiment, one per run, each
//! run written in its own transaction as it ends, so an interrupted experiment keeps
//! everything it measured. Nothing is ever overwritten: rows are only inserted.

mod ending;
mod named;
mod run_row;
mod saved_load;
mod schema;

pub use ending::{End, Ending, Status};
pub use named::Named;
pub use saved_load::{NewSavedLoad, SavedLoad, SavedLoadRow};

use crate::record::{Machine, RunRecord};
use rusqlite::{params, Connection};
use std::path::{Path, PathBuf};

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
    pub machine: Machine,
    pub runs: i64,
}

/// A run as stored: its id, and its record.
#[derive(Debug, Clone)]
pub struct StoredRun {
    pub id: i64,
    pub record: RunRecord,
}

/// What went wrong with the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{}: {source}", path.display())]
    Open {
        path: PathBuf,
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    #[error(transparent)]
    Sql(#[from] rusqlite::Error),
    /// A stored row that does not decode: the database was written by something else.
    #[error("{table} row {id}: {what}")]
    Decode {
        table: &'static str,
        id: i64,
        what: String,
    },
    #[error("no stored experiment {0:?} (see `shootout results`)")]
    NoExperiment(String),
    #[error("no stored run {0} (see `shootout results EXPERIMENT`)")]
    NoRun(i64),
    #[error("no saved load load:{0} (see `shootout results`)")]
    NoSavedLoad(i64),
    /// An experiment's name that is also a saved load's label.
    #[error("{word:?} names both experiment {word} (#{experiment}) and saved load {word} (load:{load}): say {experiment} or load:{load}")]
    Ambiguous {
        word: String,
        experiment: i64,
        load: i64,
    },
}

impl Store {
    /// Opens (creating and migrating as needed) the database at `path`.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        let failed = |source: Box<dyn std::error::Error + Send + Sync>| StoreError::Open {
            path: path.to_path_buf(),
            source,
        };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| StoreError::Open {
                path: dir.to_path_buf(),
                source: e.into(),
            })?;
        }
        let mut db = Connection::open(path).map_err(|e| failed(e.into()))?;
        db.pragma_update(None, "journal_mode", "WAL")?;
        schema::migrate(&mut db).map_err(|e| failed(format!("migration: {e}").into()))?;
        Ok(Store { db })
    }

    /// Records the start of an experiment; returns its id.
    pub fn begin(
        &mut self,
        name: &str,
        seed: u64,
        definition: &str,
        machine: &Machine,
    ) -> Result<i64, StoreError> {
        let now = crate::record::now_unix_ms();
        let machine = serde_json::to_string(machine).map_err(|e| StoreError::Decode {
            table: "experiments",
            id: 0,
            what: e.to_string(),
        })?;
        let tx = self.db.transaction()?;
        tx.execute(
            "INSERT INTO experiments (name, started_unix_ms, seed, definition, machine) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![name, now, seed as i64, definition, machine],
        )?;
        let id = tx.last_insert_rowid();
        tx.commit()?;
        Ok(id)
    }

    /// Stores one run of experiment `experiment`, in its own transaction.
    pub fn add_run(&mut self, experiment: i64, r: &RunRecord) -> Result<i64, StoreError> {
        let values = run_row::values(r)?;
        let tx = self.db.transaction()?;
        tx.execute(
            &run_row::insert_sql(),
            rusqlite::params_from_iter(std::iter::once(experiment.into()).chain(values)),
        )?;
        let id = tx.last_insert_rowid();
        tx.commit()?;
        Ok(id)
    }

    /// Records that experiment `id` ended as `ending`, now.
    pub fn end(&mut self, id: i64, ending: Ending) -> Result<(), StoreError> {
        let changed = self.db.execute(
            "UPDATE experiments SET status = ?1, finished_unix_ms = ?2 WHERE id = ?3",
            params![ending.word(), crate::record::now_unix_ms(), id],
        )?;
        match changed {
            0 => Err(StoreError::NoExperiment(id.to_string())),
            _ => Ok(()),
        }
    }

    /// What is known of experiment `id`'s end.
    pub fn end_of(&self, id: i64) -> Result<End, StoreError> {
        let row = self.db.query_row(
            "SELECT status, finished_unix_ms FROM experiments WHERE id = ?1",
            [id],
            |r| Ok((r.get::<_, Option<String>>(0)?, r.get::<_, Option<i64>>(1)?)),
        );
        let (status, finished) = match row {
            Ok(row) => row,
            Err(rusqlite::Error::QueryReturnedNoRows) => {
                return Err(StoreError::NoExperiment(id.to_string()))
            }
            Err(e) => return Err(e.into()),
        };
        End::decode(status.as_deref(), finished).ok_or_else(|| StoreError::Decode {
            table: "experiments",
            id,
            what: format!("status {status:?}"),
        })
    }

    /// Every experiment, newest last.
    pub fn experiments(&self) -> Result<Vec<ExperimentRow>, StoreError> {
        let mut q = self.db.prepare(
            "SELECT e.id, e.name, e.started_unix_ms, e.seed, e.definition, e.machine, \
             (SELECT COUNT(*) FROM runs r WHERE r.experiment_id = e.id) FROM experiments e ORDER BY e.id",
        )?;
        let rows = q.query_map([], |row| {
            Ok((
                ExperimentRow {
                    id: row.get(0)?,
                    name: row.get(1)?,
                    started_unix_ms: row.get(2)?,
                    seed: row.get(3)?,
                    definition: row.get(4)?,
                    machine: Machine::default(),
                    runs: row.get(6)?,
                },
                row.get::<_, String>(5)?,
            ))
        })?;
        rows.map(|row| {
            let (mut e, machine) = row?;
            e.machine = serde_json::from_str(&machine).map_err(|err| StoreError::Decode {
                table: "experiments",
                id: e.id,
                what: format!("machine: {err}"),
            })?;
            Ok(e)
        })
        .collect()
    }

    /// The runs of experiment `id`, read back as the harness wrote them.
    pub fn runs(&self, id: i64) -> Result<Vec<StoredRun>, StoreError> {
        let sql = format!(
            "{} WHERE experiment_id = ?1 ORDER BY id",
            run_row::select_sql()
        );
        let mut q = self.db.prepare(&sql)?;
        let rows = q.query_map([id], run_row::read)?;
        rows.map(|row| row?.decode()).collect()
    }

    /// The records of experiment `id`'s runs.
    pub fn load_runs(&self, id: i64) -> Result<Vec<RunRecord>, StoreError> {
        Ok(self.runs(id)?.into_iter().map(|r| r.record).collect())
    }

    /// Run `id` and the experiment it belongs to.
    pub fn find_run(&self, id: i64) -> Result<(ExperimentRow, StoredRun), StoreError> {
        let sql = format!("{} WHERE id = ?1", run_row::select_sql());
        let run = match self.db.query_row(&sql, [id], run_row::read) {
            Ok(raw) => raw.decode()?,
            Err(rusqlite::Error::QueryReturnedNoRows) => return Err(StoreError::NoRun(id)),
            Err(e) => return Err(e.into()),
        };
        let experiment: i64 =
            self.db
                .query_row("SELECT experiment_id FROM runs WHERE id = ?1", [id], |r| {
                    r.get(0)
                })?;
        Ok((self.find(&experiment.to_string())?, run))
    }

    /// The experiment `what` names: an id, or a name (its newest experiment).
    pub fn find(&self, what: &str) -> Result<ExperimentRow, StoreError> {
        let all = self.experiments()?;
        let found = match what.parse::<i64>() {
            Ok(id) => all.into_iter().find(|e| e.id == id),
            Err(_) => all.into_iter().rev().find(|e| e.name == what),
        };
        found.ok_or_else(|| StoreError::NoExperiment(what.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{Cell, Label, LoadKind, VerifyLevel};

    fn run_row() -> RunRecord {
        let cell = Cell {
            contestant: "c".into(),
            endpoint: "hello".into(),
            layout: "split".into(),
            load: "ka".into(),
            connections: 10,
            repeat: 0,
        };
        let kind = LoadKind::Rate {
            schedule: "0,500:2s".into(),
        };
        let mut r = RunRecord::not_run(cell, kind, Label::GeneratorBound, "busy");
        r.toolchain = "go version go1.22".into();
        r.verify = VerifyLevel::Http;
        r.server_cpu_s = 1.5;
        r.peak_rss_kb = 2048;
        r.wall_s = 3.0;
        r.load_s = 2.0;
        r.make_up = true;
        r
    }

    fn temp_db(name: &str) -> PathBuf {
        let path = std::env::temp_dir().join(format!("shootout-{name}-{}.db", std::process::id()));
        let _ = std::fs::remove_file(&path);
        path
    }

    #[test]
    fn runs_round_trip_and_reopening_migrates_nothing_twice() {
        let path = temp_db("store");
        let mut s = Store::open(&path).unwrap();
        let machine = Machine {
            cores: 2,
            ..Machine::default()
        };
        let id = s.begin("quick", 7, "name = \"quick\"", &machine).unwrap();
        s.add_run(id, &run_row()).unwrap();
        drop(s);
        let s = Store::open(&path).unwrap();
        let e = &s.experiments().unwrap()[0];
        assert_eq!(
            (e.name.as_str(), e.seed, e.runs, e.machine.cores),
            ("quick", 7, 1, 2)
        );
        let r = &s.runs(id).unwrap()[0].record;
        assert_eq!(r.label(), Label::GeneratorBound);
        assert_eq!(r.peak_rss_kb, 2048);
        assert!(r.result().is_none());
        assert_eq!(
            (r.rate(), r.toolchain.as_str()),
            (Some("0,500:2s"), "go version go1.22")
        );
        assert_eq!(r.cell, run_row().cell);
        assert_eq!(r.verify, VerifyLevel::Http);
        assert!(r.make_up, "a make-up run reads back as one");
        let version: i64 =
            s.db.pragma_query_value(None, "user_version", |r| r.get(0))
                .unwrap();
        assert_eq!(version as usize, schema::VERSION);
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn a_version_1_database_is_migrated_and_keeps_its_runs() {
        let path = temp_db("v1");
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
        let r = &s.runs(1).unwrap()[0].record;
        assert_eq!(
            (r.cell.contestant.as_str(), r.toolchain.as_str()),
            ("c", "")
        );
        assert!(r.rate().is_none());
        assert_eq!(r.kind, LoadKind::Closed);
        assert_eq!(
            r.verify,
            VerifyLevel::Strict,
            "runs before levels were strict"
        );
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn version_2_ramps_get_their_kind_from_the_data_once() {
        let path = temp_db("v2");
        let mut db = Connection::open(&path).unwrap();
        db.execute_batch(schema::MIGRATIONS[0]).unwrap();
        db.execute_batch(schema::MIGRATIONS[1]).unwrap();
        db.execute_batch(
            "PRAGMA user_version = 2;
             INSERT INTO experiments VALUES (1, 'old', 0, 1, '', '{}');
             INSERT INTO runs (experiment_id, contestant, endpoint, layout, load, connections, repeat, \
             label, reason, server_cpu_s, peak_rss_kb, wall_s, load_s, series, result, rate) VALUES
             (1, 'a', 'app', 'split', 'ramp', 5, 0, 'ok', '', 0.5, 10, 1.0, 1.0, '[]',
              '{\"per_second\": [{\"devices\": 0}, {\"devices\": 3}]}', NULL),
             (1, 'b', 'app', 'split', 'ramp', 5, 0, 'skipped', 'blocked', 0, 0, 0, 0, '[]', NULL, NULL),
             (1, 'a', 'hello', 'split', 'open', 5, 0, 'skipped', '', 0, 0, 0, 0, '[]', NULL, '1000'),
             (1, 'a', 'hello', 'split', 'ka', 5, 0, 'skipped', '', 0, 0, 0, 0, '[]', NULL, NULL);",
        )
        .unwrap();
        schema::migrate(&mut db).unwrap();
        let kinds: Vec<String> = db
            .prepare("SELECT load_kind FROM runs ORDER BY id")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(kinds, ["devices", "devices", "rate", "closed"]);
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn an_experiment_is_open_until_its_end_is_recorded_and_older_ones_are_unrecorded() {
        let path = temp_db("end");
        let db = Connection::open(&path).unwrap();
        for sql in &schema::MIGRATIONS[..3] {
            db.execute_batch(sql).unwrap();
        }
        db.execute_batch(
            "PRAGMA user_version = 3; INSERT INTO experiments VALUES (1, 'old', 0, 1, '', '{}');",
        )
        .unwrap();
        drop(db);
        let mut s = Store::open(&path).unwrap();
        assert_eq!(s.end_of(1).unwrap(), End::Unrecorded);
        assert_eq!(s.end_of(1).unwrap().status(false), Status::Unknown);
        let id = s.begin("q", 1, "", &Machine::default()).unwrap();
        assert_eq!(s.end_of(id).unwrap(), End::Open);
        assert_eq!(End::Open.status(true), Status::Running);
        assert_eq!(End::Open.status(false), Status::Died);
        s.end(id, Ending::Interrupted).unwrap();
        let end = s.end_of(id).unwrap();
        assert_eq!(end.status(false), Status::Interrupted);
        assert!(end.finished_unix_ms().unwrap() > 0);
        assert!(matches!(
            s.end(id + 1, Ending::Complete),
            Err(StoreError::NoExperiment(_))
        ));
        assert!(matches!(s.end_of(id + 1), Err(StoreError::NoExperiment(_))));
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn saved_loads_keep_their_result_and_a_label_names_its_newest() {
        let path = temp_db("saved");
        let mut s = Store::open(&path).unwrap();
        let mut result = crate::report::fixture::result(crate::report::fixture::Measured {
            rps: 1000.0,
            p99_ms: 2.0,
            server_cpu_s: 0.0,
            errors: 0,
        });
        let kind = LoadKind::Rate {
            schedule: "0,500:2s".into(),
        };
        let command = vec!["http://127.0.0.1:9000/hello".to_string(), "-c".into()];
        let mut save = |rps: f64, label: &str| {
            result.rps = rps;
            s.save_load(&NewSavedLoad {
                label,
                command: &command,
                kind: &kind,
                machine: &Machine::default(),
                result: &result,
            })
            .unwrap()
        };
        let (first, _, newest) = (save(1.0, "a"), save(2.0, "b"), save(3.0, "a"));
        drop(s);
        let s = Store::open(&path).unwrap();
        let rows = s.saved_loads().unwrap();
        assert_eq!(rows.len(), 3);
        assert_eq!((rows[0].id, rows[0].label.as_str()), (first, "a"));
        assert_eq!((rows[0].duration_s, rows[0].interrupted), (4.0, false));
        let a = s.newest_saved_load("a").unwrap().unwrap();
        assert_eq!((a.id, a.rps, &a.kind), (newest, 3.0, &kind));
        assert!(s.newest_saved_load("c").unwrap().is_none());
        let full = s.saved_load(first).unwrap();
        assert_eq!((full.result.rps, full.row.command), (1.0, command));
        assert_eq!(full.result.latency_us.p99, 2000.0);
        assert!(matches!(
            s.saved_load(newest + 1),
            Err(StoreError::NoSavedLoad(_))
        ));
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn a_row_that_does_not_decode_is_an_error_naming_the_run() {
        let path = temp_db("bad");
        let mut s = Store::open(&path).unwrap();
        let id = s.begin("q", 1, "", &Machine::default()).unwrap();
        let run = s.add_run(id, &run_row()).unwrap();
        s.db.execute("UPDATE runs SET series = 'not json' WHERE id = ?1", [run])
            .unwrap();
        let err = s.runs(id).unwrap_err().to_string();
        assert!(
            err.starts_with(&format!("runs row {run}: series:")),
            "{err}"
        );
        let err = s.find_run(run).unwrap_err().to_string();
        assert!(err.starts_with(&format!("runs row {run}:")), "{err}");
        assert_eq!(
            s.find_run(run + 1).unwrap_err().to_string(),
            format!(
                "no stored run {} (see `shootout results EXPERIMENT`)",
                run + 1
            )
        );
        let _ = std::fs::remove_file(&path);
    }
}
