//! A slot's connection through its life: opened, dialled, failed, timed out, closed and
//! opened again.

use super::{Driver, Slots};
use crate::conn::State;
use crate::outcome::Outcome;
use crate::socket;
use crate::tls::Failure;
use crate::ws::Refusal;
use std::io;

/// How long a slot waits before reconnecting after a failed connect, so that a refusing
/// server is not hammered in a busy loop.
pub const CONNECT_BACKOFF_NS: u64 = 10_000_000;

/// Opens a socket for `slot` if the load may start another request.
pub fn open<D: Driver>(d: &mut D, slot: usize, now: u64) {
    let s = d.slots();
    if s.stopping {
        // The load is over (a WebSocket load closing its connections): none opens.
        s.conns[slot].state = State::Closed { retry_at: u64::MAX };
        return;
    }
    if let Some(fleet) = s.fleet.as_mut().filter(|f| !f.is_active(slot)) {
        // A device slot with no device: nothing to reconnect, and the slot of a device
        // that left is free now that its connection is closed.
        fleet.vacate(slot);
        s.conns[slot].state = State::Closed { retry_at: u64::MAX };
        return;
    }
    if s.per_request() {
        // The slot waits for the schedule's next due request to open a connection.
        return s.free(slot);
    }
    if s.conns[slot].pending() > 0 {
        // Requests a GOAWAY returned (HTTP/2) go on the new connection, whatever the
        // schedule or budget says: they started already.
        return dial(d, slot, now);
    }
    let open_loop = s.pacer.is_some() || s.fleet.is_some();
    let (conn, times, req, ledger) = s.parts(slot);
    if open_loop {
        // The schedule, not the connection, decides when requests start.
        if ledger.exhausted(now) {
            conn.state = State::Closed { retry_at: u64::MAX };
            return;
        }
    } else if ledger.take(1, now) == 0 {
        conn.state = State::Closed { retry_at: u64::MAX };
        return;
    } else {
        // The first request starts with the connect, so its latency includes it (as ab's does).
        conn.start(1, now, times, req);
    }
    dial(d, slot, now);
}

/// Opens `slot`'s socket and begins its connect; a failure fails what is pending on it.
pub(super) fn dial<D: Driver>(d: &mut D, slot: usize, now: u64) {
    let s = d.slots();
    let fd = match s.dialer.socket() {
        Ok(fd) => fd,
        Err(e) => return connect_failed(d, slot, now, Some(e)),
    };
    let head = s.req.is_head();
    s.conns[slot].connecting(fd, now, head);
    match d.connect(slot, fd) {
        Ok(true) => d.connected(slot, now),
        Ok(false) => {}
        Err(e) => connect_failed(d, slot, now, Some(e)),
    }
}

/// The connect of `slot` failed with `err` (or the socket's pending error): its request
/// is a connect error, and the slot retries after a backoff.
pub fn connect_failed<D: Driver>(d: &mut D, slot: usize, now: u64, err: Option<io::Error>) {
    let s = d.slots();
    let fd = s.conns[slot].fd;
    let err = err.or_else(|| (fd >= 0).then(|| socket::take_error(fd).err()).flatten());
    if err.as_ref().is_some_and(socket::is_port_exhaustion) {
        s.ledger.port_exhausted(now);
    }
    let (conn, times, _, ledger) = s.parts(slot);
    conn.fail(Outcome::Connect, now, times, ledger);
    close(d, slot, now + CONNECT_BACKOFF_NS);
}

/// Ends what is pending on `slot` with `outcome`, closes it, and opens a new connection.
pub fn close_and_reopen<D: Driver>(d: &mut D, slot: usize, now: u64, outcome: Outcome) {
    let (conn, times, _, ledger) = d.slots().parts(slot);
    conn.fail(outcome, now, times, ledger);
    close(d, slot, now);
    open(d, slot, now);
}

/// TLS failed on `slot` at `now`: what is pending ends as TLS. A connection that failed its
/// handshake backs off as a failed connect does; one that was open reconnects at once.
pub fn tls_failed<D: Driver>(d: &mut D, slot: usize, now: u64, failure: Failure) {
    let s = d.slots();
    s.ledger.tls_failed(failure, now);
    if s.conns[slot].state != State::Handshaking {
        return close_and_reopen(d, slot, now, Outcome::Tls);
    }
    let (conn, times, _, ledger) = s.parts(slot);
    conn.fail(Outcome::Tls, now, times, ledger);
    close(d, slot, now + CONNECT_BACKOFF_NS);
}

/// The server closed `slot`'s TLS connection at `now` without close_notify: during the
/// handshake, a failed handshake; after it, as any close, unless it cut short a body that
/// only the close could end (see [`crate::conn::Conn::eof_unannounced`]).
pub fn tls_eof<D: Driver>(d: &mut D, slot: usize, now: u64) {
    if d.slots().conns[slot].state == State::Handshaking {
        return tls_failed(d, slot, now, Failure::ClosedInHandshake);
    }
    let (conn, times, req, ledger) = d.slots().parts(slot);
    if conn.eof_unannounced(now, times, req, ledger) {
        ledger.tls_failed(Failure::Truncated, now);
    }
    close_and_reopen(d, slot, now, Outcome::Read);
}

/// The server ended `slot`'s TLS connection with close_notify at `now`: the close is
/// announced, as a clear-text FIN is.
pub fn peer_closed<D: Driver>(d: &mut D, slot: usize, now: u64) {
    let (conn, times, req, ledger) = d.slots().parts(slot);
    conn.eof(now, times, req, ledger);
    close_and_reopen(d, slot, now, Outcome::Read);
}

/// True when `slot`'s connection waited past the timeout at `now`: on its oldest request
/// (the requests then fail as timeouts), or on a TLS handshake with no request on it. A
/// request that waited on the handshake is a timeout too; the TLS books say the handshake
/// was where.
fn expired(s: &mut Slots, slot: usize, now: u64) -> bool {
    let (conn, times, _, ledger) = s.parts(slot);
    if conn.fd < 0 {
        return false;
    }
    let expired = conn.expire(now, times, ledger) || conn.handshake_overdue(now, ledger.timeout());
    if expired && conn.state == State::Handshaking {
        ledger.tls_failed(Failure::HandshakeTimeout, now);
    }
    if expired && conn.upgrading() {
        if let Some(books) = ledger.ws(now) {
            books.refused(Refusal::Timeout);
        }
    }
    expired
}

/// Closes `slot`'s socket (over TLS, with close_notify when it can go at once); the slot
/// may reconnect at `retry_at`.
pub fn close<D: Driver>(d: &mut D, slot: usize, retry_at: u64) {
    let fd = d.slots().conns[slot].fd;
    if fd >= 0 {
        d.slots().tls_goodbye(slot, fd);
        d.slots().frames_goodbye(slot, fd);
        d.release(slot, fd);
    }
    d.slots().tls_end(slot);
    d.slots().conns[slot].closed(retry_at);
}

/// Fails requests past their timeout, gives up handshakes past it, and reconnects slots
/// whose backoff is over.
pub(super) fn expire_and_reconnect<D: Driver>(d: &mut D, now: u64) {
    for slot in 0..d.slots().conns.len() {
        if expired(d.slots(), slot, now) {
            close_and_reopen(d, slot, now, Outcome::Timeout);
        }
    }
    // Slot by slot, not collected first: a list of them would cost an allocation each
    // tick a refused connect is retried (tests/allocations.rs).
    for slot in 0..d.slots().conns.len() {
        if d.slots().due_for_reconnect(slot, now) {
            open(d, slot, now);
        }
    }
}
