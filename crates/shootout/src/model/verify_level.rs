//! How strictly a contestant is checked for HTTP before it is loaded: read from
//! manifests and experiments, kept with every run, named the same in tables, the store
//! and JSON.

use serde::{Deserialize, Serialize};

/// The checks a contestant must pass before it is loaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum VerifyLevel {
    /// Every check, with the catalog's exact body and headers (the catalog's default).
    #[default]
    Strict,
    /// HTTP framing, keep-alive, `Connection: close`, HTTP/1.0, and the endpoint's
    /// expected status and body.
    Http,
    /// No checks: shown as a warning wherever its results appear.
    None,
}

impl VerifyLevel {
    /// Every level, strictest first.
    pub const ALL: [VerifyLevel; 3] = [VerifyLevel::Strict, VerifyLevel::Http, VerifyLevel::None];

    /// The word written in manifests, stored and shown: `strict`, `http`, `none`.
    pub fn word(self) -> &'static str {
        match self {
            VerifyLevel::Strict => "strict",
            VerifyLevel::Http => "http",
            VerifyLevel::None => "none",
        }
    }

    /// What is checked at this level, in a few words.
    pub fn meaning(self) -> &'static str {
        match self {
            VerifyLevel::Strict => "every check, with the catalog's exact answers",
            VerifyLevel::Http => {
                "framing, keep-alive, Connection: close, HTTP/1.0, and each endpoint's expected answer"
            }
            VerifyLevel::None => "nothing checked",
        }
    }

    /// The level a word names.
    pub fn from_word(word: &str) -> Option<VerifyLevel> {
        VerifyLevel::ALL.into_iter().find(|l| l.word() == word)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_read_back_as_serde_reads_them() {
        for level in VerifyLevel::ALL {
            let json = serde_json::to_string(&level).unwrap();
            assert_eq!(serde_json::from_str::<VerifyLevel>(&json).unwrap(), level);
            assert_eq!(VerifyLevel::from_word(level.word()), Some(level));
        }
        assert_eq!(VerifyLevel::from_word("loose"), None);
    }
}
