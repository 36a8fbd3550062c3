//! The test kit's server: a small HTTP/1.1 (and HTTP/2) server for shootout's tests, which answers
//! hello, slowly, closing, or misbehaving in one of many ways, each a [`Behavior`] value.
//!
//! In-process: [`TestServer::start`] listens on 127.0.0.1 port 0; point the load generator
//! at [`TestServer::url`], check the generator's counts against the server's; dropping it
//! stops it. As a separate process (a test that needs one): `shootout-testserver BEHAVIOR
//! --port 0` prints its URL once it listens and serves until killed; a behavior's
//! `Display` is the name that command line reads.
//!
//! Over TLS: [`TestServer::start_tls`] serves the same behaviors through rustls, with
//! certificates a [`TestPki`] makes when the test starts; a [`TlsFault`] makes the TLS
//! side itself misbehave (garbage or silence for a ServerHello, a certificate the client
//! refuses after the first connections, an alert or an oversized record in place of an
//! answer, a close without close_notify).
//!
//! Over HTTP/2: [`TestServer::start_h2`] (clear text, prior knowledge) and
//! [`TestServer::start_h2_tls`] (ALPN `h2`) serve an [`H2Behavior`]: hello on raw frames,
//! or a server that breaks the protocol in one of many ways, with counters of what it did
//! besides answering ([`TestServer::resets`], ...); `h2:NAME` on the command line.
//!
//! With a database: [`Behavior::Database`] serves TechEmpower's database endpoints against
//! the PostgreSQL `DATABASE_URL` names, honestly or with a cheat verification must catch.
//!
//! Over WebSocket: [`TestServer::start_ws`] (`ws://`) and [`TestServer::start_ws_tls`]
//! (`wss://`) serve a [`WsBehavior`]: an echo, or a server that breaks RFC 6455 in one of
//! several ways; `ws:NAME` on the command line.
//!
//! It is thread-per-connection and std-only (plus `libc` for the RST, rustls and rcgen for
//! TLS, an HPACK decoder for HTTP/2 requests, the synchronous `postgres` client), to stay
//! obviously correct rather than fast.

mod behavior;
mod conn;
mod database;
mod h2;
mod pki;
mod pool;
mod reply;
mod request;
mod tls;
mod transport;
mod workloads;
mod ws;

pub use behavior::{Behavior, BehaviorError};
pub use database::Database;
pub use h2::{H2Behavior, RstCode};
pub use pki::{Leaf, PkiError, TestPki, OTHER_NAME, SERVER_NAME};
pub use tls::{Oversized, Tls, TlsFault};
pub use workloads::{Cheat, Workloads};
pub use ws::WsBehavior;

use std::io;
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// How long stopping may wait for the server's threads before leaving them behind.
const STOP_BUDGET: Duration = Duration::from_secs(2);

/// A running test server; stops (and closes every connection) when dropped.
pub struct TestServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    acceptor: Option<JoinHandle<()>>,
}

/// What the server speaks, and how it behaves.
pub(crate) enum Serves {
    Http1(Behavior),
    H2(H2Behavior),
    Ws(WsBehavior),
}

impl Serves {
    /// The protocol a TLS handshake offers by ALPN: only `h2` for HTTP/2 (a client that
    /// offers no ALPN still gets through); none for HTTP/1.1, as before ALPN existed.
    fn alpn(&self) -> Option<&'static [u8]> {
        match self {
            Serves::Http1(_) | Serves::Ws(_) => None,
            Serves::H2(_) => Some(b"h2"),
        }
    }
}

/// State shared by the accept thread, the connection threads and the handle.
pub(crate) struct Shared {
    serves: Serves,
    /// Serve over TLS (None: clear text).
    tls: Option<Tls>,
    stop: AtomicBool,
    requests: AtomicU64,
    responses: AtomicU64,
    connections: AtomicU64,
    /// What HTTP/2 connections did besides answering.
    h2: h2::Counters,
    /// What WebSocket connections did besides echoing.
    ws: ws::Counters,
    /// Answers granted so far, for `StallAfter` and `PauseAfter`.
    granted: AtomicU64,
    /// When the `PauseAfter` pause began.
    paused_at: std::sync::OnceLock<Instant>,
    /// `Workers`'s workers, shared by all connections (not `workers`, the threads below).
    pool: pool::Pool,
    workers: Mutex<Vec<JoinHandle<()>>>,
    /// Under `Sum`: the requests as they came (at most `MAX_SEEN`), and the cached answer
    /// of `SumCached`.
    seen: Mutex<Vec<Seen>>,
    cached: std::sync::OnceLock<u64>,
}

