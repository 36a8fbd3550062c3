//! The pre-flight handshake `engine::check` does before an https load: against a tiny
//! rustls server, a certificate that fails verification is one line naming the reason
//! and the flag that changes it; `insecure` and the right settings pass.

use crate::tls_test_kit;

use engine::{Alpn, Certificates, ClientIdentity, LoadSpec, PrivateKey, RunError, TlsVersions};
use std::net::SocketAddr;
use std::time::Duration;
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
fn a_self_signed_certificate_is_an_unknown_issuer() {
    let ca = Ca::new("test CA");
    let addr = ServerSetup::new(&self_signed(&["localhost"])).start();
    let mut spec = load("localhost", addr, &ca);
    let e = preflight(&spec, addr).unwrap();
    assert!(
        e.ends_with(
            ": certificate issued by an unknown CA, or self-signed (use --cacert FILE with \
             its CA, or --insecure to skip verification)"
        ),
        "{e}"
    );
    spec.tls.insecure = true;
    assert_eq!(preflight(&spec, addr), None);
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
