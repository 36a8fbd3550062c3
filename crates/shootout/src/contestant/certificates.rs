//! The certificates TLS contestants serve: a test CA and a leaf for `localhost`,
//! 127.0.0.1 and ::1, in two kinds (ECDSA P-256 and RSA 2048), made at setup under the
//! builds folder (`{builds}/tls/KIND/{ca,cert,key}.pem`), never committed, and reused
//! while they stay valid.
//!
//! They are made with the `openssl` command rather than a Rust crate: it makes both kinds
//! (rcgen makes RSA keys only with some backends), it is on every machine that has nginx
//! or h2o, and a reader can repeat by hand what it did. Whether a set is still good is
//! judged the way the clients judge it: the chain verified by the check every client of
//! shootout makes (engine::PartialChain) for every name, a day ahead.

use engine::{CertificateRefusal, PartialChain};
use rustls::client::danger::ServerCertVerifier;
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::{RootCertStore, SignatureAlgorithm};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

/// The command that makes them, and the Debian package it comes in: required by every
/// contestant that serves TLS.
pub const OPENSSL: &str = "openssl";

/// The names the leaf is for: what a client on this machine may call a contestant.
pub const NAMES: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// How long a set must stay valid to be reused: no run starts on a certificate about to
/// expire.
const MARGIN: Duration = Duration::from_secs(24 * 3600);

const LEAF_DAYS: &str = "365";
const CA_DAYS: &str = "730";

/// The kind of key (and so of handshake signature) a server proves itself with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum KeyKind {
    /// ECDSA on P-256: what a tuned deployment serves today, the cheaper handshake.
    #[default]
    Ecdsa,
    /// RSA 2048: still the most common certificate.
    Rsa,
}

impl KeyKind {
    pub const ALL: [KeyKind; 2] = [KeyKind::Ecdsa, KeyKind::Rsa];

    /// One word, which names its folder too.
    pub fn word(self) -> &'static str {
        match self {
            KeyKind::Ecdsa => "ecdsa",
            KeyKind::Rsa => "rsa",
        }
    }

    /// `openssl req -newkey` arguments for a new key of this kind.
    fn new_key(self) -> &'static [&'static str] {
        match self {
            KeyKind::Ecdsa => &["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256"],
            KeyKind::Rsa => &["-newkey", "rsa:2048"],
        }
    }

    /// The leaf's key usage: RSA also for TLS 1.2's RSA key transport.
    fn leaf_usage(self) -> &'static str {
        match self {
            KeyKind::Ecdsa => "keyUsage=critical,digitalSignature",
            KeyKind::Rsa => "keyUsage=critical,digitalSignature,keyEncipherment",
        }
    }

    fn signature(self) -> SignatureAlgorithm {
        match self {
            KeyKind::Ecdsa => SignatureAlgorithm::ECDSA,
            KeyKind::Rsa => SignatureAlgorithm::RSA,
        }
    }
}

/// One kind's files: what a server is given (`cert`, `key`, PEM) and what a client
/// trusts (`ca`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CertificateFiles {
    pub kind: KeyKind,
    pub ca: PathBuf,
    pub cert: PathBuf,
    pub key: PathBuf,
}

/// Why there are no good certificates: one line naming the file or the step.
#[derive(Debug, thiserror::Error)]
pub enum CertificateError {
    #[error("{}: {source}", path.display())]
    Folder {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("`openssl {step}` failed: {why}")]
    Openssl { step: &'static str, why: String },
    #[error("{}: {source}", path.display())]
    Pem {
        path: PathBuf,
        source: rustls::pki_types::pem::Error,
    },
    #[error("{}: {source}", path.display())]
    Unusable {
        path: PathBuf,
        source: rustls::Error,
    },
    #[error("{}: not valid for {name} a day from now: {reason}", path.display())]
    Invalid {
        path: PathBuf,
        name: &'static str,
        /// What the check refused, in words.
        reason: String,
    },
    #[error("{}: not the key of {} (their public keys differ)", key.display(), cert.display())]
    NotTheLeafsKey { key: PathBuf, cert: PathBuf },
    #[error("{}: a {found:?} key, not {}", path.display(), kind.word())]
    WrongKind {
        path: PathBuf,
        kind: KeyKind,
        found: SignatureAlgorithm,
    },
}

/// Where the certificates of every kind live under `builds`.
pub fn folder(builds: &Path) -> PathBuf {
    builds.join("tls")
}

impl CertificateFiles {
    /// Where the set of `kind` lives under `builds` (made or not).
    pub fn of(builds: &Path, kind: KeyKind) -> CertificateFiles {
        CertificateFiles::in_folder(&folder(builds).join(kind.word()), kind)
    }

    fn in_folder(dir: &Path, kind: KeyKind) -> CertificateFiles {
        CertificateFiles {
            kind,
            ca: dir.join("ca.pem"),
            cert: dir.join("cert.pem"),
            key: dir.join("key.pem"),
        }
    }

