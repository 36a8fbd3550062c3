//! The loop itself: when it wakes, and what it does then (due requests, devices, the
//! tick's timeouts and reconnects, the stop).

use super::closing::close_at_end;
use super::connections::{close, dial, expire_and_reconnect, open};
use super::results::{finish, publish};
use super::{Gather, LoopSpec, Slots};
use crate::cpu::CpuTime;
use crate::devices::Fleet;
use crate::ledger::Clock;
use crate::live::Published;
use crate::stats::LoopStats;
use std::io;
use std::os::fd::RawFd;

/// What differs between the loop kinds: how sockets are watched, connected and released.
/// Everything else (opening, failing, timeouts, the stop) is written once, in this folder.
pub trait Driver {
    /// The loop's connections and books.
    fn slots(&mut self) -> &mut Slots;
    /// Waits up to `ns` for I/O (letting completions gather as `gather` says, where the
    /// loop kind can) and handles what happened.
    fn poll(&mut self, ns: u64, gather: Gather, clock: &Clock);
    /// Starts connecting `fd`, already recorded in `slot`; Ok(true) if connected at once.
    fn connect(&mut self, slot: usize, fd: RawFd) -> io::Result<bool>;
    /// The connect of `slot` finished: start its requests.
    fn connected(&mut self, slot: usize, now: u64);
    /// Closes the slot's socket, ending any kernel operation still using it.
    fn release(&mut self, slot: usize, fd: RawFd);
    /// Writes (or queues the write of) the slot's unsent requests.
    fn kick(&mut self, slot: usize, now: u64);
}

/// Runs a loop until the load is over and returns what it measured.
pub fn drive<D: Driver>(d: &mut D, spec: &LoopSpec) -> LoopStats {
    let clock = spec.clock;
    let tick = spec.tick_ns();
    let mut now = clock.now();
    for slot in 0..d.slots().conns.len() {
        open(d, slot, now);
    }
    let mut next_tick = now + tick;
    let mut cpu_start = None;
    let mut published = Published::default();
    let mut waiting = Waiting::Schedule;
    loop {
        let mut wake = spec.end.map_or(next_tick, |end| end.min(next_tick));
        match waiting {
            Waiting::Schedule => {
                if let Some(due) = d.slots().next_due() {
                    wake = wake.min(due);
                }
            }
            // A due request with no free connection waits for I/O to free one, or for its
            // timeout to drop it: polling again at once would spin the loop at 100%
            // without sending anything.
            Waiting::Connection { drop_at } => wake = wake.min(drop_at),
            Waiting::Nothing => {}
        }
        if let Some(t) = d.slots().fleet.as_ref().and_then(Fleet::next_timer) {
            wake = wake.min(t);
        }
        let slots = d.slots();
        let gather = slots.ledger.gather(slots.depth);
        d.poll(wake.saturating_sub(now), gather, &clock);
        now = clock.now();
        waiting = dispatch(d, now);
        tend_devices(d, now);
        if cpu_start.is_none() && d.slots().ledger.measuring(now) {
            cpu_start = Some(CpuTime::thread());
        }
        if now >= next_tick {
            expire_and_reconnect(d, now);
            // A slot back from its connect backoff may take the request that waits.
            if waiting != Waiting::Nothing {
                waiting = Waiting::Schedule;
            }
            next_tick = now + tick;
            publish(d, spec.live, &mut published);
        }
        if d.slots().finished(spec, now) {
            break;
        }
    }
    d.slots().count_still_due(now);
    close_at_end(d, &clock);
    publish(d, spec.live, &mut published);
    finish(d, cpu_start, now)
}

/// What an open loop waits for once it has dispatched what was due.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Waiting {
    /// The schedule's next due request (a closed loop: nothing of the schedule's).
    Schedule,
    /// A connection for the request that is due; at `drop_at` its timeout has passed
    /// and it is dropped if none has come.
    Connection { drop_at: u64 },
    /// Nothing: the load allows no more requests.
    Nothing,
}

/// Open loop: starts every request that is due on connections with room; the rest wait
/// (and their wait counts in the corrected latency) until a connection takes them or,
/// past the timeout, they are dropped unsent and the schedule moves on. A load whose
/// connections never open thus still ends: `-n N` counts its N requests as dropped.
fn dispatch<D: Driver>(d: &mut D, now: u64) -> Waiting {
    while let Some(due) = d.slots().next_due().filter(|&due| due <= now) {
        if let Some(slot) = d.slots().start_due(due, now) {
            if d.slots().per_request() {
                // The request starts with the connect, so its latency includes the handshake.
                dial(d, slot, now);
            } else {
                d.kick(slot, now);
            }
            continue;
        }
        let s = d.slots();
        if s.ledger.exhausted(now) {
            return Waiting::Nothing;
        }
        let drop_at = due.saturating_add(s.ledger.timeout());
        if now < drop_at {
            s.backlogged = true;
            return Waiting::Connection { drop_at };
        }
        if !s.drop_due(due, now) {
            return Waiting::Nothing;
        }
    }
    // Every due request has started or been dropped: the backlog, if any, is gone.
    d.slots().backlogged = false;
    Waiting::Schedule
}

/// Device load: lets devices leave, fires due timers, and brings in new devices.
fn tend_devices<D: Driver>(d: &mut D, now: u64) {
    if d.slots().fleet.is_none() {
        return;
    }
    for slot in std::mem::take(&mut d.slots().leaving) {
        leave(d, slot, now);
    }
    while let Some(fired) = d.slots().fleet.as_mut().and_then(|f| f.fire(now)) {
        match fired {
            Ok(slot) => {
                d.slots().refill(slot, now);
                d.kick(slot, now);
            }
            Err(slot) => leave(d, slot, now),
        }
    }
    while let Some(slot) = d.slots().fleet.as_mut().and_then(|f| f.arrive(now)) {
        open(d, slot, now);
    }
    let s = d.slots();
    let active = s.fleet.as_ref().map_or(0, Fleet::active);
    s.ledger.devices(active, now);
}

/// The device on `slot` leaves at `now`: its connection closes and the slot is free;
/// over WebSocket, once the close handshake is over (the slot is then opened, and found
/// with no device: `connections::open`).
fn leave<D: Driver>(d: &mut D, slot: usize, now: u64) {
    let s = d.slots();
    let Some(f) = s.fleet.as_mut().filter(|f| f.is_active(slot)) else {
        // Listed twice (its connection was idle at two turns): it has left, and its
        // close handshake must not be cut short.
        return;
    };
    f.leave(slot);
    let (conn, _, _, ledger) = s.parts(slot);
    if conn.fd >= 0 && conn.close_handshake(now, ledger) {
        return d.kick(slot, now);
    }
    close(d, slot, u64::MAX);
    if let Some(f) = d.slots().fleet.as_mut() {
        f.vacate(slot);
    }
}
