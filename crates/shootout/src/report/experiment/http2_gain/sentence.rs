//! A row of the HTTP/2 table said in one sentence, for a reader who skips the columns:
//! `c-x answers 121% of its HTTP/1.1 requests/s over h2c with 1 stream per connection,
//! 180% with 10 and 95% with 100, and 130% over TLS (h2) with 10; +4.0 µs CPU per request
//! against HTTP/1.1 at 5000/s (h2c ×10); h2c ×100, 50 connections: 3.1% of requests failed
//! (3,000 reset); RST_STREAM REFUSED_STREAM ×3,000`.

use super::breakdown::Breakdown;
use super::figure::{Measure, Planned};
use super::shown::{compared, marked_text, Shown};

/// One column's figure for one contestant: what it shows, HTTP/1.1's figure when it is an
/// HTTP/2 one set against it, and where HTTP/2 broke down in its runs.
#[derive(Debug, Clone)]
pub struct Entry<'p> {
    pub planned: Planned<'p>,
    pub shown: Shown,
    pub http11: Option<Shown>,
    pub breakdown: Option<Breakdown>,
}

/// The sentence of `contestant` from its entries (the table's columns, in order); None
/// when no HTTP/2 figure says anything.
pub fn sentence(contestant: &str, entries: &[Entry]) -> Option<String> {
    let mut clauses: Vec<String> = Vec::new();
    clauses.extend(capacity(entries));
    clauses.extend(per_request(entries));
    clauses.extend(broke_down(entries));
    (!clauses.is_empty()).then(|| format!("{contestant} {}", clauses.join("; ")))
}

/// `answers 121% of its HTTP/1.1 requests/s over h2c with 1 stream per connection, 180%
/// with 10 and 95% with 100, and 130% over TLS (h2) with 10`.
fn capacity(entries: &[Entry]) -> Option<String> {
    let over = |tls: bool| -> Vec<(usize, String)> {
        (entries.iter())
            .filter(|e| e.planned.figure.measure == Measure::Capacity)
            .filter(|e| e.planned.figure.tls == tls)
            .filter_map(|e| {
                let streams = e.planned.figure.streams?;
                let change = compared(e.planned.figure, e.shown, e.http11?)?;
                Some((streams, marked_text(change, e.shown)))
            })
            .collect()
    };
    let (clear, tls) = (over(false), over(true));
    let first = |transport: &str, (n, pct): &(usize, String)| {
        format!(
            "{pct} of its HTTP/1.1 requests/s {transport} with {n} stream{} per connection",
            if *n == 1 { "" } else { "s" }
        )
    };
    let rest = |items: &[(usize, String)]| -> Vec<String> {
        items
            .iter()
            .map(|(n, pct)| format!("{pct} with {n}"))
            .collect()
    };
    let text = match (clear.split_first(), tls.split_first()) {
        (None, None) => return None,
        (Some((head, tail)), None) => listed(first("over h2c", head), rest(tail)),
        (None, Some((head, tail))) => listed(first("over TLS (h2)", head), rest(tail)),
        (Some((head, tail)), Some((tls_head, tls_tail))) => {
            let over_tls = listed(
                format!("{} over TLS (h2) with {}", tls_head.1, tls_head.0),
                rest(tls_tail),
            );
            format!(
                "{}, and {over_tls}",
                listed(first("over h2c", head), rest(tail))
            )
        }
    };
    Some(format!("answers {text}"))
}

/// `a, b and c`: `head` then `tail`, the last joined by `and`.
fn listed(head: String, tail: Vec<String>) -> String {
    match tail.split_last() {
        None => head,
        Some((last, middle)) => {
            let mut all = vec![head];
            all.extend(middle.iter().cloned());
            format!("{} and {last}", all.join(", "))
        }
    }
}

