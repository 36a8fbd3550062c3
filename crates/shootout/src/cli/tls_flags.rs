//! The TLS flags of `shootout load` (and of a scenario's `[tls]` table, the same
//! settings): text and file names, turned into the spec's `TlsSpec` once. Files are read
//! here and their bytes go in the spec, which travels to shards and pods without paths.

use anyhow::{bail, Context};
use clap::{Args, ValueEnum};
use engine::{
    parse_sni, Alpn, Certificates, CipherSuite, ClientIdentity, KxGroup, PrivateKey, Resume,
    SpecError, TlsSpec, TlsVersions,
};
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// How an https:// load speaks TLS; every setting unset keeps the scenario's or the
/// spec's default (engine::defaults; `[default: ...]` below says it, a test checks it).
#[derive(Debug, Clone, Default, Args, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TlsFlags {
    /// TLS versions offered: 1.2, 1.3, or a minimum and a maximum, 1.2-1.3
    /// [default: 1.2-1.3]
    #[arg(long = "tls-version", value_name = "V", help_heading = "TLS")]
    pub version: Option<String>,
    /// Protocols offered by ALPN, comma-separated; '' offers none (as wrk)
    /// [default: http/1.1]
    #[arg(long, value_name = "LIST", help_heading = "TLS")]
    pub alpn: Option<String>,
    /// Name sent as SNI and checked against the certificate [default: the URL's host;
    /// an IP address is checked, not sent]
    #[arg(long, value_name = "NAME", help_heading = "TLS")]
    pub sni: Option<String>,
    /// Trust the CA certificates in this PEM file [default: the system's]
    #[arg(long, value_name = "FILE", help_heading = "TLS")]
    pub cacert: Option<PathBuf>,
    /// Accept any server certificate (expired, self-signed, another name); the
    /// handshake's signatures are still checked. Long only: -k is keep-alive (ab)
    #[arg(long, help_heading = "TLS")]
    #[serde(default)]
    pub insecure: bool,
    /// Cipher suites offered, in order, by IANA or rustls name, e.g.
    /// TLS13_AES_128_GCM_SHA256,TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256 [default: what
    /// browsers offer, TLS 1.3 and AES-128-GCM first]
    #[arg(long, value_name = "LIST", help_heading = "TLS")]
    pub ciphers: Option<String>,
    /// Key exchange groups offered, in order (the first is the key share sent), e.g.
    /// X25519,secp256r1,X25519MLKEM768 [default: X25519,secp256r1]
    #[arg(long = "tls-groups", value_name = "LIST", help_heading = "TLS")]
    pub groups: Option<String>,
    /// Client certificate (PEM, the client's first) for servers that ask for one (mTLS);
    /// its key from --key, else from this file
    #[arg(long, value_name = "FILE", help_heading = "TLS")]
    pub cert: Option<PathBuf>,
    /// The client certificate's private key (PEM)
    #[arg(long, value_name = "FILE", requires = "cert", help_heading = "TLS")]
    pub key: Option<PathBuf>,
    /// How a new connection resumes an earlier session [default: tickets]
    #[arg(
        long = "tls-resume",
        value_enum,
        value_name = "HOW",
        help_heading = "TLS"
    )]
    pub resume: Option<ResumeArg>,
}

/// `--tls-resume`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ResumeArg {
    /// A full handshake on every connection
    Off,
    /// Session tickets, else TLS 1.2 session ids (what browsers do)
    Tickets,
    /// TLS 1.2 session ids only (TLS 1.3 has only tickets)
    Ids,
}

/// Where the settings were written: the names errors use and where a file name starts.
#[derive(Debug, Clone, Copy)]
pub enum Source<'a> {
    Flags,
    /// A scenario's `[tls]` table; its file names are relative to this folder.
    Scenario(&'a Path),
}

