//! The pre-flight handshake `engine::check` does before an https load: against a tiny
//! rustls server, a certificate that fails verification is one line naming the reason
//! and the flag that changes it; `insecure` and the right settings pass.

use crate::tls_test_kit;

use engine::{Alpn, Certificates, ClientIdentity, LoadSpec, PrivateKey, RunError, TlsVersions};
use std::net::SocketAddr;
use std::time::Duration;
use tls_test_kit::openssl::{self, Key, Made, SServer, Serving, Workshop, LOCAL_NAMES};
use tls_test_kit::{clear_text_server, self_signed, silent_server, Ca, Identity, ServerSetup};

/// An https load of `host` (as the URL names it) sent to `addr`, trusting `ca`.
fn load(host: &str, addr: SocketAddr, ca: &Ca) -> LoadSpec {
    let url = format!("https://{host}:{}/", addr.port());
    let mut spec = LoadSpec::new(engine::parse_url(&url).unwrap());
    spec.tls.cacert = Some(Certificates::from_pem(ca.pem.as_bytes(), "cacert").unwrap());
    spec
}

/// The pre-flight's error, or None when the load may start.
fn preflight(spec: &LoadSpec, addr: SocketAddr) -> Option<String> {
    let config = spec.resolve_at(addr).unwrap();
    match engine::check(&config) {
        Ok(_) => None,
        Err(e @ RunError::Tls { .. }) => Some(e.to_string()),
        Err(e) => panic!("not a TLS error: {e}"),
    }
}

#[test]
fn a_valid_certificate_passes() {
    let ca = Ca::new("test CA");
    let addr = ServerSetup::new(&ca.issue(&["localhost"])).start();
    assert_eq!(preflight(&load("localhost", addr, &ca), addr), None);
}

#[test]
fn a_wrong_name_says_which_names_it_has_and_sni_or_insecure_pass_it() {
    let ca = Ca::new("test CA");
    let addr = ServerSetup::new(&ca.issue(&["localhost"])).start();
    let mut spec = load("127.0.0.1", addr, &ca);
    assert_eq!(
        preflight(&spec, addr).unwrap(),
        format!(
            "https://127.0.0.1:{}/: certificate not valid for name \"127.0.0.1\", only for \
             \"localhost\" (use --sni NAME, or --insecure to skip verification)",
            addr.port()
        )
    );
    spec.tls.sni = Some(engine::parse_sni("localhost").unwrap());
    assert_eq!(preflight(&spec, addr), None);
    spec.tls.sni = None;
    spec.tls.insecure = true;
    assert_eq!(preflight(&spec, addr), None);
}

#[test]
fn an_expired_certificate_says_when() {
    let ca = Ca::new("test CA");
    let addr = ServerSetup::new(&ca.issue_expired(&["localhost"])).start();
    let mut spec = load("localhost", addr, &ca);
    let e = preflight(&spec, addr).unwrap();
    assert!(
        e.ends_with(
            ": certificate expired on 2020-01-01 00:00:00 UTC (use --insecure to skip \
             verification)"
        ),
        "{e}"
    );
    spec.tls.insecure = true;
    assert_eq!(preflight(&spec, addr), None);
}

#[test]
fn a_self_signed_certificate_says_so_and_passes_when_trusted_itself() {
    let ca = Ca::new("test CA");
    let server = self_signed(&["localhost"]);
    let addr = ServerSetup::new(&server).start();
    let mut spec = load("localhost", addr, &ca);
    let e = preflight(&spec, addr).unwrap();
    assert!(
        e.ends_with(
            ": self-signed certificate \"CN=rcgen self signed cert\", not a trusted one (use \
             --cacert FILE with it, or --insecure to skip verification)"
        ),
        "{e}"
    );
    spec.tls.insecure = true;
    assert_eq!(preflight(&spec, addr), None);
    spec.tls.insecure = false;
    spec.tls.cacert = Some(Certificates::from_pem(server.cert.as_bytes(), "cacert").unwrap());
    assert_eq!(preflight(&spec, addr), None);
}

#[test]
fn a_ca_that_signed_the_certificate_but_is_not_trusted_is_named() {
    let (ca, stranger) = (Ca::new("test CA"), Ca::new("another CA"));
    let addr = ServerSetup::new(&stranger.issue(&["localhost"])).start();
    let e = preflight(&load("localhost", addr, &ca), addr).unwrap();
    assert!(
        e.ends_with(
            ": certificate issued by \"CN=another CA\", which is not trusted, and the server \
             sent no chain from it to a trusted CA (use --cacert FILE with its CA, or \
             --insecure to skip verification)"
        ),
        "{e}"
    );
}

