//! The query count: did a batch of requests make the database work for each answer?
//! `pg_stat_statements` counts every statement a backend executed and the rows it
//! returned. The check accepts one SELECT on World per row (pipelined or not) and one
//! batched SELECT per request alike: at least one SELECT per request, returning at least
//! the distinct ids each answer holds. A server that answers from a cache makes fewer.

use super::{Tables, Wrong};
use std::time::{Duration, Instant};

/// How long the count may take to catch up with the answers: a backend counts a statement
/// as it ends, which can be a moment after its rows reached the server.
const CATCH_UP: Duration = Duration::from_secs(2);

/// SELECT statements on World, and the rows they returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Selects {
    pub calls: u64,
    pub rows: u64,
}

/// What a batch of answers needed the database for: how many requests, and how many
/// distinct ids each answer held, added up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct Needed {
    pub requests: u64,
    pub rows: u64,
}

impl Needed {
    /// One more answer, of these ids.
    pub fn add(&mut self, ids: impl Iterator<Item = i32>) {
        let distinct: std::collections::BTreeSet<i32> = ids.collect();
        self.requests += 1;
        self.rows += distinct.len() as u64;
    }

    fn met_by(&self, s: Selects) -> bool {
        s.calls >= self.requests && s.rows >= self.rows
    }
}

/// The SELECTs on World counted since the reset, once they meet `needed` or when
/// `CATCH_UP` has passed; too few is [`Wrong::NotQueried`].
pub(super) fn enough(tables: &dyn Tables, needed: Needed) -> Result<Selects, Wrong> {
    let started = Instant::now();
    loop {
        let got = tables.world_selects()?;
        if needed.met_by(got) {
            return Ok(got);
        }
        if started.elapsed() > CATCH_UP {
            return Err(Wrong::NotQueried {
                requests: needed.requests,
                rows: needed.rows,
                got,
            });
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_select_per_row_or_one_per_request_both_count() {
        let mut needed = Needed::default();
        needed.add([3, 7, 7].into_iter());
        needed.add([5].into_iter());
        assert_eq!(
            needed,
            Needed {
                requests: 2,
                rows: 3
            }
        );
        let per_row = Selects { calls: 4, rows: 4 };
        let batched = Selects { calls: 2, rows: 3 };
        let cached = Selects {
            calls: 1,
            rows: 100,
        };
        let half = Selects { calls: 2, rows: 2 };
        assert!(needed.met_by(per_row) && needed.met_by(batched));
        assert!(!needed.met_by(cached) && !needed.met_by(half));
    }
}