impl Source<'_> {
    /// `--tls-groups` on a command line, `scenario tls.groups` in a file.
    fn name(self, flag: &str, key: &str) -> String {
        match self {
            Source::Flags => flag.to_string(),
            Source::Scenario(_) => format!("scenario tls.{key}"),
        }
    }

    /// A file's bytes, and the name of the setting with the file (for errors).
    fn read(self, path: &Path, flag: &str, key: &str) -> anyhow::Result<(Vec<u8>, String)> {
        let path = match self {
            Source::Scenario(dir) => dir.join(path),
            Source::Flags => path.to_path_buf(),
        };
        let named = format!("{} {}", self.name(flag, key), path.display());
        let bytes = std::fs::read(&path).with_context(|| named.clone())?;
        Ok((bytes, named))
    }
}

impl TlsFlags {
    /// Every setting given, over what `tls` already says.
    pub fn apply(&self, tls: &mut TlsSpec, from: Source) -> anyhow::Result<()> {
        let named = |flag: &str, key: &str| from.name(flag, key);
        if self.key.is_some() && self.cert.is_none() {
            bail!(
                "{} needs {}",
                named("--key", "key"),
                named("--cert", "cert")
            );
        }
        if let Some(text) = &self.version {
            tls.version = TlsVersions::parse(text).context(named("--tls-version", "version"))?;
        }
        if let Some(text) = &self.alpn {
            tls.alpn = Alpn::parse_list(text).context(named("--alpn", "alpn"))?;
        }
        if let Some(text) = &self.sni {
            tls.sni = Some(parse_sni(text).context(named("--sni", "sni"))?);
        }
        if let Some(path) = &self.cacert {
            let (pem, named) = from.read(path, "--cacert", "cacert")?;
            tls.cacert = Some(Certificates::from_pem(&pem, &named)?);
        }
        tls.insecure |= self.insecure;
        if let Some(text) = &self.ciphers {
            tls.ciphers = CipherSuite::parse_list(text).context(named("--ciphers", "ciphers"))?;
        }
        if let Some(text) = &self.groups {
            tls.groups = KxGroup::parse_list(text).context(named("--tls-groups", "groups"))?;
        }
        if let Some(cert) = &self.cert {
            tls.client = Some(self.identity(cert, from)?);
        }
        if let Some(resume) = self.resume {
            tls.resume = match resume {
                ResumeArg::Off => Resume::Off,
                ResumeArg::Tickets => Resume::Tickets,
                ResumeArg::Ids => Resume::Ids,
            };
        }
        Ok(())
    }

    /// The client certificate of `cert`, its key from `--key` or from the same file (as
    /// curl reads one file holding both).
    fn identity(&self, cert: &Path, from: Source) -> anyhow::Result<ClientIdentity> {
        let (cert_pem, cert_named) = from.read(cert, "--cert", "cert")?;
        let (key_pem, key_named) = match &self.key {
            Some(key) => from.read(key, "--key", "key")?,
            None => (cert_pem.clone(), format!("{cert_named} (no --key)")),
        };
        Ok(ClientIdentity {
            cert: Certificates::from_pem(&cert_pem, &cert_named)?,
            key: PrivateKey::from_pem(&key_pem, &key_named)?,
        })
    }
}