/// A server that wants a client certificate refuses the handshake without one (in TLS
/// 1.3 after the client's side has finished: the pre-flight waits for its alert).
#[test]
fn mtls_needs_the_client_certificate_and_takes_a_good_one() {
    let ca = Ca::new("test CA");
    let server = ca.issue(&["localhost"]);
    let mut setup = ServerSetup::new(&server);
    setup.client_ca = Some(&ca);
    let addr = setup.start();
    let mut spec = load("localhost", addr, &ca);
    for version in ["1.3", "1.2"] {
        spec.tls.version = TlsVersions::parse(version).unwrap();
        let e = preflight(&spec, addr).unwrap_or_else(|| panic!("TLS {version} passed"));
        assert!(
            e.contains(": the server refused the TLS handshake: alert "),
            "{e}"
        );
    }
    spec.tls.version = TlsVersions::parse("1.3").unwrap();
    let e = preflight(&spec, addr).unwrap();
    assert!(
        e.ends_with(
            "alert certificate_required (it wants a client certificate: --cert FILE --key FILE)"
        ),
        "{e}"
    );
    let stranger = self_signed(&["client.test"]);
    spec.tls.client = Some(identity(&stranger));
    let e = preflight(&spec, addr).unwrap();
    assert!(
        e.contains("(it refused the client certificate: see --cert, --key)"),
        "{e}"
    );
    spec.tls.client = Some(identity(&ca.issue(&["client.test"])));
    assert_eq!(preflight(&spec, addr), None);
}

fn identity(id: &Identity) -> ClientIdentity {
    ClientIdentity {
        cert: Certificates::from_pem(id.cert.as_bytes(), "cert").unwrap(),
        key: PrivateKey::from_pem(id.key.as_bytes(), "key").unwrap(),
    }
}

#[test]
fn no_group_in_common_points_at_the_settings() {
    let ca = Ca::new("test CA");
    let server = ca.issue(&["localhost"]);
    let mut setup = ServerSetup::new(&server);
    setup.groups = Some(vec![rustls::crypto::aws_lc_rs::kx_group::X25519MLKEM768]);
    let addr = setup.start();
    let mut spec = load("localhost", addr, &ca);
    let e = preflight(&spec, addr).unwrap();
    assert!(
        e.ends_with(
            ": the server refused the TLS handshake: alert handshake_failure (no version, \
             cipher suite or group in common: see --tls-version, --ciphers, --tls-groups)"
        ),
        "{e}"
    );
    spec.tls.groups = engine::KxGroup::parse_list("X25519,X25519MLKEM768").unwrap();
    assert_eq!(preflight(&spec, addr), None);
}

#[test]
fn a_server_that_picks_another_protocol_by_alpn_is_refused() {
    let ca = Ca::new("test CA");
    let server = ca.issue(&["localhost"]);
    let mut setup = ServerSetup::new(&server);
    setup.alpn = vec!["h2"];
    let addr = setup.start();
    let mut spec = load("localhost", addr, &ca);
    let e = preflight(&spec, addr).unwrap();
    assert!(
        e.contains("alert no_application_protocol (no ALPN protocol in common: see --alpn)"),
        "{e}"
    );
    spec.tls.alpn = Alpn::parse_list("h2,http/1.1").unwrap();
    let e = preflight(&spec, addr).unwrap();
    assert!(
        e.ends_with(
            ": the server chose ALPN \"h2\"; the load speaks HTTP/1.1 (--alpn http/1.1, or \
             --http2 to load it over HTTP/2)"
        ),
        "{e}"
    );
    spec.http2 = true;
    assert_eq!(
        preflight(&spec, addr),
        None,
        "an HTTP/2 load gets the h2 it offers"
    );
    spec.http2 = false;
    // No ALPN at all, as wrk: the server speaks what it defaults to.
    spec.tls.alpn.clear();
    assert_eq!(preflight(&spec, addr), None);
}

