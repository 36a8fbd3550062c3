//! This test binary as a contestant's server: a test the harness starts (an ignored test,
//! named in a made-up contestant.toml) binds a test server on the port it is given and
//! serves until the harness stops it (TERM, then KILL) or is gone itself.

use std::net::{Ipv4Addr, SocketAddr};
use std::time::{Duration, Instant};
use testserver::{Behavior, TestServer};

/// The longest a forgotten server lives: nothing stopped it, and its harness is alive.
const LONGEST: Duration = Duration::from_secs(600);

/// Serves `behavior` on 127.0.0.1:`port` until this process is stopped or [`LONGEST`] has
/// passed. Nothing here watches the harness: it starts every server to die with it
/// (`process::die_with_harness`, a SIGKILL from the kernel, `kill -9` of the harness
/// included), and the test server's own threads do the serving.
pub fn serve_until_stopped(port: u16, behavior: Behavior) {
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let _server = TestServer::bind(addr, behavior).expect("the port is free");
    let started = Instant::now();
    while let Some(left) = LONGEST.checked_sub(started.elapsed()) {
        // Nothing unparks this thread: it wakes at the deadline (or spuriously, and waits on).
        std::thread::park_timeout(left);
    }
}
