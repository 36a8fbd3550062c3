//! The test kit's server: a small HTTP/1.1 server for shootout's tests, which answers
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
//! It is thread-per-connection and std-only (plus `libc` for the RST, rustls and rcgen for
//! TLS), to stay obviously correct rather than fast.

mod behavior;
mod conn;
mod pki;
mod reply;
mod request;
mod tls;
mod transport;

pub use behavior::{Behavior, BehaviorError};
pub use pki::{Leaf, PkiError, TestPki, OTHER_NAME, SERVER_NAME};
pub use tls::{Oversized, Tls, TlsFault};

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

/// State shared by the accept thread, the connection threads and the handle.
pub(crate) struct Shared {
    behavior: Behavior,
    /// Serve over TLS (None: clear text).
    tls: Option<Tls>,
    stop: AtomicBool,
    requests: AtomicU64,
    responses: AtomicU64,
    connections: AtomicU64,
    /// Answers granted so far, for `StallAfter` and `PauseAfter`.
    granted: AtomicU64,
    /// When the `PauseAfter` pause began.
    paused_at: std::sync::OnceLock<Instant>,
    workers: Mutex<Vec<JoinHandle<()>>>,
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
        let listener = TcpListener::bind(addr)?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            behavior,
            tls: tls.map(Tls::ready),
            stop: AtomicBool::new(false),
            requests: AtomicU64::new(0),
            responses: AtomicU64::new(0),
            connections: AtomicU64::new(0),
            granted: AtomicU64::new(0),
            paused_at: std::sync::OnceLock::new(),
            workers: Mutex::new(Vec::new()),
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

    /// `http://127.0.0.1:PORT/path` (`https://` over TLS); a missing leading slash is added.
    pub fn url(&self, path: &str) -> String {
        let slash = if path.starts_with('/') { "" } else { "/" };
        let scheme = if self.shared.tls.is_some() {
            "https"
        } else {
            "http"
        };
        format!("{scheme}://{}{slash}{path}", self.addr)
    }

    /// Complete request heads read (bodies per Content-Length skipped), answered or not.
    pub fn requests(&self) -> u64 {
        self.shared.requests.load(Relaxed)
    }

    /// Responses whose bytes were all written (for the broken ones: all the bytes meant).
    pub fn responses(&self) -> u64 {
        self.shared.responses.load(Relaxed)
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
        .spawn(move || conn::serve(stream, index, &for_thread));
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
