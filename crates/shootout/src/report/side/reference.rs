//! What one word on the command line refers to, before the store is asked: a run
//! (`run:ID`), a saved load (`load:ID`), a JSON file, or a word the store resolves (an
//! experiment's id or name, a saved load's label).

use crate::model::{RunId, RunIdError};
use std::path::{Path, PathBuf};

/// A word naming something stored or a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reference {
    /// `run:ID`: one stored run.
    Run(RunId),
    /// `load:ID`: one saved load.
    SavedLoad(i64),
    /// An existing path that ends in `.json` or contains '/': a `shootout.load/1` file.
    File(PathBuf),
    /// An experiment's id or name, or a saved load's label. `looked_like_file` when it
    /// ends in `.json` or contains '/' but no such file exists (labels such as
    /// `127.0.0.1:8080/hello` contain '/'), so that an error can say a file was tried.
    Word {
        text: String,
        looked_like_file: bool,
    },
}

/// `run:` or `load:` without a number after it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{text:?}: expected {prefix}ID with a number (see shootout results)")]
pub struct ReferenceError {
    pub text: String,
    pub prefix: &'static str,
}

impl From<RunIdError> for ReferenceError {
    fn from(e: RunIdError) -> ReferenceError {
        ReferenceError {
            text: e.0,
            prefix: RunId::PREFIX,
        }
    }
}

impl Reference {
    /// What `text` refers to.
    pub fn parse(text: &str) -> Result<Reference, ReferenceError> {
        let id = |prefix: &'static str, id: &str| {
            id.parse::<i64>().map_err(|_| ReferenceError {
                text: text.to_string(),
                prefix,
            })
        };
        if RunId::is_meant(text) {
            return Ok(Reference::Run(text.parse()?));
        }
        if let Some(rest) = text.strip_prefix("load:") {
            return Ok(Reference::SavedLoad(id("load:", rest)?));
        }
        let looks_like_file = text.contains('/') || text.ends_with(".json");
        if looks_like_file && Path::new(text).exists() {
            return Ok(Reference::File(PathBuf::from(text)));
        }
        Ok(Reference::Word {
            text: text.to_string(),
            looked_like_file: looks_like_file,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_paths_and_words() {
        assert_eq!(Reference::parse("run:12"), Ok(Reference::Run(RunId(12))));
        assert_eq!(
            Reference::parse("run:x").unwrap_err().to_string(),
            "\"run:x\": expected run:ID with a number (see shootout results)"
        );
        assert_eq!(Reference::parse("load:3"), Ok(Reference::SavedLoad(3)));
        assert_eq!(
            Reference::parse("load:x").unwrap_err().to_string(),
            "\"load:x\": expected load:ID with a number (see shootout results)"
        );
        let word = |text: &str, looked_like_file| Reference::Word {
            text: text.into(),
            looked_like_file,
        };
        assert_eq!(Reference::parse("quick"), Ok(word("quick", false)));
        assert_eq!(Reference::parse("7"), Ok(word("7", false)));
        // A label with a '/' that is no file stays a word.
        assert_eq!(
            Reference::parse("127.0.0.1:1/no-such-file"),
            Ok(word("127.0.0.1:1/no-such-file", true))
        );
        assert_eq!(Reference::parse("gone.json"), Ok(word("gone.json", true)));
        let here = env!("CARGO_MANIFEST_DIR");
        assert_eq!(
            Reference::parse(here),
            Ok(Reference::File(PathBuf::from(here)))
        );
    }
}
