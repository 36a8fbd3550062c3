//! One HTTP/2 connection's thread: the preface, then a loop that answers what is due,
//! sends it, and reads the client's frames ([`super::receive`]) with a timeout short
//! enough to notice the stop flag and the next delayed answer.

use std::collections::{BTreeMap, VecDeque};
use std::io::{self, Read};
use std::net::TcpStream;
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};

use super::error_code::ErrorCode;
use super::frame::{self, PREFACE};
use super::request::Fields;
use super::rules::Ending;
use super::settings::{PeerSettings, DEFAULT_WINDOW};
use super::stream::{State, Stream};
use super::{write, H2Behavior};
use crate::transport::{retryable, Transport};
use crate::Shared;

/// The longest a read waits before the loop looks at the stop flag again.
const POLL: Duration = Duration::from_millis(50);
/// What [`H2Behavior::BadPreface`] answers a client's preface with: an HTTP/1.1 server's
/// refusal, as a client that assumed HTTP/2 would meet one.
const NOT_SETTINGS: &[u8] =
    b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";

/// What became of an attempt to read more bytes.
enum Fill {
    Data,
    Eof,
    Stopped,
    Idle,
}

/// A header block whose CONTINUATION frames are still coming.
pub(super) struct Partial {
    pub stream: u32,
    pub end_stream: bool,
    pub block: Vec<u8>,
}

/// A connection's state.
pub(super) struct Conn<'a> {
    pub stream: Transport,
    pub shared: &'a Shared,
    pub behavior: &'a H2Behavior,
    /// Bytes read and not yet taken as frames.
    pub input: Vec<u8>,
    /// Frames written and not yet sent.
    pub out: Vec<u8>,
    pub fields: Fields,
    pub peer: PeerSettings,
    /// The client's first SETTINGS arrived (it must come first).
    pub settings_seen: bool,
    /// Octets of DATA the client lets the server send on the connection.
    pub window: i64,
    /// Streams taken on and not finished, by id.
    pub streams: BTreeMap<u32, Stream>,
    /// Streams whose request is complete, in the order they completed.
    pub ready: VecDeque<u32>,
    /// The highest stream id the client opened (taken on or not).
    pub last_stream: u32,
    /// Streams taken on so far.
    pub opened: u64,
    /// Responses begun (HEADERS sent) and completed (END_STREAM sent).
    pub begun: u64,
    pub answered: u64,
    /// The highest stream id answered.
    pub last_answered: u32,
    /// Completed responses not yet counted: they count once their bytes are sent.
    pub unsent_responses: u64,
    /// Octets of request bodies received, for [`H2Behavior::WindowStopsAfter`].
    pub body_received: u64,
    pub continuing: Option<Partial>,
    /// The last stream the server answers, once it sent GOAWAY.
    pub goaway_last: Option<u32>,
    /// The client sent GOAWAY.
    pub peer_gone: bool,
    /// The read timeout set on the socket.
    timeout: Duration,
}

/// Serves the `index`-th accepted connection (from 0) as `behavior` says, until it
/// closes or the server stops.
pub(crate) fn serve(tcp: TcpStream, index: u64, shared: &Shared, behavior: &H2Behavior) {
    let Ok(Some(stream)) = Transport::accept(tcp, index, shared) else {
        return;
    };
    let mut conn = Conn {
        stream,
        shared,
        behavior,
        input: Vec::new(),
        out: Vec::new(),
        fields: Fields::new(),
        peer: PeerSettings::default(),
        settings_seen: false,
        window: i64::from(DEFAULT_WINDOW),
        streams: BTreeMap::new(),
        ready: VecDeque::new(),
        last_stream: 0,
        opened: 0,
        begun: 0,
        answered: 0,
        last_answered: 0,
        unsent_responses: 0,
        body_received: 0,
        continuing: None,
        goaway_last: None,
        peer_gone: false,
        timeout: POLL,
    };
    // Errors only mean the connection is over; dropping the stream closes it.
    let _ = conn.run();
}

