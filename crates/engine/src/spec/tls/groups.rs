//! Key exchange groups by name: `X25519`, `secp256r1` (or `P-256`), `secp384r1` (or
//! `P-384`), `X25519MLKEM768`, ... as rustls names them, any case.

use crate::spec::SpecError;
use rustls::crypto::aws_lc_rs::ALL_KX_GROUPS;
use rustls::crypto::SupportedKxGroup;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A key exchange group the provider (aws-lc-rs) implements.
#[derive(Clone, Copy, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct KxGroup(&'static dyn SupportedKxGroup);

impl KxGroup {
    pub fn parse(name: &str) -> Result<KxGroup, SpecError> {
        let wanted = match name.trim().to_ascii_lowercase().as_str() {
            "p-256" | "prime256v1" => "secp256r1".to_string(),
            "p-384" => "secp384r1".to_string(),
            other => other.to_string(),
        };
        ALL_KX_GROUPS
            .iter()
            .find(|g| group_name(**g).eq_ignore_ascii_case(&wanted))
            .map(|g| KxGroup(*g))
            .ok_or_else(|| SpecError::KxGroup {
                name: name.to_string(),
                known: known(),
            })
    }

    /// A comma-separated list, in the order offered (the first is the key share sent).
    pub fn parse_list(text: &str) -> Result<Vec<KxGroup>, SpecError> {
        text.split(',').map(KxGroup::parse).collect()
    }

    pub(crate) fn x25519() -> KxGroup {
        KxGroup(rustls::crypto::aws_lc_rs::kx_group::X25519)
    }

    pub(crate) fn secp256r1() -> KxGroup {
        KxGroup(rustls::crypto::aws_lc_rs::kx_group::SECP256R1)
    }

    /// rustls's name, e.g. `X25519`, `secp256r1`.
    pub fn name(self) -> &'static str {
        group_name(self.0)
    }

    pub(crate) fn rustls(self) -> &'static dyn SupportedKxGroup {
        self.0
    }
}

fn group_name(group: &dyn SupportedKxGroup) -> &'static str {
    group.name().as_str().unwrap_or("unnamed")
}

/// Every name accepted, for the error that refuses another.
fn known() -> String {
    let names: Vec<&str> = ALL_KX_GROUPS.iter().map(|g| group_name(*g)).collect();
    names.join(", ")
}

impl PartialEq for KxGroup {
    fn eq(&self, other: &KxGroup) -> bool {
        self.0.name() == other.0.name()
    }
}

impl fmt::Debug for KxGroup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl From<KxGroup> for String {
    fn from(group: KxGroup) -> String {
        group.name().to_string()
    }
}

impl TryFrom<String> for KxGroup {
    type Error = SpecError;

    fn try_from(name: String) -> Result<KxGroup, SpecError> {
        KxGroup::parse(&name)
    }
}