    /// The check a client of a server serving these makes: the test CA the only one
    /// trusted, as every client of shootout's checks (engine::PartialChain).
    pub fn verifier(
        &self,
        provider: &Arc<CryptoProvider>,
    ) -> Result<PartialChain, CertificateError> {
        let ca = read_certificate(&self.ca)?;
        let unusable = |source| CertificateError::Unusable {
            path: self.ca.clone(),
            source,
        };
        let mut roots = RootCertStore::empty();
        roots.add(ca.clone()).map_err(unusable)?;
        PartialChain::new(roots, vec![ca], provider)
            .map_err(|e| unusable(rustls::Error::General(e.to_string())))
    }

    /// Ok when the chain verifies for every name a day from now and the key is of its
    /// kind.
    pub fn check(&self) -> Result<(), CertificateError> {
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let verifier = self.verifier(&provider)?;
        let leaf = read_certificate(&self.cert)?;
        let later = SystemTime::now() + MARGIN;
        let later = UnixTime::since_unix_epoch(
            later
                .duration_since(SystemTime::UNIX_EPOCH)
                .unwrap_or_default(),
        );
        for name in NAMES {
            let server_name = ServerName::try_from(name).expect("NAMES are valid names");
            verifier
                .verify_server_cert(&leaf, &[], &server_name, &[], later)
                .map_err(|e| CertificateError::Invalid {
                    path: self.cert.clone(),
                    name,
                    reason: CertificateRefusal::of(&e)
                        .map_or_else(|| e.to_string(), |r| r.to_string()),
                })?;
        }
        self.check_key(&provider, leaf)
    }

    /// Ok when the key is of the set's kind and is the leaf's: a half-written pair (a key
    /// from one making, a certificate from another) would pass every other check and leave
    /// servers unable to start.
    fn check_key(
        &self,
        provider: &CryptoProvider,
        leaf: CertificateDer<'static>,
    ) -> Result<(), CertificateError> {
        let key =
            PrivateKeyDer::from_pem_file(&self.key).map_err(|source| CertificateError::Pem {
                path: self.key.clone(),
                source,
            })?;
        let signer = (provider.key_provider.load_private_key(key)).map_err(|source| {
            CertificateError::Unusable {
                path: self.key.clone(),
                source,
            }
        })?;
        let found = signer.algorithm();
        if found != self.kind.signature() {
            return Err(CertificateError::WrongKind {
                path: self.key.clone(),
                kind: self.kind,
                found,
            });
        }
        let pair = rustls::sign::CertifiedKey::new(vec![leaf], signer);
        pair.keys_match().map_err(|source| match source {
            rustls::Error::InconsistentKeys(rustls::InconsistentKeys::KeyMismatch) => {
                CertificateError::NotTheLeafsKey {
                    key: self.key.clone(),
                    cert: self.cert.clone(),
                }
            }
            source => CertificateError::Unusable {
                path: self.key.clone(),
                source,
            },
        })
    }
}

fn read_certificate(path: &Path) -> Result<CertificateDer<'static>, CertificateError> {
    CertificateDer::from_pem_file(path).map_err(|source| CertificateError::Pem {
        path: path.to_path_buf(),
        source,
    })
}

/// The set of `kind` under `builds`: the one there while it is good, else a new one.
pub fn ensure(builds: &Path, kind: KeyKind) -> Result<CertificateFiles, CertificateError> {
    let files = CertificateFiles::of(builds, kind);
    if files.check().is_ok() {
        return Ok(files);
    }
    let home = folder(builds);
    let dir = home.join(kind.word());
    // Setup runs lanes side by side: each maker gets a folder of its own.
    static MAKERS: AtomicU32 = AtomicU32::new(0);
    let maker = MAKERS.fetch_add(1, Ordering::Relaxed);
    let making = home.join(format!(
        ".making-{}-{}-{maker}",
        kind.word(),
        std::process::id()
    ));
    let in_folder = |path: &Path| {
        let path = path.to_path_buf();
        move |source| CertificateError::Folder { path, source }
    };
    let _ = std::fs::remove_dir_all(&making);
    std::fs::create_dir_all(&making).map_err(in_folder(&making))?;
    let made = make(&making, kind);
    if made.is_err() {
        let _ = std::fs::remove_dir_all(&making);
        made?;
    }
    // A set another setup made meanwhile wins; a stale one gives way.
    if files.check().is_err() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    if std::fs::rename(&making, &dir).is_err() {
        let _ = std::fs::remove_dir_all(&making);
    }
    files.check().map(|()| files)
}

