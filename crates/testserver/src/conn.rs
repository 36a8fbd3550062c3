//! One connection's thread: read requests, answer them in order, close as the behavior says.

use nix::sys::socket::{setsockopt, sockopt};
use std::io::{self, ErrorKind, Read};
use std::net::TcpStream;
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};

use crate::database;
use crate::reply::{self, After};
use crate::request::{self, Request};
use crate::transport::{retryable, Transport};
use crate::{Behavior, Shared};

/// How often a blocked read or write wakes up to look at the stop flag.
const POLL: Duration = Duration::from_millis(50);

/// What became of an attempt to read more bytes.
enum Fill {
    Data,
    Eof,
    Stopped,
    Idle,
}

/// How a connection's read-answer loop ended.
enum Ended {
    /// The connection is closed, or the server is stopping.
    Over,
    /// The TLS fault's record is due in place of the next answer.
    TlsFault,
}

/// What to do with one request.
enum Action {
    Answer,
    Stall,
    Close,
}

/// A connection's state.
struct Conn<'a> {
    stream: Transport,
    shared: &'a Shared,
    behavior: &'a Behavior,
    buf: Vec<u8>,
    /// The request whose body is still being skipped.
    pending: Option<Request>,
    body_left: u64,
    /// Responses written on this connection.
    answered: u32,
    /// Once set, requests are read and counted but never answered.
    stalled: bool,
    /// Under `Database`: the connection's database session, opened at its first request.
    database: Option<database::Session>,
    last_active: Instant,
}

/// Serves the `index`-th accepted connection (from 0) as `behavior` says, until it closes
/// or the server stops.
pub(crate) fn serve(tcp: TcpStream, index: u64, shared: &Shared, behavior: &Behavior) {
    let Ok(Some(stream)) = Transport::accept(tcp, index, shared) else {
        return;
    };
    let mut conn = Conn {
        stream,
        shared,
        behavior,
        buf: Vec::new(),
        pending: None,
        body_left: 0,
        answered: 0,
        stalled: false,
        database: None,
        last_active: Instant::now(),
    };
    // Errors only mean the connection is over; dropping the stream closes it.
    if let Ok(Ended::TlsFault) = conn.setup().and_then(|()| conn.run()) {
        let _ = conn.break_off();
    }
}

