//! One blocking TLS handshake to the target before a load starts, so that a certificate
//! that fails verification (or a server that shares no version, suite or group with the
//! load) is one clear error before any load. rustls's buffered connection over a std
//! socket is fine here: this is not the per-request path.

use super::handshake_error::HandshakeError;
use super::TlsClient;
use rustls::client::Resumption;
use rustls::{ClientConfig, ClientConnection, ProtocolVersion};
use std::io::ErrorKind;
use std::net::TcpStream;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long to wait after a TLS 1.3 handshake for the server's first message. The
/// client's handshake ends before the server has judged the client's certificate, so
/// a refusal (certificate_required, bad_certificate) comes as an alert just after; most
/// servers send session tickets at once instead, which ends the wait early. Half a
/// second, once per load: at 100 ms a server on a busy machine (the test suite on two
/// cores) was not scheduled in time, and its refusal was missed.
const SETTLE: Duration = Duration::from_millis(500);

/// A full handshake over `stream`, within `timeout`; the session is not kept, so the
/// load's first connections resume nothing of it.
pub(crate) fn handshake(
    mut stream: TcpStream,
    tls: &TlsClient,
    timeout: Duration,
) -> Result<(), HandshakeError> {
    let mut config = ClientConfig::clone(&tls.config);
    config.resumption = Resumption::disabled();
    let mut conn = ClientConnection::new(Arc::new(config), tls.server_name.clone())
        .map_err(HandshakeError::of)?;
    let deadline = Instant::now() + timeout;
    while conn.is_handshaking() {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(HandshakeError::TimedOut(timeout));
        }
        let _ = stream.set_read_timeout(Some(left));
        let _ = stream.set_write_timeout(Some(left));
        conn.complete_io(&mut stream)
            .map_err(|e| HandshakeError::of_io(e, timeout))?;
    }
    let expected = tls.expected_alpn();
    match conn.alpn_protocol() {
        Some(chosen) if chosen != expected.as_bytes() => {
            let chosen = String::from_utf8_lossy(chosen).into();
            return Err(HandshakeError::Alpn { chosen, expected });
        }
        None if tls.http2 => return Err(HandshakeError::NoH2),
        _ => {}
    }
    if conn.protocol_version() == Some(ProtocolVersion::TLSv1_3) {
        settle(&mut conn, &mut stream, SETTLE.min(timeout))?;
    }
    conn.send_close_notify();
    let _ = conn.write_tls(&mut stream);
    Ok(())
}

/// One read after the handshake, for at most `wait`: an alert in it is the server's
/// refusal; tickets, silence or a close are not.
fn settle(
    conn: &mut ClientConnection,
    stream: &mut TcpStream,
    wait: Duration,
) -> Result<(), HandshakeError> {
    let _ = stream.set_read_timeout(Some(wait));
    match conn.read_tls(stream) {
        Ok(0) => Ok(()),
        Ok(_) => conn
            .process_new_packets()
            .map(drop)
            .map_err(HandshakeError::of),
        Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => Ok(()),
        Err(_) => Ok(()),
    }
}
