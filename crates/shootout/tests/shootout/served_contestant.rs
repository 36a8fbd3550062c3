//! This test binary as a contestant's server: a test the harness starts (an ignored test,
//! named in a made-up contestant.toml) binds a test server on the port it is given and
//! serves until the harness stops it (TERM, then KILL) or is gone itself.

use std::net::{Ipv4Addr, SocketAddr};
use std::time::{Duration, Instant};
use testserver::{Behavior, TestServer};

/// The longest a forgotten server lives: its harness died without stopping it and left it
/// to another parent, or nothing stopped it at all.
const LONGEST: Duration = Duration::from_secs(600);

/// Serves `behavior` on 127.0.0.1:`port` until this process is stopped, its parent (the
/// harness) is gone, or [`LONGEST`] has passed.
pub fn serve_until_stopped(port: u16, behavior: Behavior) {
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let _server = TestServer::bind(addr, behavior).expect("the port is free");
    let harness = std::os::unix::process::parent_id();
    let started = Instant::now();
    while std::os::unix::process::parent_id() == harness && started.elapsed() < LONGEST {
        std::thread::sleep(Duration::from_millis(100));
    }
}
