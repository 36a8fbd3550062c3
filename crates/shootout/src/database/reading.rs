//! What verification reads from a running cluster ([`Tables`]): World and Fortune as they
//! are, and the SELECTs on World that `pg_stat_statements` counted, which the database
//! endpoints' checks compare answers with. Rows come as one JSON value per statement, so
//! that no message's text can break psql's columns.

use super::{Database, DatabaseError, DATABASE_NAME};
use crate::contestant::verify::{Selects, Tables, TablesError};
use std::collections::BTreeMap;

/// Marks the harness's own statements, which the count leaves out (`pg_stat_statements`
/// keeps a statement's text with its comments).
const MARK: &str = "/* shootout harness */";

impl Database {
    /// `sql`'s one JSON value, read as `T`; `step` names it in an error.
    fn json<T: serde::de::DeserializeOwned>(
        &self,
        sql: &str,
        step: &str,
    ) -> Result<T, TablesError> {
        let text =
            (self.psql.run(DATABASE_NAME, sql, step)).map_err(|e| TablesError(e.to_string()))?;
        serde_json::from_str(&text).map_err(|e| {
            TablesError(
                DatabaseError::Statement {
                    step: step.to_string(),
                    message: format!("{e}: {text:.80}"),
                }
                .to_string(),
            )
        })
    }
}

impl Tables for Database {
    fn world(&self) -> Result<BTreeMap<i32, i32>, TablesError> {
        let sql =
            format!("SELECT {MARK} coalesce(json_object_agg(id, randomnumber), '{{}}') FROM world");
        let rows: BTreeMap<String, i32> = self.json(&sql, "read World")?;
        let id = |k: String| {
            k.parse()
                .map_err(|_| TablesError(format!("read World: id {k:?}")))
        };
        rows.into_iter().map(|(k, n)| Ok((id(k)?, n))).collect()
    }

    fn fortunes(&self) -> Result<Vec<(i32, String)>, TablesError> {
        let sql = format!(
            "SELECT {MARK} coalesce(json_agg(json_build_array(id, message) ORDER BY id), '[]') FROM fortune"
        );
        self.json(&sql, "read Fortune")
    }

    fn reset_statements(&self) -> Result<(), TablesError> {
        let sql = format!("SELECT {MARK} pg_stat_statements_reset()");
        let reset = self
            .psql
            .run(DATABASE_NAME, &sql, "reset pg_stat_statements");
        reset.map(|_| ()).map_err(|e| TablesError(e.to_string()))
    }

    fn world_selects(&self) -> Result<Selects, TablesError> {
        let sql = format!(
            "SELECT {MARK} json_build_array(coalesce(sum(calls), 0), coalesce(sum(rows), 0)) \
             FROM pg_stat_statements \
             WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) \
               AND query ~* '^\\s*select\\M' AND query ~* '\\mworld\\M' \
               AND strpos(query, '{MARK}') = 0"
        );
        let (calls, rows): (u64, u64) = self.json(&sql, "count the SELECTs on World")?;
        Ok(Selects { calls, rows })
    }
}
