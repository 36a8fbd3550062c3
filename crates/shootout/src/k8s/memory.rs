//! A memory size as Kubernetes writes it (`512Mi`, `1Gi`, `1500M`). `k8s-openapi`'s
//! `Quantity` is an unchecked string, so the form is checked here, before kubectl.

use std::fmt;
use std::str::FromStr;

/// A memory quantity: a whole or decimal number and an optional binary (Ki..Ei) or
/// decimal (k..E) suffix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Memory(String);

/// Why a text is not a memory quantity.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("{0:?} is not a memory size such as 512Mi or 2Gi")]
pub struct MemoryError(String);

const SUFFIXES: [&str; 13] = [
    "", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "k", "M", "G", "T", "P", "E",
];

impl FromStr for Memory {
    type Err = MemoryError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let digits = text.trim_end_matches(|c: char| c.is_ascii_alphabetic());
        let suffix = &text[digits.len()..];
        let number_ok = digits.parse::<f64>().is_ok_and(|n| n > 0.0)
            && digits.chars().all(|c| c.is_ascii_digit() || c == '.');
        match number_ok && SUFFIXES.contains(&suffix) {
            true => Ok(Memory(text.to_string())),
            false => Err(MemoryError(text.to_string())),
        }
    }
}

impl fmt::Display for Memory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_take_kubernetes_suffixes() {
        for good in ["1Gi", "512Mi", "1500M", "1.5Gi", "1073741824"] {
            assert_eq!(good.parse::<Memory>().unwrap().to_string(), good);
        }
        for bad in ["1GB", "Gi", "-1Gi", "0", "1 Gi", "1e3"] {
            assert!(bad.parse::<Memory>().is_err(), "{bad}");
        }
    }
}