/// The most requests [`TestServer::seen`] keeps.
const MAX_SEEN: usize = 1_000_000;

/// What one request to a `Sum` server was.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Seen {
    pub method: String,
    /// Path and query.
    pub target: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Seen {
    /// The value of the header `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        let found = self
            .headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name));
        found.map(|(_, v)| v.as_str())
    }

    /// The value of the query parameter `name`.
    pub fn query(&self, name: &str) -> Option<&str> {
        let query = self.target.split_once('?')?.1;
        let pair = query
            .split('&')
            .find_map(|p| p.strip_prefix(name)?.strip_prefix('='));
        pair
    }
}

impl Shared {
    /// Whether the server is stopping.
    fn stopped(&self) -> bool {
        self.stop.load(Relaxed)
    }

    /// Takes one of `limit` answers shared by all connections; false once all are taken.
    fn claim_answer(&self, limit: u64) -> bool {
        self.granted
            .fetch_update(Relaxed, Relaxed, |n| (n < limit).then_some(n + 1))
            .is_ok()
    }

    /// For `PauseAfter`: how long this answer must wait (zero outside the pause).
    fn pause_left(&self, after: u64, pause: Duration) -> Duration {
        if self.granted.fetch_add(1, Relaxed) == after {
            let _ = self.paused_at.set(Instant::now());
        }
        self.paused_at
            .get()
            .and_then(|t0| (*t0 + pause).checked_duration_since(Instant::now()))
            .unwrap_or_default()
    }

    /// A `Sum` or `SumCached` reply to `req`, which is kept.
    fn sum(&self, behavior: &Behavior, req: &request::Request) -> reply::Reply {
        let mut total = reply::sum_of(&req.target, &req.body);
        if *behavior == Behavior::SumCached {
            total = *self.cached.get_or_init(|| total);
        }
        self.keep(Seen {
            method: req.method.clone(),
            target: req.target.clone(),
            headers: req.headers.clone(),
            body: req.body.clone(),
        });
        reply::Reply {
            parts: vec![reply::sum(total, req)],
            after: reply::keep_or_close(req),
        }
    }

    /// Keeps what a request was, up to `MAX_SEEN`.
    fn keep(&self, request: Seen) {
        let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        if seen.len() < MAX_SEEN {
            seen.push(request);
        }
    }