impl Conn<'_> {
    /// Timeouts let the thread notice the stop flag; NODELAY sends each part at once.
    fn setup(&self) -> io::Result<()> {
        let poll = match *self.behavior {
            Behavior::CloseIdle(idle) => idle.clamp(Duration::from_millis(1), POLL),
            _ => POLL,
        };
        let tcp = self.stream.tcp();
        tcp.set_read_timeout(Some(poll))?;
        tcp.set_write_timeout(Some(POLL))?;
        tcp.set_nodelay(true)
    }

    /// The read-answer loop.
    fn run(&mut self) -> io::Result<Ended> {
        loop {
            while let Some(req) = self.next_request()? {
                if self.stalled {
                    continue;
                }
                if self.stream.breaks_after(self.answered) {
                    return Ok(Ended::TlsFault);
                }
                match self.answer(&req)? {
                    After::KeepOpen => {}
                    After::Close => return self.close().map(|()| Ended::Over),
                    After::Reset => return self.reset().map(|()| Ended::Over),
                }
            }
            match self.fill()? {
                Fill::Data => {}
                Fill::Eof | Fill::Stopped => return Ok(Ended::Over),
                Fill::Idle => return self.close().map(|()| Ended::Over),
            }
        }
    }

    /// Sends the TLS fault's record in place of the answer due, then closes as [`Conn::close`].
    fn break_off(mut self) -> io::Result<()> {
        self.stream = self.stream.break_off()?;
        self.close()
    }

    /// Takes the next complete request (head parsed, body skipped) out of the buffer.
    fn next_request(&mut self) -> io::Result<Option<Request>> {
        if self.pending.is_none() && self.body_left > 0 {
            // The body of a request answered before it was read (`AnswerBeforeBody`).
            let skip = self.body_left.min(self.buf.len() as u64);
            self.buf.drain(..skip as usize);
            self.body_left -= skip;
            if self.body_left > 0 {
                return Ok(None);
            }
        }
        if self.pending.is_none() {
            let parsed = request::parse(&self.buf)
                .map_err(|e| io::Error::new(ErrorKind::InvalidData, format!("{e:?}")))?;
            let Some((req, len)) = parsed else {
                return Ok(None);
            };
            if req.chunked && !matches!(self.behavior, Behavior::Workloads(_)) {
                // Only the workloads read chunked request bodies.
                return Err(io::Error::new(
                    ErrorKind::InvalidData,
                    "chunked request body",
                ));
            }
            self.buf.drain(..len);
            self.shared.requests.fetch_add(1, Relaxed);
            self.body_left = req.content_length;
            if matches!(self.behavior, Behavior::AnswerBeforeBody) {
                return Ok(Some(req));
            }
            self.pending = Some(req);
        }
        if self.pending.as_ref().is_some_and(|r| r.chunked) {
            return self.chunked_body();
        }
        let skip = self.body_left.min(self.buf.len() as u64);
        let body = self.buf.drain(..skip as usize);
        let keeps = matches!(
            self.behavior,
            Behavior::Sum | Behavior::SumCached | Behavior::Workloads(_)
        );
        if let (Some(req), true) = (&mut self.pending, keeps) {
            req.body.extend(body);
        } else {
            drop(body);
        }
        self.body_left -= skip;
        Ok(if self.body_left == 0 {
            self.pending.take()
        } else {
            None
        })
    }

    /// The pending request once its chunked body is all in the buffer, decoded.
    fn chunked_body(&mut self) -> io::Result<Option<Request>> {
        let decoded = request::dechunk(&self.buf)
            .map_err(|e| io::Error::new(ErrorKind::InvalidData, format!("{e:?}")))?;
        let Some((body, len)) = decoded else {
            return Ok(None);
        };
        self.buf.drain(..len);
        Ok(self.pending.take().map(|req| Request { body, ..req }))
    }

    /// Answers one request as the behavior says.
    fn answer(&mut self, req: &Request) -> io::Result<After> {
        match self.action() {
            Action::Answer => {}
            Action::Stall => {
                self.stalled = true;
                return Ok(After::KeepOpen);
            }
            Action::Close => return Ok(After::Close),
        }
        let delay = match *self.behavior {
            Behavior::Delay(delay) => delay,
            Behavior::PauseAfter { after, pause } => self.shared.pause_left(after, pause),
            _ => Duration::ZERO,
        };
        if !delay.is_zero() && !self.sleep(delay) {
            return Ok(After::Close);
        }
        if let Behavior::Workers { workers, service } = *self.behavior {
            if !self.serve_on_worker(workers, service) {
                return Ok(After::Close);
            }
        }
        let reply = match self.behavior {
            Behavior::Sum | Behavior::SumCached => self.shared.sum(self.behavior, req),
            Behavior::Database(served) => database::answer(*served, &mut self.database, req),
            Behavior::Workloads(w) => crate::workloads::reply(w, &self.shared.cached, req),
            _ => reply::build(self.behavior, req),
        };
        for part in &reply.parts {
            self.write_all(part)?;
        }
        self.shared.responses.fetch_add(1, Relaxed);
        self.answered += 1;
        self.last_active = Instant::now();
        Ok(match *self.behavior {
            Behavior::CloseAfterResponses(n) if self.answered >= n => After::Close,
            _ => reply.after,
        })
    }

    /// Whether this request gets an answer at all.
    fn action(&self) -> Action {
        match *self.behavior {
            Behavior::NeverAnswer => Action::Stall,
            Behavior::StallAfter(limit) if !self.shared.claim_answer(limit) => Action::Stall,
            // Only reached with N = 0: close before answering anything.
            Behavior::CloseAfterResponses(n) if self.answered >= n => Action::Close,
            _ => Action::Answer,
        }
    }

    /// Reads more bytes, waking every poll interval to check the stop flag and idleness.
    fn fill(&mut self) -> io::Result<Fill> {
        let mut chunk = [0u8; 16 * 1024];
        loop {
            if self.shared.stopped() {
                return Ok(Fill::Stopped);
            }
            if let Behavior::CloseIdle(idle) = *self.behavior {
                if self.last_active.elapsed() >= idle {
                    return Ok(Fill::Idle);
                }
            }
            match self.stream.read(&mut chunk) {
                Ok(0) => return Ok(Fill::Eof),
                Ok(n) => {
                    self.buf.extend_from_slice(&chunk[..n]);
                    self.last_active = Instant::now();
                    return Ok(Fill::Data);
                }
                Err(e) if retryable(&e) => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// Writes all of `bytes`, giving up only on error or stop.
    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        let shared = self.shared;
        self.stream.send_all(bytes, || shared.stopped())
    }

    /// Holds one of the server's `workers` workers for `service`, first waiting for one to
    /// free; false if the server stopped meanwhile. The worker is freed before the answer
    /// is written, so a client slow to read cannot hold it: the capacity stays W/service.
    fn serve_on_worker(&self, workers: u32, service: Duration) -> bool {
        let shared = self.shared;
        let Some(_worker) = shared.pool.take(workers, || shared.stopped()) else {
            return false;
        };
        self.sleep(service)
    }

    /// Sleeps in short slices; false if the server stopped meanwhile.
    fn sleep(&self, total: Duration) -> bool {
        let end = Instant::now() + total;
        while let Some(left) = end
            .checked_duration_since(Instant::now())
            .filter(|d| !d.is_zero())
        {
            if self.shared.stopped() {
                return false;
            }
            std::thread::sleep(left.min(Duration::from_millis(10)));
        }
        true
    }

    /// Sends FIN and waits (bounded) for the client's, so the close stays a clean FIN.
    fn close(&mut self) -> io::Result<()> {
        let shared = self.shared;
        self.stream.close_draining(|| shared.stopped())
    }

    /// Aborts the connection: SO_LINGER of zero makes the close send RST.
    fn reset(&mut self) -> io::Result<()> {
        let linger = libc::linger {
            l_onoff: 1,
            l_linger: 0,
        };
        setsockopt(self.stream.tcp(), sockopt::Linger, &linger)?;
        Ok(()) // the caller drops the stream, which closes it
    }
}
