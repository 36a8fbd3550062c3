//! Loads kept by `shootout load --save`, in the `saved_loads` table beside experiments: a
//! label that names its newest save, the flags as given, the load's kind, the machine, the
//! load itself (its `LoadSpec`, without a client certificate's private key: see
//! [`ClientCertificate`]) and the whole `shootout.load/1` result.

use super::client_certificate::{without_key, ClientCertificate};
use super::{Store, StoreError};
use crate::model::capacity::CapacityResult;
use crate::model::{LoadKind, Machine};
use engine::{Certificates, LoadResult, LoadSpec};
use rusqlite::params;

/// A load to keep.
pub struct NewSavedLoad<'a> {
    pub label: &'a str,
    /// The flags of `shootout load` as given, the URL among them.
    pub command: &'a [String],
    pub kind: &'a LoadKind,
    pub machine: &'a Machine,
    /// The load as the flags (or `--spec`) made it: every setting, defaults filled in.
    /// Its client certificate's key, if any, is not stored.
    pub spec: &'a LoadSpec,
    pub result: &'a LoadResult,
    /// A capacity search (`load --capacity`), whose `result` is the step at capacity.
    pub capacity: Option<&'a CapacityResult>,
}

/// A kept load as listed: everything but its result.
#[derive(Debug, Clone)]
pub struct SavedLoadRow {
    /// Its id, which `load:ID` names.
    pub id: i64,
    pub label: String,
    pub saved_unix_ms: i64,
    pub command: Vec<String>,
    pub kind: LoadKind,
    pub machine: Machine,
    pub rps: f64,
    /// Measured seconds.
    pub duration_s: f64,
    /// Stopped early by Ctrl-C.
    pub interrupted: bool,
}

/// A kept load with its spec and result.
#[derive(Debug, Clone)]
pub struct SavedLoad {
    pub row: SavedLoadRow,
    /// None for a load saved before specs were kept (schema version 9 and earlier).
    /// Never with a client certificate (`tls.client`): that is apart, without its key.
    pub spec: Option<LoadSpec>,
    /// The client certificate the load presented (mTLS); its private key was not stored.
    pub client_certificate: Option<ClientCertificate>,
    pub result: LoadResult,
    /// A capacity search's steps and answer (`load --capacity --save`).
    pub capacity: Option<CapacityResult>,
}

/// The row's columns, in the order [`read`] takes them; the result's duration and
/// interruption are read from its JSON so that a listing decodes no histogram.
const SELECT: &str =
    "SELECT id, label, saved_unix_ms, command, load_kind, schedule, machine, rps, \
     json_extract(result, '$.duration_s'), json_extract(result, '$.interrupted') FROM saved_loads";

