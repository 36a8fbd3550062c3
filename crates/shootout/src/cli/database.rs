//! `shootout database`: the database the harness owns, in the foreground until Ctrl-C, for
//! a user writing or trying a server's database endpoints (`start NAME --database` starts a
//! contestant beside it).

use super::{interrupt, WorkFailed};
use anyhow::Context;
use clap::Args;
use shootout::contestant::locations;
use shootout::contestant::manifest::DatabaseKind;
use shootout::contestant::setup::install_debian;
use shootout::database::binaries::Binaries;
use shootout::database::tables::WORLD_ROWS;
use shootout::database::{Database, DatabaseError, DatabaseSpec};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Flags of `shootout database`, shared with `start --database`.
#[derive(Debug, Clone, Args)]
pub struct DatabaseArgs {
    /// Rows of TechEmpower's World table
    #[arg(long, default_value_t = WORLD_ROWS, value_name = "ROWS")]
    pub world: u32,
    /// Each server's connection pool, given as DATABASE_POOL
    #[arg(long, default_value_t = 16)]
    pub pool: u32,
    /// CPUs to pin PostgreSQL to, e.g. 1 or 0,1
    #[arg(long = "database-cpus", value_delimiter = ',', value_name = "CPUS")]
    pub cpus: Option<Vec<usize>>,
    /// The cluster's folder (default: results/database/PID); its data is removed at the
    /// end, its log stays
    #[arg(long = "database-dir", value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

/// Flags of `shootout database`.
#[derive(Debug, Args)]
pub struct DatabaseCommand {
    #[command(flatten)]
    database: DatabaseArgs,
    /// Install Debian's postgresql first if it is missing
    #[arg(long)]
    setup: bool,
}

/// `shootout database`.
pub fn run(args: DatabaseCommand) -> anyhow::Result<ExitCode> {
    if args.setup {
        install_if_missing().context("database --setup")?;
    }
    interrupt::install();
    let mut db = start(&args.database).context("database")?;
    println!("DATABASE_URL={}", db.url());
    println!(
        "PostgreSQL {} (pid {}, log {}); World {} rows, Fortune 12; Ctrl-C stops it",
        db.version,
        db.pid(),
        db.log().display(),
        args.database.world
    );
    while !interrupt::requested() && db.alive() {
        std::thread::sleep(Duration::from_millis(100));
    }
    let died = !db.alive();
    db.stop();
    if died {
        let why = format!("postgres exited; log: {}", db.log().display());
        return Err(anyhow::Error::new(WorkFailed(anyhow::Error::msg(why))).context("database"));
    }
    Ok(ExitCode::SUCCESS)
}

/// Starts the database `args` describes (failing is the work's failure, exit 1).
pub fn start(args: &DatabaseArgs) -> anyhow::Result<Database> {
    let dir = match &args.dir {
        Some(dir) => dir.clone(),
        None => locations::results()?
            .join("database")
            .join(std::process::id().to_string()),
    };
    let spec = DatabaseSpec {
        dir: &dir,
        world_rows: args.world,
        pool: args.pool,
        cpus: args.cpus.as_deref(),
    };
    Database::start(&spec).map_err(|e| WorkFailed(e.into()).into())
}

/// Debian's postgresql, unless a server is installed.
fn install_if_missing() -> anyhow::Result<()> {
    match Binaries::find() {
        Ok(_) => Ok(()),
        Err(DatabaseError::NotInstalled) => {
            let log = std::env::temp_dir().join("shootout-postgresql-apt-get.log");
            install_debian(&[DatabaseKind::POSTGRESQL_PACKAGE.to_string()], &log)
                .map_err(|e| DatabaseError::Install(e.to_string()))?;
            Ok(())
        }
        Err(e) => Err(e.into()),
    }
}
