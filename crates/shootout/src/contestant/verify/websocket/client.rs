//! A WebSocket client on a blocking socket for the checks: the engine's own upgrade check,
//! client frames and frame reader (engine::websocket), so that verification and a load
//! judge a server by the same code. One message at a time: checks send a handful.

use super::super::connection::Connection;
use super::super::exchange::connect;
use super::super::PATIENCE;
use engine::websocket::{
    check_answer, key_and_accept, masked_len, opcode, write_masked, Event, Expected, FrameReader,
    ACCEPT_LEN,
};
use engine::websocket::{Refusal, Violation};
use std::io::{self, Read, Write};
use std::net::SocketAddr;

/// The longest data frame the checks accept: far past any message they send.
const LIMIT: u64 = 1 << 20;

/// Where the server's WebSocket endpoint is.
#[derive(Debug, Clone, Copy)]
pub(super) struct Target<'a> {
    pub addr: SocketAddr,
    /// The Host header's value.
    pub host: &'a str,
    pub path: &'a str,
}

/// What went wrong on a WebSocket connection, as a check's detail says it.
#[derive(Debug, thiserror::Error)]
pub(super) enum Fault {
    #[error("{0}")]
    Connect(#[from] super::super::VerifyError),
    #[error("{}", refused(*.0, *.1))]
    Refused(Refusal, u16),
    #[error("closed the connection before answering the upgrade")]
    ClosedBeforeUpgrade,
    #[error("broke RFC 6455: {} (the load counts it under ws, errors.{})", violation(*.0), .0.name())]
    Broke(Violation),
    #[error("closed the connection without a close frame")]
    Eof,
    #[error("no answer within {} s", PATIENCE.as_secs())]
    Timeout,
    #[error("{0}")]
    Io(io::Error),
}

impl From<io::Error> for Fault {
    fn from(e: io::Error) -> Fault {
        match e.kind() {
            io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => Fault::Timeout,
            _ => Fault::Io(e),
        }
    }
}

fn refused(refusal: Refusal, status: u16) -> String {
    let why = match refusal {
        Refusal::Status => return format!("answered {status}, not 101 Switching Protocols"),
        Refusal::NoUpgrade => "a 101 without Upgrade: websocket",
        Refusal::NoConnectionUpgrade => "a 101 without upgrade in Connection",
        Refusal::NoAccept => "a 101 without Sec-WebSocket-Accept",
        Refusal::WrongAccept => "a 101 whose Sec-WebSocket-Accept is not the key's",
        Refusal::Unoffered => "a 101 with an extension or subprotocol the client did not offer",
        Refusal::Malformed => "an answer that is not an HTTP/1.1 response head",
        Refusal::HeadTooLong => "an answer head past 8 KiB",
        Refusal::Timeout => return format!("no answer within {} s", PATIENCE.as_secs()),
    };
    format!("answered the upgrade with {why}")
}

fn violation(v: Violation) -> &'static str {
    match v {
        Violation::ReservedBits => "reserved bits set, no extension agreed",
        Violation::MaskedFrame => "a masked server frame",
        Violation::UnknownOpcode => "an unknown opcode",
        Violation::BadControlFrame => "a fragmented or over-long control frame",
        Violation::UnexpectedContinuation => "a continuation with no message",
        Violation::InterleavedMessage => "a new message inside a fragmented one",
        Violation::TooLong => "a frame past 1 MiB",
        Violation::InvalidUtf8 => "a text message that is not UTF-8",
        Violation::BadClose => "a close frame with a bad payload or code",
    }
}

/// An open WebSocket connection.
pub(super) struct WsClient {
    conn: Connection,
    reader: FrameReader,
    /// Octets read and not yet given to the reader.
    unread: Vec<u8>,
}

impl WsClient {
    /// Connects to `target` and upgrades: the answer judged as a load judges it.
    pub fn open(target: &Target) -> Result<WsClient, Fault> {
        let mut conn = Connection::Plain(connect(target.addr)?);
        let (key, accept) = key_and_accept(std::array::from_fn(|_| fastrand::u8(..)));
        let key = String::from_utf8_lossy(&key);
        let request = format!(
            "GET {} HTTP/1.1\r\nHost: {}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
             Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: {key}\r\n\r\n",
            target.path, target.host
        );
        conn.write_all(request.as_bytes())?;
        let unread = read_answer(&mut conn, &accept)?;
        Ok(WsClient {
            conn,
            reader: FrameReader::new(LIMIT),
            unread,
        })
    }

    /// Sends the messages, each a final masked frame of `kind` (an opcode), in one write.
    pub fn send(&mut self, kind: u8, messages: &[&[u8]]) -> Result<(), Fault> {
        let mut out = Vec::new();
        for payload in messages {
            let at = out.len();
            out.resize(at + masked_len(payload.len()), 0);
            let key = fastrand::u32(..).to_ne_bytes();
            write_masked(&mut out[at..], kind, payload, key);
        }
        Ok(self.conn.write_all(&out)?)
    }

    /// Sends a close with `code`.
    pub fn close(&mut self, code: u16) -> Result<(), Fault> {
        self.send(opcode::CLOSE, &[&code.to_be_bytes()])
    }

    /// The next message or close; a message is judged against `expected` (pings are
    /// answered on the way, pongs passed over).
    pub fn next(&mut self, expected: &Expected) -> Result<Event, Fault> {
        loop {
            let mut data = self.unread.as_slice();
            let event = self.reader.next(&mut data, expected);
            let used = self.unread.len() - data.len();
            self.unread.drain(..used);
            match event.map_err(Fault::Broke)? {
                Some(Event::Ping) => {
                    let payload = self.reader.control().to_vec();
                    self.send(opcode::PONG, &[&payload])?;
                }
                Some(Event::Pong) => {}
                Some(event) => return Ok(event),
                None => self.fill()?,
            }
        }
    }

    /// Reads more octets; the server closing the connection is [`Fault::Eof`].
    fn fill(&mut self) -> Result<(), Fault> {
        let mut chunk = [0u8; 16 * 1024];
        match self.conn.read(&mut chunk)? {
            0 => Err(Fault::Eof),
            n => {
                self.unread.extend_from_slice(&chunk[..n]);
                Ok(())
            }
        }
    }
}

/// Reads the answer to the upgrade until its head is whole and judged; what followed it.
fn read_answer(conn: &mut Connection, accept: &[u8; ACCEPT_LEN]) -> Result<Vec<u8>, Fault> {
    let mut head = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let n = match conn.read(&mut chunk) {
            Ok(0) => return Err(Fault::ClosedBeforeUpgrade),
            Ok(n) => n,
            Err(e) => match Fault::from(e) {
                Fault::Timeout => return Err(Fault::Refused(Refusal::Timeout, 0)),
                other => return Err(other),
            },
        };
        head.extend_from_slice(&chunk[..n]);
        match check_answer(&head, accept) {
            Ok(Some(len)) => return Ok(head.split_off(len)),
            Ok(None) => {}
            Err((refusal, status)) => return Err(Fault::Refused(refusal, status)),
        }
    }
}
