//! Certificates and private keys as a spec carries them: read from PEM text once where
//! they enter (a file's bytes, a spec's string), kept as DER, written back as PEM text.
//! A spec travels to shards and pods as JSON, so the bytes travel, never a path.

use crate::spec::SpecError;
use base64::Engine;
use rustls::pki_types::pem::{self, PemObject};
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// One or more X.509 certificates (a chain, or CA certificates to trust), in file order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Certificates(Vec<CertificateDer<'static>>);

impl Certificates {
    /// Every `CERTIFICATE` block of `pem` (other blocks, a key among them, are passed
    /// over); `setting` names where the text came from in the error.
    pub fn from_pem(pem: &[u8], setting: &str) -> Result<Certificates, SpecError> {
        let bad = |reason: String| SpecError::Pem {
            setting: setting.to_string(),
            reason,
        };
        let certs = CertificateDer::pem_slice_iter(pem)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| bad(pem_problem(e)))?;
        match certs.is_empty() {
            true => Err(bad(
                "no certificate in it (expected -----BEGIN CERTIFICATE-----)".into(),
            )),
            false => Ok(Certificates(certs)),
        }
    }

    pub fn der(&self) -> &[CertificateDer<'static>] {
        &self.0
    }

    /// PEM text, one block per certificate.
    pub fn to_pem(&self) -> String {
        self.0.iter().map(|c| block("CERTIFICATE", c)).collect()
    }
}

/// A private key: PKCS#8, PKCS#1 (RSA) or SEC1 (EC).
#[derive(Debug, PartialEq, Eq)]
pub struct PrivateKey(PrivateKeyDer<'static>);

impl PrivateKey {
    /// The first private key block of `pem` (certificates beside it are passed over).
    pub fn from_pem(pem: &[u8], setting: &str) -> Result<PrivateKey, SpecError> {
        let reason = match PrivateKeyDer::from_pem_slice(pem) {
            Ok(key) => return Ok(PrivateKey(key)),
            Err(pem::Error::NoItemsFound) => {
                "no private key in it (expected -----BEGIN PRIVATE KEY-----)".to_string()
            }
            Err(e) => pem_problem(e),
        };
        Err(SpecError::Pem {
            setting: setting.to_string(),
            reason,
        })
    }

    /// The key, for rustls (which takes it by value).
    pub fn der(&self) -> PrivateKeyDer<'static> {
        self.0.clone_key()
    }

    pub fn to_pem(&self) -> String {
        let label = match &self.0 {
            PrivateKeyDer::Pkcs1(_) => "RSA PRIVATE KEY",
            PrivateKeyDer::Sec1(_) => "EC PRIVATE KEY",
            _ => "PRIVATE KEY",
        };
        block(label, self.0.secret_der())
    }
}

impl Clone for PrivateKey {
    fn clone(&self) -> PrivateKey {
        PrivateKey(self.0.clone_key())
    }
}

/// One PEM block (RFC 7468): base64 in lines of 64.
fn block(label: &str, der: &[u8]) -> String {
    let text = base64::engine::general_purpose::STANDARD.encode(der);
    let lines: Vec<&str> = text
        .as_bytes()
        .chunks(64)
        .map(|l| std::str::from_utf8(l).unwrap_or_default())
        .collect();
    format!(
        "-----BEGIN {label}-----\n{}\n-----END {label}-----\n",
        lines.join("\n")
    )
}

/// What is wrong with PEM text, in words (the parser's own are Rust debug output).
fn pem_problem(e: pem::Error) -> String {
    match e {
        pem::Error::MissingSectionEnd { .. } => "a PEM block has no END line".into(),
        pem::Error::IllegalSectionStart { .. } => "a PEM BEGIN line is malformed".into(),
        pem::Error::Base64Decode(why) => format!("a PEM block is not base64 ({why})"),
        other => format!("not PEM ({other})"),
    }
}

impl Serialize for Certificates {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_pem())
    }
}

impl Serialize for PrivateKey {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_pem())
    }
}

/// `cacert` in a spec: PEM text.
pub(super) fn cacert<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Certificates>, D::Error> {
    certificates(d, "cacert").map(Some)
}

/// `client.cert` in a spec: PEM text, the client's certificate first.
pub(super) fn cert<'de, D: Deserializer<'de>>(d: D) -> Result<Certificates, D::Error> {
    certificates(d, "cert")
}

/// `client.key` in a spec: PEM text.
pub(super) fn key<'de, D: Deserializer<'de>>(d: D) -> Result<PrivateKey, D::Error> {
    let text = String::deserialize(d)?;
    PrivateKey::from_pem(text.as_bytes(), "key").map_err(serde::de::Error::custom)
}

fn certificates<'de, D: Deserializer<'de>>(d: D, setting: &str) -> Result<Certificates, D::Error> {
    let text = String::deserialize(d)?;
    Certificates::from_pem(text.as_bytes(), setting).map_err(serde::de::Error::custom)
}
