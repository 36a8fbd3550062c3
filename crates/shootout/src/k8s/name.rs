//! The name of a Job or a namespace: what Kubernetes accepts, checked here so that a bad
//! one fails before kubectl sees it.

use std::fmt;
use std::str::FromStr;

/// A DNS-1123 label of at most 63 characters: lowercase letters, digits and `-`,
/// starting and ending with a letter or digit. An Indexed Job's name is one too: its
/// pods' host names are built from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectName(String);

/// Why a name is not a DNS-1123 label.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("{0:?} is not a Kubernetes name: {1}")]
pub struct ObjectNameError(String, &'static str);

impl FromStr for ObjectName {
    type Err = ObjectNameError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let bad = |why| Err(ObjectNameError(text.to_string(), why));
        let allowed = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-';
        if text.is_empty() || text.len() > 63 {
            return bad("1 to 63 characters");
        }
        if !text.chars().all(allowed) {
            return bad("only lowercase letters, digits and '-'");
        }
        if text.starts_with('-') || text.ends_with('-') {
            return bad("it starts and ends with a letter or digit");
        }
        Ok(ObjectName(text.to_string()))
    }
}

impl fmt::Display for ObjectName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_dns_1123_labels() {
        assert!("shootout-load-2".parse::<ObjectName>().is_ok());
        let err = |t: &str| t.parse::<ObjectName>().unwrap_err().to_string();
        assert!(err("Load").contains("lowercase"));
        assert!(err("a_b").contains("lowercase"));
        assert!(err("-a").contains("starts and ends"));
        assert!(err(&"a".repeat(64)).contains("1 to 63"));
        assert!(err("").contains("1 to 63"));
    }
}
