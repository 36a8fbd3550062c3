//! A connection's bytes: straight on the socket, or through rustls.

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream};

use rustls::{ServerConnection, StreamOwned};

use crate::tls::{Tls, TlsFault, GARBAGE};

/// One accepted connection's byte stream.
pub(crate) enum Transport {
    Clear(TcpStream),
    Tls {
        stream: Box<StreamOwned<ServerConnection, TcpStream>>,
        close_notify: bool,
    },
}

impl Transport {
    /// The stream `tls` asks for on `tcp`; None when the fault is served here already
    /// (the connection is over).
    pub(crate) fn accept(tcp: TcpStream, tls: Option<&Tls>) -> io::Result<Option<Transport>> {
        let Some(tls) = tls else {
            return Ok(Some(Transport::Clear(tcp)));
        };
        if tls.fault == Some(TlsFault::GarbageHello) {
            answer_garbage(tcp)?;
            return Ok(None);
        }
        let conn = ServerConnection::new(tls.config.clone()).map_err(io::Error::other)?;
        Ok(Some(Transport::Tls {
            stream: Box::new(StreamOwned::new(conn, tcp)),
            close_notify: tls.fault != Some(TlsFault::NoCloseNotify),
        }))
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

/// Reads the ClientHello's first bytes, answers them with [`GARBAGE`], and closes.
fn answer_garbage(mut tcp: TcpStream) -> io::Result<()> {
    tcp.set_read_timeout(Some(std::time::Duration::from_millis(250)))?;
    let mut hello = [0u8; 4096];
    let _ = tcp.read(&mut hello)?;
    tcp.write_all(GARBAGE)?;
    tcp.shutdown(Shutdown::Write)?;
    // Wait for the client's close (bounded by the read timeout), so the FIN is not an RST.
    let _ = tcp.read(&mut hello);
    Ok(())
}
