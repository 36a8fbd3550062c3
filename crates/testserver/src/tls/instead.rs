//! What a connection sends in place of an answer: a fatal alert
//! ([`super::TlsFault::AlertAfter`]) or a record longer than TLS allows
//! ([`super::TlsFault::OversizedRecordAfter`]).

use std::io::{self, Write};
use std::net::TcpStream;

use rustls::{AlertDescription, ContentType, ServerConnection};

use super::sealed::seal;
use super::Oversized;

/// An alert's level byte for a fatal alert (RFC 8446 §6).
const FATAL: u8 = 2;
/// Plaintext a sealed oversized record carries: 512 bytes past the 2^14 TLS allows.
const OVERSIZED_PLAINTEXT: usize = (1 << 14) + 512;
/// The header of an announced oversized record: application data, version 1.2 (as TLS 1.3
/// writes it), 2^16 - 1 bytes.
const ANNOUNCED_HEADER: [u8; 5] = [23, 3, 3, 0xff, 0xff];
/// Bytes sent after that header: the record never completes.
const ANNOUNCED_BODY: usize = 1024;

/// The record a connection sends in place of its answer once it has given `after`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Instead {
    after: u32,
    record: Record,
}

/// The record itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Record {
    Alert(AlertDescription),
    Oversized(Oversized),
}

impl Instead {
    /// A fatal `alert` in place of the answer after `after`.
    pub(crate) fn alert(after: u32, alert: AlertDescription) -> Instead {
        Instead {
            after,
            record: Record::Alert(alert),
        }
    }

    /// An oversized `record` in place of the answer after `after`.
    pub(crate) fn oversized(after: u32, record: Oversized) -> Instead {
        Instead {
            after,
            record: Record::Oversized(record),
        }
    }

    /// Whether a connection that has given `answered` answers sends this instead of the next.
    pub(crate) fn due(&self, answered: u32) -> bool {
        answered >= self.after
    }

    /// Sends the record on `tcp`, after whatever `conn` (the connection's rustls side,
    /// which ends here) still had to send.
    pub(crate) fn send(self, mut conn: ServerConnection, tcp: &mut TcpStream) -> io::Result<()> {
        while conn.wants_write() {
            conn.write_tls(tcp)?;
        }
        let record = match self.record {
            Record::Alert(alert) => seal(conn, ContentType::Alert, &[FATAL, u8::from(alert)]),
            Record::Oversized(Oversized::Sealed) => seal(
                conn,
                ContentType::ApplicationData,
                &vec![b'x'; OVERSIZED_PLAINTEXT],
            ),
            Record::Oversized(Oversized::Announced) => Ok(announced()),
        };
        tcp.write_all(&record.map_err(io::Error::other)?)
    }
}

/// A header announcing more than any TLS version allows, and the start of its body.
fn announced() -> Vec<u8> {
    let mut record = ANNOUNCED_HEADER.to_vec();
    record.resize(ANNOUNCED_HEADER.len() + ANNOUNCED_BODY, 0);
    record
}
