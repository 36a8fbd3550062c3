//! [`super::TlsFault::StallHandshake`]: a server that takes the ClientHello and says nothing.

use std::io::{self, ErrorKind, Read};
use std::net::TcpStream;
use std::time::Duration;

/// How often a stalled connection wakes up to look at the stop flag.
const POLL: Duration = Duration::from_millis(50);

/// Reads whatever the client sends (its ClientHello) and answers nothing, until the
/// client closes or `stopped` says the server is stopping.
pub(crate) fn stall(mut tcp: TcpStream, stopped: impl Fn() -> bool) -> io::Result<()> {
    tcp.set_read_timeout(Some(POLL))?;
    let mut sink = [0u8; 4096];
    while !stopped() {
        match tcp.read(&mut sink) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}
