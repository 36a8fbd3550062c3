//! A load over TLS (`tls = { certificate = "rsa", resume = "off" }` in `[[loads]]`):
//! which certificate the servers serve in its runs, and what the client offers. Read once
//! into [`OverTls`]; each run adds the CA it trusts and the name it asks for.

use super::error::{at, FieldError, FieldProblem};
use super::file::TlsFile;
use crate::contestant::certificates::KeyKind;
use engine::{Certificates, Resume, TlsSpec, TlsVersions};

/// The name every run of a TLS load asks for (SNI) and checks the certificate against:
/// what the test certificates are made for, and what a browser on this machine would send.
pub const SERVER_NAME: &str = "localhost";

/// How a load speaks TLS, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct OverTls {
    /// The kind of certificate every server serves in this load's runs.
    pub certificate: KeyKind,
    /// What the client offers: versions and resumption as the file says, the engine's
    /// defaults for the rest. Its key exchange groups stay the engine's (X25519, then
    /// P-256): a server that prefers a post-quantum group (Go) would otherwise pay for
    /// it alone, and the table compares servers on one handshake.
    pub client: TlsSpec,
}

impl OverTls {
    /// The client settings of one run: trust `ca` alone, ask for [`SERVER_NAME`].
    pub fn client_trusting(&self, ca: Certificates) -> TlsSpec {
        let name = engine::parse_sni(SERVER_NAME).expect("localhost is a DNS name");
        TlsSpec {
            cacert: Some(ca),
            sni: Some(name),
            ..self.client.clone()
        }
    }

    /// How a new connection resumes.
    pub fn resume(&self) -> Resume {
        self.client.resume
    }
}

/// The `tls` table of a load, checked; a mistake names its field.
pub(super) fn check(t: &TlsFile) -> Result<OverTls, FieldError> {
    let certificate = match t.certificate.as_deref() {
        None => KeyKind::default(),
        Some(word) => key_kind(word).map_err(at("certificate"))?,
    };
    let mut client = TlsSpec::default();
    if let Some(word) = t.resume.as_deref() {
        client.resume = resume(word).map_err(at("resume"))?;
    }
    if let Some(text) = t.version.as_deref() {
        client.version = TlsVersions::parse(text).map_err(at("version"))?;
    }
    Ok(OverTls {
        certificate,
        client,
    })
}

fn key_kind(word: &str) -> Result<KeyKind, FieldProblem> {
    (KeyKind::ALL.into_iter())
        .find(|k| k.word() == word)
        .ok_or_else(|| FieldProblem::Certificate(word.to_string()))
}

fn resume(word: &str) -> Result<Resume, FieldProblem> {
    match word {
        "off" => Ok(Resume::Off),
        "tickets" => Ok(Resume::Tickets),
        "ids" => Ok(Resume::Ids),
        _ => Err(FieldProblem::Resume(word.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::TlsVersion;

    fn table(certificate: Option<&str>, resume: Option<&str>, version: Option<&str>) -> TlsFile {
        TlsFile {
            certificate: certificate.map(str::to_string),
            resume: resume.map(str::to_string),
            version: version.map(str::to_string),
        }
    }

    #[test]
    fn an_empty_table_is_the_engines_defaults_with_an_ecdsa_certificate() {
        let t = check(&TlsFile::default()).unwrap();
        assert_eq!(t.certificate, KeyKind::Ecdsa);
        assert_eq!(t.client, TlsSpec::default());
        assert_eq!(t.resume(), Resume::Tickets);
    }

    #[test]
    fn each_field_is_read_once_into_its_type() {
        let t = check(&table(Some("rsa"), Some("off"), Some("1.3"))).unwrap();
        assert_eq!(t.certificate, KeyKind::Rsa);
        assert_eq!(t.resume(), Resume::Off);
        let only_13 = TlsVersions::new(TlsVersion::Tls13, TlsVersion::Tls13).unwrap();
        assert_eq!(t.client.version, only_13);
        assert_eq!(
            check(&table(None, Some("ids"), None)).unwrap().resume(),
            Resume::Ids
        );
    }

    #[test]
    fn a_run_trusts_the_ca_asks_for_localhost_and_never_offers_a_post_quantum_group() {
        let t = check(&table(None, Some("off"), None)).unwrap();
        let pem = rcgen::generate_simple_self_signed(vec!["localhost".to_string()])
            .unwrap()
            .cert
            .pem();
        let ca = Certificates::from_pem(pem.as_bytes(), "ca").unwrap();
        let spec = t.client_trusting(ca.clone());
        assert_eq!(spec.cacert, Some(ca));
        assert_eq!(
            spec.sni.map(|n| n.to_str().to_string()).as_deref(),
            Some("localhost")
        );
        assert_eq!(spec.resume, Resume::Off);
        assert_eq!(spec.groups, engine::defaults::tls_groups());
        let names: Vec<&str> = spec.groups.iter().map(|g| g.name()).collect();
        assert!(names.iter().all(|g| !g.contains("MLKEM")), "{names:?}");
    }

    #[test]
    fn a_mistake_names_its_field_in_one_line() {
        let e = |t: TlsFile| check(&t).unwrap_err().to_string();
        assert_eq!(
            e(table(Some("dsa"), None, None)),
            "certificate: \"dsa\" is not a kind of certificate (ecdsa or rsa)"
        );
        assert_eq!(
            e(table(None, Some("always"), None)),
            "resume: \"always\" is not a way to resume (off, tickets or ids)"
        );
        assert_eq!(
            e(table(None, None, Some("1.4"))),
            "version: TLS version \"1.4\" is not one (expected 1.2, 1.3 or a range 1.2-1.3)"
        );
    }
}