/// `+4.0 µs CPU per request against HTTP/1.1 at 5000/s (h2c ×10)`, each such figure.
fn per_request(entries: &[Entry]) -> Vec<String> {
    (entries.iter())
        .filter(|e| e.planned.figure.measure == Measure::Request)
        .filter_map(|e| {
            e.planned.figure.streams?;
            let change = compared(e.planned.figure, e.shown, e.http11?)?;
            Some(format!(
                "{} µs CPU per request against HTTP/1.1 {} ({})",
                marked_text(change, e.shown),
                e.planned.at(),
                e.planned.figure.protocol()
            ))
        })
        .collect()
}

/// `h2c ×100, 50 connections: 3.1% of requests failed (3,000 reset); ...`, for each
/// HTTP/2 figure whose runs broke down.
fn broke_down(entries: &[Entry]) -> Vec<String> {
    (entries.iter())
        .filter_map(|e| {
            let b = e.breakdown.as_ref().filter(|b| !b.is_clean())?;
            Some(format!(
                "{}, {}: {}",
                e.planned.figure.protocol(),
                e.planned.at(),
                b.text()
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::figure::Figure;
    use super::super::shown::Mark;
    use super::*;
    use crate::store::{PlannedHttp2, PlannedLoad};

    fn load(rate: Option<&str>, streams: &[usize]) -> PlannedLoad {
        PlannedLoad {
            name: "l".into(),
            kind: if rate.is_some() { "rate" } else { "closed" }.into(),
            schedules: rate.into_iter().map(str::to_string).collect(),
            levels: vec![50],
            duration_s: None,
            keepalive: true,
            tls: None,
            http2: Some(PlannedHttp2 {
                streams: streams.to_vec(),
            }),
        }
    }

    fn entry<'p>(
        load: &'p PlannedLoad,
        (measure, tls, streams): (Measure, bool, usize),
        value: f64,
        http11: f64,
    ) -> Entry<'p> {
        let mark = Mark::Counted;
        Entry {
            planned: Planned {
                figure: Figure {
                    measure,
                    tls,
                    streams: Some(streams),
                },
                load,
            },
            shown: Shown::Value { value, mark },
            http11: Some(Shown::Value {
                value: http11,
                mark,
            }),
            breakdown: None,
        }
    }

    #[test]
    fn a_row_reads_as_what_http2_gains_or_costs_the_server() {
        let closed = load(None, &[1, 10, 100]);
        let rate = load(Some("5000"), &[10]);
        let mut entries = vec![
            entry(&closed, (Measure::Capacity, false, 1), 60_000.0, 50_000.0),
            entry(&closed, (Measure::Capacity, false, 10), 90_000.0, 50_000.0),
            entry(&closed, (Measure::Capacity, false, 100), 47_500.0, 50_000.0),
            entry(&rate, (Measure::Request, false, 10), 26.1, 22.1),
            entry(&closed, (Measure::Capacity, true, 10), 52_000.0, 40_000.0),
        ];
        let mut broke = Breakdown::default();
        broke.requests.ok = 97_000;
        broke.requests.reset = 3_000;
        broke.h2.resets.insert("REFUSED_STREAM".into(), 3_000);
        entries[2].breakdown = Some(broke);
        assert_eq!(
            sentence("c-x", &entries).as_deref(),
            Some(
                "c-x answers 120% of its HTTP/1.1 requests/s over h2c with 1 stream per \
                 connection, 180% with 10 and 95% with 100, and 130% over TLS (h2) with 10; \
                 +4.0 µs CPU per request against HTTP/1.1 at 5000/s (h2c ×10); h2c ×100, 50 \
                 connections: 3.0% of requests failed (3,000 reset); RST_STREAM \
                 REFUSED_STREAM ×3,000"
            )
        );
        let tls_only = &entries[4..];
        assert_eq!(
            sentence("c-y", tls_only).as_deref(),
            Some(
                "c-y answers 130% of its HTTP/1.1 requests/s over TLS (h2) with 10 streams \
                 per connection"
            )
        );
    }

    #[test]
    fn nothing_measured_says_nothing() {
        let closed = load(None, &[10]);
        let mut e = entry(&closed, (Measure::Capacity, false, 10), 1.0, 1.0);
        e.shown = Shown::Nothing;
        assert_eq!(sentence("c-z", &[e]), None);
    }
}
