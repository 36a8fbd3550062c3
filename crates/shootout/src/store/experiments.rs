//! The `experiments` table: an experiment's start (its name, seed, file, plan and
//! machine), its end, and finding one by id or name.

use super::{End, Ending, Plan, Store, StoreError};
use crate::model::{ExperimentId, Machine};
use rusqlite::{named_params, OptionalExtension};

/// What is recorded about an experiment besides its runs.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ExperimentRow {
    pub id: ExperimentId,
    pub name: String,
    pub started_unix_ms: i64,
    pub seed: i64,
    /// The experiment file as it was run (shown on the report page, never parsed again).
    pub definition: String,
    pub machine: Machine,
    pub runs: i64,
    /// The plan as resolved at the start; None for experiments stored before plans were
    /// (schema 9).
    pub plan: Option<Plan>,
}

/// An experiment about to run.
pub struct NewExperiment<'a> {
    pub name: &'a str,
    pub seed: u64,
    /// The experiment file's text, as read at the start.
    pub definition: &'a str,
    pub plan: Option<&'a Plan>,
    pub machine: &'a Machine,
}

/// Every column of an experiment's row, the number of its runs among them.
const SELECT: &str = "SELECT e.id, e.name, e.started_unix_ms, e.seed, e.definition, e.machine, \
     e.plan, (SELECT COUNT(*) FROM runs r WHERE r.experiment_id = e.id) AS runs FROM experiments e";

impl Store {
    /// Records the start of an experiment; returns its id.
    pub fn begin(&mut self, new: &NewExperiment) -> Result<ExperimentId, StoreError> {
        let json = |what: &str, e: serde_json::Error| StoreError::Decode {
            table: "experiments",
            id: 0,
            what: format!("{what}: {e}"),
        };
        let machine = serde_json::to_string(new.machine).map_err(|e| json("machine", e))?;
        let plan =
            (new.plan.map(serde_json::to_string).transpose()).map_err(|e| json("plan", e))?;
        let tx = self.db.transaction()?;
        tx.execute(
            "INSERT INTO experiments (name, started_unix_ms, seed, definition, machine, plan) \
             VALUES (:name, :started, :seed, :definition, :machine, :plan)",
            named_params! {
                ":name": new.name,
                ":started": crate::model::now_unix_ms(),
                ":seed": new.seed as i64,
                ":definition": new.definition,
                ":machine": machine,
                ":plan": plan,
            },
        )?;
        let id = ExperimentId(tx.last_insert_rowid());
        tx.commit()?;
        Ok(id)
    }

    /// Records that experiment `id` ended as `ending`, now.
    pub fn end(&mut self, id: ExperimentId, ending: Ending) -> Result<(), StoreError> {
        let changed = self.db.execute(
            "UPDATE experiments SET status = :status, finished_unix_ms = :at WHERE id = :id",
            named_params! {":status": ending.word(), ":at": crate::model::now_unix_ms(), ":id": id},
        )?;
        match changed {
            0 => Err(StoreError::NoExperiment(id.to_string())),
            _ => Ok(()),
        }
    }

    /// What is known of experiment `id`'s end.
    pub fn end_of(&self, id: ExperimentId) -> Result<End, StoreError> {
        let row = self.db.query_row(
            "SELECT status, finished_unix_ms FROM experiments WHERE id = ?1",
            [id],
            |r| {
                Ok((
                    r.get::<_, Option<String>>("status")?,
                    r.get("finished_unix_ms")?,
                ))
            },
        );
        let (status, finished) = row
            .optional()?
            .ok_or_else(|| StoreError::NoExperiment(id.to_string()))?;
        End::decode(status.as_deref(), finished).ok_or_else(|| StoreError::Decode {
            table: "experiments",
            id: id.0,
            what: format!("status {status:?}"),
        })
    }

    /// Every experiment, oldest first.
    pub fn experiments(&self) -> Result<Vec<ExperimentRow>, StoreError> {
        let mut q = self.db.prepare(&format!("{SELECT} ORDER BY e.id"))?;
        let rows = q.query_map([], read)?;
        rows.map(|row| row?.decode()).collect()
    }

    /// Experiment `id`.
    pub fn experiment(&self, id: ExperimentId) -> Result<ExperimentRow, StoreError> {
        let row = (self.db)
            .query_row(&format!("{SELECT} WHERE e.id = ?1"), [id], read)
            .optional()?;
        row.ok_or_else(|| StoreError::NoExperiment(id.to_string()))?
            .decode()
    }

    /// The experiment `what` names: an id, or a name (its newest experiment).
    pub fn find(&self, what: &str) -> Result<ExperimentRow, StoreError> {
        let missing = || StoreError::NoExperiment(what.to_string());
        if let Ok(id) = what.parse::<i64>() {
            return self.experiment(ExperimentId(id)).map_err(|e| match e {
                StoreError::NoExperiment(_) => missing(),
                e => e,
            });
        }
        let sql = format!("{SELECT} WHERE e.name = ?1 ORDER BY e.id DESC LIMIT 1");
        let row = self.db.query_row(&sql, [what], read).optional()?;
        row.ok_or_else(missing)?.decode()
    }
}

/// A row as read, before its JSON columns are decoded (which may fail, and then names
/// the experiment).
struct RawExperiment {
    id: ExperimentId,
    name: String,
    started_unix_ms: i64,
    seed: i64,
    definition: String,
    machine: String,
    plan: Option<String>,
    runs: i64,
}

fn read(row: &rusqlite::Row) -> rusqlite::Result<RawExperiment> {
    Ok(RawExperiment {
        id: row.get("id")?,
        name: row.get("name")?,
        started_unix_ms: row.get("started_unix_ms")?,
        seed: row.get("seed")?,
        definition: row.get("definition")?,
        machine: row.get("machine")?,
        plan: row.get("plan")?,
        runs: row.get("runs")?,
    })
}

impl RawExperiment {
    fn decode(self) -> Result<ExperimentRow, StoreError> {
        let bad = |what: String| StoreError::Decode {
            table: "experiments",
            id: self.id.0,
            what,
        };
        let machine =
            serde_json::from_str(&self.machine).map_err(|e| bad(format!("machine: {e}")))?;
        let plan = (self.plan.as_deref().map(serde_json::from_str).transpose())
            .map_err(|e| bad(format!("plan: {e}")))?;
        Ok(ExperimentRow {
            id: self.id,
            name: self.name,
            started_unix_ms: self.started_unix_ms,
            seed: self.seed,
            definition: self.definition,
            machine,
            runs: self.runs,
            plan,
        })
    }
}
