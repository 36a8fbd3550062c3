//! What HTTP/2 gains or costs each server (issue 23): for an experiment with loads over
//! HTTP/2, a declared table (`report::declared`) per endpoint and layout, a row per
//! contestant, each HTTP/2 figure beside the HTTP/1.1 figure it is set against:
//! keep-alive capacity (requests/s, and in percent of HTTP/1.1's) at each stream count,
//! the server's CPU per request at a fixed rate (as the efficiency tables compute it, and
//! what HTTP/2 adds), in clear text (h2c) and over TLS (h2). Which load gives which
//! figure comes from the stored plan ([`figure`]). Under the table each row is said in a
//! sentence, with where HTTP/2 broke down in its runs (the `breakdown` extension).

mod figure;

use crate::report::declared::{
    Against, Baseline, Clause, Column, Declared, Digits, Listed, Mark, Measure as Of, Order,
    Reference, Sentence, Shown, Worded,
};
use crate::store::Plan;
use figure::{Measure, Planned};

/// The table of `plan` when it has loads over HTTP/2; None otherwise.
pub fn declared(plan: &Plan) -> Option<Declared> {
    let planned = Planned::of(plan);
    // The most requests/s over HTTP/2 first (at the first stream count the table shows).
    let first = planned.iter().position(|p| p.figure.streams.is_some())?;
    Some(Declared {
        title: "What HTTP/2 gains or costs each server".into(),
        columns: (planned.iter()).map(|p| column(p, &planned)).collect(),
        order: Order {
            column: first,
            highest_first: true,
        },
        marks: vec![Mark::LowerBound, Mark::GeneratorBound, Mark::Disturbed],
        sentence: sentence(&planned),
        charts: vec![first],
        negotiated: None,
    })
}

/// The column of `p`'s figure: an HTTP/2 one with its change from HTTP/1.1's after it.
fn column(p: &Planned, planned: &[Planned]) -> Column {
    let take = p.take();
    let (measure, digits, against) = match p.figure.measure {
        Measure::Capacity => (Of::Rps, Digits::Whole, Against::Percent),
        Measure::Request => (Of::CpuUs, Digits::Tenths, Against::Difference),
    };
    let baseline = p.against(planned).map(|k| Baseline {
        of: Reference::Column(k),
        against,
        shown: Shown::InCell,
    });
    let then = match (&baseline, p.figure.measure) {
        (None, _) => "",
        (Some(_), Measure::Capacity) => " (in percent of HTTP/1.1's)",
        (Some(_), Measure::Request) => " (and what it adds to HTTP/1.1's)",
    };
    Column {
        header: p.figure.header(),
        meaning: take.meaning(&p.figure.header(), &p.figure.what(), then),
        take,
        measure,
        digits,
        baseline,
        resumption: false,
    }
}

/// `c-x answers 121% of its HTTP/1.1 requests/s over h2c with 1 stream per connection,
/// 180% with 10 and 95% with 100, and 130% over TLS (h2) with 10; +4.0 µs CPU per request
/// against HTTP/1.1 at 5000/s (h2c ×10); h2c ×100, 50 connections: 3.1% of requests
/// failed (3,000 reset); RST_STREAM REFUSED_STREAM ×3,000`.
fn sentence(planned: &[Planned]) -> Sentence {
    let http2 = || (planned.iter().enumerate()).filter(|(_, p)| p.figure.streams.is_some());
    let capacity = |tls: bool| -> Vec<Listed> {
        (http2())
            .filter(|(_, p)| p.figure.measure == Measure::Capacity && p.figure.tls == tls)
            .map(|(i, p)| listed(i, p))
            .collect()
    };
    let per_request = (http2())
        .filter(|(_, p)| p.figure.measure == Measure::Request)
        .map(|(i, p)| {
            let protocol = p.figure.protocol();
            let at = p.take().at();
            Worded::new(
                i,
                format!("CPU per request against HTTP/1.1 {at} ({protocol})"),
            )
        });
    let broke_down = (http2()).map(|(i, p)| {
        let at = p.take().at();
        Worded::new(i, format!("{}, {at}", p.figure.protocol()))
    });
    Sentence {
        verb: None,
        clauses: vec![
            Clause::Series {
                lead: "answers".into(),
                groups: vec![capacity(false), capacity(true)],
            },
            Clause::Changes {
                each: per_request.collect(),
                unit: "µs".into(),
                or_figure: None,
            },
            Clause::Breakdown(broke_down.collect()),
        ],
        share: None,
    }
}

/// An HTTP/2 capacity in a series: `of its HTTP/1.1 requests/s over h2c with 10 streams
/// per connection` first, `with 10` after another, `over TLS (h2) with 10` first after
/// clear text.
fn listed(column: usize, p: &Planned) -> Listed {
    let n = p.figure.streams.unwrap_or_default();
    let over = if p.figure.tls {
        "over TLS (h2)"
    } else {
        "over h2c"
    };
    let streams = if n == 1 { "stream" } else { "streams" };
    Listed {
        column,
        first: format!("of its HTTP/1.1 requests/s {over} with {n} {streams} per connection"),
        then: format!("with {n}"),
        after: format!("{over} with {n}"),
    }
}

#[cfg(test)]
mod tests;