    /// The worker list, even if a thread panicked while holding it.
    fn workers_lock(&self) -> MutexGuard<'_, Vec<JoinHandle<()>>> {
        self.workers.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl TestServer {
    /// Starts a server on 127.0.0.1 with an ephemeral port.
    pub fn start(behavior: Behavior) -> io::Result<TestServer> {
        Self::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0)), behavior)
    }

    /// Starts a server on the given address (the binary uses it for `--port`).
    pub fn bind(addr: SocketAddr, behavior: Behavior) -> io::Result<TestServer> {
        Self::bind_tls(addr, behavior, None)
    }

    /// Starts a server on 127.0.0.1 with an ephemeral port that speaks TLS as `tls` says.
    pub fn start_tls(behavior: Behavior, tls: Tls) -> io::Result<TestServer> {
        Self::bind_tls(
            SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
            behavior,
            Some(tls),
        )
    }

    /// Starts a server on the given address, over TLS when `tls` is given.
    pub fn bind_tls(
        addr: SocketAddr,
        behavior: Behavior,
        tls: Option<Tls>,
    ) -> io::Result<TestServer> {
        Self::launch(addr, Serves::Http1(behavior), tls)
    }

    /// Starts an HTTP/2 server (clear text, prior knowledge) on 127.0.0.1 with an
    /// ephemeral port.
    pub fn start_h2(behavior: H2Behavior) -> io::Result<TestServer> {
        Self::bind_h2(SocketAddr::from((Ipv4Addr::LOCALHOST, 0)), behavior, None)
    }

    /// Starts an HTTP/2 server over TLS (ALPN `h2`) on 127.0.0.1 with an ephemeral port;
    /// the faults of `tls` that act before the handshake ends apply, those sent in place
    /// of an answer ([`TlsFault::AlertAfter`], [`TlsFault::OversizedRecordAfter`]) do not.
    pub fn start_h2_tls(behavior: H2Behavior, tls: Tls) -> io::Result<TestServer> {
        let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, 0));
        Self::bind_h2(addr, behavior, Some(tls))
    }

    /// Starts an HTTP/2 server on the given address, over TLS when `tls` is given.
    pub fn bind_h2(
        addr: SocketAddr,
        behavior: H2Behavior,
        tls: Option<Tls>,
    ) -> io::Result<TestServer> {
        Self::launch(addr, Serves::H2(behavior), tls)
    }

    /// Starts a WebSocket server (`ws://`) on 127.0.0.1 with an ephemeral port.
    pub fn start_ws(behavior: WsBehavior) -> io::Result<TestServer> {
        Self::bind_ws(SocketAddr::from((Ipv4Addr::LOCALHOST, 0)), behavior, None)
    }

    /// Starts a WebSocket server over TLS (`wss://`) on 127.0.0.1 with an ephemeral port.
    pub fn start_ws_tls(behavior: WsBehavior, tls: Tls) -> io::Result<TestServer> {
        let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, 0));
        Self::bind_ws(addr, behavior, Some(tls))
    }

    /// Starts a WebSocket server on the given address, over TLS when `tls` is given.
    pub fn bind_ws(
        addr: SocketAddr,
        behavior: WsBehavior,
        tls: Option<Tls>,
    ) -> io::Result<TestServer> {
        Self::launch(addr, Serves::Ws(behavior), tls)
    }

    /// Listens on `addr` and starts the accept thread.
    fn launch(addr: SocketAddr, serves: Serves, tls: Option<Tls>) -> io::Result<TestServer> {
        let listener = TcpListener::bind(addr)?;
        let addr = listener.local_addr()?;
        let alpn = serves.alpn();
        let shared = Arc::new(Shared {
            serves,
            tls: tls.map(|tls| tls.ready(alpn)),
            stop: AtomicBool::new(false),
            requests: AtomicU64::new(0),
            responses: AtomicU64::new(0),
            connections: AtomicU64::new(0),
            h2: h2::Counters::default(),
            ws: ws::Counters::default(),
            granted: AtomicU64::new(0),
            paused_at: std::sync::OnceLock::new(),
            pool: pool::Pool::default(),
            workers: Mutex::new(Vec::new()),
            seen: Mutex::new(Vec::new()),
            cached: std::sync::OnceLock::new(),
        });
        let for_thread = Arc::clone(&shared);
        let acceptor = thread::Builder::new()
            .name("testserver-accept".into())
            .spawn(move || accept_loop(&listener, &for_thread))?;
        Ok(TestServer {
            addr,
            shared,
            acceptor: Some(acceptor),
        })
    }

    /// The address the server listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT/path` (`https://` over TLS; `ws://` and `wss://` for
    /// WebSocket); a missing leading slash is added.
    pub fn url(&self, path: &str) -> String {
        let slash = if path.starts_with('/') { "" } else { "/" };
        let ws = matches!(self.shared.serves, Serves::Ws(_));
        let scheme = match (ws, self.shared.tls.is_some()) {
            (false, false) => "http",
            (false, true) => "https",
            (true, false) => "ws",
            (true, true) => "wss",
        };
        format!("{scheme}://{}{slash}{path}", self.addr)
    }

    /// Under [`Behavior::Sum`] and [`Behavior::SumCached`]: every request answered so far,
    /// in the order answered (at most a million).
    pub fn seen(&self) -> Vec<Seen> {
        let seen = self
            .shared
            .seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        seen.clone()
    }

    /// Complete request heads read (bodies per Content-Length skipped), answered or not;
    /// over HTTP/2, streams opened by a HEADERS frame and taken on (not those refused
    /// beyond MAX_CONCURRENT_STREAMS nor those ignored past a GOAWAY).
    pub fn requests(&self) -> u64 {
        self.shared.requests.load(Relaxed)
    }

    /// Responses whose bytes were all written (for the broken ones: all the bytes meant);
    /// over HTTP/2, a stream's HEADERS and DATA up to END_STREAM (not its RST_STREAM).
    pub fn responses(&self) -> u64 {
        self.shared.responses.load(Relaxed)
    }

    /// Under [`Behavior::Workers`], the most requests that held a worker at once: never more
    /// than its W; 0 under other behaviors.
    pub fn peak_in_service(&self) -> u64 {
        self.shared.pool.peak()
    }

    /// HTTP/2 streams the server reset (RST_STREAM sent), whatever the code.
    pub fn resets(&self) -> u64 {
        self.shared.h2.resets.load(Relaxed)
    }

    /// Of [`TestServer::resets`], those with REFUSED_STREAM: beyond the server's
    /// MAX_CONCURRENT_STREAMS, or refused on purpose.
    pub fn refused(&self) -> u64 {
        self.shared.h2.refused.load(Relaxed)
    }

    /// HTTP/2 GOAWAY frames sent, whatever the code (a broken client gets one too).
    pub fn goaways(&self) -> u64 {
        self.shared.h2.goaways.load(Relaxed)
    }

    /// HTTP/2 PINGs the server sent (not its acks of the client's).
    pub fn pings(&self) -> u64 {
        self.shared.h2.pings.load(Relaxed)
    }

    /// Acks of the server's PINGs received.
    pub fn ping_acks(&self) -> u64 {
        self.shared.h2.ping_acks.load(Relaxed)
    }

    /// WebSocket pings the server sent.
    pub fn ws_pings(&self) -> u64 {
        self.shared.ws.pings.load(Relaxed)
    }

    /// WebSocket pongs the client sent.
    pub fn ws_pongs(&self) -> u64 {
        self.shared.ws.pongs.load(Relaxed)
    }

    /// WebSocket closes the client sent, and those the server answered.
    pub fn ws_closes(&self) -> (u64, u64) {
        let ws = &self.shared.ws;
        (ws.closes.load(Relaxed), ws.closes_answered.load(Relaxed))
    }

    /// Connections accepted.
    pub fn connections(&self) -> u64 {
        self.shared.connections.load(Relaxed)
    }

    /// Stops the server now; the same as dropping it.
    pub fn stop(self) {
        drop(self);
    }

    /// Sets the stop flag, wakes the accept thread, and joins every thread within budget.
    fn shutdown(&mut self) {
        self.shared.stop.store(true, Relaxed);
        // A blocking accept only returns on a connection, so make one.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_millis(200));
        let deadline = Instant::now() + STOP_BUDGET;
        if let Some(acceptor) = self.acceptor.take() {
            join_by(acceptor, deadline);
        }
        let workers = std::mem::take(&mut *self.shared.workers_lock());
        for worker in workers {
            join_by(worker, deadline);
        }
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// Accepts connections and starts a thread for each until stopped.
fn accept_loop(listener: &TcpListener, shared: &Arc<Shared>) {
    for stream in listener.incoming() {
        if shared.stopped() {
            break; // this was most likely the wake-up connection from `shutdown`
        }
        match stream {
            Ok(stream) => spawn_worker(stream, shared),
            // E.g. out of file descriptors: back off rather than spin.
            Err(_) => thread::sleep(Duration::from_millis(1)),
        }
    }
}

/// Counts the connection and serves it on its own thread.
fn spawn_worker(stream: TcpStream, shared: &Arc<Shared>) {
    let index = shared.connections.fetch_add(1, Relaxed);
    let for_thread = Arc::clone(shared);
    let spawned = thread::Builder::new()
        .name("testserver-conn".into())
        .spawn(move || match &for_thread.serves {
            Serves::Http1(behavior) => conn::serve(stream, index, &for_thread, behavior),
            Serves::H2(behavior) => h2::serve(stream, index, &for_thread, behavior),
            Serves::Ws(behavior) => ws::serve(stream, index, &for_thread, *behavior),
        });
    // If no thread can be had, the stream was dropped with the closure: the client sees a close.
    if let Ok(handle) = spawned {
        let mut workers = shared.workers_lock();
        // Finished threads need no join; forget them so the list stays small.
        workers.retain(|w| !w.is_finished());
        workers.push(handle);
    }
}

/// Joins a thread if it ends by `deadline`; otherwise leaves it to end on its own.
fn join_by(handle: JoinHandle<()>, deadline: Instant) {
    while !handle.is_finished() && Instant::now() < deadline {
        thread::sleep(Duration::from_millis(1));
    }
    if handle.is_finished() {
        let _ = handle.join();
    }
}
