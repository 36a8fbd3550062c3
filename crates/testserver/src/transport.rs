//! A connection's bytes: straight on the socket, or through rustls.

use std::io::{self, ErrorKind, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::time::{Duration, Instant};

use rustls::{ServerConnection, StreamOwned};

use crate::tls::{answer_garbage, stall, Instead, TlsFault};
use crate::Shared;

/// How long a closing connection waits for the client's FIN, so unread data does not cause RST.
const LINGER: Duration = Duration::from_millis(250);

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

impl Transport {
    /// Writes all of `bytes` and sends them (over TLS, as records now), retrying the
    /// socket's timeouts; gives up only on error or when `stopped` says so.
    pub(crate) fn send_all(
        &mut self,
        mut bytes: &[u8],
        stopped: impl Fn() -> bool,
    ) -> io::Result<()> {
        while !bytes.is_empty() {
            if stopped() {
                return Err(ErrorKind::Interrupted.into());
            }
            match self.write(bytes) {
                Ok(0) => return Err(ErrorKind::WriteZero.into()),
                Ok(n) => bytes = &bytes[n..],
                Err(e) if retryable(&e) => {}
                Err(e) => return Err(e),
            }
        }
        loop {
            match self.flush() {
                Err(e) if retryable(&e) && !stopped() => {}
                done => return done,
            }
        }
    }

    /// Sends FIN, then reads until the client closes too (bounded), so the close stays a
    /// clean FIN: closing with unread bytes in the socket would make the kernel send RST.
    pub(crate) fn close_draining(&mut self, stopped: impl Fn() -> bool) -> io::Result<()> {
        self.shutdown_write()?;
        let end = Instant::now() + LINGER;
        let mut sink = [0u8; 4096];
        while Instant::now() < end && !stopped() {
            match self.read(&mut sink) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) if retryable(&e) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

/// Timeouts and interrupts: try again.
pub(crate) fn retryable(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted
    )
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
