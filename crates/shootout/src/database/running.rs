//! A running cluster: made, started as a server is (its own process group, pinned where
//! the layout says, dying with the harness even by `kill -9`, recorded for the next run
//! to stop if it escaped), loaded, and stopped with its data removed (its log stays).

use super::binaries::Binaries;
use super::cluster::Cluster;
use super::psql::Psql;
use super::settings::{self, Listening, Setting};
use super::{tables, DatabaseError, DATABASE_NAME, PASSWORD, POOL_ENV, URL_ENV, USER};
use crate::process::group_cpu;
use crate::process::pinned::pin_processes;
use crate::process::server::{free_port, Server};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// How long a new cluster may take to answer queries once started.
const READY_TIMEOUT: Duration = Duration::from_secs(60);

/// What cluster to make, and where.
#[derive(Debug, Clone)]
pub struct DatabaseSpec<'a> {
    /// The cluster's folder (made; must not hold a cluster).
    pub dir: &'a Path,
    /// Rows of `World` (`tables::WORLD_ROWS` for a benchmark).
    pub world_rows: u32,
    /// Each contestant's connection pool (`DATABASE_POOL`).
    pub pool: u32,
    /// CPUs to pin the cluster to; unpinned when None.
    pub cpus: Option<&'a [usize]>,
}

/// A cluster that answers, loaded with TechEmpower's tables.
#[derive(Debug)]
pub struct Database {
    server: Server,
    pub cluster: Cluster,
    pub psql: Psql,
    pub version: u32,
    pub pool: u32,
    pub settings: Vec<Setting>,
}

impl Database {
    /// Makes, starts and loads a cluster as `spec` says. Call it from a thread that lives
    /// as long as the cluster (as [`Server::start`]).
    pub fn start(spec: &DatabaseSpec) -> Result<Database, DatabaseError> {
        let bin = Binaries::find()?;
        let log = spec.dir.join("postgres.log");
        std::fs::create_dir_all(spec.dir).map_err(|source| DatabaseError::Folder {
            path: spec.dir.to_path_buf(),
            source,
        })?;
        let cluster = Cluster::create(&bin, spec.dir, &log)?;
        let port = free_port().map_err(|e| DatabaseError::Start(e.to_string()))?;
        let settings = settings::settings(Listening {
            port,
            sockets: &cluster.sockets,
            max_connections: (spec.pool * 8).max(100),
        });
        let mut cmd = Command::new(bin.postgres());
        cmd.arg("-D")
            .arg(&cluster.data)
            .args(settings::arguments(&settings));
        cmd.current_dir(&cluster.dir);
        cluster.owner.apply(&mut cmd);
        let server = Server::spawn(cmd, &cluster.dir, port, spec.cpus, &log)
            .map_err(|e| DatabaseError::Start(e.to_string()))?;
        let mut db = Database {
            server,
            psql: Psql::new(&bin, port),
            cluster,
            version: bin.version,
            pool: spec.pool,
            settings,
        };
        db.wait_ready()?;
        db.load(spec.world_rows)?;
        Ok(db)
    }

    /// Polls until the cluster answers a query (it accepts connections a moment before).
    fn wait_ready(&mut self) -> Result<(), DatabaseError> {
        let started = Instant::now();
        loop {
            if !self.server.alive() {
                let why = format!("postgres exited; log: {}", self.server.log.display());
                return Err(DatabaseError::Start(why));
            }
            match self.psql.run("postgres", "SELECT 1", "start postgres") {
                Ok(_) => return Ok(()),
                Err(e) if started.elapsed() > READY_TIMEOUT => {
                    return Err(DatabaseError::Start(format!(
                        "no answer in {READY_TIMEOUT:?}: {e}"
                    )))
                }
                Err(_) => std::thread::sleep(Duration::from_millis(100)),
            }
        }
    }

    /// TechEmpower's database and tables, with `world_rows` rows of `World`.
    fn load(&self, world_rows: u32) -> Result<(), DatabaseError> {
        let create = format!("CREATE DATABASE {DATABASE_NAME}");
        self.psql.run("postgres", &create, "create the database")?;
        self.psql.run(
            DATABASE_NAME,
            &tables::script(world_rows),
            "load the tables",
        )?;
        Ok(())
    }

    /// The URL contestants connect to.
    pub fn url(&self) -> String {
        format!(
            "postgres://{USER}:{PASSWORD}@127.0.0.1:{}/{DATABASE_NAME}",
            self.server.port
        )
    }

    /// The environment a contestant gets: the URL and the pool's size.
    pub fn environment(&self) -> [(&'static str, String); 2] {
        [(URL_ENV, self.url()), (POOL_ENV, self.pool.to_string())]
    }

    pub fn port(&self) -> u16 {
        self.server.port
    }

    /// The postmaster's process id, which is its process group's.
    pub fn pid(&self) -> u32 {
        self.server.pid()
    }

    pub fn log(&self) -> &Path {
        &self.server.log
    }

    /// Moves every process of the cluster (the postmaster and all it started: each
    /// backend leaves the postmaster's process group) to `cpus` (every CPU when None):
    /// backends forked later inherit the postmaster's, so it is called before a run's
    /// server connects.
    pub fn place(&self, cpus: Option<&[usize]>) -> Result<(), DatabaseError> {
        let all: Vec<usize> = (0..engine::allowed_cpus()).collect();
        let cpus = cpus.unwrap_or(&all);
        pin_processes(group_cpu::tree(self.pid()), cpus)?;
        Ok(())
    }

    /// True while the postmaster runs.
    pub fn alive(&mut self) -> bool {
        self.server.alive()
    }

    /// Statements executed in the benchmark's database since the last reset, as
    /// `pg_stat_statements` counts them.
    pub fn statements_executed(&self) -> Result<u64, DatabaseError> {
        let sql = "SELECT coalesce(sum(calls), 0) FROM pg_stat_statements \
                   WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())";
        let text = self.psql.run(DATABASE_NAME, sql, "count statements")?;
        text.parse().map_err(|_| DatabaseError::Statement {
            step: "count statements".into(),
            message: format!("not a count: {text:?}"),
        })
    }

    /// Stops the cluster and removes its data (its log stays).
    pub fn stop(&mut self) {
        self.server.stop();
        let _ = std::fs::remove_dir_all(&self.cluster.data);
        let _ = std::fs::remove_dir_all(&self.cluster.sockets);
    }

    /// Where the cluster's data is (removed once stopped).
    pub fn data(&self) -> PathBuf {
        self.cluster.data.clone()
    }
}

impl Drop for Database {
    fn drop(&mut self) {
        self.stop();
    }
}