#[test]
fn an_http2_load_needs_a_server_that_chooses_h2() {
    let ca = Ca::new("test CA");
    let server = ca.issue(&["localhost"]);
    let mut setup = ServerSetup::new(&server);
    setup.alpn = vec!["http/1.1"];
    let addr = setup.start();
    let mut spec = load("localhost", addr, &ca);
    spec.http2 = true;
    spec.tls.alpn = Alpn::parse_list("h2,http/1.1").unwrap();
    let e = preflight(&spec, addr).unwrap();
    assert!(
        e.ends_with(": the server chose ALPN \"http/1.1\"; the load speaks HTTP/2 (--alpn h2, or drop --http2)"),
        "{e}"
    );
    let no_alpn = ServerSetup::new(&server).start();
    let e = preflight(&load("localhost", no_alpn, &ca), no_alpn);
    assert_eq!(e, None, "an HTTP/1.1 load of a server without ALPN");
    let mut h2 = load("localhost", no_alpn, &ca);
    h2.http2 = true;
    let e = preflight(&h2, no_alpn).unwrap();
    assert!(e.ends_with("it does not offer HTTP/2 over TLS (h2)"), "{e}");
}

#[test]
fn a_server_that_never_answers_times_out_with_the_loads_timeout() {
    let ca = Ca::new("test CA");
    let addr = silent_server();
    let mut spec = load("localhost", addr, &ca);
    spec.timeout = Duration::from_millis(300);
    let e = preflight(&spec, addr).unwrap();
    assert!(
        e.ends_with(": no TLS handshake within 300ms (--timeout)"),
        "{e}"
    );
}

#[test]
fn a_clear_text_server_is_not_tls() {
    let addr = clear_text_server();
    let ca = Ca::new("test CA");
    let e = preflight(&load("localhost", addr, &ca), addr).unwrap();
    assert!(
        e.ends_with(": the server does not answer in TLS (is the URL http://?)"),
        "{e}"
    );
}

/// A certificate case: what is made, served and trusted, and whether curl takes it.
struct Case<'a> {
    what: &'static str,
    serving: Serving<'a>,
    /// The URL's host (resolved to the server's address).
    host: &'static str,
    /// `--cacert`; None: the system's CAs.
    cacert: Option<&'a Made>,
    /// What curl decides, and so must shootout.
    accepted: bool,
}

impl<'a> Case<'a> {
    fn new(what: &'static str, made: &'a Made, cacert: Option<&'a Made>, accepted: bool) -> Self {
        let serving = Serving {
            made,
            chain: None,
            tls12_only: false,
        };
        Case {
            what,
            serving,
            host: "localhost",
            cacert,
            accepted,
        }
    }
}

/// shootout's check of the server at `addr` asked for as `host`, trusting `cacert` or the
/// system's CAs: Err with its one line when it refuses.
fn shootout_check(addr: SocketAddr, host: &str, cacert: Option<&Made>) -> Result<(), String> {
    let url = format!("https://{host}:{}/", addr.port());
    let mut spec = LoadSpec::new(engine::parse_url(&url).unwrap());
    if let Some(ca) = cacert {
        let pem = std::fs::read(&ca.cert).unwrap();
        spec.tls.cacert = Some(Certificates::from_pem(&pem, "cacert").unwrap());
    }
    let config = spec
        .resolve_at(addr)
        .unwrap_or_else(|e| panic!("{url}: {e}"));
    match engine::check(&config) {
        Ok(_) => Ok(()),
        Err(RunError::Tls { cause, .. }) => Err(cause.to_string()),
        Err(e) => panic!("{url}: not a TLS error: {e}"),
    }
}

/// A Rust type's debug form: `Other(OtherError(CaUsedAsEndEntity))`, `Foo { .. }`.
fn looks_like_debug_text(text: &str) -> bool {
    let camel_case = |word: &str| {
        let mut chars = word.chars();
        chars.next().is_some_and(|c| c.is_ascii_uppercase())
            && chars.clone().next().is_some_and(|c| c.is_ascii_lowercase())
            && chars.any(|c| c.is_ascii_uppercase())
    };
    let mut words = text.split(|c: char| !c.is_ascii_alphanumeric());
    text.contains("Other") || text.contains(['{', '}', '_']) || words.any(camel_case)
}

