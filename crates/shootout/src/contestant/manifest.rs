//! `contestant.toml`: what a contestant is and how to install, build and start it
//! (docs/manifest.md is the reference).

use crate::contestant::alpn::{self, Alpn, AlpnProblem};
use crate::contestant::certificates::{self, CertificateFiles};
use crate::contestant::running::RunningServer;
use crate::model::endpoint::{Builtin, Endpoint};
use crate::model::VerifyLevel;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One contestant's manifest.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    pub name: String,
    pub language: String,
    pub framework: String,
    pub version: String,
    /// A command printing the toolchain's and framework's versions, run in the folder.
    #[serde(default)]
    pub toolchain: String,
    #[serde(default)]
    pub articles: Vec<String>,
    /// The endpoints it serves: built in (`hello`, `app`) or declared by an experiment;
    /// none named means every endpoint of the experiment it runs in.
    #[serde(default)]
    pub endpoints: Vec<String>,
    #[serde(default = "yes")]
    pub parses_http: bool,
    /// How it is checked before it is loaded.
    #[serde(default)]
    pub verify: VerifyLevel,
    #[serde(default)]
    pub note: String,
    #[serde(default)]
    pub blocked: String,
    #[serde(default)]
    pub requires: Requires,
    #[serde(default)]
    pub setup: Setup,
    pub start: Start,
    /// How it serves HTTPS instead; None: it does not serve TLS.
    #[serde(default)]
    pub tls: Option<Tls>,
    /// How it serves cleartext HTTP/2 instead; None: it does not serve h2c.
    #[serde(default)]
    pub h2c: Option<H2c>,
    /// The database its endpoints read (`db`, `queries`, `fortunes`, `updates`), which
    /// the harness starts for it; None: it needs none.
    #[serde(default)]
    pub database: Option<DatabaseKind>,
    /// Where its `[start]` command serves WebSocket echo; None: it serves no WebSocket.
    #[serde(default)]
    pub websocket: Option<WebSocket>,
}

/// A WebSocket echo endpoint (RFC 6455) that the `[start]` command serves beside HTTP:
/// each text or binary message comes back as it was sent, in order, and the client's
/// close is answered (docs/websocket.md, "Contestants").
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebSocket {
    /// The path the upgrade is asked on, as `/ws`.
    pub path: String,
    /// The WebSocket library the server uses, as its users pick it (shown by verify).
    #[serde(default)]
    pub library: String,
}

/// A database the harness can start for a contestant (docs/database.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DatabaseKind {
    Postgresql,
}

impl DatabaseKind {
    /// Debian's package of PostgreSQL's server (the version Debian carries).
    pub const POSTGRESQL_PACKAGE: &'static str = "postgresql";
}

fn yes() -> bool {
    true
}

/// What must be on the machine.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Requires {
    #[serde(default)]
    pub commands: Vec<String>,
    #[serde(default)]
    pub debian: Vec<String>,
}

/// How to install registry packages and build.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Setup {
    #[serde(default)]
    pub steps: Vec<String>,
    #[serde(default)]
    pub build: String,
    #[serde(default)]
    pub inputs: Vec<String>,
}

/// How to start the server.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Start {
    pub command: String,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    #[serde(default)]
    pub threads: String,
}

/// How to start the server serving HTTPS on `{port}` with the test certificate (`{cert}`,
/// `{key}`): the same server and answers as [`Start`], over TLS.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tls {
    pub command: String,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// The protocols the command offers by ALPN: HTTP/1.1 always, and HTTP/2 when it lists
    /// `h2` (a client that offers only `http/1.1` still gets HTTP/1.1).
    #[serde(default = "Alpn::http11_only")]
    pub alpn: Vec<Alpn>,
}

