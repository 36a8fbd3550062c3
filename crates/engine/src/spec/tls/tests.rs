use super::*;
use crate::spec::{parse_url, LoadSpec, SpecError};

/// A self-signed certificate for `names` and its key, as PEM text.
fn self_signed(names: &[&str]) -> (String, String) {
    let key = rcgen::KeyPair::generate().unwrap();
    let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
    let cert = rcgen::CertificateParams::new(names)
        .unwrap()
        .self_signed(&key)
        .unwrap();
    (cert.pem(), key.serialize_pem())
}

fn https(url: &str) -> LoadSpec {
    LoadSpec::new(parse_url(url).unwrap())
}

/// Every TLS setting away from its default.
fn everything() -> LoadSpec {
    let (ca, _) = self_signed(&["ca.test"]);
    let (cert, key) = self_signed(&["client.test"]);
    let mut s = https("https://localhost:8443/x");
    s.tls = TlsSpec {
        version: TlsVersions::parse("1.3").unwrap(),
        alpn: Alpn::parse_list("http/1.1,h2").unwrap(),
        sni: Some(parse_sni("svc.test").unwrap()),
        cacert: Some(Certificates::from_pem(ca.as_bytes(), "cacert").unwrap()),
        insecure: true,
        ciphers: CipherSuite::parse_list("TLS13_CHACHA20_POLY1305_SHA256,TLS_AES_128_GCM_SHA256")
            .unwrap(),
        groups: KxGroup::parse_list("X25519MLKEM768,P-256").unwrap(),
        client: Some(ClientIdentity {
            cert: Certificates::from_pem(cert.as_bytes(), "cert").unwrap(),
            key: PrivateKey::from_pem(key.as_bytes(), "key").unwrap(),
        }),
        resume: crate::Resume::Ids,
    };
    s
}

#[test]
fn tls_settings_read_back_from_json_with_their_certificates_as_pem_text() {
    let s = everything();
    let json = serde_json::to_string(&s).unwrap();
    for part in [
        r#""version":"1.3""#,
        r#""alpn":["http/1.1","h2"]"#,
        r#""sni":"svc.test""#,
        r#""cacert":"-----BEGIN CERTIFICATE-----\n"#,
        r#""key":"-----BEGIN PRIVATE KEY-----\n"#,
        r#""ciphers":["TLS13_CHACHA20_POLY1305_SHA256","TLS13_AES_128_GCM_SHA256"]"#,
        r#""groups":["X25519MLKEM768","secp256r1"]"#,
        r#""resume":"ids""#,
    ] {
        assert!(json.contains(part), "{part} in {json}");
    }
    assert_eq!(serde_json::from_str::<LoadSpec>(&json).unwrap(), s);
    let toml_text = toml::to_string(&s).unwrap();
    assert_eq!(toml::from_str::<LoadSpec>(&toml_text).unwrap(), s);
}