/// Serves each case with `openssl s_server` and asks curl and shootout; a table of their
/// decisions and shootout's refusals is printed (`-- --nocapture`).
fn judged_as_curl_judges(cases: &[Case]) {
    let mut table = vec!["case | curl | shootout | shootout's refusal".to_string()];
    let mut wrong = Vec::new();
    for case in cases {
        let server = SServer::start(&case.serving);
        let cacert = case.cacert.map(|m| m.cert.as_path());
        let curl = openssl::curl(server.addr, case.host, cacert);
        let ours = shootout_check(server.addr, case.host, case.cacert);
        drop(server);
        let word = |r: &Result<(), String>| if r.is_ok() { "accepts" } else { "refuses" };
        let refusal = ours.clone().err().unwrap_or_default();
        table.push(format!(
            "{} | {} | {} | {refusal}",
            case.what,
            word(&curl),
            word(&ours)
        ));
        if curl.is_ok() != case.accepted || ours.is_ok() != case.accepted {
            wrong.push(format!("{}: curl {curl:?}, shootout {ours:?}", case.what));
        }
        let one_line = !refusal.contains('\n') && !looks_like_debug_text(&refusal);
        assert!(one_line, "{}: {refusal:?}", case.what);
    }
    println!("{}", table.join("\n"));
    assert!(
        wrong.is_empty(),
        "decided otherwise than expected:\n{}",
        wrong.join("\n")
    );
}

/// Certificates as guides tell people to make them, with the openssl command: shootout
/// takes what curl takes and refuses what it refuses, in one line that names the problem.
#[test]
fn certificates_made_with_openssl_are_judged_as_curl_judges_them() {
    let shop = Workshop::new();
    let ca_true = ["basicConstraints=critical,CA:TRUE", LOCAL_NAMES];
    let ca_false = ["basicConstraints=critical,CA:FALSE", LOCAL_NAMES];
    let own = shop.self_signed("own", Key::P256, &ca_true);
    let own_false = shop.self_signed("own-ca-false", Key::P256, &ca_false);
    let elsewhere = shop.self_signed(
        "elsewhere",
        Key::P256,
        &[
            "basicConstraints=critical,CA:TRUE",
            "subjectAltName=DNS:example.com",
        ],
    );
    let own_expired = shop.expired("own-expired", Key::P256, None, &ca_true);
    let root = shop.root("p256", Key::P256);
    let stranger = shop.root("stranger", Key::P256);
    let leaf_names = [LOCAL_NAMES];
    let intermediate = shop.issue(
        "intermediate",
        Key::P256,
        &root,
        &[
            "basicConstraints=critical,CA:TRUE",
            "keyUsage=critical,keyCertSign,cRLSign",
        ],
    );
    let below = shop.issue("below-intermediate", Key::P256, &intermediate, &leaf_names);
    let leaf = shop.issue("leaf", Key::P256, &root, &leaf_names);
    let expired = shop.expired("leaf-expired", Key::P256, Some(&root), &leaf_names);
    let other_name = shop.issue(
        "other-name",
        Key::P256,
        &root,
        &["subjectAltName=DNS:example.com"],
    );
    let kinds = [
        ("ECDSA P-384", Key::P384),
        ("RSA 2048", Key::Rsa2048),
        ("RSA 4096", Key::Rsa4096),
        ("Ed25519", Key::Ed25519),
    ];
    let roots: Vec<Made> = kinds
        .iter()
        .map(|(_, k)| shop.root(&format!("{k:?}"), *k))
        .collect();
    let leaves: Vec<Made> = (kinds.iter().zip(&roots))
        .map(|((_, k), r)| shop.issue(&format!("{k:?}-leaf"), *k, r, &leaf_names))
        .collect();
    let selves: Vec<Made> = (kinds.iter())
        .map(|(_, k)| shop.self_signed(&format!("{k:?}-own"), *k, &ca_true))
        .collect();

    let mut cases = vec![
        Case::new(
            "self-signed CA:TRUE, --cacert itself",
            &own,
            Some(&own),
            true,
        ),
        Case {
            host: "127.0.0.1",
            ..Case::new(
                "self-signed CA:TRUE, --cacert itself, by address",
                &own,
                Some(&own),
                true,
            )
        },
        Case::new("self-signed CA:TRUE, no --cacert", &own, None, false),
        Case::new(
            "self-signed CA:TRUE, --cacert another CA",
            &own,
            Some(&root),
            false,
        ),
        Case::new(
            "self-signed CA:FALSE, --cacert itself",
            &own_false,
            Some(&own_false),
            true,
        ),
        Case::new("self-signed CA:FALSE, no --cacert", &own_false, None, false),
        Case::new(
            "self-signed for another name, --cacert itself",
            &elsewhere,
            Some(&elsewhere),
            false,
        ),
        Case::new(
            "self-signed expired, --cacert itself",
            &own_expired,
            Some(&own_expired),
            false,
        ),
        Case::new("leaf under a root (ECDSA P-256)", &leaf, Some(&root), true),
        Case {
            serving: Serving {
                chain: Some(&intermediate),
                ..Case::new("", &below, None, true).serving
            },
            ..Case::new(
                "leaf under an intermediate it sends",
                &below,
                Some(&root),
                true,
            )
        },
        Case::new(
            "leaf under an intermediate it does not send",
            &below,
            Some(&root),
            false,
        ),
        Case::new("leaf expired", &expired, Some(&root), false),
        Case::new("leaf for another name", &other_name, Some(&root), false),
        Case::new("leaf under an unknown CA", &leaf, Some(&stranger), false),
        Case {
            serving: Serving {
                tls12_only: true,
                ..Case::new("", &leaf, None, true).serving
            },
            ..Case::new(
                "TLS 1.2-only server, leaf under a root",
                &leaf,
                Some(&root),
                true,
            )
        },
        Case {
            serving: Serving {
                tls12_only: true,
                ..Case::new("", &own, None, true).serving
            },
            ..Case::new(
                "TLS 1.2-only server, self-signed CA:TRUE",
                &own,
                Some(&own),
                true,
            )
        },
    ];
    for (i, (kind, _)) in kinds.iter().enumerate() {
        let what = |text: &str| -> &'static str { format!("{text} ({kind})").leak() };
        cases.push(Case::new(
            what("leaf under a root"),
            &leaves[i],
            Some(&roots[i]),
            true,
        ));
        cases.push(Case::new(
            what("self-signed CA:TRUE, --cacert itself"),
            &selves[i],
            Some(&selves[i]),
            true,
        ));
    }
    judged_as_curl_judges(&cases);
}