impl Conn<'_> {
    /// The preface, then the answer-send-read loop.
    fn run(&mut self) -> io::Result<()> {
        let tcp = self.stream.tcp();
        tcp.set_read_timeout(Some(self.timeout))?;
        tcp.set_write_timeout(Some(POLL))?;
        tcp.set_nodelay(true)?;
        if !self.read_preface()? {
            return Ok(());
        }
        if *self.behavior == H2Behavior::BadPreface {
            self.out.extend_from_slice(NOT_SETTINGS);
            self.flush()?;
            return self.close();
        }
        write::settings(&mut self.out, &self.behavior.settings());
        loop {
            // Frames first: the read that brought the preface may have brought more.
            if let Err(code) = self.take_frames() {
                return self.fail(code);
            }
            if let Some(ending) = self.behavior.ending(self.answered) {
                return self.end(ending);
            }
            self.answer_due();
            self.flush()?;
            if self.finished() {
                return self.close();
            }
            match self.fill()? {
                Fill::Data | Fill::Idle => {}
                Fill::Eof | Fill::Stopped => return Ok(()),
            }
        }
    }

    /// Reads the client's preface; false if it is not one (or none came).
    fn read_preface(&mut self) -> io::Result<bool> {
        while self.input.len() < PREFACE.len() {
            match self.fill()? {
                Fill::Data | Fill::Idle => {}
                Fill::Eof | Fill::Stopped => return Ok(false),
            }
        }
        let preface = self.input.drain(..PREFACE.len());
        Ok(preface.as_slice() == PREFACE)
    }

    /// Handles every whole frame read so far; a connection error stops it.
    fn take_frames(&mut self) -> Result<(), ErrorCode> {
        while let Some(frame) = frame::take(&mut self.input, frame::DEFAULT_MAX_FRAME)? {
            self.on_frame(frame)?;
        }
        Ok(())
    }

    /// Whether nothing is left to answer after a GOAWAY, the server's or the client's.
    fn finished(&self) -> bool {
        (self.goaway_last.is_some() || self.peer_gone) && self.streams.is_empty()
    }

    /// Ends the connection as the behavior says, streams answered or not.
    fn end(&mut self, ending: Ending) -> io::Result<()> {
        if let Ending::GoAway(code) = ending {
            self.goaway(self.last_answered, code);
        }
        self.flush()?;
        self.close()
    }

    /// The client broke the protocol: GOAWAY with `code`, then close.
    fn fail(&mut self, code: ErrorCode) -> io::Result<()> {
        self.goaway(self.last_stream, code);
        self.flush()?;
        self.close()
    }

    /// Writes a GOAWAY and counts it.
    pub(super) fn goaway(&mut self, last_stream: u32, code: ErrorCode) {
        write::goaway(&mut self.out, last_stream, code);
        self.shared.h2.goaways.fetch_add(1, Relaxed);
    }

    /// Sends what was written; responses completed in it count once it is sent.
    fn flush(&mut self) -> io::Result<()> {
        if self.out.is_empty() {
            return Ok(());
        }
        let shared = self.shared;
        self.stream.send_all(&self.out, || shared.stopped())?;
        self.out.clear();
        let sent = std::mem::take(&mut self.unsent_responses);
        self.shared.responses.fetch_add(sent, Relaxed);
        Ok(())
    }

    /// Sends FIN and waits (bounded) for the client's, so the close stays a clean FIN.
    fn close(&mut self) -> io::Result<()> {
        let shared = self.shared;
        self.stream.close_draining(|| shared.stopped())
    }

    /// Reads more bytes, waiting at most until the next delayed answer is due.
    fn fill(&mut self) -> io::Result<Fill> {
        if self.shared.stopped() {
            return Ok(Fill::Stopped);
        }
        self.set_timeout(self.next_wait())?;
        let mut chunk = [0u8; 16 * 1024];
        match self.stream.read(&mut chunk) {
            Ok(0) => Ok(Fill::Eof),
            Ok(n) => {
                self.input.extend_from_slice(&chunk[..n]);
                Ok(Fill::Data)
            }
            Err(e) if retryable(&e) => Ok(Fill::Idle),
            Err(e) => Err(e),
        }
    }

    /// How long a read may wait: until the earliest delayed answer, at most [`POLL`].
    fn next_wait(&self) -> Duration {
        let now = Instant::now();
        let due = self
            .ready
            .iter()
            .filter_map(|id| match self.streams.get(id) {
                Some(Stream {
                    state: State::Due(at),
                    ..
                }) => Some(at.saturating_duration_since(now)),
                _ => None,
            });
        // A zero timeout means none to the socket: wait at least a millisecond.
        due.min()
            .unwrap_or(POLL)
            .clamp(Duration::from_millis(1), POLL)
    }

    /// Sets the socket's read timeout if it changed.
    fn set_timeout(&mut self, timeout: Duration) -> io::Result<()> {
        if timeout != self.timeout {
            self.stream.tcp().set_read_timeout(Some(timeout))?;
            self.timeout = timeout;
        }
        Ok(())
    }
}
