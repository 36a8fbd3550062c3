//! Reading a TOML file into a type, with the one-line error every file of shootout gives:
//! the file, the line and column, and what is wrong with which field.

use serde::de::DeserializeOwned;
use std::path::Path;

/// Reads and parses `path`.
pub fn read<T: DeserializeOwned>(path: &Path) -> Result<T, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    toml::from_str(&text).map_err(|e| {
        let shown = e.to_string();
        let location = shown
            .lines()
            .next()
            .unwrap_or_default()
            .trim_start_matches("TOML parse error at ");
        format!("{}: {location}: {}", path.display(), e.message().trim())
    })
}