impl Tls {
    /// The placeholders it must use: a server given no certificate cannot serve one.
    const NEEDS: [&'static str; 2] = ["{cert}", "{key}"];

    /// True when a client offering `h2` by ALPN gets HTTP/2.
    pub fn offers_h2(&self) -> bool {
        self.alpn.contains(&Alpn::H2)
    }
}

/// How to start the server serving cleartext HTTP/2 on `{port}` with prior knowledge
/// (RFC 9113 section 3.3: the client's first bytes are the connection preface; Upgrade
/// from HTTP/1.1 is deprecated and not asked for): the same answers as [`Start`].
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct H2c {
    pub command: String,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
}

impl H2c {
    /// The placeholders it must use: a server not told its port cannot listen on it.
    const NEEDS: [&'static str; 1] = ["{port}"];
}

/// The first of `needs` that neither `command` nor `env` uses.
fn unused(
    command: &str,
    env: &BTreeMap<String, String>,
    needs: &[&'static str],
) -> Option<&'static str> {
    let uses = |p: &str| command.contains(p) || env.values().any(|v| v.contains(p));
    needs.iter().copied().find(|p| !uses(p))
}

/// A manifest with where it lives.
#[derive(Debug, Clone)]
pub struct Contestant {
    pub manifest: Manifest,
    /// The contestant's folder.
    pub dir: PathBuf,
    /// Its build output folder.
    pub build: PathBuf,
    /// Where it was declared, and the file that declares it (named when a name is found
    /// twice).
    pub origin: Origin,
    pub declared_in: PathBuf,
    /// A server that is already running: shootout neither starts, stops nor pins it.
    pub running: Option<RunningServer>,
}

/// Where a contestant was declared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// The checkout's `contestants/`.
    Checkout,
    /// A folder of contestant folders given with `--contestants` or `SHOOTOUT_CONTESTANTS`.
    Folder,
    /// `[contestant.NAME]` in an experiment file.
    Inline,
}

/// Which of its commands a contestant is started with, and so what it serves.
#[derive(Debug, Clone, Copy, Default)]
pub enum Serving<'a> {
    /// `[start]`: HTTP/1.1 in clear text.
    #[default]
    Start,
    /// `[h2c]`: HTTP/2 in clear text, with prior knowledge.
    H2c,
    /// `[tls]`: HTTPS serving this certificate (`{cert}`, `{key}`); HTTP/2 too where its
    /// `alpn` offers it.
    Tls(&'a CertificateFiles),
}

impl Serving<'_> {
    /// The manifest table whose command it is.
    pub fn table(&self) -> &'static str {
        match self {
            Serving::Start => "start",
            Serving::H2c => "h2c",
            Serving::Tls(_) => "tls",
        }
    }
}

/// Values for the placeholders of commands.
#[derive(Debug, Clone, Copy, Default)]
pub struct Placeholders<'a> {
    pub port: u16,
    pub threads: usize,
    /// Which command is filled in; over TLS, the certificate `{cert}` and `{key}` name.
    pub serving: Serving<'a>,
}

