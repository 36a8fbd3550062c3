//! `contestant.toml`: what a contestant is and how to install, build and start it
//! (docs/manifest.md is the reference).

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
pub struct Placeholders {
    pub port: u16,
    pub threads: usize,
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
    #[error("{}: {source}", path.display())]
    Folder {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl Contestant {
    /// Reads `dir/contestant.toml`; `build_root` holds every contestant's build folder.
    pub fn load(dir: &Path, build_root: &Path) -> Result<Contestant, ManifestError> {
        let path = dir.join("contestant.toml");
        let manifest: Manifest = crate::toml_file::read(&path)?;
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

    /// The name.
    pub fn name(&self) -> &str {
        &self.manifest.name
    }

    /// `text` with its placeholders filled in.
    pub fn fill(&self, text: &str, p: Placeholders) -> String {
        text.replace("{port}", &p.port.to_string())
            .replace("{threads}", &p.threads.to_string())
            .replace("{dir}", &self.dir.to_string_lossy())
            .replace("{build}", &self.build.to_string_lossy())
    }

    /// True when it implements `endpoint`: its manifest names it, or names none.
    pub fn serves(&self, endpoint: &str) -> bool {
        let named = &self.manifest.endpoints;
        named.is_empty() || named.iter().any(|e| e == endpoint)
    }
}
