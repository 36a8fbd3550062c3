//! Why the database is not up, or a statement failed: each names the step.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum DatabaseError {
    #[error(
        "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/postgres): \
         `shootout database --setup` installs Debian's postgresql"
    )]
    NotInstalled,
    #[error("install PostgreSQL: {0}")]
    Install(String),
    #[error("no user {0:?} to run PostgreSQL as (it refuses to run as root): is Debian's postgresql installed?")]
    NoOwner(&'static str),
    #[error("folder {}: {source}", path.display())]
    Folder {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("initdb: {0}")]
    Initdb(String),
    #[error("start postgres: {0}")]
    Start(String),
    #[error("place postgres: {0}")]
    Place(#[from] crate::process::PinError),
    #[error("{step}: {message}")]
    Statement { step: String, message: String },
}
