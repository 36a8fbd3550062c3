//! Running rustls's unbuffered client over input until it needs more: what it encodes goes
//! to the connection's [`Out`], what it decrypts to the caller.

use super::failure::Failure;
use super::out::{Out, Wrote};
use crate::pool::Pool;
use rustls::client::UnbufferedClientConnection;
use rustls::unbuffered::{
    ConnectionState, EncodeError, EncryptError, InsufficientSizeError, UnbufferedStatus,
};

/// What rustls made of the input.
#[derive(Debug, Default, Clone, Copy)]
pub struct Pumped {
    /// Leading bytes of the input rustls is done with; the rest must be handed to it
    /// again, unchanged, at the front of the next input.
    pub consumed: usize,
    /// The handshake is complete: application data may be sent.
    pub open: bool,
    /// The server sent close_notify: nothing more will arrive.
    pub peer_closed: bool,
    /// `deliver` asked to stop: the rest of the input is left unread.
    pub stopped: bool,
}

/// Runs `tls` over `input`, encoding into `out`, handing each decrypted record to
/// `deliver` (which returns false to stop), until rustls needs more input.
pub fn pump(
    tls: &mut UnbufferedClientConnection,
    input: &mut [u8],
    out: &mut Out,
    pool: &mut Pool,
    deliver: &mut impl FnMut(&[u8]) -> bool,
) -> Result<Pumped, Failure> {
    let mut p = Pumped::default();
    loop {
        let UnbufferedStatus { mut discard, state } =
            tls.process_tls_records(&mut input[p.consumed..]);
        let done = match state? {
            ConnectionState::EncodeTlsData(mut data) => {
                out.write_with(pool, |room| encoded(data.encode(room)))?;
                false
            }
            // The bytes are in `out`, which the loop writes before anything encoded later.
            ConnectionState::TransmitTlsData(data) => {
                data.done();
                false
            }
            ConnectionState::ReadTraffic(mut traffic) => {
                while let Some(record) = traffic.next_record() {
                    let record = record?;
                    discard += record.discard;
                    if !deliver(record.payload) {
                        p.stopped = true;
                        break;
                    }
                }
                p.stopped
            }
            ConnectionState::WriteTraffic(_) => {
                p.open = true;
                true
            }
            ConnectionState::BlockedHandshake => true,
            ConnectionState::PeerClosed | ConnectionState::Closed => {
                p.peer_closed = true;
                true
            }
            // Early data is the server's to read; a client never sees it.
            _ => return Err(Failure::Other),
        };
        p.consumed += discard;
        if done {
            return Ok(p);
        }
    }
}

/// Encrypts `plain` into `out` as application data once the handshake allows it; false
/// when it does not (yet). `carry` is the connection's unprocessed input, which rustls must
/// be shown again (it is a partial record, so nothing of it is consumed).
pub fn encrypt(
    tls: &mut UnbufferedClientConnection,
    carry: &mut [u8],
    plain: &[u8],
    out: &mut Out,
    pool: &mut Pool,
) -> Result<bool, Failure> {
    loop {
        let status = tls.process_tls_records(carry);
        match status.state? {
            ConnectionState::EncodeTlsData(mut data) => {
                out.write_with(pool, |room| encoded(data.encode(room)))?;
            }
            ConnectionState::TransmitTlsData(data) => data.done(),
            ConnectionState::WriteTraffic(mut traffic) => {
                out.write_with(pool, |room| encrypted(traffic.encrypt(plain, room)))?;
                return Ok(true);
            }
            _ => return Ok(false),
        }
    }
}

/// Encodes close_notify into `room` if the connection is open; the bytes written.
pub fn close_notify(
    tls: &mut UnbufferedClientConnection,
    carry: &mut [u8],
    room: &mut [u8],
) -> usize {
    loop {
        match tls.process_tls_records(carry).state {
            // Handshake bytes still queued would go out before it; the connection is closing
            // anyway, so they are dropped (and close_notify with them: it would not decrypt).
            Ok(ConnectionState::EncodeTlsData(_)) => return 0,
            Ok(ConnectionState::TransmitTlsData(data)) => data.done(),
            Ok(ConnectionState::WriteTraffic(mut traffic)) => {
                return traffic.queue_close_notify(room).unwrap_or(0)
            }
            _ => return 0,
        }
    }
}

fn encoded(r: Result<usize, EncodeError>) -> Wrote {
    match r {
        Ok(n) => Wrote::Done(n),
        Err(EncodeError::InsufficientSize(InsufficientSizeError { required_size })) => {
            Wrote::Needs(required_size)
        }
        Err(_) => Wrote::Failed(Failure::Other),
    }
}

fn encrypted(r: Result<usize, EncryptError>) -> Wrote {
    match r {
        Ok(n) => Wrote::Done(n),
        Err(EncryptError::InsufficientSize(InsufficientSizeError { required_size })) => {
            Wrote::Needs(required_size)
        }
        Err(_) => Wrote::Failed(Failure::Other),
    }
}
