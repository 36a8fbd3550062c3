//! Reading a TOML file into a type, with the one-line error every file of shootout gives:
//! the file, the line and column, the named entry it is in (`endpoint.greet`), and what
//! is wrong with which field.

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
    /// `location` is `line L, column C`, as the TOML parser says it; `message` starts
    /// with the named entry the mistake is in, if any.
    #[error("{}: {location}: {message}", path.display())]
    Parse {
        path: PathBuf,
        location: String,
        message: String,
    },
}

/// Reads and parses `path`.
pub fn read<T: DeserializeOwned>(path: &Path) -> Result<T, TomlFileError> {
    parse(path, &text(path)?)
}

/// The text of `path`.
pub fn text(path: &Path) -> Result<String, TomlFileError> {
    std::fs::read_to_string(path).map_err(|source| TomlFileError::Read {
        path: path.to_path_buf(),
        source,
    })
}

/// Parses `text`, read from `path` (which the error names).
pub fn parse<T: DeserializeOwned>(path: &Path, text: &str) -> Result<T, TomlFileError> {
    toml::from_str(text).map_err(|e| {
        let shown = e.to_string();
        let location = shown
            .lines()
            .next()
            .unwrap_or_default()
            .trim_start_matches("TOML parse error at ")
            .to_string();
        let message = e.message().trim();
        let entry = e.span().and_then(|at| entry_at(text, at.start));
        TomlFileError::Parse {
            path: path.to_path_buf(),
            location,
            message: match entry {
                Some(entry) => format!("{entry}: {message}"),
                None => message.to_string(),
            },
        }
    })
}

/// The named entry byte `offset` of `text` is in, such as `endpoint.greet` or
/// `profiles.full`: the dotted name of the nearest table header at or above its line,
/// when it has two parts or more. A line alone says where, not in which entry, and the
/// parser's message leaves the entry out.
fn entry_at(text: &str, offset: usize) -> Option<String> {
    let rest = text.get(offset..)?;
    let line_end = offset + rest.find('\n').unwrap_or(rest.len());
    let header = (text[..line_end].lines().rev())
        .map(str::trim_start)
        .find(|l| l.starts_with('['))?;
    let name = header.trim_start_matches('[').split(']').next()?;
    let parts: Vec<&str> = (name.split('.'))
        .map(|p| p.trim().trim_matches(['"', '\'']))
        .collect();
    (parts.len() >= 2).then(|| parts.join("."))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)] // read only to find mistakes
    struct File {
        name: String,
        #[serde(default)]
        endpoint: std::collections::BTreeMap<String, Entry>,
        #[serde(default)]
        loads: Vec<Entry>,
    }

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Entry {
        path: String,
    }

    fn mistake(text: &str) -> String {
        parse::<File>(Path::new("f.toml"), text)
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn a_mistake_names_the_line_and_the_entry_it_is_in() {
        let typo = mistake("name = \"x\"\n[endpoint.greet]\npath = \"/\"\npaht = 1\n");
        assert!(
            typo.starts_with("f.toml: line 4, column 1: endpoint.greet: unknown field `paht`"),
            "{typo}"
        );
        let missing = mistake("name = \"x\"\n[endpoint . \"greet\"]\n");
        assert_eq!(
            missing,
            "f.toml: line 2, column 1: endpoint.greet: missing field `path`"
        );
        // A table that is not a named entry, or the top of the file: the line says it all.
        let load = mistake("name = \"x\"\n[[loads]]\npaht = 1\n");
        assert!(
            load.starts_with("f.toml: line 3, column 1: unknown field `paht`"),
            "{load}"
        );
        let top = mistake("nmae = \"x\"\n");
        assert!(
            top.starts_with("f.toml: line 1, column 1: unknown field `nmae`"),
            "{top}"
        );
    }
}
