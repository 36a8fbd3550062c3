//! Which loads of an experiment give the HTTP/2 table its figures: a load's kind, whether
//! it keeps its connections, whether it is over TLS and over HTTP/2 with which streams
//! (its stored plan) say what its runs measured, and which HTTP/1.1 figure an HTTP/2 one
//! is set against.

use crate::store::{Plan, PlannedLoad};

/// What a load's runs measure, for the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Measure {
    /// Kept connections as fast as responses allow: requests/s.
    Capacity,
    /// Kept connections at a fixed rate: the server's CPU per request.
    Request,
}

/// One column's figure: a measure over HTTP/1.1 or HTTP/2 (so many streams per
/// connection), in clear text or over TLS.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Figure {
    pub measure: Measure,
    pub tls: bool,
    /// HTTP/2 streams per connection; None over HTTP/1.1.
    pub streams: Option<usize>,
}

impl Figure {
    /// The groups of columns, in the table's order: each HTTP/1.1 figure, then its HTTP/2
    /// ones.
    const GROUPS: [(Measure, bool); 4] = [
        (Measure::Capacity, false),
        (Measure::Request, false),
        (Measure::Capacity, true),
        (Measure::Request, true),
    ];

    /// What `load`'s runs measure at `streams`, if the table shows it.
    fn of(load: &PlannedLoad, streams: Option<usize>) -> Option<Figure> {
        let measure = match (load.kind.as_str(), load.keepalive) {
            ("closed", true) => Measure::Capacity,
            ("rate", true) => Measure::Request,
            _ => return None,
        };
        Some(Figure {
            measure,
            tls: load.tls.is_some(),
            streams,
        })
    }

    /// The same measure over HTTP/1.1, which an HTTP/2 figure is set against.
    pub fn over_http11(self) -> Figure {
        Figure {
            streams: None,
            ..self
        }
    }

    /// `h2c ×10`, `h2 ×10`, `HTTP/1.1`, `HTTP/1.1 TLS`: the protocol as headers say it.
    pub fn protocol(self) -> String {
        match (self.streams, self.tls) {
            (Some(n), false) => format!("h2c ×{n}"),
            (Some(n), true) => format!("h2 ×{n}"),
            (None, false) => "HTTP/1.1".into(),
            (None, true) => "HTTP/1.1 TLS".into(),
        }
    }

    pub fn header(self) -> String {
        let what = match self.measure {
            Measure::Capacity => "req/s",
            Measure::Request => "µs/req",
        };
        format!("{what} {}", self.protocol())
    }

    /// What it is, in words, before where it was measured.
    pub fn what(self) -> String {
        let measure = match self.measure {
            Measure::Capacity => "requests/s on kept connections, as fast as responses come",
            Measure::Request => "server CPU µs per request on kept connections",
        };
        let over = match (self.streams, self.tls) {
            (None, false) => "HTTP/1.1 in clear text".to_string(),
            (None, true) => "HTTP/1.1 over TLS".to_string(),
            (Some(n), false) => format!("HTTP/2 with prior knowledge (h2c), {n} {}", per(n)),
            (Some(n), true) => format!("HTTP/2 over TLS (h2 by ALPN), {n} {}", per(n)),
        };
        format!("{measure}, over {over}")
    }
}

/// `stream per connection`, `streams per connection`.
fn per(n: usize) -> &'static str {
    match n {
        1 => "stream per connection",
        _ => "streams per connection",
    }
}

/// A load (at one of its stream counts) that gives the table one of its figures.
pub type Planned<'p> = crate::report::declared::Planned<'p, Figure>;

impl<'p> Planned<'p> {
    /// The first load of `plan` giving each figure, in the table's order: per group (the
    /// measure, in clear text or over TLS) with an HTTP/2 figure, its HTTP/1.1 figure, then
    /// its HTTP/2 ones by streams. Nothing without a load over HTTP/2.
    pub fn of(plan: &'p Plan) -> Vec<Planned<'p>> {
        let every = Planned::every(plan, Figure::of);
        let mut out = Vec::new();
        for (measure, tls) in Figure::GROUPS {
            let mut group: Vec<Planned> = (every.iter())
                .filter(|p| p.figure.measure == measure && p.figure.tls == tls)
                .copied()
                .collect();
            group.sort_by_key(|p| p.figure.streams);
            group.dedup_by_key(|p| p.figure);
            if group.iter().any(|p| p.figure.streams.is_some()) {
                out.extend(group);
            }
        }
        out
    }

    /// For an HTTP/2 figure: the place of the HTTP/1.1 figure it is set against in
    /// `planned`.
    pub fn against(&self, planned: &[Planned]) -> Option<usize> {
        self.figure.streams?;
        let http11 = self.figure.over_http11();
        planned.iter().position(|p| p.figure == http11)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixture::{load, Settings};
    use crate::store::Certificate::Ecdsa;
    use engine::Resume::Tickets;

    fn plan(loads: Vec<PlannedLoad>) -> Plan {
        crate::report::fixture::plan(&["a"], loads)
    }

    fn headers(p: &Plan) -> Vec<String> {
        Planned::of(p).iter().map(|x| x.figure.header()).collect()
    }

    #[test]
    fn each_load_gives_its_figures_http11_first_then_http2_by_streams() {
        let p = plan(vec![
            load("h2 tls").tls(Ecdsa, Tickets).streams(&[10]),
            load("h2c rate").rate("5000").streams(&[10]),
            load("h2c").streams(&[100, 1, 10]),
            load("tls").tls(Ecdsa, Tickets),
            load("rate").rate("5000"),
            load("ka"),
            // Nothing over HTTP/2 to set it against.
            load("rate over tls").rate("5000").tls(Ecdsa, Tickets),
        ]);
        assert_eq!(
            headers(&p),
            [
                "req/s HTTP/1.1",
                "req/s h2c ×1",
                "req/s h2c ×10",
                "req/s h2c ×100",
                "µs/req HTTP/1.1",
                "µs/req h2c ×10",
                "req/s HTTP/1.1 TLS",
                "req/s h2 ×10",
            ]
        );
        let planned = Planned::of(&p);
        assert_eq!(planned[2].against(&planned), Some(0));
        assert_eq!(planned[0].against(&planned), None);
        assert_eq!(planned[7].against(&planned), Some(6));
        let key = planned[2].take().key(("hello", "split"));
        assert_eq!(
            (key.load.as_str(), key.streams, key.rate),
            ("h2c", Some(10), None)
        );
        let key = planned[5].take().key(("hello", "split"));
        assert_eq!((key.streams, key.rate.as_deref()), (Some(10), Some("5000")));
    }

    #[test]
    fn without_a_load_over_http2_there_is_no_figure() {
        let p = plan(vec![load("ka"), load("rate").rate("5000")]);
        assert!(Planned::of(&p).is_empty());
    }
}
