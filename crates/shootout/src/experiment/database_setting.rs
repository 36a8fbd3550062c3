//! The database an experiment asks for (`[database]`): which kind, each contestant's
//! connection pool (one setting, the same for all, shown in the tables) and the rows of
//! World. The run starts it once and places it per layout (`+db:server`, `+db:generator`).

use super::error::{FieldError, FieldProblem};
use super::file::DatabaseFile;
use super::layout::Layout;
use crate::contestant::manifest::DatabaseKind;
use crate::database::tables::WORLD_ROWS;
use crate::model::endpoint::Endpoint;

/// Each contestant's connection pool when the experiment does not say: twice the cores
/// of a large machine's server is more than this machine's backends can use, and few
/// enough that every server's driver keeps all its connections busy.
pub const DEFAULT_POOL: u32 = 16;
/// The most connections a pool may ask for (the cluster allows 8 pools of it).
pub const MOST_POOL: u32 = 512;

/// A database the harness starts for an experiment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DatabaseSetting {
    pub kind: DatabaseKind,
    /// Each contestant's connection pool (`DATABASE_POOL`).
    pub pool: u32,
    /// Rows of World (TechEmpower's 10,000 unless said).
    pub world_rows: u32,
}

/// The `[database]` table checked; an experiment with a database endpoint or a layout
/// that places the database must have one.
pub(super) fn check(
    file: Option<&DatabaseFile>,
    endpoints: &[Endpoint],
    layouts: &[Layout],
) -> Result<Option<DatabaseSetting>, FieldError> {
    let Some(f) = file else {
        if let Some(e) = endpoints.iter().find(|e| reads_database(e)) {
            return Err(
                FieldProblem::NoDatabase(format!("{} reads a database", e.name)).at("endpoints"),
            );
        }
        if let Some(l) = layouts.iter().find(|l| l.database_beside.is_some()) {
            return Err(FieldProblem::NoDatabase(format!("{} places one", l.name)).at("layouts"));
        }
        return Ok(None);
    };
    let pool = f.pool.unwrap_or(DEFAULT_POOL);
    if !(1..=MOST_POOL).contains(&pool) {
        let most = MOST_POOL;
        return Err(FieldProblem::Pool { pool, most }.at("database.pool"));
    }
    let world_rows = f.world.unwrap_or(WORLD_ROWS);
    if world_rows == 0 {
        return Err(FieldProblem::Empty.at("database.world"));
    }
    Ok(Some(DatabaseSetting {
        kind: f.kind,
        pool,
        world_rows,
    }))
}

/// Whether `e` reads the database (`db`, `queries`, `fortunes`, `updates`).
pub fn reads_database(e: &Endpoint) -> bool {
    e.builtin.is_some_and(|b| b.needs_database())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(pool: Option<u32>) -> DatabaseFile {
        DatabaseFile {
            kind: DatabaseKind::Postgresql,
            pool,
            world: None,
        }
    }

    #[test]
    fn a_database_endpoint_or_placement_needs_a_database_and_a_pool_in_range() {
        let db = [Endpoint::builtin("queries:1").unwrap()];
        let why = check(None, &db, &[]).unwrap_err().to_string();
        assert!(
            why.contains("queries:1 reads a database: add [database]"),
            "{why}"
        );
        let setting = check(Some(&file(None)), &db, &[]).unwrap().unwrap();
        assert_eq!(
            (setting.pool, setting.world_rows),
            (DEFAULT_POOL, WORLD_ROWS)
        );
        let why = check(Some(&file(Some(0))), &db, &[])
            .unwrap_err()
            .to_string();
        assert!(
            why.contains("a pool of 0 connections: from 1 to 512"),
            "{why}"
        );
        assert_eq!(check(None, &[Endpoint::hello()], &[]).unwrap(), None);
        if engine::allowed_cpus() >= 2 {
            let placed = [Layout::parse("split+db:server").unwrap()];
            let why = check(None, &[], &placed).unwrap_err().to_string();
            assert!(why.contains("split+db:server places one"), "{why}");
        }
    }
}