/// Where shootout refuses what curl takes, on purpose: a certificate that names its host
/// only in its subject's CN (browsers, Go and rustls stopped reading it; OpenSSL's curl
/// still does), and a certificate that says CA:TRUE served under a root (webpki refuses a
/// CA as a server; trusting the certificate itself passes it). Each says why in one line.
#[test]
fn where_shootout_is_stricter_than_curl_it_says_why() {
    let shop = Workshop::new();
    let cn_only = shop.self_signed("cn-only", Key::P256, &["basicConstraints=critical,CA:TRUE"]);
    let root = shop.root("p256", Key::P256);
    let ca_leaf = shop.issue(
        "ca-leaf",
        Key::P256,
        &root,
        &["basicConstraints=critical,CA:TRUE", LOCAL_NAMES],
    );
    let cases = [
        (
            Case::new(
                "self-signed, CN only, --cacert itself",
                &cn_only,
                Some(&cn_only),
                true,
            ),
            "certificate names no host in a subjectAltName, and its subject's CN is not \
             checked (make it anew with -addext subjectAltName=DNS:NAME, or use --insecure \
             to skip verification)",
        ),
        (
            Case::new(
                "leaf saying CA:TRUE under a root",
                &ca_leaf,
                Some(&root),
                true,
            ),
            "certificate \"CN=ca-leaf\" says CA:TRUE, and a CA's certificate is trusted as a \
             server's only when it is itself a trusted one (use --cacert FILE with it, or \
             --insecure to skip verification)",
        ),
    ];
    for (case, refusal) in &cases {
        let server = SServer::start(&case.serving);
        let cacert = case.cacert.map(|m| m.cert.as_path());
        let curl = openssl::curl(server.addr, case.host, cacert);
        let ours = shootout_check(server.addr, case.host, case.cacert);
        println!("{} | curl {curl:?} | shootout {ours:?}", case.what);
        assert_eq!(curl, Ok(()), "{}: curl takes it", case.what);
        assert_eq!(ours, Err(refusal.to_string()), "{}", case.what);
    }
    let server = SServer::start(&cases[1].0.serving);
    let trusted_itself = shootout_check(server.addr, "localhost", Some(&ca_leaf));
    assert_eq!(trusted_itself, Ok(()), "the CA:TRUE leaf given to --cacert");
}
