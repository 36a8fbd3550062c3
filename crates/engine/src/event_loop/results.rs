//! What a loop hands back: its counts to the live view at each tick, its stats at the end.

use super::connections::close;
use super::Driver;
use crate::cpu::CpuTime;
use crate::live::{Live, Published};
use crate::stats::LoopStats;

/// Adds the counts seen since the last call to the shared live counts.
pub(super) fn publish<D: Driver>(d: &mut D, live: &Live, published: &mut Published) {
    let ledger = &d.slots().ledger;
    let now = Published::of(ledger.responses_seen(), ledger.counts());
    live.add(published, &now);
    *published = now;
}

/// Counts what is still pending as in flight, closes every socket, and hands back the stats.
pub(super) fn finish<D: Driver>(d: &mut D, cpu_start: Option<CpuTime>, now: u64) -> LoopStats {
    let cpu = cpu_start
        .map(|s| CpuTime::thread().since(&s))
        .unwrap_or_default();
    for slot in 0..d.slots().conns.len() {
        let (conn, times, _, ledger) = d.slots().parts(slot);
        conn.abandon(times, ledger);
        close(d, slot, u64::MAX);
    }
    let mut stats = d.slots().ledger.take_stats();
    stats.user_seconds = cpu.user.as_secs_f64();
    stats.sys_seconds = cpu.sys.as_secs_f64();
    stats.ended_ns = now;
    stats
}
