//! What a WebSocket load adds to its result: the upgrades and their time, and what went
//! wrong by name (refused upgrades, protocol errors, the server's close codes), pings
//! answered, and the client's close handshakes.

use super::Percentiles;
use crate::ws::{Refusal, Violation, WsBooks};
use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A WebSocket load's books (absent from an HTTP load's result).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct WsSummary {
    /// Upgrades answered with a right 101 while measuring.
    pub upgrades: u64,
    /// From the upgrade request (the connection, or TLS, up) to its 101.
    pub upgrade_us: Percentiles,
    /// Upgrades refused, by what was wrong: `status` (not 101: the statuses are in
    /// `status_codes`), `no_upgrade`, `no_connection_upgrade`, `no_accept`,
    /// `wrong_accept`, `unoffered_extension`, `malformed`, `head_too_long`, `timeout`.
    /// Their connections' messages are `ws`.
    #[serde(default)]
    pub refused: BTreeMap<String, u64>,
    /// Connections the client failed because the server broke the protocol, by what it
    /// did: `reserved_bits`, `masked_frame`, `unknown_opcode`, `bad_control_frame`,
    /// `unexpected_continuation`, `interleaved_message`, `too_long`, `invalid_utf8`,
    /// `bad_close`. Their messages are `ws`.
    #[serde(default)]
    pub errors: BTreeMap<String, u64>,
    /// Close frames the server sent while the load ran, by code (`1005`: none given);
    /// the messages they cut short are `ws`.
    #[serde(default)]
    pub closes: BTreeMap<String, u64>,
    /// Pings the server sent, each answered with a pong.
    pub pings: u64,
    /// Messages the server sent when none was awaited (not counted as echoes).
    pub unsolicited: u64,
    /// Close handshakes the client began (close 1000: at the end of the load, after a
    /// connection's messages with `messages_per_connection`, when a device left), and
    /// those the server answered within a second (or the timeout, if shorter).
    pub closes_sent: u64,
    pub closes_answered: u64,
}

impl WsSummary {
    /// The summary of a loop's (or merged loops') books.
    pub fn of(books: &WsBooks) -> WsSummary {
        WsSummary {
            upgrades: books.upgrade.len(),
            upgrade_us: Percentiles::of(&books.upgrade),
            refused: books.refusals.named(|i| Refusal::ALL[i].name()),
            errors: books.errors.named(|i| Violation::ALL[i].name()),
            closes: books.closes.named(),
            pings: books.pings,
            unsolicited: books.unsolicited,
            closes_sent: books.goodbyes,
            closes_answered: books.goodbyes_answered,
        }
    }

    /// The summaries of shards merged: counts add, `upgrade` is their merged histogram.
    pub fn merged<'a>(
        parts: impl IntoIterator<Item = &'a WsSummary>,
        upgrade: &Histogram<u64>,
    ) -> WsSummary {
        let add = |into: &mut BTreeMap<String, u64>, from: &BTreeMap<String, u64>| {
            for (name, n) in from {
                *into.entry(name.clone()).or_default() += n;
            }
        };
        let mut merged = WsSummary {
            upgrade_us: Percentiles::of(upgrade),
            ..WsSummary::default()
        };
        for p in parts {
            merged.upgrades += p.upgrades;
            add(&mut merged.refused, &p.refused);
            add(&mut merged.errors, &p.errors);
            add(&mut merged.closes, &p.closes);
            merged.pings += p.pings;
            merged.unsolicited += p.unsolicited;
            merged.closes_sent += p.closes_sent;
            merged.closes_answered += p.closes_answered;
        }
        merged
    }
}
