//! Where shootout finds a checkout (its catalog of contestants, its experiments) and where
//! it keeps results: the checkout's `results/`, or outside a checkout the user's data
//! folder, so that an installed binary works anywhere.

use std::path::{Path, PathBuf};

/// The variable that names the checkout (`--root DIR` sets it for the whole process).
pub const ROOT_ENV: &str = "SHOOTOUT_ROOT";

/// Where shootout cannot look.
#[derive(Debug, thiserror::Error)]
pub enum LocationsError {
    #[error("--root / {ROOT_ENV} {}: no such folder", .0.display())]
    NoSuchRoot(PathBuf),
    #[error(
        "no folder for results outside a checkout: set XDG_DATA_HOME or HOME, or point at a \
         checkout with --root DIR or {ROOT_ENV}"
    )]
    NoDataFolder,
    #[error("the current folder: {0}")]
    CurrentFolder(std::io::Error),
}

/// The checkout: `SHOOTOUT_ROOT` (which `--root` sets), else the nearest ancestor of the
/// current folder that has a `contestants/` folder; None outside any.
pub fn checkout() -> Result<Option<PathBuf>, LocationsError> {
    if let Some(root) = std::env::var_os(ROOT_ENV).filter(|r| !r.is_empty()) {
        let root = PathBuf::from(root);
        return match root.is_dir() {
            true => Ok(Some(root)),
            false => Err(LocationsError::NoSuchRoot(root)),
        };
    }
    let cwd = std::env::current_dir().map_err(LocationsError::CurrentFolder)?;
    Ok(cwd
        .ancestors()
        .find(|d| d.join("contestants").is_dir())
        .map(Path::to_path_buf))
}

/// Where results go: the checkout's `results/`, else `$XDG_DATA_HOME/shootout` (by
/// default `~/.local/share/shootout`).
pub fn results() -> Result<PathBuf, LocationsError> {
    results_of(checkout()?.as_deref())
}

/// Where results go for `checkout` (as [`checkout`] found it).
pub fn results_of(checkout: Option<&Path>) -> Result<PathBuf, LocationsError> {
    match checkout {
        Some(root) => Ok(root.join("results")),
        None => outside(),
    }
}

/// The results folder outside a checkout. The `dirs` crate reads the XDG variables as
/// the specification says (a relative XDG_DATA_HOME is ignored, HOME is the fallback).
fn outside() -> Result<PathBuf, LocationsError> {
    dirs::data_dir()
        .map(|d| d.join("shootout"))
        .ok_or(LocationsError::NoDataFolder)
}

/// Where the build and state (logs, build stamp) of contestants that do not live in the
/// checkout's catalog go: under `results`, never inside the user's own folder.
pub fn builds(results: &Path) -> PathBuf {
    results.join("contestants")
}
