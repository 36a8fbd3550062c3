//! A run's verify level as tables, the store and JSON name it. The type itself is the
//! harness's (`harness::verify_level`), kept to the text the helpers of issue 13 agreed.

pub use crate::harness::verify_level::VerifyLevel;

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

impl serde::Serialize for VerifyLevel {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.word())
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
