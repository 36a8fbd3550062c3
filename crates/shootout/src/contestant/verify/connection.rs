//! What a check talks to a server over: a TCP socket, or a TLS session on one (rustls's
//! buffered stream: verification makes a few connections, no load).

use rustls::{ClientConnection, StreamOwned};
use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// A connection to the server under check, in clear text or over TLS.
#[derive(Debug)]
pub(super) enum Connection {
    Plain(TcpStream),
    Tls(Box<StreamOwned<ClientConnection, TcpStream>>),
}

impl Connection {
    /// How long a read waits for the server.
    pub fn set_read_timeout(&self, patience: Option<Duration>) -> io::Result<()> {
        self.socket().set_read_timeout(patience)
    }

    fn socket(&self) -> &TcpStream {
        match self {
            Connection::Plain(s) => s,
            Connection::Tls(s) => s.get_ref(),
        }
    }

    /// True when the server closed a TLS connection without saying so (no close_notify),
    /// which `e`, an error of a read, tells.
    pub fn closed_without_notify(&self, e: &io::Error) -> bool {
        matches!(self, Connection::Tls(_)) && e.kind() == io::ErrorKind::UnexpectedEof
    }
}

impl Read for Connection {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Connection::Plain(s) => s.read(buf),
            Connection::Tls(s) => s.read(buf),
        }
    }
}

impl Write for Connection {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Connection::Plain(s) => s.write(buf),
            Connection::Tls(s) => s.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Connection::Plain(s) => s.flush(),
            Connection::Tls(s) => s.flush(),
        }
    }
}
