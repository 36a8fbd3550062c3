//! [`super::TlsFault::GarbageHello`]: an HTTP/1.1 answer to a ClientHello.

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::time::Duration;

/// What the server answers a ClientHello with.
const GARBAGE: &[u8] =
    b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";

/// Reads the ClientHello's first bytes, answers them with [`GARBAGE`], and closes.
pub(crate) fn answer_garbage(mut tcp: TcpStream) -> io::Result<()> {
    tcp.set_read_timeout(Some(Duration::from_millis(250)))?;
    let mut hello = [0u8; 4096];
    let _ = tcp.read(&mut hello)?;
    tcp.write_all(GARBAGE)?;
    tcp.shutdown(Shutdown::Write)?;
    // Wait for the client's close (bounded by the read timeout), so the FIN is not an RST.
    let _ = tcp.read(&mut hello);
    Ok(())
}
