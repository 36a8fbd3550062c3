//! The TLS mode: the same behaviors through rustls with certificates made for the test,
//! a client that trusts the test CA gets hello, and the TLS faults do what they say.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use rustls::{ClientConnection, StreamOwned};
use testserver::{Behavior, TestPki, TestServer, Tls, TlsFault};

/// A TLS client to `server`, trusting `pki`'s CA.
fn connect(server: &TestServer, pki: &TestPki) -> StreamOwned<ClientConnection, TcpStream> {
    let tcp = TcpStream::connect(server.addr()).unwrap();
    tcp.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let conn = ClientConnection::new(pki.client_config().unwrap(), TestPki::server_name()).unwrap();
    StreamOwned::new(conn, tcp)
}

#[test]
fn hello_over_tls_with_the_test_ca_counts_each_request() {
    let pki = TestPki::new().unwrap();
    let tls = Tls::new(pki.server_config().unwrap());
    let server = TestServer::start_tls(Behavior::Hello, tls).unwrap();
    assert!(server.url("/").starts_with("https://127.0.0.1:"));
    let mut client = connect(&server, &pki);
    for _ in 0..2 {
        client
            .write_all(b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n")
            .unwrap();
        let mut got = Vec::new();
        let mut buf = [0u8; 1024];
        while !got.ends_with(b"Hello World") {
            let n = client.read(&mut buf).unwrap();
            assert!(n > 0, "closed after {:?}", String::from_utf8_lossy(&got));
            got.extend_from_slice(&buf[..n]);
        }
        assert!(got.starts_with(b"HTTP/1.1 200 OK\r\n"));
    }
    // The server counts a response once its last byte is written: maybe after we read it.
    assert_eq!(server.requests(), 2);
}

#[test]
fn a_close_delimited_reply_ends_with_close_notify_unless_the_fault_drops_it() {
    let pki = TestPki::new().unwrap();
    for (fault, clean) in [(None, true), (Some(TlsFault::NoCloseNotify), false)] {
        let mut tls = Tls::new(pki.server_config().unwrap());
        tls.fault = fault;
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
