//! Contestants an experiment declares itself (`[contestant.NAME]`): a command and a folder
//! relative to the experiment file, or the URL of a server already running, with the
//! catalog's other manifest fields. Checked once into [`Inline`]; a mistake is one line
//! naming the entry and the field.

use super::error::{at, under, FieldError, FieldPath, FieldProblem, Segment};
use crate::contestant::manifest::{
    Contestant, DatabaseKind, Manifest, Origin, Requires, Setup, Start,
};
use crate::contestant::running::{Process, RunningServer};
use crate::model::VerifyLevel;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

/// One `[contestant.NAME]` table as written: all optional but `command` or `url`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct InlineFile {
    command: Option<String>,
    url: Option<String>,
    pid: Option<u32>,
    process: Option<String>,
    /// The folder commands run in, relative to the experiment file [default: its folder].
    dir: Option<String>,
    #[serde(default)]
    verify: VerifyLevel,
    #[serde(default)]
    threads: String,
    #[serde(default)]
    env: BTreeMap<String, String>,
    #[serde(default)]
    setup: Setup,
    #[serde(default)]
    requires: Requires,
    #[serde(default)]
    endpoints: Vec<String>,
    #[serde(default)]
    language: String,
    #[serde(default)]
    framework: String,
    #[serde(default)]
    version: String,
    #[serde(default)]
    toolchain: String,
    #[serde(default = "yes")]
    parses_http: bool,
    #[serde(default)]
    note: String,
    /// The database its endpoints read: the experiment's `[database]` is handed to it.
    database: Option<DatabaseKind>,
}

fn yes() -> bool {
    true
}

/// An inline contestant, checked: its manifest and folder, and for a server already
/// running, where it answers and how its process is named.
#[derive(Debug, Clone)]
pub struct Inline {
    pub manifest: Manifest,
    pub dir: PathBuf,
    pub running: Option<Running>,
}

/// A server already running, as declared (found when the experiment starts).
#[derive(Debug, Clone)]
pub struct Running {
    pub url: String,
    pub addr: SocketAddr,
    /// The URL's `host[:port]`, sent as the Host header.
    pub host: String,
    pub process: Process,
}

/// Every `[contestant.NAME]` of the experiment file at `path`; a mistake is
/// `contestant.NAME: FIELD: what is wrong`.
pub(super) fn check_all(
    tables: &BTreeMap<String, toml::Table>,
    path: &Path,
) -> Result<Vec<Inline>, FieldError> {
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    tables
        .iter()
        .map(|(name, table)| {
            check(name, table, folder).map_err(under(Segment::Contestant(name.clone())))
        })
        .collect()
}

fn check(name: &str, table: &toml::Table, folder: &Path) -> Result<Inline, FieldError> {
    let ok_name = |c: char| c.is_ascii_alphanumeric() || "-_.".contains(c);
    if name.is_empty() || !name.chars().all(ok_name) || name.starts_with('.') {
        return Err(FieldProblem::ContestantName.into());
    }
    let f = fields(table)?;
    let dir = folder.join(f.dir.as_deref().unwrap_or("."));
    let dir = match dir.canonicalize() {
        Ok(d) if d.is_dir() => d,
        _ => return Err(FieldProblem::NoFolder(dir).at("dir")),
    };
    let running = match (&f.command, &f.url) {
        (Some(_), Some(_)) => return Err(FieldProblem::BothGiven("command", "url").into()),
        (None, None) => return Err(FieldProblem::NoServer.at("command")),
        (Some(command), None) => started(&f, command)?,
        (None, Some(url)) => Some(running(&f, url)?),
    };
    Ok(Inline {
        manifest: manifest(name, f),
        dir,
        running,
    })
}