impl Store {
    /// Keeps a load, in its own transaction; returns its id.
    pub fn save_load(&mut self, load: &NewSavedLoad) -> Result<i64, StoreError> {
        let json = |what: &str, e: serde_json::Error| StoreError::Decode {
            table: "saved_loads",
            id: 0,
            what: format!("{what}: {e}"),
        };
        let command = serde_json::to_string(load.command).map_err(|e| json("command", e))?;
        let machine = serde_json::to_string(load.machine).map_err(|e| json("machine", e))?;
        let (spec, client_certificate) = without_key(load.spec);
        let spec = serde_json::to_string(&spec).map_err(|e| json("spec", e))?;
        let client_certificate = client_certificate.map(|c| c.chain.to_pem());
        let result = serde_json::to_string(load.result).map_err(|e| json("result", e))?;
        let capacity = (load.capacity.map(serde_json::to_string).transpose())
            .map_err(|e| json("capacity", e))?;
        let tx = self.db.transaction()?;
        tx.execute(
            "INSERT INTO saved_loads (label, saved_unix_ms, command, load_kind, schedule, machine, \
             rps, p99_us, result, spec, client_certificate, capacity) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            params![
                load.label,
                crate::model::now_unix_ms(),
                command,
                load.kind.word(),
                load.kind.schedule(),
                machine,
                load.result.rps,
                load.result.latency_us.p99,
                result,
                spec,
                client_certificate,
                capacity
            ],
        )?;
        let id = tx.last_insert_rowid();
        tx.commit()?;
        Ok(id)
    }

    /// Every kept load, oldest first.
    pub fn saved_loads(&self) -> Result<Vec<SavedLoadRow>, StoreError> {
        self.saved_load_rows(&format!("{SELECT} ORDER BY id"), params![])
    }

    /// The newest load kept under `label`, if any.
    pub fn newest_saved_load(&self, label: &str) -> Result<Option<SavedLoadRow>, StoreError> {
        let sql = format!("{SELECT} WHERE label = ?1 ORDER BY id DESC LIMIT 1");
        Ok(self.saved_load_rows(&sql, [label])?.pop())
    }

    /// Kept load `id`, with its spec, client certificate and result.
    pub fn saved_load(&self, id: i64) -> Result<SavedLoad, StoreError> {
        let row = self
            .saved_load_rows(&format!("{SELECT} WHERE id = ?1"), [id])?
            .pop()
            .ok_or(StoreError::NoSavedLoad(id))?;
        let (result, spec, client, capacity): Columns = self.db.query_row(
            "SELECT result, spec, client_certificate, capacity FROM saved_loads WHERE id = ?1",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )?;
        let bad = |what: String| StoreError::Decode {
            table: "saved_loads",
            id,
            what,
        };
        let spec = (spec.as_deref())
            .map(serde_json::from_str::<LoadSpec>)
            .transpose()
            .map_err(|e| bad(format!("spec: {e}")))?;
        let client_certificate = (client.as_deref())
            .map(|pem| Certificates::from_pem(pem.as_bytes(), "client_certificate"))
            .transpose()
            .map_err(|e| bad(e.to_string()))?
            .map(|chain| ClientCertificate { chain });
        // With the histogram the summary's `+/- Stdev` reads, as `load` had it.
        let result =
            crate::model::read_load_result(&result).map_err(|e| bad(format!("result: {e}")))?;
        let capacity = (capacity.as_deref())
            .map(serde_json::from_str)
            .transpose()
            .map_err(|e| bad(format!("capacity: {e}")))?;
        Ok(SavedLoad {
            row,
            spec,
            client_certificate,
            result,
            capacity,
        })
    }

    fn saved_load_rows<P: rusqlite::Params>(
        &self,
        sql: &str,
        params: P,
    ) -> Result<Vec<SavedLoadRow>, StoreError> {
        let mut q = self.db.prepare(sql)?;
        let rows = q.query_map(params, read)?;
        rows.map(|row| row?.decode()).collect()
    }
}

/// A saved load's JSON columns: result, spec, client certificate, capacity search.
type Columns = (String, Option<String>, Option<String>, Option<String>);

/// A row as read, before its JSON columns and words are decoded.
struct RawRow {
    id: i64,
    label: String,
    saved_unix_ms: i64,
    command: String,
    load_kind: String,
    schedule: Option<String>,
    machine: String,
    rps: f64,
    duration_s: Option<f64>,
    interrupted: Option<bool>,
}

fn read(row: &rusqlite::Row) -> rusqlite::Result<RawRow> {
    Ok(RawRow {
        id: row.get(0)?,
        label: row.get(1)?,
        saved_unix_ms: row.get(2)?,
        command: row.get(3)?,
        load_kind: row.get(4)?,
        schedule: row.get(5)?,
        machine: row.get(6)?,
        rps: row.get(7)?,
        duration_s: row.get(8)?,
        interrupted: row.get(9)?,
    })
}

impl RawRow {
    /// The row, or an error naming it and the column that does not decode.
    fn decode(self) -> Result<SavedLoadRow, StoreError> {
        let id = self.id;
        let bad = |what: String| StoreError::Decode {
            table: "saved_loads",
            id,
            what,
        };
        let kind = LoadKind::from_stored(&self.load_kind, self.schedule)
            .ok_or_else(|| bad(format!("load_kind: unknown kind {:?}", self.load_kind)))?;
        Ok(SavedLoadRow {
            id,
            label: self.label,
            saved_unix_ms: self.saved_unix_ms,
            command: serde_json::from_str(&self.command)
                .map_err(|e| bad(format!("command: {e}")))?,
            kind,
            machine: serde_json::from_str(&self.machine)
                .map_err(|e| bad(format!("machine: {e}")))?,
            rps: self.rps,
            duration_s: self.duration_s.unwrap_or(0.0),
            interrupted: self.interrupted.unwrap_or(false),
        })
    }
}