/// An error of resolving a spec that flags made (a scenario's `[tls]` has the same names),
/// in the flags' words: the engine names the spec's settings (`cert and key`, `cipher
/// suites`), which a user of the flags never wrote, about settings that only fail
/// together. Other errors pass as they are.
pub fn in_flag_words(e: SpecError) -> anyhow::Error {
    let words = match &e {
        SpecError::ClientKeyMismatch => {
            "--key is not the key of --cert: their public keys differ".to_string()
        }
        SpecError::ClientIdentity(why) => format!("--cert and --key: {why}"),
        SpecError::NoSuiteForVersions { versions } => format!(
            "--ciphers: none is for TLS {versions} (--tls-version; TLS 1.3 suites are named \
             TLS13_*)"
        ),
        SpecError::CaCert { index, reason } => {
            format!("--cacert: certificate {index} cannot be trusted as a CA: {reason}")
        }
        _ => return e.into(),
    };
    anyhow::Error::msg(words)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::load_flags::tests::{spec, Flags};
    use clap::CommandFactory;
    use engine::LoadSpec;

    fn error(args: &[&str]) -> String {
        format!("{:#}", spec(args).unwrap_err())
    }

    /// A folder of PEM files for one test: a certificate, its key, both in one file.
    struct Files(tempfile::TempDir);

    impl Files {
        fn new() -> Files {
            let dir = tempfile::tempdir().unwrap();
            let key = rcgen::KeyPair::generate().unwrap();
            let names = vec!["client.test".to_string()];
            let cert = rcgen::CertificateParams::new(names)
                .unwrap()
                .self_signed(&key)
                .unwrap();
            let (cert, key) = (cert.pem(), key.serialize_pem());
            std::fs::write(dir.path().join("cert.pem"), &cert).unwrap();
            std::fs::write(dir.path().join("key.pem"), &key).unwrap();
            std::fs::write(dir.path().join("both.pem"), format!("{cert}{key}")).unwrap();
            std::fs::write(dir.path().join("junk.pem"), "not PEM").unwrap();
            Files(dir)
        }

        fn path(&self, name: &str) -> String {
            self.0.path().join(name).display().to_string()
        }

        fn bytes(&self, name: &str) -> Vec<u8> {
            std::fs::read(self.0.path().join(name)).unwrap()
        }
    }

    #[test]
    fn every_tls_flag_goes_into_the_spec_files_as_their_bytes() {
        let f = Files::new();
        let (ca, cert, key) = (f.path("cert.pem"), f.path("cert.pem"), f.path("key.pem"));
        let s = spec(&[
            "https://localhost:8443/",
            "--tls-version=1.3",
            "--alpn=h2,http/1.1",
            "--sni=api.test",
            "--cacert",
            &ca,
            "--insecure",
            "--ciphers=TLS_AES_128_GCM_SHA256",
            "--tls-groups=X25519MLKEM768,X25519",
            "--cert",
            &cert,
            "--key",
            &key,
            "--tls-resume=off",
        ])
        .unwrap();
        let certs = Certificates::from_pem(&f.bytes("cert.pem"), "cert").unwrap();
        let want = TlsSpec {
            version: TlsVersions::parse("1.3").unwrap(),
            alpn: Alpn::parse_list("h2,http/1.1").unwrap(),
            sni: Some(parse_sni("api.test").unwrap()),
            cacert: Some(certs.clone()),
            insecure: true,
            ciphers: CipherSuite::parse_list("TLS13_AES_128_GCM_SHA256").unwrap(),
            groups: KxGroup::parse_list("X25519MLKEM768,X25519").unwrap(),
            client: Some(ClientIdentity {
                cert: certs,
                key: PrivateKey::from_pem(&f.bytes("key.pem"), "key").unwrap(),
            }),
            resume: Resume::Off,
        };
        assert_eq!(s.tls, want);
        // The bytes travel: the spec as a shard reads it needs no file.
        let json = serde_json::to_string(&s).unwrap();
        assert_eq!(serde_json::from_str::<LoadSpec>(&json).unwrap(), s);
        // One file with both, as curl reads it.
        let both = spec(&["https://a.test/", "--cert", &f.path("both.pem")]).unwrap();
        assert_eq!(both.tls.client, want.client);
        assert!(spec(&["https://a.test/"]).unwrap().tls.is_default());
    }

    #[test]
    fn bad_tls_flags_are_named() {
        let f = Files::new();
        let url = "https://a.test/";
        assert_eq!(
            error(&[url, "--tls-version", "1.3-1.2"]),
            "--tls-version: TLS versions 1.3-1.2: the minimum is above the maximum"
        );
        assert!(error(&[url, "--ciphers", "RC4"])
            .starts_with("--ciphers: cipher suite \"RC4\" is not one this build offers"));
        assert!(error(&[url, "--tls-groups", "X448"])
            .starts_with("--tls-groups: key exchange group \"X448\" is not one"));
        let junk = f.path("junk.pem");
        assert_eq!(
            error(&[url, "--cacert", &junk]),
            format!("--cacert {junk}: no certificate in it (expected -----BEGIN CERTIFICATE-----)")
        );
        let missing = f.path("missing.pem");
        assert!(error(&[url, "--cacert", &missing])
            .starts_with(&format!("--cacert {missing}: No such file")));
        let cert = f.path("cert.pem");
        assert_eq!(
            error(&[url, "--cert", &cert]),
            format!(
                "--cert {cert} (no --key): no private key in it (expected -----BEGIN PRIVATE \
                 KEY-----)"
            )
        );
        let e = error(&[url, "--key", &cert]);
        assert!(e.contains("--cert <FILE>"), "{e}");
        // Settings that fail only together: resolving says so, in the flags' words.
        let other = Files::new();
        let resolved = |args: &[&str]| {
            let e = spec(args).unwrap().resolve_elsewhere().unwrap_err();
            in_flag_words(e).to_string()
        };
        assert_eq!(
            resolved(&[url, "--cert", &cert, "--key", &other.path("key.pem")]),
            "--key is not the key of --cert: their public keys differ"
        );
        assert_eq!(
            resolved(&[
                url,
                "--tls-version",
                "1.2",
                "--ciphers",
                "TLS13_AES_128_GCM_SHA256"
            ]),
            "--ciphers: none is for TLS 1.2 (--tls-version; TLS 1.3 suites are named TLS13_*)"
        );
        // Flags of TLS on an http URL: the spec takes them, resolving it says why not.
        let http = spec(&["http://127.0.0.1:1/", "--insecure"]).unwrap();
        assert_eq!(
            http.resolve().unwrap_err().to_string(),
            "TLS setting tls.insecure (--insecure) given for an http:// URL: TLS needs https://"
        );
    }

    #[test]
    fn a_scenarios_tls_table_reads_its_files_beside_it_and_flags_win() {
        let f = Files::new();
        let scenario = f.0.path().join("s.toml");
        std::fs::write(
            &scenario,
            "url = \"https://a.test/\"\n[tls]\nversion = \"1.2\"\ncacert = \"cert.pem\"\n\
             groups = \"secp256r1\"\ncert = \"both.pem\"\nresume = \"ids\"\n",
        )
        .unwrap();
        let path = scenario.display().to_string();
        let s = spec(&["--scenario", &path, "--tls-version", "1.2-1.3"]).unwrap();
        assert_eq!(s.tls.version.to_string(), "1.2-1.3");
        assert_eq!(s.tls.groups, KxGroup::parse_list("P-256").unwrap());
        assert_eq!(s.tls.resume, Resume::Ids);
        assert!(s.tls.cacert.is_some() && s.tls.client.is_some());
        std::fs::write(
            &scenario,
            "url = \"https://a.test/\"\n[tls]\nciphers = \"X\"\n",
        )
        .unwrap();
        assert!(error(&["--scenario", &path])
            .starts_with("scenario tls.ciphers: cipher suite \"X\" is not one"));
        std::fs::write(
            &scenario,
            "url = \"https://a.test/\"\n[tls]\nkey = \"k.pem\"\n",
        )
        .unwrap();
        assert_eq!(
            error(&["--scenario", &path]),
            "scenario tls.key needs scenario tls.cert"
        );
    }

    /// The defaults `--help` states are the spec's own.
    #[test]
    fn the_defaults_in_the_help_are_the_specs() {
        let d = TlsSpec::default();
        let help = Flags::command().render_long_help().to_string();
        let said = |flag: &str, value: String| {
            let at = help
                .find(flag)
                .unwrap_or_else(|| panic!("{flag} in the help"));
            let rest = &help[at + flag.len()..];
            let text = &rest[..rest.find("\n\n").unwrap_or(rest.len())];
            let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
            assert!(
                text.contains(&format!("[default: {value}]")),
                "{flag}: {text}"
            );
        };
        said("--tls-version", d.version.to_string());
        let alpn: Vec<&str> = d.alpn.iter().map(Alpn::as_str).collect();
        said("--alpn", alpn.join(","));
        let groups: Vec<&str> = d.groups.iter().map(|g| g.name()).collect();
        said("--tls-groups", groups.join(","));
        said("--tls-resume", format!("{:?}", d.resume).to_lowercase());
        assert!(help.contains("\nTLS:\n"), "a TLS heading: {help}");
    }
}
