//! Whether an experiment that repeats until sure got there: the cells (contestant in a
//! cell of the matrix) whose median's interval is still wider than the target, because
//! they reached the most rounds, the time budget ran out, or Ctrl-C came. A fixed number
//! of rounds promises no width, so it says nothing.

use crate::experiment::{Repeats, UntilSure};
use crate::model::RunRecord;
use crate::report::experiment::cell_key::CellKey;
use crate::report::experiment::ranking;
use crate::report::experiment::row::Row;
use crate::stats;

/// The lines that say it: what was asked, then one per cell that did not converge.
pub fn lines(runs: &[RunRecord], repeats: &Repeats) -> Vec<String> {
    let Repeats::UntilSure(sure) = repeats else {
        return Vec::new();
    };
    let cells = ranking::cells(runs);
    let measured: Vec<(&CellKey, &Row)> = (cells.iter())
        .flat_map(|(k, rows)| rows.iter().map(move |r| (k, r)))
        .filter(|(_, r)| r.is_measured())
        .collect();
    let open: Vec<String> = (measured.iter())
        .filter(|(_, r)| !sure.converged(&r.rps()))
        .map(|(k, r)| unsettled(k, r))
        .collect();
    let mut out = vec![asked(sure, open.len(), measured.len())];
    out.extend(open);
    out
}

/// `repeats until ±5% (3 to 12 rounds): 2 of 14 cells did not converge`.
fn asked(sure: &UntilSure, open: usize, of: usize) -> String {
    let rule = format!(
        "repeats until the median's 95% interval is within ±{}% ({} to {} rounds)",
        sure.target_percent, sure.min, sure.max
    );
    match open {
        0 => format!("{rule}: every cell converged"),
        _ => format!("{rule}: {open} of {of} cells did not converge"),
    }
}

/// `not converged: go-nethttp in /hello, layout split, ...: ±7.3% over 12 ok runs`.
fn unsettled(key: &CellKey, row: &Row) -> String {
    let rps = row.rps();
    let spread = match stats::spread_percent(&rps) {
        Some(p) => format!("±{p:.1}% over {} ok runs", rps.len()),
        None => "a single ok run, no spread to tell".into(),
    };
    format!(
        "not converged: {} in {}: {spread}",
        row.contestant,
        key.title()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Label;
    use crate::report::fixture::hello_run;

    fn sure(target_percent: f64) -> Repeats {
        Repeats::UntilSure(UntilSure {
            min: 2,
            max: 4,
            target_percent,
        })
    }

    #[test]
    fn names_the_cells_whose_interval_is_wider_than_the_target() {
        let runs = vec![
            hello_run("steady", Label::Ok, 1000.0, 1.0),
            hello_run("steady", Label::Ok, 1002.0, 1.0),
            hello_run("swings", Label::Ok, 900.0, 1.0),
            hello_run("swings", Label::Ok, 1100.0, 1.0),
            hello_run("once", Label::Ok, 1000.0, 1.0),
            hello_run("failed", Label::ServerFailed, 1000.0, 1.0),
        ];
        let title = "/hello, layout split, keep-alive, 50 connections";
        assert_eq!(
            lines(&runs, &sure(1.0)),
            [
                "repeats until the median's 95% interval is within ±1% (2 to 4 rounds): \
                 2 of 3 cells did not converge"
                    .to_string(),
                format!("not converged: once in {title}: a single ok run, no spread to tell"),
                format!("not converged: swings in {title}: ±10.0% over 2 ok runs"),
            ]
        );
        let wide = lines(&runs[..4], &sure(50.0));
        assert_eq!(wide.len(), 1);
        assert!(wide[0].ends_with("(2 to 4 rounds): every cell converged"));
        assert!(lines(&runs, &Repeats::Fixed(3)).is_empty());
    }
}
