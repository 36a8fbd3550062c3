//! The TLS mode: the same behaviors through rustls with certificates made for the test,
//! a client that trusts the test CA gets hello, and the TLS faults do what they say, as
//! rustls's own client sees them.

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use rustls::{AlertDescription, ClientConnection, StreamOwned};
use testserver::{Behavior, Leaf, Oversized, TestPki, TestServer, Tls, TlsFault};

const GET: &[u8] = b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n";

/// A TLS client to `server`, trusting `pki`'s CA.
fn connect(server: &TestServer, pki: &TestPki) -> StreamOwned<ClientConnection, TcpStream> {
    let tcp = TcpStream::connect(server.addr()).unwrap();
    tcp.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let conn = ClientConnection::new(pki.client_config().unwrap(), TestPki::server_name()).unwrap();
    StreamOwned::new(conn, tcp)
}

/// Sends a GET and reads its hello answer; the error rustls gives instead, if any.
fn hello(client: &mut StreamOwned<ClientConnection, TcpStream>) -> Result<(), rustls::Error> {
    client.write_all(GET).map_err(rustls_error)?;
    let mut got = Vec::new();
    let mut buf = [0u8; 1024];
    while !got.ends_with(b"Hello World") {
        let n = client.read(&mut buf).map_err(rustls_error)?;
        assert!(n > 0, "closed after {:?}", String::from_utf8_lossy(&got));
        got.extend_from_slice(&buf[..n]);
    }
    assert!(got.starts_with(b"HTTP/1.1 200 OK\r\n"));
    Ok(())
}

/// The rustls error inside an I/O error (a test fails on any other).
fn rustls_error(e: std::io::Error) -> rustls::Error {
    let inner = e.get_ref().and_then(|e| e.downcast_ref::<rustls::Error>());
    inner
        .cloned()
        .unwrap_or_else(|| panic!("not a TLS error: {e}"))
}

/// A hello server over TLS with `pki`'s certificate, misbehaving as `fault` says.
fn start(pki: &TestPki, fault: TlsFault) -> TestServer {
    let tls = Tls::new(pki.server_config().unwrap()).with_fault(fault);
    TestServer::start_tls(Behavior::Hello, tls).unwrap()
}

#[test]
fn hello_over_tls_with_the_test_ca_counts_each_request() {
    let pki = TestPki::new().unwrap();
    let tls = Tls::new(pki.server_config().unwrap());
    let server = TestServer::start_tls(Behavior::Hello, tls).unwrap();
    assert!(server.url("/").starts_with("https://127.0.0.1:"));
    let mut client = connect(&server, &pki);
    for _ in 0..2 {
        assert!(hello(&mut client).is_ok());
    }
    // The server counts a response once its last byte is written: maybe after we read it.
    assert_eq!(server.requests(), 2);
}

#[test]
fn a_close_delimited_reply_ends_with_close_notify_unless_the_fault_drops_it() {
    let pki = TestPki::new().unwrap();
    for (fault, clean) in [(None, true), (Some(TlsFault::NoCloseNotify), false)] {
        let mut tls = Tls::new(pki.server_config().unwrap());
        tls.fault = fault.clone();
        let server = TestServer::start_tls(Behavior::Http10CloseDelimited, tls).unwrap();
        let mut client = connect(&server, &pki);
        client.write_all(b"GET / HTTP/1.0\r\n\r\n").unwrap();
        let mut got = Vec::new();
        let end = client.read_to_end(&mut got);
        assert!(got.ends_with(b"Hello World"), "{fault:?}: {got:?}");
        // rustls reports a close without close_notify as an unexpected end.
        assert_eq!(end.is_ok(), clean, "{fault:?}: {end:?}");
    }
}

#[test]
fn the_garbage_fault_answers_a_client_hello_with_no_tls_at_all() {
    let pki = TestPki::new().unwrap();
    let tls = Tls::new(pki.server_config().unwrap()).with_fault(TlsFault::GarbageHello);
    let server = TestServer::start_tls(Behavior::Hello, tls).unwrap();
    let mut client = connect(&server, &pki);
    let err = client.write_all(b"GET / HTTP/1.1\r\n\r\n").and_then(|()| {
        let mut buf = [0u8; 64];
        client.read(&mut buf).map(drop)
    });
    let err = err.unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::InvalidData, "{err}");
    assert_eq!(server.requests(), 0);
}

#[test]
fn the_stall_fault_takes_the_client_hello_and_says_nothing() {
    let pki = TestPki::new().unwrap();
    let server = start(&pki, TlsFault::StallHandshake);
    let mut client = connect(&server, &pki);
    client
        .sock
        .set_read_timeout(Some(Duration::from_millis(300)))
        .unwrap();
    let err = client.write_all(GET).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut),
        "{err}"
    );
    assert!(client.conn.is_handshaking());
    assert_eq!((server.connections(), server.requests()), (1, 0));
}

#[test]
fn the_certificate_switch_serves_the_good_one_first_then_one_the_client_refuses() {
    let pki = TestPki::new().unwrap();
    for (leaf, problem) in [
        (Leaf::Expired, "Expired"),
        (Leaf::WrongName, "NotValidForName"),
    ] {
        let then = pki.server_config_for(leaf).unwrap();
        let server = start(&pki, TlsFault::SwitchCertificate { after: 2, then });
        for _ in 0..2 {
            assert_eq!(hello(&mut connect(&server, &pki)), Ok(()), "{leaf:?}");
        }
        // The client kept tickets from the good connections: it must not resume past the switch.
        let e = hello(&mut connect(&server, &pki)).unwrap_err();
        let rustls::Error::InvalidCertificate(got) = &e else {
            panic!("{leaf:?}: {e}");
        };
        // webpki's errors carry context: `ExpiredContext { .. }`, `NotValidForNameContext { .. }`.
        assert!(format!("{got:?}").starts_with(problem), "{leaf:?}: {got:?}");
    }
}

#[test]
fn the_alert_fault_answers_then_sends_the_alert_in_place_of_the_next_answer() {
    let pki = TestPki::new().unwrap();
    let alert = AlertDescription::InternalError;
    let server = start(&pki, TlsFault::AlertAfter { after: 2, alert });
    let mut client = connect(&server, &pki);
    for _ in 0..2 {
        assert_eq!(hello(&mut client), Ok(()));
    }
    assert_eq!(hello(&mut client), Err(rustls::Error::AlertReceived(alert)));
    assert_eq!((server.requests(), server.responses()), (3, 2));
}

#[test]
fn the_oversized_faults_send_a_record_longer_than_tls_allows() {
    let pki = TestPki::new().unwrap();
    for (record, want) in [
        (Oversized::Sealed, rustls::Error::PeerSentOversizedRecord),
        (
            Oversized::Announced,
            rustls::Error::InvalidMessage(rustls::InvalidMessage::MessageTooLarge),
        ),
    ] {
        let server = start(&pki, TlsFault::OversizedRecordAfter { after: 1, record });
        let mut client = connect(&server, &pki);
        assert_eq!(hello(&mut client), Ok(()), "{record:?}");
        assert_eq!(hello(&mut client), Err(want), "{record:?}");
    }
}
