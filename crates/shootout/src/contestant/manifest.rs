//! `contestant.toml`: what a contestant is and how to install, build and start it
//! (docs/manifest.md is the reference).

use crate::contestant::certificates::{self, CertificateFiles};
use crate::contestant::running::RunningServer;
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
}

impl Tls {
    /// The placeholders it must use: a server given no certificate cannot serve one.
    const NEEDS: [&'static str; 2] = ["{cert}", "{key}"];

    /// The first placeholder it needs that neither its command nor its env uses.
    fn unused(&self) -> Option<&'static str> {
        let uses = |p: &str| self.command.contains(p) || self.env.values().any(|v| v.contains(p));
        Self::NEEDS.into_iter().find(|p| !uses(p))
    }
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

/// Values for the placeholders of commands.
#[derive(Debug, Clone, Copy, Default)]
pub struct Placeholders<'a> {
    pub port: u16,
    pub threads: usize,
    /// `{cert}` and `{key}`: the certificate a server started over TLS serves.
    pub certificate: Option<&'a CertificateFiles>,
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
    #[error("{}: [tls]: neither its command nor its env uses {placeholder}", path.display())]
    TlsPlaceholder {
        path: PathBuf,
        placeholder: &'static str,
    },
    #[error("{}: {source}", path.display())]
    Folder {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl Manifest {
    /// A contestant that serves TLS needs `openssl` for its certificates: required like
    /// the commands and packages it names itself, so that setup installs it.
    fn require_openssl(&mut self) {
        if self.tls.is_none() {
            return;
        }
        let r = &mut self.requires;
        for list in [&mut r.commands, &mut r.debian] {
            if !list.iter().any(|c| c == certificates::OPENSSL) {
                list.push(certificates::OPENSSL.to_string());
            }
        }
    }
}

impl Contestant {
    /// Reads `dir/contestant.toml`; `build_root` holds every contestant's build folder.
    pub fn load(dir: &Path, build_root: &Path) -> Result<Contestant, ManifestError> {
        let path = dir.join("contestant.toml");
        let mut manifest: Manifest = crate::toml_file::read(&path)?;
        if let Some(placeholder) = manifest.tls.as_ref().and_then(Tls::unused) {
            return Err(ManifestError::TlsPlaceholder { path, placeholder });
        }
        manifest.require_openssl();
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
            .replace("{build}", &self.build.to_string_lossy());
        match p.certificate {
            None => filled,
            Some(c) => filled
                .replace("{cert}", &c.cert.to_string_lossy())
                .replace("{key}", &c.key.to_string_lossy()),
        }
    }

    /// The command and env that start it: [`Start`]'s, or [`Tls`]'s when given a
    /// certificate (None when it has no `[tls]`).
    pub fn command(
        &self,
        certificate: Option<&CertificateFiles>,
    ) -> Option<(&str, &BTreeMap<String, String>)> {
        let start = &self.manifest.start;
        match (certificate, &self.manifest.tls) {
            (None, _) => Some((&start.command, &start.env)),
            (Some(_), Some(tls)) => Some((&tls.command, &tls.env)),
            (Some(_), None) => None,
        }
    }

    /// True when it implements `endpoint`: its manifest names it, or names none.
    pub fn serves(&self, endpoint: &str) -> bool {
        let named = &self.manifest.endpoints;
        named.is_empty() || named.iter().any(|e| e == endpoint)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A contestant folder `dir/tlsy` whose manifest ends with `tls` (a `[tls]` table).
    fn load(dir: &Path, tls: &str) -> Result<Contestant, ManifestError> {
        let folder = dir.join("tlsy");
        std::fs::create_dir_all(&folder).unwrap();
        let toml = format!(
            "name = \"tlsy\"\nlanguage = \"C\"\nframework = \"x\"\nversion = \"1\"\n\
             [requires]\ncommands = [\"gcc\"]\n[start]\ncommand = \"exec server {{port}}\"\n{tls}"
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
            certificate: Some(&files),
        };
        let (command, env) = c.command(Some(&files)).unwrap();
        let cert = files.cert.display();
        assert_eq!(c.fill(command, p), format!("exec server 8443 {cert}"));
        assert_eq!(c.fill(&env["KEY"], p), files.key.display().to_string());
        assert_eq!(c.command(None).unwrap().0, "exec server {port}");
    }

    #[test]
    fn no_tls_table_serves_no_tls_and_requires_nothing_more() {
        let dir = tempfile::tempdir().unwrap();
        let c = load(dir.path(), "").unwrap();
        assert!(c.manifest.tls.is_none());
        assert_eq!(c.manifest.requires.commands, ["gcc"]);
        let files = CertificateFiles::of(c.builds(), certificates::KeyKind::Rsa);
        assert!(c.command(Some(&files)).is_none());
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
}