/// A manifest that cannot be used, named by its file.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    #[error(transparent)]
    File(#[from] crate::toml_file::TomlFileError),
    #[error("{}: name {name:?} differs from its folder {folder:?}", path.display())]
    Name {
        path: PathBuf,
        name: String,
        folder: String,
    },
    #[error("{}: [{table}]: neither its command nor its env uses {placeholder}", path.display())]
    Placeholder {
        path: PathBuf,
        table: &'static str,
        placeholder: &'static str,
    },
    #[error("{}: [tls]: {problem}", path.display())]
    Alpn { path: PathBuf, problem: AlpnProblem },
    #[error("{}: endpoints: {endpoint} reads a database: add database = \"postgresql\"", path.display())]
    NoDatabase { path: PathBuf, endpoint: String },
    #[error("{}: [websocket]: path {path:?} must start with /", file.display())]
    WebSocketPath { file: PathBuf, path: String },
    #[error("{}: {source}", path.display())]
    Folder {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl Manifest {
    /// The first mistake that parsing lets through: a placeholder its `[tls]` or `[h2c]`
    /// command needs and does not use, an `alpn` list that cannot be, an endpoint that
    /// reads a database it does not ask for.
    fn check(&self, path: &Path) -> Result<(), ManifestError> {
        let placeholder = |table, placeholder| ManifestError::Placeholder {
            path: path.to_path_buf(),
            table,
            placeholder,
        };
        if let Some(tls) = &self.tls {
            if let Some(p) = unused(&tls.command, &tls.env, &Tls::NEEDS) {
                return Err(placeholder("tls", p));
            }
            if let Some(problem) = alpn::problem(&tls.alpn) {
                let path = path.to_path_buf();
                return Err(ManifestError::Alpn { path, problem });
            }
        }
        if let Some(h2c) = &self.h2c {
            if let Some(p) = unused(&h2c.command, &h2c.env, &H2c::NEEDS) {
                return Err(placeholder("h2c", p));
            }
        }
        if let Some(ws) = self.websocket.as_ref().filter(|w| !w.path.starts_with('/')) {
            return Err(ManifestError::WebSocketPath {
                file: path.to_path_buf(),
                path: ws.path.clone(),
            });
        }
        let reads_database = |name: &&String| {
            Endpoint::builtin(name).is_some_and(|e| e.builtin.is_some_and(Builtin::needs_database))
        };
        match self.endpoints.iter().find(reads_database) {
            Some(endpoint) if self.database.is_none() => Err(ManifestError::NoDatabase {
                path: path.to_path_buf(),
                endpoint: endpoint.clone(),
            }),
            _ => Ok(()),
        }
    }

    /// True when it serves HTTP/2 over TLS: its `[tls]` offers `h2` by ALPN.
    pub fn serves_h2(&self) -> bool {
        self.tls.as_ref().is_some_and(Tls::offers_h2)
    }

    /// True when it serves cleartext HTTP/2 with prior knowledge (an `[h2c]` table).
    pub fn serves_h2c(&self) -> bool {
        self.h2c.is_some()
    }

    /// True when its `[start]` command serves WebSocket echo (a `[websocket]` table).
    pub fn serves_websocket(&self) -> bool {
        self.websocket.is_some()
    }

    /// A contestant that serves TLS needs `openssl` for its certificates, and one that
    /// reads a database needs PostgreSQL's server for the harness to start: required like
    /// the commands and packages it names itself, so that setup installs them.
    fn require_tools(&mut self) {
        if self.tls.is_some() {
            let r = &mut self.requires;
            for list in [&mut r.commands, &mut r.debian] {
                require(list, certificates::OPENSSL);
            }
        }
        if self.database == Some(DatabaseKind::Postgresql) {
            require(&mut self.requires.debian, DatabaseKind::POSTGRESQL_PACKAGE);
        }
    }
}

/// `item` added to `list` unless there.
fn require(list: &mut Vec<String>, item: &str) {
    if !list.iter().any(|c| c == item) {
        list.push(item.to_string());
    }
}

impl Contestant {
    /// Reads `dir/contestant.toml`; `build_root` holds every contestant's build folder.
    pub fn load(dir: &Path, build_root: &Path) -> Result<Contestant, ManifestError> {
        let path = dir.join("contestant.toml");
        let mut manifest: Manifest = crate::toml_file::read(&path)?;
        manifest.check(&path)?;
        manifest.require_tools();
        let folder = dir.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        if manifest.name != folder {
            return Err(ManifestError::Name {
                path,
                name: manifest.name,
                folder: folder.to_string(),
            });
        }
        let dir = dir.canonicalize().map_err(|source| ManifestError::Folder {
            path: dir.to_path_buf(),
            source,
        })?;
        Ok(Contestant {
            build: build_root.join(&manifest.name),
            manifest,
            declared_in: dir.join("contestant.toml"),
            dir,
            origin: Origin::Checkout,
            running: None,
        })
    }

    /// Where every contestant's build folder is (the builds folder), which holds the test
    /// certificates too.
    pub fn builds(&self) -> &Path {
        self.build.parent().unwrap_or(&self.build)
    }

    /// Where the workloads' data is (`{workloads}`): the `json` dataset and the `static`
    /// corpus, written by its set-up when it names either (crate::workload).
    pub fn workloads(&self) -> PathBuf {
        crate::workload::folder(self.builds())
    }

    /// Whether it names a workload that reads the data at `{workloads}`.
    pub fn reads_workload_data(&self) -> bool {
        let named = &self.manifest.endpoints;
        named.iter().any(|e| e == "json" || e == "static")
    }

    /// The name.
    pub fn name(&self) -> &str {
        &self.manifest.name
    }

    /// `text` with its placeholders filled in.
    pub fn fill(&self, text: &str, p: Placeholders) -> String {
        let filled = text
            .replace("{port}", &p.port.to_string())
            .replace("{threads}", &p.threads.to_string())
            .replace("{dir}", &self.dir.to_string_lossy())
            .replace("{build}", &self.build.to_string_lossy())
            .replace("{workloads}", &self.workloads().to_string_lossy());
        match p.serving {
            Serving::Start | Serving::H2c => filled,
            Serving::Tls(c) => filled
                .replace("{cert}", &c.cert.to_string_lossy())
                .replace("{key}", &c.key.to_string_lossy()),
        }
    }

    /// The command and env that start it serving as `serving` asks: [`Start`]'s, [`H2c`]'s
    /// or [`Tls`]'s (None when its manifest has no such table).
    pub fn command(&self, serving: Serving) -> Option<(&str, &BTreeMap<String, String>)> {
        let m = &self.manifest;
        match serving {
            Serving::Start => Some((&m.start.command, &m.start.env)),
            Serving::H2c => m.h2c.as_ref().map(|h| (h.command.as_str(), &h.env)),
            Serving::Tls(_) => m.tls.as_ref().map(|t| (t.command.as_str(), &t.env)),
        }
    }

    /// True when it implements `endpoint`: its manifest names it, or names none (the
    /// WebSocket echo: its manifest has `[websocket]`).
    pub fn serves(&self, endpoint: &str) -> bool {
        if endpoint == Builtin::WebSocket.name() {
            return self.manifest.serves_websocket();
        }
        let named = &self.manifest.endpoints;
        named.is_empty() || named.iter().any(|e| e == endpoint)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A contestant folder `dir/tlsy` whose manifest ends with `tables` (`[tls]`, `[h2c]`).
    fn load(dir: &Path, tables: &str) -> Result<Contestant, ManifestError> {
        let folder = dir.join("tlsy");
        std::fs::create_dir_all(&folder).unwrap();
        let toml = format!(
            "name = \"tlsy\"\nlanguage = \"C\"\nframework = \"x\"\nversion = \"1\"\n\
             [requires]\ncommands = [\"gcc\"]\n[start]\ncommand = \"exec server {{port}}\"\n{tables}"
        );
        std::fs::write(folder.join("contestant.toml"), toml).unwrap();
        Contestant::load(&folder, &dir.join("builds"))
    }

    #[test]
    fn a_tls_table_is_read_and_fills_cert_and_key_and_requires_openssl() {
        let dir = tempfile::tempdir().unwrap();
        let c = load(
            dir.path(),
            "[tls]\ncommand = \"exec server {port} {cert}\"\nenv = { KEY = \"{key}\" }\n",
        )
        .unwrap();
        assert_eq!(c.manifest.requires.commands, ["gcc", "openssl"]);
        assert_eq!(c.manifest.requires.debian, ["openssl"]);
        assert_eq!(c.builds(), dir.path().join("builds"));
        let files = CertificateFiles::of(c.builds(), certificates::KeyKind::Ecdsa);
        let p = Placeholders {
            port: 8443,
            threads: 2,
            serving: Serving::Tls(&files),
        };
        let (command, env) = c.command(p.serving).unwrap();
        let cert = files.cert.display();
        assert_eq!(c.fill(command, p), format!("exec server 8443 {cert}"));
        assert_eq!(c.fill(&env["KEY"], p), files.key.display().to_string());
        assert_eq!(c.command(Serving::Start).unwrap().0, "exec server {port}");
        // No alpn: HTTP/1.1 alone, as before HTTP/2.
        assert_eq!(c.manifest.tls.as_ref().unwrap().alpn, [Alpn::Http11]);
        assert!(!c.manifest.serves_h2() && !c.manifest.serves_h2c());
    }

    #[test]
    fn no_tls_table_serves_no_tls_and_requires_nothing_more() {
        let dir = tempfile::tempdir().unwrap();
        let c = load(dir.path(), "").unwrap();
        assert!(c.manifest.tls.is_none());
        assert_eq!(c.manifest.requires.commands, ["gcc"]);
        let files = CertificateFiles::of(c.builds(), certificates::KeyKind::Rsa);
        assert!(c.command(Serving::Tls(&files)).is_none());
        assert!(c.command(Serving::H2c).is_none());
    }

    #[test]
    fn a_tls_command_that_names_no_key_is_refused_in_one_line() {
        let dir = tempfile::tempdir().unwrap();
        let e = load(
            dir.path(),
            "[tls]\ncommand = \"exec server {port} {cert}\"\n",
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.ends_with("tlsy/contestant.toml: [tls]: neither its command nor its env uses {key}"),
            "{e}"
        );
        let e = load(dir.path(), "[tls]\ncommand = \"x\"\nenvs = {}\n").unwrap_err();
        assert!(e.to_string().contains("unknown field `envs`"), "{e}");
    }

    #[test]
    fn h2c_and_tls_alpn_h2_are_read_and_h2c_starts_its_own_command() {
        let dir = tempfile::tempdir().unwrap();
        let c = load(
            dir.path(),
            "[tls]\ncommand = \"exec server {port} {cert} {key}\"\nalpn = [\"h2\", \"http/1.1\"]\n\
             [h2c]\ncommand = \"exec server --h2c\"\nenv = { PORT = \"{port}\" }\n",
        )
        .unwrap();
        assert_eq!(
            c.manifest.tls.as_ref().unwrap().alpn,
            [Alpn::H2, Alpn::Http11]
        );
        assert!(c.manifest.serves_h2() && c.manifest.serves_h2c());
        let p = Placeholders {
            port: 8080,
            serving: Serving::H2c,
            ..Placeholders::default()
        };
        let (command, env) = c.command(p.serving).unwrap();
        assert_eq!(c.fill(command, p), "exec server --h2c");
        assert_eq!(c.fill(&env["PORT"], p), "8080");
        assert_eq!(p.serving.table(), "h2c");
    }

    #[test]
    fn an_h2c_command_without_port_is_refused_in_one_line_naming_file_and_table() {
        let dir = tempfile::tempdir().unwrap();
        let e = load(dir.path(), "[h2c]\ncommand = \"exec server --h2c\"\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.ends_with("tlsy/contestant.toml: [h2c]: neither its command nor its env uses {port}"),
            "{e}"
        );
        assert_eq!(e.lines().count(), 1, "{e}");
        let e = load(
            dir.path(),
            "[h2c]\ncommand = \"x {port}\"\nalpn = [\"h2\"]\n",
        )
        .unwrap_err();
        assert!(e.to_string().contains("unknown field `alpn`"), "{e}");
    }

    #[test]
    fn an_alpn_list_without_http11_or_with_an_unknown_protocol_is_refused_in_one_line() {
        let dir = tempfile::tempdir().unwrap();
        let tls = |alpn: &str| {
            let table =
                format!("[tls]\ncommand = \"x {{port}} {{cert}} {{key}}\"\nalpn = {alpn}\n");
            load(dir.path(), &table).unwrap_err().to_string()
        };
        let e = tls("[\"h2\"]");
        assert!(
            e.ends_with(
                "tlsy/contestant.toml: [tls]: alpn must offer \"http/1.1\": the [tls] command \
                 serves HTTP/1.1 over TLS too"
            ),
            "{e}"
        );
        let e = tls("[\"http/1.1\", \"http/1.1\"]");
        assert!(e.ends_with("[tls]: alpn offers \"http/1.1\" twice"), "{e}");
        let e = tls("[\"h3\", \"http/1.1\"]");
        assert!(
            e.contains("tlsy/contestant.toml: line 11, column 9: "),
            "{e}"
        );
        assert!(
            e.contains("unknown variant `h3`, expected `h2` or `http/1.1`"),
            "{e}"
        );
        assert_eq!(e.lines().count(), 1, "{e}");
    }

    #[test]
    fn a_websocket_table_names_its_path_which_must_be_absolute() {
        let dir = tempfile::tempdir().unwrap();
        let c = load(
            dir.path(),
            "[websocket]\npath = \"/ws\"\nlibrary = \"ws 8\"\n",
        )
        .unwrap();
        let ws = c.manifest.websocket.as_ref().unwrap();
        assert_eq!((ws.path.as_str(), ws.library.as_str()), ("/ws", "ws 8"));
        assert!(c.manifest.serves_websocket());
        assert!(!load(dir.path(), "").unwrap().manifest.serves_websocket());
        let e = load(dir.path(), "[websocket]\npath = \"ws\"\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.ends_with("tlsy/contestant.toml: [websocket]: path \"ws\" must start with /"),
            "{e}"
        );
        let e = load(dir.path(), "[websocket]\nurl = \"/ws\"\n").unwrap_err();
        assert!(e.to_string().contains("unknown field `url`"), "{e}");
    }

    #[test]
    fn a_database_endpoint_needs_a_database_which_setup_installs() {
        let dir = tempfile::tempdir().unwrap();
        let toml = |extra: &str| format!("endpoints = [\"hello\", \"fortunes\"]\n{extra}");
        // Top-level keys go before the tables (load() puts its own last).
        let folder = dir.path().join("tlsy");
        let write = |head: &str| {
            std::fs::create_dir_all(&folder).unwrap();
            let text = format!(
                "name = \"tlsy\"\nlanguage = \"C\"\nframework = \"x\"\nversion = \"1\"\n{head}\
                 [start]\ncommand = \"exec server {{port}}\"\n"
            );
            std::fs::write(folder.join("contestant.toml"), text).unwrap();
            Contestant::load(&folder, &dir.path().join("builds"))
        };
        let e = write(&toml("")).unwrap_err().to_string();
        assert!(
            e.ends_with("contestant.toml: endpoints: fortunes reads a database: add database = \"postgresql\""),
            "{e}"
        );
        let c = write(&toml("database = \"postgresql\"\n")).unwrap();
        assert_eq!(c.manifest.database, Some(DatabaseKind::Postgresql));
        assert_eq!(c.manifest.requires.debian, ["postgresql"]);
        let e = write(&toml("database = \"mysql\"\n"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown variant `mysql`"), "{e}");
    }
}
