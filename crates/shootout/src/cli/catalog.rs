//! Where the commands find contestants: the checkout's catalog, plus folders given with
//! `--contestants DIR` and in `SHOOTOUT_CONTESTANTS`.

use anyhow::{bail, Context};
use clap::Args;
use shootout::contestant::catalog::{Catalog, NO_CATALOG};
use std::path::PathBuf;

/// The variable that adds folders of contestants, separated by `:` as in PATH.
const FOLDERS_ENV: &str = "SHOOTOUT_CONTESTANTS";

/// Folders of contestant folders besides the checkout's `contestants/`.
#[derive(Debug, Args)]
pub struct Folders {
    /// A folder of contestant folders (each with a contestant.toml), besides the
    /// checkout's contestants/; repeatable. SHOOTOUT_CONTESTANTS adds more (DIR:DIR...)
    #[arg(long = "contestants", value_name = "DIR")]
    contestants: Vec<PathBuf>,
}

impl Folders {
    /// The folders of the flags, then those of the variable; a missing one is bad input
    /// naming where it was given.
    pub fn all(&self) -> anyhow::Result<Vec<PathBuf>> {
        let flagged = self
            .contestants
            .iter()
            .map(|d| ("--contestants", d.clone()));
        let variable = std::env::var_os(FOLDERS_ENV).unwrap_or_default();
        let listed = std::env::split_paths(&variable)
            .filter(|d| !d.as_os_str().is_empty())
            .map(|d| (FOLDERS_ENV, d));
        let mut out = Vec::new();
        for (given, dir) in flagged.chain(listed) {
            if !dir.is_dir() {
                bail!("{given} {}: no such folder", dir.display());
            }
            out.push(dir);
        }
        Ok(out)
    }

    /// The catalog: the checkout's (if any) and these folders'.
    pub fn catalog(&self) -> anyhow::Result<Catalog> {
        Catalog::here(&self.all()?).context("contestants")
    }

    /// The catalog, for a command that has nothing to do without one.
    pub fn required(&self) -> anyhow::Result<Catalog> {
        let cat = self.catalog()?;
        if cat.folders.is_empty() {
            bail!("contestants: {NO_CATALOG}");
        }
        Ok(cat)
    }
}