/// An http spec says nothing of TLS, and a spec written before TLS reads as before.
#[test]
fn an_http_spec_has_no_tls_and_old_specs_read() {
    let s = https("http://127.0.0.1:1/");
    assert!(!serde_json::to_string(&s).unwrap().contains("tls"));
    let old: LoadSpec = serde_json::from_str(r#"{"url": "https://a.test/"}"#).unwrap();
    assert!(old.tls.is_default());
    let some: LoadSpec =
        serde_json::from_str(r#"{"url": "https://a.test/", "tls": {"version": "1.2"}}"#).unwrap();
    assert_eq!(some.tls.version, TlsVersions::parse("1.2").unwrap());
    assert_eq!(some.tls.alpn, vec![Alpn::http_1_1()]);
}

#[test]
fn the_defaults_are_both_versions_http11_and_x25519_then_p256() {
    let d = TlsSpec::default();
    assert_eq!(d.version.to_string(), "1.2-1.3");
    assert_eq!(d.alpn, vec![Alpn::http_1_1()]);
    let groups: Vec<&str> = d.groups.iter().map(|g| g.name()).collect();
    assert_eq!(groups, ["X25519", "secp256r1"]);
    let suites: Vec<&str> = d.ciphers.iter().map(|s| s.name()).collect();
    assert_eq!(
        suites[..3],
        [
            "TLS13_AES_128_GCM_SHA256",
            "TLS13_AES_256_GCM_SHA384",
            "TLS13_CHACHA20_POLY1305_SHA256"
        ]
    );
    assert_eq!(
        suites.len(),
        9,
        "every TLS 1.2 ECDHE suite of the provider too: {suites:?}"
    );
    assert_eq!(d.resume, crate::Resume::Tickets);
    assert!(d.sni.is_none() && d.cacert.is_none() && !d.insecure && d.client.is_none());
}

#[test]
fn https_resolves_to_one_client_config_and_http_to_none() {
    let (ca, _) = self_signed(&["localhost"]);
    let mut s = https("https://localhost:8443/");
    s.tls.cacert = Some(Certificates::from_pem(ca.as_bytes(), "cacert").unwrap());
    let c = s.resolve_at("127.0.0.1:8443".parse().unwrap()).unwrap();
    let tls = c.tls.expect("an https load has TLS");
    assert_eq!(tls.server_name.to_str(), "localhost");
    assert_eq!(tls.config.alpn_protocols, vec![b"http/1.1".to_vec()]);
    let provider = tls.config.crypto_provider();
    let groups: Vec<_> = provider.kx_groups.iter().map(|g| g.name()).collect();
    assert_eq!(
        groups,
        [rustls::NamedGroup::X25519, rustls::NamedGroup::secp256r1]
    );
    assert!(https("http://localhost:1/")
        .resolve()
        .unwrap()
        .tls
        .is_none());
    // https's port is 443 unless the URL names one.
    let pod = https("https://svc.test/").resolve_elsewhere().unwrap();
    assert_eq!(pod.target.addr.port(), 443);
    assert_eq!(pod.target.host_header, "svc.test");
}

#[test]
fn the_server_name_is_the_urls_host_or_the_sni() {
    let mut s = https("https://127.0.0.1:1/");
    s.tls.insecure = true;
    let ip = s.resolve().unwrap().tls.unwrap().server_name;
    assert!(matches!(ip, rustls::pki_types::ServerName::IpAddress(_)));
    s.tls.sni = Some(parse_sni("api.test").unwrap());
    let named = s.resolve().unwrap().tls.unwrap().server_name;
    assert_eq!(named.to_str(), "api.test");
}

#[test]
fn names_of_suites_and_groups_take_either_spelling() {
    let a = CipherSuite::parse("TLS_AES_128_GCM_SHA256").unwrap();
    let b = CipherSuite::parse("tls13_aes_128_gcm_sha256").unwrap();
    assert_eq!((a, a.name()), (b, "TLS13_AES_128_GCM_SHA256"));
    let tls12 = CipherSuite::parse("TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256").unwrap();
    assert_eq!(tls12.version(), Some(TlsVersion::Tls12));
    assert_eq!(KxGroup::parse("p-256").unwrap().name(), "secp256r1");
    // No ALPN at all, as wrk and ab: an empty list.
    assert_eq!(Alpn::parse_list(" ").unwrap(), Vec::<Alpn>::new());
    assert_eq!(
        KxGroup::parse("X25519MLKEM768").unwrap().name(),
        "X25519MLKEM768"
    );
}

#[test]
fn bad_tls_inputs_are_named_in_one_line() {
    let e = |r: Result<(), SpecError>| r.unwrap_err().to_string();
    assert_eq!(
        e(TlsVersions::parse("1.4").map(drop)),
        r#"TLS version "1.4" is not one (expected 1.2, 1.3 or a range 1.2-1.3)"#
    );
    assert_eq!(
        e(TlsVersions::parse("1.3-1.2").map(drop)),
        "TLS versions 1.3-1.2: the minimum is above the maximum"
    );
    assert!(
        e(CipherSuite::parse("TLS_RSA_WITH_RC4_128_MD5").map(drop)).starts_with(
            "cipher suite \"TLS_RSA_WITH_RC4_128_MD5\" is not one this build offers (it has \
         TLS13_AES_256_GCM_SHA384, "
        )
    );
    assert!(e(KxGroup::parse("X448").map(drop))
        .starts_with("key exchange group \"X448\" is not one this build offers (it has "));
    assert_eq!(
        e(Alpn::parse_list("http/1.1,").map(drop)),
        r#"ALPN protocol "" is not one (1 to 255 bytes)"#
    );
    assert_eq!(
        e(parse_sni("a b").map(drop)),
        r#"SNI name "a b" is neither a DNS name nor an IP address"#
    );
    assert_eq!(
        e(Certificates::from_pem(b"junk", "--cacert ca.pem").map(drop)),
        "--cacert ca.pem: no certificate in it (expected -----BEGIN CERTIFICATE-----)"
    );
    let (cert, _) = self_signed(&["a.test"]);
    assert_eq!(
        e(PrivateKey::from_pem(cert.as_bytes(), "--key k.pem").map(drop)),
        "--key k.pem: no private key in it (expected -----BEGIN PRIVATE KEY-----)"
    );
    let broken = "-----BEGIN CERTIFICATE-----\nAAAA\n";
    assert_eq!(
        e(Certificates::from_pem(broken.as_bytes(), "cacert").map(drop)),
        "cacert: a PEM block has no END line"
    );
}

#[test]
fn settings_that_do_not_fit_together_are_named_at_resolve() {
    let e = |s: &LoadSpec| s.resolve().unwrap_err().to_string();
    let mut s = https("http://127.0.0.1:1/");
    s.tls.insecure = true;
    assert_eq!(
        e(&s),
        "TLS setting tls.insecure (--insecure) given for an http:// URL: TLS needs https://"
    );
    let mut s = https("https://127.0.0.1:1/");
    s.tls.insecure = true;
    s.tls.version = TlsVersions::parse("1.2").unwrap();
    s.tls.ciphers = CipherSuite::parse_list("TLS13_AES_128_GCM_SHA256").unwrap();
    assert_eq!(
        e(&s),
        "cipher suites: none is for TLS 1.2 (TLS 1.3 suites are named TLS13_*)"
    );
    s.tls.ciphers.clear();
    assert_eq!(e(&s), "cipher suites: none given");
    // A key that is not the certificate's.
    let (cert, _) = self_signed(&["client.test"]);
    let (_, other_key) = self_signed(&["client.test"]);
    let mut s = https("https://127.0.0.1:1/");
    s.tls.insecure = true;
    s.tls.client = Some(ClientIdentity {
        cert: Certificates::from_pem(cert.as_bytes(), "cert").unwrap(),
        key: PrivateKey::from_pem(other_key.as_bytes(), "key").unwrap(),
    });
    assert_eq!(
        e(&s),
        "cert and key: the key is not the certificate's (their public keys differ)"
    );
}

/// In a JSON spec the same errors, with serde's place.
#[test]
fn bad_tls_fields_of_a_json_spec_are_named() {
    let e = |json: &str| {
        serde_json::from_str::<LoadSpec>(json)
            .unwrap_err()
            .to_string()
    };
    let bad = e(r#"{"url": "https://a/", "tls": {"cacert": "nope"}}"#);
    assert!(bad.starts_with("cacert: no certificate in it"), "{bad}");
    let bad = e(r#"{"url": "https://a/", "tls": {"version": "1.3-1.2"}}"#);
    assert!(
        bad.starts_with("TLS versions 1.3-1.2: the minimum"),
        "{bad}"
    );
    let bad = e(r#"{"url": "https://a/", "tls": {"client": {"cert": "x", "key": "y"}}}"#);
    assert!(bad.starts_with("cert: no certificate in it"), "{bad}");
    let bad = e(r#"{"url": "https://a/", "tls": {"insecur": true}}"#);
    assert!(bad.contains("unknown field `insecur`"), "{bad}");
}
