//! Every contestant the harness knows: the checkout's `contestants/`, other folders of
//! contestant folders, and an experiment's inline ones; and whether each is ready to run.

use crate::contestant::locations::{self, LocationsError};
use crate::contestant::manifest::{Contestant, Origin};
use crate::contestant::setup;
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

/// What to do when a name needs a catalog and there is none.
/// The ceiling: the contestant every table measures the others against, the fastest
/// correct server this machine allows (contestants/c-epoll). Its make-up runs go first.
pub const CEILING: &str = "c-epoll";

/// The ceiling of the loads over TLS: c-epoll's design on OpenSSL, the cheapest TLS server
/// this machine allows (contestants/c-epoll-tls). In clear text it is c-epoll itself.
pub const TLS_CEILING: &str = "c-epoll-tls";

pub const NO_CATALOG: &str = "there is no catalog here (not in a shootout checkout): point at \
     one with --root DIR or SHOOTOUT_ROOT, or add a folder of contestants with --contestants DIR";

/// Why the catalog, or a contestant in it, cannot be had.
#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    #[error(transparent)]
    Locations(#[from] LocationsError),
    #[error("contestant {name:?} is declared twice: in {} and in {}", first.display(), second.display())]
    Twice {
        name: String,
        first: PathBuf,
        second: PathBuf,
    },
    #[error("{}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{name}: manifest: {why}")]
    Broken { name: String, why: String },
    #[error("no contestant {name:?} (known: {})", known.join(", "))]
    Unknown { name: String, known: Vec<String> },
    #[error("no contestant {name:?}: {NO_CATALOG}")]
    NoCatalog { name: String },
}

/// The contestants of a checkout (`root/contestants/*`, built into
/// `root/target/contestants`), of other folders, and of an experiment.
#[derive(Debug)]
pub struct Catalog {
    pub contestants: Vec<Contestant>,
    /// Folders whose manifest could not be read: (folder, one-line reason).
    pub broken: Vec<(String, String)>,
    /// The folders of contestant folders that were read (none: no catalog at all).
    pub folders: Vec<PathBuf>,
    /// Where each name was declared, to name both places of a name found twice.
    declared: Vec<(String, PathBuf)>,
}

impl Catalog {
    /// The catalog of the checkout `checkout` (if any, and if it has a `contestants/`)
    /// and of `folders`, whose contestants build under `builds`. A name found twice is an
    /// error naming both manifests.
    pub fn gather(
        checkout: Option<&Path>,
        folders: &[PathBuf],
        builds: &Path,
    ) -> Result<Catalog, CatalogError> {
        let mut catalog = Catalog::empty();
        if let Some(root) = checkout.filter(|r| r.join("contestants").is_dir()) {
            let dir = root.join("contestants");
            catalog.read_folder(&dir, &checkout_builds(root), Origin::Checkout)?;
        }
        for folder in folders {
            catalog.read_folder(folder, builds, Origin::Folder)?;
        }
        Ok(catalog)
    }

    /// The catalog of the places this process was pointed at: the checkout (`--root`,
    /// `SHOOTOUT_ROOT` or the current folder's) and `folders`.
    pub fn here(folders: &[PathBuf]) -> Result<Catalog, CatalogError> {
        let checkout = locations::checkout()?;
        let builds = locations::builds(&locations::results_of(checkout.as_deref())?);
        Catalog::gather(checkout.as_deref(), folders, &builds)
    }

    fn empty() -> Catalog {
        Catalog {
            contestants: Vec::new(),
            broken: Vec::new(),
            folders: Vec::new(),
            declared: Vec::new(),
        }
    }

    /// Reads every `dir/*/contestant.toml`, sorted by name.
    fn read_folder(
        &mut self,
        dir: &Path,
        builds: &Path,
        origin: Origin,
    ) -> Result<(), CatalogError> {
        let entries = std::fs::read_dir(dir).map_err(|source| CatalogError::Read {
            path: dir.to_path_buf(),
            source,
        })?;
        let mut folders: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.join("contestant.toml").is_file())
            .collect();
        folders.sort();
        for folder in folders {
            let manifest = folder.join("contestant.toml");
            self.declare(&folder_name(&folder), &manifest)?;
            match Contestant::load(&folder, builds) {
                Ok(mut c) => {
                    c.origin = origin;
                    self.contestants.push(c);
                }
                Err(e) => self.broken.push((folder_name(&folder), e.to_string())),
            }
        }
        self.folders.push(dir.to_path_buf());
        Ok(())
    }

    /// Adds contestants declared elsewhere (an experiment's inline ones).
    pub fn add(&mut self, contestants: Vec<Contestant>) -> Result<(), CatalogError> {
        for c in contestants {
            self.declare(c.name(), &c.declared_in)?;
            self.contestants.push(c);
        }
        Ok(())
    }

    /// Notes that `name` is declared in `file`; an error when it already was.
    fn declare(&mut self, name: &str, file: &Path) -> Result<(), CatalogError> {
        if let Some((_, first)) = self.declared.iter().find(|(n, _)| n == name) {
            return Err(CatalogError::Twice {
                name: name.to_string(),
                first: first.clone(),
                second: file.to_path_buf(),
            });
        }
        self.declared.push((name.to_string(), file.to_path_buf()));
        Ok(())
    }

    /// The contestant called `name`, or a one-line error listing the known names.
    pub fn get(&self, name: &str) -> Result<&Contestant, CatalogError> {
        if let Some((_, why)) = self.broken.iter().find(|(n, _)| n == name) {
            return Err(CatalogError::Broken {
                name: name.to_string(),
                why: why.clone(),
            });
        }
        let found = self.contestants.iter().find(|c| c.name() == name);
        if found.is_none() && self.folders.is_empty() {
            return Err(CatalogError::NoCatalog {
                name: name.to_string(),
            });
        }
        found.ok_or_else(|| CatalogError::Unknown {
            name: name.to_string(),
            known: self
                .contestants
                .iter()
                .map(|c| c.name().to_string())
                .collect(),
        })
    }
}

/// Where the checkout's own contestants build.
fn checkout_builds(root: &Path) -> PathBuf {
    root.join("target").join("contestants")
}

fn folder_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Whether `c` is blocked, needs setup (and what), or is ready.
pub fn status(c: &Contestant) -> Status {
    if c.running.is_some() {
        return Status::Ready;
    }
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
