//! A connection's bytes: straight on the socket, or through rustls.

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream};

use rustls::{ServerConnection, StreamOwned};

use crate::tls::{answer_garbage, stall, Instead, TlsFault};
use crate::Shared;

/// One accepted connection's byte stream.
pub(crate) enum Transport {
    Clear(TcpStream),
    Tls {
        stream: Box<StreamOwned<ServerConnection, TcpStream>>,
        close_notify: bool,
        /// A record to send in place of an answer, by the fault.
        instead: Option<Instead>,
    },
}

impl Transport {
    /// The stream the server's TLS mode asks for on `tcp`, the `index`-th connection
    /// accepted (from 0); None when the fault is served here already (the connection is
    /// over).
    pub(crate) fn accept(
        tcp: TcpStream,
        index: u64,
        shared: &Shared,
    ) -> io::Result<Option<Transport>> {
        let Some(tls) = shared.tls.as_ref() else {
            return Ok(Some(Transport::Clear(tcp)));
        };
        match tls.fault {
            Some(TlsFault::GarbageHello) => answer_garbage(tcp).map(|()| None),
            Some(TlsFault::StallHandshake) => stall(tcp, || shared.stopped()).map(|()| None),
            _ => {
                let conn = ServerConnection::new(tls.config_for(index));
                Ok(Some(Transport::Tls {
                    stream: Box::new(StreamOwned::new(conn.map_err(io::Error::other)?, tcp)),
                    close_notify: !matches!(tls.fault, Some(TlsFault::NoCloseNotify)),
                    instead: tls.instead(),
                }))
            }
        }
    }

    /// Whether, having given `answered` answers, the connection sends the fault's record
    /// in place of the next.
    pub(crate) fn breaks_after(&self, answered: u32) -> bool {
        match self {
            Transport::Tls {
                instead: Some(instead),
                ..
            } => instead.due(answered),
            _ => false,
        }
    }

    /// Sends the fault's record (see [`Transport::breaks_after`]); what is left is the
    /// socket, TLS over.
    pub(crate) fn break_off(self) -> io::Result<Transport> {
        match self {
            Transport::Tls {
                stream,
                instead: Some(instead),
                ..
            } => {
                let (conn, mut tcp) = stream.into_parts();
                instead.send(conn, &mut tcp)?;
                Ok(Transport::Clear(tcp))
            }
            other => Ok(other),
        }
    }

    /// The socket underneath, for its options.
    pub(crate) fn tcp(&self) -> &TcpStream {
        match self {
            Transport::Clear(tcp) => tcp,
            Transport::Tls { stream, .. } => stream.get_ref(),
        }
    }

    /// Ends the sending side: close_notify first over TLS (unless the fault is to leave
    /// it out), then FIN.
    pub(crate) fn shutdown_write(&mut self) -> io::Result<()> {
        if let Transport::Tls {
            stream,
            close_notify: true,
            ..
        } = self
        {
            stream.conn.send_close_notify();
            stream.flush()?;
        }
        self.tcp().shutdown(Shutdown::Write)
    }
}

impl Read for Transport {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Transport::Clear(tcp) => tcp.read(buf),
            Transport::Tls { stream, .. } => stream.read(buf),
        }
    }
}

impl Write for Transport {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Transport::Clear(tcp) => tcp.write(buf),
            Transport::Tls { stream, .. } => stream.write(buf),
        }
    }

    /// Over TLS, sends the records written so far.
    fn flush(&mut self) -> io::Result<()> {
        match self {
            Transport::Clear(tcp) => tcp.flush(),
            Transport::Tls { stream, .. } => stream.flush(),
        }
    }
}
