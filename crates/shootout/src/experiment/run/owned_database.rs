//! The database an experiment's runs share (`[database]`): started once before the first
//! round in the results folder (`database/PID`), moved to each run's CPUs as its layout
//! says before its server starts (backends fork from the postmaster and take its CPUs),
//! handed to every server as `DATABASE_URL` and `DATABASE_POOL`, read by verification, and
//! stopped when the experiment ends (its data removed, its log kept). It dies with the
//! harness as a server does (`process::server`), `kill -9` included.

use super::failure::RunFailure;
use crate::contestant::locations;
use crate::contestant::verify::Tables;
use crate::database::{Database, DatabaseSpec};
use crate::experiment::layout::Layout;
use crate::experiment::DatabaseSetting;

/// The experiment's database, or why it has none.
#[derive(Debug)]
pub(super) enum OwnedDatabase {
    /// The experiment asks for none.
    NotAsked,
    Running(Box<Database>),
    /// It could not be started: every run that needs it says why.
    Failed(String),
}

impl OwnedDatabase {
    /// Starts the database `setting` asks for (from the thread that runs the experiment,
    /// which lives as long as the database: see `Server::spawn`).
    pub(super) fn start(setting: Option<&DatabaseSetting>) -> OwnedDatabase {
        let Some(setting) = setting else {
            return OwnedDatabase::NotAsked;
        };
        let dir = match locations::results() {
            Ok(results) => results
                .join("database")
                .join(std::process::id().to_string()),
            Err(e) => return OwnedDatabase::Failed(format!("the database's folder: {e}")),
        };
        let spec = DatabaseSpec {
            dir: &dir,
            world_rows: setting.world_rows,
            pool: setting.pool,
            cpus: None,
        };
        match Database::start(&spec) {
            Ok(db) => OwnedDatabase::Running(Box::new(db)),
            Err(e) => OwnedDatabase::Failed(e.to_string()),
        }
    }

    /// One line for the user: what runs and where, or why it does not.
    pub(super) fn line(&self) -> Option<String> {
        match self {
            OwnedDatabase::NotAsked => None,
            OwnedDatabase::Running(db) => Some(format!(
                "database: PostgreSQL {} on 127.0.0.1:{} (pid {}, log {}), each server's pool {}",
                db.version,
                db.port(),
                db.pid(),
                db.log().display(),
                db.pool
            )),
            OwnedDatabase::Failed(why) => Some(format!("database: not started: {why}")),
        }
    }

    /// The database moved to `layout`'s CPUs for a run, and the environment its server
    /// gets; nothing when the experiment has no database.
    pub(super) fn place(
        &mut self,
        layout: &Layout,
    ) -> Result<Vec<(&'static str, String)>, RunFailure> {
        let db = match self {
            OwnedDatabase::NotAsked => return Ok(Vec::new()),
            OwnedDatabase::Failed(why) => return Err(RunFailure::Database(why.clone())),
            OwnedDatabase::Running(db) => db,
        };
        if !db.alive() {
            let why = format!("postgres exited; log: {}", db.log().display());
            *self = OwnedDatabase::Failed(why.clone());
            return Err(RunFailure::Database(why));
        }
        (db.place(layout.database.as_deref())).map_err(|e| RunFailure::Database(e.to_string()))?;
        Ok(db.environment().to_vec())
    }

    /// What verification reads the tables from.
    pub(super) fn tables(&self) -> Option<&dyn Tables> {
        match self {
            OwnedDatabase::Running(db) => Some(db.as_ref() as &dyn Tables),
            _ => None,
        }
    }

    /// The postmaster, whose process tree's CPU the monitor counts as the database's.
    pub(super) fn group(&self) -> Option<u32> {
        match self {
            OwnedDatabase::Running(db) => Some(db.pid()),
            _ => None,
        }
    }
}
