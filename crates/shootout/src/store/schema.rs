//! The schema and its migrations, versioned with SQLite's `user_version`.

use rusqlite::Connection;

/// Migration `i` takes the database from version `i` to `i + 1`. Append only: a released
/// migration is never edited.
pub const MIGRATIONS: &[&str] = &[
    // 1: experiments and their runs.
    "CREATE TABLE experiments (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        started_unix_ms INTEGER NOT NULL,
        seed INTEGER NOT NULL,
        definition TEXT NOT NULL,
        machine TEXT NOT NULL
    );
    CREATE TABLE runs (
        id INTEGER PRIMARY KEY,
        experiment_id INTEGER NOT NULL REFERENCES experiments(id),
        contestant TEXT NOT NULL,
        endpoint TEXT NOT NULL,
        layout TEXT NOT NULL,
        load TEXT NOT NULL,
        connections INTEGER NOT NULL,
        repeat INTEGER NOT NULL,
        label TEXT NOT NULL,
        reason TEXT NOT NULL,
        rps REAL,
        p99_us REAL,
        server_cpu_s REAL NOT NULL,
        peak_rss_kb INTEGER NOT NULL,
        wall_s REAL NOT NULL,
        load_s REAL NOT NULL,
        result TEXT,
        series TEXT NOT NULL
    );
    CREATE INDEX runs_by_experiment ON runs(experiment_id);",
    // 2: open-loop rates, and the versions each contestant ran with.
    "ALTER TABLE runs ADD COLUMN rate TEXT;
    ALTER TABLE runs ADD COLUMN toolchain TEXT NOT NULL DEFAULT '';",
    // 3: the load's kind, recorded instead of guessed: `rate` becomes `schedule` (a rate
    // schedule or a ramp's stages); earlier rows get the kind the reports used to guess
    // (a device count in the per-second series, or a result-less run in such a load).
    "ALTER TABLE runs RENAME COLUMN rate TO schedule;
    ALTER TABLE runs ADD COLUMN load_kind TEXT NOT NULL DEFAULT 'closed';
    UPDATE runs SET load_kind = 'rate' WHERE schedule IS NOT NULL;
    UPDATE runs SET load_kind = 'devices' WHERE result IS NOT NULL AND EXISTS (
        SELECT 1 FROM json_each(json_extract(runs.result, '$.per_second'))
        WHERE json_extract(value, '$.devices') > 0);
    UPDATE runs SET load_kind = 'devices' WHERE result IS NULL AND EXISTS (
        SELECT 1 FROM runs o WHERE o.experiment_id = runs.experiment_id
        AND o.load = runs.load AND o.load_kind = 'devices');",
    // 4: the verdict from both sides' CPU: its bottleneck and validity as columns to
    // query, and the whole verdict with its numbers. Earlier runs have none.
    "ALTER TABLE runs ADD COLUMN bottleneck TEXT;
    ALTER TABLE runs ADD COLUMN valid INTEGER;
    ALTER TABLE runs ADD COLUMN verdict TEXT;",
    // 5: how each experiment ended (`complete`, `interrupted`) and when; NULL while it
    // runs, and forever if its harness died. Earlier experiments did not record it.
    "ALTER TABLE experiments ADD COLUMN status TEXT;
    ALTER TABLE experiments ADD COLUMN finished_unix_ms INTEGER;
    UPDATE experiments SET status = 'unknown';",
    // 6: loads kept by `shootout load --save`: a label (not unique: it names its newest
    // save), when, the flags as given and the load's kind and schedule, the machine, and
    // the whole `shootout.load/1` result with its histograms. `rps` and `p99_us` repeat
    // two of its numbers for SQL.
    "CREATE TABLE saved_loads (
        id INTEGER PRIMARY KEY,
        label TEXT NOT NULL,
        saved_unix_ms INTEGER NOT NULL,
        command TEXT NOT NULL,
        load_kind TEXT NOT NULL,
        schedule TEXT,
        machine TEXT NOT NULL,
        rps REAL NOT NULL,
        p99_us REAL NOT NULL,
        result TEXT NOT NULL
    );
    CREATE INDEX saved_loads_by_label ON saved_loads(label);",
    // 7: how each run's contestant was verified before its loads (`strict`, `http`,
    // `none`); earlier runs were all verified strictly, the only level there was.
    "ALTER TABLE runs ADD COLUMN verify TEXT NOT NULL DEFAULT 'strict';",
    // 8: whether a run was a make-up (run again because its cell lacked valid runs);
    // earlier experiments had none.
    "ALTER TABLE runs ADD COLUMN make_up INTEGER NOT NULL DEFAULT 0;",
    // 9: each experiment's plan as resolved at its start (contestants, endpoints, layouts,
    // loads, repeats, budget; JSON), so that nothing parses its file again; NULL for
    // earlier experiments.
    "ALTER TABLE experiments ADD COLUMN plan TEXT;",
    // 10: each saved load's spec as resolved from its flags (`engine::LoadSpec`, JSON):
    // every setting of the load, so that nothing parses `command` again; NULL for loads
    // saved earlier.
    "ALTER TABLE saved_loads ADD COLUMN spec TEXT;",
    // 11: a saved load's client certificate (mTLS) apart from its spec, as PEM, and never
    // its private key: `spec` keeps the load without `tls.client` (store/client_certificate.rs).
    // Loads saved at version 10 lose the key they held (see KEYS_OUT).
    "ALTER TABLE saved_loads ADD COLUMN client_certificate TEXT;
    UPDATE saved_loads SET client_certificate = json_extract(spec, '$.tls.client.cert'),
        spec = json_remove(spec, '$.tls.client')
        WHERE json_extract(spec, '$.tls.client') IS NOT NULL;",
    // 12: a run's HTTP/2 streams per connection (a load over HTTP/2 runs at each of its
    // stream counts, as at each of its connection levels); NULL over HTTP/1.x, as every
    // earlier run was.
    "ALTER TABLE runs ADD COLUMN streams INTEGER;",
    // 13: a `capacity` load's search (its objectives, plan, steps and answer; JSON, schema
    // shootout.capacity/1 without the schema key), whose run's `result` is the step at
    // capacity; and a saved load's search (`load --capacity --save`). NULL for any other
    // load, as every earlier one was.
    "ALTER TABLE runs ADD COLUMN capacity TEXT;
    ALTER TABLE saved_loads ADD COLUMN capacity TEXT;",
];