/// Makes a CA and a leaf of `kind` in `dir`, then forgets the CA's key: nothing else is
/// ever signed with it.
fn make(dir: &Path, kind: KeyKind) -> Result<(), CertificateError> {
    let files = CertificateFiles::in_folder(dir, kind);
    let ca_key = dir.join("ca.key");
    let subject_ca = format!("/CN=shootout test CA ({})", kind.word());
    let names = "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1";
    let common = ["req", "-x509", "-noenc", "-sha256"];
    let ca = [
        &["-days", CA_DAYS, "-subj", &subject_ca][..],
        &["-keyout", path(&ca_key), "-out", path(&files.ca)],
        &["-addext", "basicConstraints=critical,CA:TRUE"],
        &["-addext", "keyUsage=critical,keyCertSign,cRLSign"],
    ];
    openssl(
        "req (CA)",
        &[&common[..], kind.new_key(), &ca.concat()].concat(),
    )?;
    let leaf = [
        &["-days", LEAF_DAYS, "-subj", "/CN=localhost"][..],
        &["-CA", path(&files.ca), "-CAkey", path(&ca_key)],
        &["-keyout", path(&files.key), "-out", path(&files.cert)],
        &[
            "-addext",
            names,
            "-addext",
            "basicConstraints=critical,CA:FALSE",
        ],
        &[
            "-addext",
            kind.leaf_usage(),
            "-addext",
            "extendedKeyUsage=serverAuth",
        ],
    ];
    openssl(
        "req (leaf)",
        &[&common[..], kind.new_key(), &leaf.concat()].concat(),
    )?;
    std::fs::remove_file(&ca_key).map_err(|source| CertificateError::Folder {
        path: ca_key,
        source,
    })
}

fn path(p: &Path) -> &str {
    // The builds folder is shootout's own: a path it cannot spell as UTF-8 would have
    // failed long before.
    p.to_str().unwrap_or_default()
}

/// Runs `openssl ARGS`; a failure says the step and openssl's last line.
fn openssl(step: &'static str, args: &[&str]) -> Result<(), CertificateError> {
    let out = Command::new(OPENSSL)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| CertificateError::Openssl {
            step,
            why: e.to_string(),
        })?;
    if out.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let last = stderr.lines().rev().find(|l| !l.trim().is_empty());
    Err(CertificateError::Openssl {
        step,
        why: format!("{} ({})", last.unwrap_or("no message"), out.status),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_kinds_are_made_valid_for_every_name_and_reused() {
        let builds = tempfile::tempdir().unwrap();
        for kind in KeyKind::ALL {
            let files = ensure(builds.path(), kind).unwrap();
            assert_eq!(files, CertificateFiles::of(builds.path(), kind));
            files.check().unwrap();
            let made = std::fs::read(&files.cert).unwrap();
            assert_eq!(ensure(builds.path(), kind).unwrap(), files);
            assert_eq!(std::fs::read(&files.cert).unwrap(), made, "reused");
            let left: Vec<_> = std::fs::read_dir(files.ca.parent().unwrap())
                .unwrap()
                .map(|e| e.unwrap().file_name().into_string().unwrap())
                .collect();
            assert_eq!(left.len(), 3, "no CA key is kept: {left:?}");
        }
    }

    #[test]
    fn makers_side_by_side_leave_one_good_set() {
        let builds = tempfile::tempdir().unwrap();
        let made: Vec<CertificateFiles> = std::thread::scope(|s| {
            let makers: Vec<_> = (0..3)
                .map(|_| s.spawn(|| ensure(builds.path(), KeyKind::Ecdsa).unwrap()))
                .collect();
            makers.into_iter().map(|m| m.join().unwrap()).collect()
        });
        assert!(made.windows(2).all(|w| w[0] == w[1]));
        made[0].check().unwrap();
        let left: Vec<_> = std::fs::read_dir(folder(builds.path()))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(left, ["ecdsa"], "no maker's folder is left");
    }

    #[test]
    fn a_name_the_leaf_is_not_for_fails_and_a_broken_set_is_made_anew() {
        let builds = tempfile::tempdir().unwrap();
        let files = ensure(builds.path(), KeyKind::Ecdsa).unwrap();
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let verifier = files.verifier(&provider).unwrap();
        let leaf = read_certificate(&files.cert).unwrap();
        let other = ServerName::try_from("example.com").unwrap();
        let now = UnixTime::now();
        assert!(verifier
            .verify_server_cert(&leaf, &[], &other, &[], now)
            .is_err());
        // The RSA set's key with the ECDSA leaf: the wrong kind, replaced.
        let rsa = ensure(builds.path(), KeyKind::Rsa).unwrap();
        std::fs::copy(&rsa.key, &files.key).unwrap();
        let e = files.check().unwrap_err().to_string();
        assert!(e.ends_with("key.pem: a RSA key, not ecdsa"), "{e}");
        ensure(builds.path(), KeyKind::Ecdsa)
            .unwrap()
            .check()
            .unwrap();
    }

    #[test]
    fn a_key_of_the_right_kind_but_another_leaf_is_refused_and_made_anew() {
        let (one, two) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let files = ensure(one.path(), KeyKind::Ecdsa).unwrap();
        let other = ensure(two.path(), KeyKind::Ecdsa).unwrap();
        std::fs::copy(&other.key, &files.key).unwrap();
        let e = files.check().unwrap_err().to_string();
        assert!(e.ends_with("cert.pem (their public keys differ)"), "{e}");
        assert!(e.contains("key.pem: not the key of "), "{e}");
        ensure(one.path(), KeyKind::Ecdsa).unwrap().check().unwrap();
    }
}
