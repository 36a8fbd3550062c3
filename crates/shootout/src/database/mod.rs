//! A database the harness owns (issue 35): a private PostgreSQL cluster made in a folder
//! of its own (`cluster`), started with settings fit for a benchmark (`settings`) as a
//! server is started (its own process group, pinned, dying with the harness), listening
//! on loopback only, loaded with TechEmpower's `World` and `Fortune` tables (`tables`),
//! with `pg_stat_statements` counting the queries it ran, and stopped at the end
//! (`running`). Contestants find it by `DATABASE_URL` and `DATABASE_POOL`; verification
//! reads it to judge their database endpoints (`reading`).
//!
//! The harness talks to it with `psql` (`psql`), PostgreSQL's own client, which comes with
//! the server's package: a Rust client would bring an async runtime into the build for a
//! few statements at set-up and at the end of a run.

pub mod binaries;
pub mod cluster;
pub mod error;
pub mod psql;
pub mod reading;
pub mod running;
pub mod settings;
pub mod tables;

pub use error::DatabaseError;
pub use running::{Database, DatabaseSpec};

/// The environment variable that gives a contestant the database's URL.
pub const URL_ENV: &str = "DATABASE_URL";
/// The environment variable that gives a contestant its connection pool's size.
pub const POOL_ENV: &str = "DATABASE_POOL";
/// TechEmpower's names, which its contestants' code expects.
pub const DATABASE_NAME: &str = "hello_world";
pub const USER: &str = "benchmarkdbuser";
pub const PASSWORD: &str = "benchmarkdbpass";