/// The version this build writes.
pub const VERSION: usize = MIGRATIONS.len();

/// The migration that takes client keys out of saved loads (11; its last statement the
/// UPDATE that does). Their text would stay in the pages it freed, and in part even with
/// `secure_delete` (tried: overflow pages kept it); a VACUUM, which rewrites the file, runs
/// after it when it changed a row (not in its transaction: SQLite refuses one inside).
const KEYS_OUT: usize = 10;

/// Brings the database up to [`VERSION`], each step in a transaction.
pub fn migrate(db: &mut Connection) -> rusqlite::Result<()> {
    let current: usize =
        db.pragma_query_value(None, "user_version", |r| r.get::<_, i64>(0))? as usize;
    if current > VERSION {
        return Err(rusqlite::Error::InvalidQuery);
    }
    let mut keys_taken_out = false;
    for (i, sql) in MIGRATIONS.iter().enumerate().skip(current) {
        let tx = db.transaction()?;
        tx.execute_batch(sql)?;
        keys_taken_out |= i == KEYS_OUT && tx.changes() > 0;
        tx.pragma_update(None, "user_version", (i + 1) as i64)?;
        tx.commit()?;
    }
    if keys_taken_out {
        db.execute_batch("VACUUM")?;
    }
    Ok(())
}