/// The table's fields, typed. serde_path_to_error names the field a type error is in,
/// which serde's own message for a table does not.
fn fields(table: &toml::Table) -> Result<InlineFile, FieldError> {
    serde_path_to_error::deserialize(toml::Value::Table(table.clone())).map_err(|e| {
        let field = match e.path().to_string() {
            path if path == "." => Vec::new(),
            path => vec![Segment::Key(path)],
        };
        FieldError {
            field: FieldPath(field),
            problem: FieldProblem::Table(e.into_inner()),
        }
    })
}

/// The checks of a server shootout starts: a command, and no process of its own.
fn started(f: &InlineFile, command: &str) -> Result<Option<Running>, FieldError> {
    if command.trim().is_empty() {
        return Err(FieldProblem::Empty.at("command"));
    }
    if f.pid.is_some() || f.process.is_some() {
        let field = if f.pid.is_some() { "pid" } else { "process" };
        return Err(FieldProblem::OnlyWhenRunning.at(field));
    }
    Ok(None)
}

/// A server already running: its URL (a root, the endpoints give the paths) and at most
/// one way to name its process. What shootout would start or set up has no place here.
fn running(f: &InlineFile, url: &str) -> Result<Running, FieldError> {
    let target = engine::Target::parse(url).map_err(at("url"))?;
    if target.path != "/" {
        return Err(FieldProblem::UrlWithPath(url.to_string()).at("url"));
    }
    let process = process(f)?;
    Ok(Running {
        url: url.to_string(),
        addr: target.addr,
        host: target.host_header,
        process,
    })
}

/// How a server already running names its process; nothing shootout would start or set
/// up.
fn process(f: &InlineFile) -> Result<Process, FieldError> {
    let started_only = [
        ("threads", !f.threads.is_empty()),
        ("env", !f.env.is_empty()),
        (
            "setup",
            !f.setup.steps.is_empty() || !f.setup.build.is_empty(),
        ),
        (
            "requires",
            !f.requires.commands.is_empty() || !f.requires.debian.is_empty(),
        ),
    ];
    if let Some(&(field, _)) = started_only.iter().find(|(_, set)| *set) {
        return Err(FieldProblem::NotStartedHere.at(field));
    }
    match (f.pid, &f.process) {
        (Some(_), Some(_)) => Err(FieldProblem::BothGiven("pid", "process").into()),
        (Some(pid), None) => Ok(Process::Pid(pid)),
        (None, Some(name)) if name.is_empty() => Err(FieldProblem::Empty.at("process")),
        (None, Some(name)) => Ok(Process::Named(name.clone())),
        (None, None) => Ok(Process::Unknown),
    }
}

fn manifest(name: &str, f: InlineFile) -> Manifest {
    Manifest {
        name: name.to_string(),
        language: f.language,
        framework: f.framework,
        version: f.version,
        toolchain: f.toolchain,
        articles: Vec::new(),
        endpoints: f.endpoints,
        parses_http: f.parses_http,
        note: f.note,
        blocked: String::new(),
        requires: f.requires,
        setup: f.setup,
        start: Start {
            command: f.command.unwrap_or_default(),
            env: f.env,
            threads: f.threads,
        },
        verify: f.verify,
        // An inline contestant serves clear text only, for now.
        tls: None,
        h2c: None,
        database: f.database,
        websocket: None,
    }
}

impl Inline {
    /// The contestant, declared in `file`, built under `builds`; a running server is
    /// found now (its URL answers, its process runs), else the error names the field.
    pub fn contestant(&self, file: &Path, builds: &Path) -> Result<Contestant, FieldError> {
        let name = &self.manifest.name;
        let running = match &self.running {
            None => None,
            Some(r) => Some(
                RunningServer::find(&r.url, r.addr, &r.host, &r.process).map_err(|e| {
                    FieldError {
                        field: FieldPath(vec![Segment::Contestant(name.clone())]),
                        problem: e.into(),
                    }
                })?,
            ),
        };
        Ok(Contestant {
            manifest: self.manifest.clone(),
            dir: self.dir.clone(),
            build: builds.join(name),
            origin: Origin::Inline,
            declared_in: file.to_path_buf(),
            running,
        })
    }
}
