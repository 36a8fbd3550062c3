//! One WebSocket connection's thread: the upgrade, then each message echoed as the
//! behavior says, pings answered, the client's close answered (or not).

use super::frame::{self, ClientFrame, Shape};
use super::WsBehavior;
use crate::request;
use crate::transport::{retryable, Transport};
use crate::Shared;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use std::io::{self, Read};
use std::net::TcpStream;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

/// How often a blocked read wakes up to look at the stop flag.
const POLL: Duration = Duration::from_millis(50);

/// The GUID the Accept hash appends to the key (RFC 6455 section 1.3).
const GUID: &[u8] = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

struct Conn<'a> {
    stream: Transport,
    shared: &'a Shared,
    behavior: WsBehavior,
    buf: Vec<u8>,
    /// A message being reassembled from fragments: its opcode and payload.
    message: Option<(u8, Vec<u8>)>,
    /// Messages echoed on this connection.
    echoed: u32,
}

/// Serves the `index`-th accepted connection as `behavior` says, until it closes or the
/// server stops.
pub(crate) fn serve(tcp: TcpStream, index: u64, shared: &Shared, behavior: WsBehavior) {
    let Ok(Some(stream)) = Transport::accept(tcp, index, shared) else {
        return;
    };
    let mut conn = Conn {
        stream,
        shared,
        behavior,
        buf: Vec::new(),
        message: None,
        echoed: 0,
    };
    // Errors only mean the connection is over; dropping the stream closes it.
    let _ = conn.run();
}

