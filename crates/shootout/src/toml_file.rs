//! Reading a TOML file into a type, with the one-line error every file of shootout gives:
//! the file, the line and column, and what is wrong with which field.

use serde::de::DeserializeOwned;
use std::path::{Path, PathBuf};

/// A file that could not be read, or does not hold what was expected.
#[derive(Debug, thiserror::Error)]
pub enum TomlFileError {
    #[error("{}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    /// `location` is `line L, column C`, as the TOML parser says it.
    #[error("{}: {location}: {message}", path.display())]
    Parse {
        path: PathBuf,
        location: String,
        message: String,
    },
}

/// Reads and parses `path`.
pub fn read<T: DeserializeOwned>(path: &Path) -> Result<T, TomlFileError> {
    let text = std::fs::read_to_string(path).map_err(|source| TomlFileError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    toml::from_str(&text).map_err(|e| {
        let shown = e.to_string();
        let location = shown
            .lines()
            .next()
            .unwrap_or_default()
            .trim_start_matches("TOML parse error at ")
            .to_string();
        TomlFileError::Parse {
            path: path.to_path_buf(),
            location,
            message: e.message().trim().to_string(),
        }
    })
}
