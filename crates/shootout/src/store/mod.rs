//! Results in SQLite (`results/shootout.db`): one row per experiment, one per run, each
//! run written in its own transaction as it ends, so an interrupted experiment keeps
//! everything it measured. Nothing is ever overwritten: rows are only inserted. Columns
//! are written and read by name.

mod client_certificate;
mod ending;
mod experiments;
mod ids;
mod named;
mod plan;
mod run_row;
mod runs;
mod saved_load;
mod schema;

pub use client_certificate::ClientCertificate;
pub use ending::{End, Ending, Status};
pub use experiments::{ExperimentRow, NewExperiment};
pub use named::Named;
pub use plan::{
    Budget, Certificate, Plan, PlannedDatabase, PlannedHttp2, PlannedLoad, PlannedRepeats,
    PlannedTls,
};
pub use runs::StoredRun;
pub use saved_load::{NewSavedLoad, SavedLoad, SavedLoadRow};

use crate::model::RunId;
use rusqlite::Connection;
use std::path::{Path, PathBuf};

/// An open results database.
pub struct Store {
    db: Connection,
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
    #[error("no stored run {} (see `shootout results EXPERIMENT`)", .0 .0)]
    NoRun(RunId),
    #[error("no saved load load:{0} (see `shootout results`)")]
    NoSavedLoad(i64),
    /// An experiment's name that is also a saved load's label.
    #[error("{word:?} names both experiment {word} (#{experiment}) and saved load {word} (load:{load}): say {experiment} or load:{load}")]
    Ambiguous {
        word: String,
        experiment: crate::model::ExperimentId,
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
}

#[cfg(test)]
mod tests;
