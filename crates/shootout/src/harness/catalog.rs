//! Every contestant under `contestants/`, and whether each is ready to run.

use super::manifest::Contestant;
use super::setup;
use std::path::{Path, PathBuf};

/// Where a contestant stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    Ready,
    /// Installable here, not installed or built yet: what is missing.
    NeedsSetup(String),
    /// Not installable from the registries this machine reaches: why.
    Blocked(String),
}

impl Status {
    /// One word for tables and JSON.
    pub fn word(&self) -> &'static str {
        match self {
            Status::Ready => "ready",
            Status::NeedsSetup(_) => "needs setup",
            Status::Blocked(_) => "blocked",
        }
    }

    /// The reason, if any.
    pub fn reason(&self) -> &str {
        match self {
            Status::Ready => "",
            Status::NeedsSetup(r) | Status::Blocked(r) => r,
        }
    }
}

/// Why the catalog, or a contestant in it, cannot be had.
#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    #[error("no contestants/ folder here or above (run inside a shootout checkout, or set SHOOTOUT_ROOT)")]
    NoRoot,
    #[error("{}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{name}: manifest: {why}")]
    Broken { name: String, why: String },
    #[error("no contestant {name:?} (known: {})", known.join(", "))]
    Unknown { name: String, known: Vec<String> },
}

/// The contestants of a checkout: `root/contestants/*` built into `root/target/contestants`.
#[derive(Debug)]
pub struct Catalog {
    pub contestants: Vec<Contestant>,
    /// Folders whose manifest could not be read: (folder, one-line reason).
    pub broken: Vec<(String, String)>,
}

impl Catalog {
    /// Reads every `contestants/*/contestant.toml` under `root`, sorted by name.
    pub fn load(root: &Path) -> Result<Catalog, CatalogError> {
        let dir = root.join("contestants");
        let entries = std::fs::read_dir(&dir).map_err(|source| CatalogError::Read {
            path: dir.clone(),
            source,
        })?;
        let build_root = root.join("target").join("contestants");
        let mut folders: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.join("contestant.toml").is_file())
            .collect();
        folders.sort();
        let mut catalog = Catalog {
            contestants: Vec::new(),
            broken: Vec::new(),
        };
        for folder in folders {
            match Contestant::load(&folder, &build_root) {
                Ok(c) => catalog.contestants.push(c),
                Err(e) => catalog.broken.push((folder_name(&folder), e.to_string())),
            }
        }
        Ok(catalog)
    }

    /// The contestant called `name`, or a one-line error listing the known names.
    pub fn get(&self, name: &str) -> Result<&Contestant, CatalogError> {
        if let Some((_, why)) = self.broken.iter().find(|(n, _)| n == name) {
            return Err(CatalogError::Broken {
                name: name.to_string(),
                why: why.clone(),
            });
        }
        self.contestants
            .iter()
            .find(|c| c.name() == name)
            .ok_or_else(|| CatalogError::Unknown {
                name: name.to_string(),
                known: self
                    .contestants
                    .iter()
                    .map(|c| c.name().to_string())
                    .collect(),
            })
    }
}

fn folder_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Whether `c` is blocked, needs setup (and what), or is ready.
pub fn status(c: &Contestant) -> Status {
    let m = &c.manifest;
    if !m.blocked.is_empty() {
        return Status::Blocked(m.blocked.clone());
    }
    let mut missing: Vec<String> = m
        .requires
        .commands
        .iter()
        .filter(|cmd| !setup::on_path(cmd))
        .map(|cmd| format!("command {cmd}"))
        .collect();
    missing.extend(
        m.requires
            .debian
            .iter()
            .filter(|p| !setup::debian_installed(p))
            .map(|p| format!("Debian package {p}")),
    );
    if !missing.is_empty() {
        return Status::NeedsSetup(format!("missing {}", missing.join(", ")));
    }
    if !setup::built(c) {
        return Status::NeedsSetup("not built yet".into());
    }
    Status::Ready
}

/// The checkout root: `SHOOTOUT_ROOT`, else the nearest ancestor of the current folder
/// that has a `contestants/` folder.
pub fn root() -> Result<PathBuf, CatalogError> {
    if let Ok(r) = std::env::var("SHOOTOUT_ROOT") {
        return Ok(PathBuf::from(r));
    }
    let cwd = std::env::current_dir().map_err(|source| CatalogError::Read {
        path: ".".into(),
        source,
    })?;
    cwd.ancestors()
        .find(|d| d.join("contestants").is_dir())
        .map(Path::to_path_buf)
        .ok_or(CatalogError::NoRoot)
}
