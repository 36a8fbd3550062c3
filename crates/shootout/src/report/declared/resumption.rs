//! The `resumption` extension: for a column whose client was asked to resume TLS
//! sessions, how many handshakes did; a figure where none did is withheld, and a note
//! says how many did where only some did.

use super::column::Column;
use crate::report::experiment::efficiency::costed_runs;
use crate::report::experiment::row::Row;

/// The share of handshakes that resumed in the runs `row`'s cost rests on; None without
/// a handshake.
pub fn share(row: &Row) -> Option<f64> {
    let (runs, _) = costed_runs(row);
    let tls = runs.iter().filter_map(|r| r.result()?.tls.as_ref());
    let (resumed, all) = tls.fold((0, 0), |(r, a), t| (r + t.resumed, a + t.handshakes()));
    (all > 0).then(|| resumed as f64 / all as f64)
}

/// `… resumed: 40% of new clients resumed`, where some but not all of `row`'s did.
pub fn partly(column: &Column, row: Option<&Row>) -> Option<String> {
    let share = share(row.filter(|_| column.resumption)?)?;
    (share > 0.0 && share < 0.99).then(|| {
        format!(
            "{}: {:.0}% of new clients resumed",
            column.header,
            share * 100.0
        )
    })
}
