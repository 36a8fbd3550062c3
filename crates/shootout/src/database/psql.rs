//! Statements run with `psql` against a running cluster, over TCP on loopback as the
//! contestants connect: `ON_ERROR_STOP`, no `~/.psqlrc`, unaligned tuples only, so that an
//! answer is its values.

use super::binaries::Binaries;
use super::{DatabaseError, USER};
use std::io::Write;
use std::process::{Command, Stdio};

/// A client of one cluster.
#[derive(Debug, Clone)]
pub struct Psql {
    pub program: std::path::PathBuf,
    pub port: u16,
}

impl Psql {
    pub fn new(bin: &Binaries, port: u16) -> Psql {
        Psql {
            program: bin.psql(),
            port,
        }
    }

    /// Runs `sql` in `database`; its output, or the error psql gave, named by `step`.
    pub fn run(&self, database: &str, sql: &str, step: &str) -> Result<String, DatabaseError> {
        let failed = |message: String| DatabaseError::Statement {
            step: step.to_string(),
            message,
        };
        let mut child = Command::new(&self.program)
            .args([
                "-X",
                "-q",
                "-A",
                "-t",
                "-v",
                "ON_ERROR_STOP=1",
                "-h",
                "127.0.0.1",
            ])
            .args([
                "-p",
                &self.port.to_string(),
                "-U",
                USER,
                "-d",
                database,
                "-f",
                "-",
            ])
            // Fortune's messages are UTF-8 whatever this process's locale.
            .env("PGCLIENTENCODING", "UTF8")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| failed(format!("{}: {e}", self.program.display())))?;
        if let Some(mut stdin) = child.stdin.take() {
            stdin
                .write_all(sql.as_bytes())
                .map_err(|e| failed(e.to_string()))?;
        }
        let out = child
            .wait_with_output()
            .map_err(|e| failed(e.to_string()))?;
        let err = String::from_utf8_lossy(&out.stderr);
        match out.status.success() {
            true => Ok(String::from_utf8_lossy(&out.stdout).trim().to_string()),
            false => Err(failed(err.lines().next().unwrap_or("failed").to_string())),
        }
    }
}