impl Conn<'_> {
    fn run(&mut self) -> io::Result<()> {
        let tcp = self.stream.tcp();
        tcp.set_read_timeout(Some(POLL))?;
        tcp.set_write_timeout(Some(POLL))?;
        tcp.set_nodelay(true)?;
        if !self.upgrade()? {
            return self.close();
        }
        loop {
            while let Some((frame, len)) = frame::read(&self.buf) {
                self.buf.drain(..len);
                if !self.on_frame(frame)? {
                    return self.close();
                }
            }
            if !self.fill()? {
                return Ok(());
            }
        }
    }

    /// Reads the upgrade request and answers it; false when it was refused.
    fn upgrade(&mut self) -> io::Result<bool> {
        let (req, len) = loop {
            let parsed =
                request::parse(&self.buf).map_err(|e| io::Error::other(format!("{e:?}")))?;
            if let Some(parsed) = parsed {
                break parsed;
            }
            if !self.fill()? {
                return Ok(false);
            }
        };
        self.buf.drain(..len);
        let key = req.header("sec-websocket-key").unwrap_or_default().trim();
        let refuse = self.behavior == WsBehavior::Refuse || key.is_empty();
        if refuse {
            self.send(
                b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            )?;
            return Ok(false);
        }
        let accept = match self.behavior {
            WsBehavior::WrongAccept => accept_of(&format!("{key}x")),
            _ => accept_of(key),
        };
        let answer = format!(
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
             Sec-WebSocket-Accept: {accept}\r\n\r\n"
        );
        self.send(answer.as_bytes())?;
        Ok(true)
    }

    /// What one client frame does; false when the connection is to close.
    fn on_frame(&mut self, f: ClientFrame) -> io::Result<bool> {
        if !f.masked {
            // RFC 6455 section 5.1: a server fails a connection on an unmasked frame.
            self.send(&frame::whole(frame::CLOSE, &1002u16.to_be_bytes()))?;
            return Ok(false);
        }
        match f.opcode {
            frame::PING => self
                .send(&frame::whole(frame::PONG, &f.payload))
                .map(|()| true),
            frame::PONG => {
                self.shared.ws.pongs.fetch_add(1, Relaxed);
                Ok(true)
            }
            frame::CLOSE => self.closed_by_client(&f.payload),
            frame::CONTINUATION => {
                if let Some((_, payload)) = self.message.as_mut() {
                    payload.extend_from_slice(&f.payload);
                }
                self.message_end(f.fin)
            }
            opcode => {
                self.message = Some((opcode, f.payload));
                self.message_end(f.fin)
            }
        }
    }

    /// The client's close came with `payload`: answered with the same, unless the
    /// behavior ignores it (then the connection stays until the client goes).
    fn closed_by_client(&mut self, payload: &[u8]) -> io::Result<bool> {
        self.shared.ws.closes.fetch_add(1, Relaxed);
        if self.behavior == WsBehavior::IgnoreClose {
            return Ok(true);
        }
        self.send(&frame::whole(frame::CLOSE, payload))?;
        self.shared.ws.closes_answered.fetch_add(1, Relaxed);
        Ok(false)
    }

    /// A frame of the message ended (`fin`: the message too): it is answered.
    fn message_end(&mut self, fin: bool) -> io::Result<bool> {
        if !fin {
            return Ok(true);
        }
        let Some((opcode, payload)) = self.message.take() else {
            return Ok(true);
        };
        self.shared.requests.fetch_add(1, Relaxed);
        if let WsBehavior::CloseAfter(n) = self.behavior {
            if self.echoed >= n {
                self.send(&frame::whole(frame::CLOSE, &1011u16.to_be_bytes()))?;
                return Ok(false);
            }
        }
        let pings = match self.behavior {
            WsBehavior::PingEvery(n) if self.echoed.is_multiple_of(n) => 1,
            WsBehavior::PingFlood(n) => n,
            _ => 0,
        };
        for _ in 0..pings {
            self.send(&frame::whole(frame::PING, b"are you there"))?;
            self.shared.ws.pings.fetch_add(1, Relaxed);
        }
        if self.behavior == WsBehavior::CloseMidMessage {
            let first = frame::write(opcode, &payload[..payload.len() / 2], Shape::default());
            let close = frame::whole(frame::CLOSE, &1001u16.to_be_bytes());
            self.send(&[first, close].concat())?;
            return Ok(false);
        }
        let echo = self.echo(opcode, payload);
        self.send(&echo)?;
        self.echoed += 1;
        self.shared.responses.fetch_add(1, Relaxed);
        Ok(true)
    }

    /// The echo of a message, as the behavior writes it.
    fn echo(&self, opcode: u8, mut payload: Vec<u8>) -> Vec<u8> {
        let shape = Shape {
            fin: true,
            masked: self.behavior == WsBehavior::MaskedFrame,
            rsv1: self.behavior == WsBehavior::ReservedBits,
        };
        match self.behavior {
            // A 64-bit length of 2^40, and no payload: the client must refuse the header.
            WsBehavior::TooLong => {
                [&[0x80 | opcode, 127][..], &(1u64 << 40).to_be_bytes()].concat()
            }
            WsBehavior::InvalidUtf8 if opcode == frame::TEXT && !payload.is_empty() => {
                payload[0] = 0xff;
                frame::write(opcode, &payload, shape)
            }
            WsBehavior::Fragmented => {
                let third = payload.len() / 3;
                let (a, rest) = payload.split_at(third);
                let (b, c) = rest.split_at(third);
                let part = |op, p: &[u8], fin| frame::write(op, p, Shape { fin, ..shape });
                [
                    part(opcode, a, false),
                    frame::whole(frame::PING, b"between fragments"),
                    part(frame::CONTINUATION, b, false),
                    part(frame::CONTINUATION, c, true),
                ]
                .concat()
            }
            _ => frame::write(opcode, &payload, shape),
        }
    }

    /// Reads more bytes; false at the end of the stream or when the server stops.
    fn fill(&mut self) -> io::Result<bool> {
        let mut chunk = [0u8; 16 * 1024];
        loop {
            if self.shared.stopped() {
                return Ok(false);
            }
            match self.stream.read(&mut chunk) {
                Ok(0) => return Ok(false),
                Ok(n) => {
                    self.buf.extend_from_slice(&chunk[..n]);
                    return Ok(true);
                }
                Err(e) if retryable(&e) => {}
                Err(e) => return Err(e),
            }
        }
    }

    fn send(&mut self, bytes: &[u8]) -> io::Result<()> {
        let shared = self.shared;
        self.stream.send_all(bytes, || shared.stopped())
    }

    fn close(&mut self) -> io::Result<()> {
        let shared = self.shared;
        self.stream.close_draining(|| shared.stopped())
    }
}

/// The Accept for `key` (RFC 6455 section 4.2.2).
fn accept_of(key: &str) -> String {
    let mut ctx = aws_lc_rs::digest::Context::new(&aws_lc_rs::digest::SHA1_FOR_LEGACY_USE_ONLY);
    ctx.update(key.as_bytes());
    ctx.update(GUID);
    STANDARD.encode(ctx.finish().as_ref())
}
