//! The `runs` table: each run stored as it ends, read back as the harness wrote it.

use super::{run_row, ExperimentRow, Store, StoreError};
use crate::model::{ExperimentId, RunId, RunRecord};
use rusqlite::OptionalExtension;

/// A run as stored: its id, its experiment's, and its record.
#[derive(Debug, Clone)]
pub struct StoredRun {
    pub id: RunId,
    pub experiment: ExperimentId,
    pub record: RunRecord,
}

impl Store {
    /// Stores one run of experiment `experiment`, in its own transaction.
    pub fn add_run(
        &mut self,
        experiment: ExperimentId,
        r: &RunRecord,
    ) -> Result<RunId, StoreError> {
        let tx = self.db.transaction()?;
        let id = run_row::insert(&tx, experiment, r)?;
        tx.commit()?;
        Ok(id)
    }

    /// The runs of experiment `id`, read back as the harness wrote them.
    pub fn runs(&self, id: ExperimentId) -> Result<Vec<StoredRun>, StoreError> {
        let sql = format!(
            "{} WHERE experiment_id = ?1 ORDER BY id",
            run_row::select_sql()
        );
        let mut q = self.db.prepare(&sql)?;
        let rows = q.query_map([id], run_row::read)?;
        rows.map(|row| row?.decode()).collect()
    }

    /// The records of experiment `id`'s runs.
    pub fn load_runs(&self, id: ExperimentId) -> Result<Vec<RunRecord>, StoreError> {
        Ok(self.runs(id)?.into_iter().map(|r| r.record).collect())
    }

    /// Run `id` and the experiment it belongs to.
    pub fn find_run(&self, id: RunId) -> Result<(ExperimentRow, StoredRun), StoreError> {
        let sql = format!("{} WHERE id = ?1", run_row::select_sql());
        let raw = self.db.query_row(&sql, [id], run_row::read).optional()?;
        let run = raw.ok_or(StoreError::NoRun(id))?.decode()?;
        Ok((self.experiment(run.experiment)?, run))
    }
}
