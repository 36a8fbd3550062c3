//! A WebSocket load's end: what is still in flight is counted so, then each open
//! connection sends its close (1000) and the loop waits briefly for the servers' closes
//! (RFC 6455 section 7: the client should not close the TCP connection first). A server
//! that does not answer in time is counted (the result's `ws` books), not waited for.

use super::{Driver, Gather};
use crate::conn::Conn;
use crate::ledger::Clock;
use crate::ws::CLOSE_WAIT_NS;

/// Closes a WebSocket load's connections with the close handshake; no connection opens
/// again. Nothing for an HTTP load.
pub(super) fn close_at_end<D: Driver>(d: &mut D, clock: &Clock) {
    let s = d.slots();
    if !s.conns.first().is_some_and(Conn::speaks_ws) {
        return;
    }
    s.stopping = true;
    let mut now = clock.now();
    for slot in 0..s.conns.len() {
        let (conn, times, _, ledger) = d.slots().parts(slot);
        conn.abandon(times, ledger);
        if conn.fd >= 0 && conn.close_handshake(now, ledger) {
            d.kick(slot, now);
        }
    }
    let deadline = now + CLOSE_WAIT_NS.min(d.slots().ledger.timeout());
    while now < deadline && d.slots().conns.iter().any(Conn::closing) {
        d.poll(deadline - now, Gather::NONE, clock);
        now = clock.now();
    }
}
