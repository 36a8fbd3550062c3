//! Which TLS versions a load may speak: a minimum and a maximum, written `1.2`, `1.3` or
//! `1.2-1.3` (as `--tls-version` takes them).

use crate::spec::SpecError;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A TLS version the engine speaks (rustls has no older one).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum TlsVersion {
    Tls12,
    Tls13,
}

impl TlsVersion {
    fn parse(text: &str) -> Option<TlsVersion> {
        match text.trim() {
            "1.2" => Some(TlsVersion::Tls12),
            "1.3" => Some(TlsVersion::Tls13),
            _ => None,
        }
    }

    /// `1.2` or `1.3`.
    pub fn text(self) -> &'static str {
        match self {
            TlsVersion::Tls12 => "1.2",
            TlsVersion::Tls13 => "1.3",
        }
    }

    /// The version as rustls names it.
    pub(crate) fn rustls(self) -> &'static rustls::SupportedProtocolVersion {
        match self {
            TlsVersion::Tls12 => &rustls::version::TLS12,
            TlsVersion::Tls13 => &rustls::version::TLS13,
        }
    }

    /// The version of a rustls protocol version, if it is one the engine speaks.
    pub(crate) fn of(version: rustls::ProtocolVersion) -> Option<TlsVersion> {
        match version {
            rustls::ProtocolVersion::TLSv1_2 => Some(TlsVersion::Tls12),
            rustls::ProtocolVersion::TLSv1_3 => Some(TlsVersion::Tls13),
            _ => None,
        }
    }
}

/// The versions offered, from `min` to `max`; `min <= max` always holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct TlsVersions {
    min: TlsVersion,
    max: TlsVersion,
}

impl TlsVersions {
    /// Every version from `min` to `max`.
    pub fn new(min: TlsVersion, max: TlsVersion) -> Result<TlsVersions, SpecError> {
        match min <= max {
            true => Ok(TlsVersions { min, max }),
            false => Err(SpecError::TlsVersionOrder {
                min: min.text(),
                max: max.text(),
            }),
        }
    }

    /// 1.2 to 1.3: every version the engine speaks.
    pub fn every() -> TlsVersions {
        TlsVersions {
            min: TlsVersion::Tls12,
            max: TlsVersion::Tls13,
        }
    }

    /// `1.2`, `1.3` (that version only) or `1.2-1.3` (a minimum and a maximum).
    pub fn parse(text: &str) -> Result<TlsVersions, SpecError> {
        let version = |part: &str| {
            TlsVersion::parse(part).ok_or_else(|| SpecError::TlsVersion(text.to_string()))
        };
        match text.split_once('-') {
            Some((min, max)) => TlsVersions::new(version(min)?, version(max)?),
            None => TlsVersions::new(version(text)?, version(text)?),
        }
    }

    pub fn min(self) -> TlsVersion {
        self.min
    }

    pub fn max(self) -> TlsVersion {
        self.max
    }

    pub fn contains(self, version: TlsVersion) -> bool {
        (self.min..=self.max).contains(&version)
    }

    /// The versions as rustls's builder takes them.
    pub(crate) fn rustls(self) -> Vec<&'static rustls::SupportedProtocolVersion> {
        [TlsVersion::Tls12, TlsVersion::Tls13]
            .into_iter()
            .filter(|v| self.contains(*v))
            .map(TlsVersion::rustls)
            .collect()
    }
}

impl fmt::Display for TlsVersions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.min == self.max {
            true => f.write_str(self.min.text()),
            false => write!(f, "{}-{}", self.min.text(), self.max.text()),
        }
    }
}

impl From<TlsVersions> for String {
    fn from(versions: TlsVersions) -> String {
        versions.to_string()
    }
}

impl TryFrom<String> for TlsVersions {
    type Error = SpecError;

    fn try_from(text: String) -> Result<TlsVersions, SpecError> {
        TlsVersions::parse(&text)
    }
}
