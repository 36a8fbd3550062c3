//! Which loads of an experiment give the HTTP/2 table its figures: a load's kind, whether
//! it keeps its connections, whether it is over TLS and over HTTP/2 with which streams
//! (its stored plan) say what its runs measured, and which HTTP/1.1 figure an HTTP/2 one
//! is set against.

use crate::report::experiment::cell_key::CellKey;
use crate::store::{Plan, PlannedLoad};
use crate::units;

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
    fn what(self) -> String {
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

    /// A figure as the table shows it: requests/s grouped (`73,071`), CPU in tenths.
    pub fn format(self, value: f64) -> String {
        match self.measure {
            Measure::Capacity => units::grouped(value),
            Measure::Request => format!("{value:.1}"),
        }
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
#[derive(Debug, Clone, Copy)]
pub struct Planned<'p> {
    pub figure: Figure,
    pub load: &'p PlannedLoad,
}

impl<'p> Planned<'p> {
    /// The first load of `plan` giving each figure, in the table's order: per group (the
    /// measure, in clear text or over TLS) with an HTTP/2 figure, its HTTP/1.1 figure, then
    /// its HTTP/2 ones by streams. Nothing without a load over HTTP/2.
    pub fn of(plan: &'p Plan) -> Vec<Planned<'p>> {
        let every = (plan.loads.iter()).flat_map(|load| {
            let streams: Vec<Option<usize>> = match &load.http2 {
                Some(h2) => h2.streams.iter().copied().map(Some).collect(),
                None => vec![None],
            };
            (streams.into_iter()).filter_map(move |s| {
                Some(Planned {
                    figure: Figure::of(load, s)?,
                    load,
                })
            })
        });
        let every: Vec<Planned> = every.collect();
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

    /// The cell of its runs at `(endpoint, layout)`: its first level and schedule, at its
    /// streams.
    pub fn cell_key(&self, (endpoint, layout): (&str, &str)) -> CellKey {
        CellKey {
            endpoint: endpoint.to_string(),
            layout: layout.to_string(),
            load: self.load.name.clone(),
            connections: self.load.levels.first().copied().unwrap_or_default(),
            streams: self.figure.streams,
            rate: match self.figure.measure {
                Measure::Request => self.load.schedules.first().cloned(),
                Measure::Capacity => None,
            },
        }
    }

    /// Where it was measured: `at 5000/s`, `50 connections`.
    pub fn at(&self) -> String {
        match self.figure.measure {
            Measure::Request => format!(
                "at {}/s",
                self.load.schedules.first().map_or("?", String::as_str)
            ),
            Measure::Capacity => format!(
                "{} connections",
                self.load.levels.first().copied().unwrap_or_default()
            ),
        }
    }

    /// The column's meaning: the header, what it measures, and where (load, rate,
    /// connections); an HTTP/2 figure's comparison with HTTP/1.1's.
    pub fn meaning(&self, planned: &[Planned]) -> String {
        let against = match (self.against(planned), self.figure.measure) {
            (None, _) => "",
            (Some(_), Measure::Capacity) => " (in percent of HTTP/1.1's)",
            (Some(_), Measure::Request) => " (and what it adds to HTTP/1.1's)",
        };
        format!(
            "{}: {}, {} (load {:?}){against}",
            self.figure.header(),
            self.figure.what(),
            self.at(),
            self.load.name
        )
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
    use crate::store::{Budget, Certificate, PlannedHttp2, PlannedRepeats, PlannedTls};
    use engine::{Resume, TlsVersions};

    fn load(name: &str, rate: Option<&str>, tls: bool, streams: &[usize]) -> PlannedLoad {
        PlannedLoad {
            name: name.into(),
            kind: if rate.is_some() { "rate" } else { "closed" }.into(),
            schedules: rate.into_iter().map(str::to_string).collect(),
            levels: vec![50],
            duration_s: None,
            keepalive: true,
            tls: tls.then_some(PlannedTls {
                certificate: Certificate::Ecdsa,
                resume: Resume::Tickets,
                version: TlsVersions::every(),
            }),
            http2: (!streams.is_empty()).then(|| PlannedHttp2 {
                streams: streams.to_vec(),
            }),
        }
    }

    fn plan(loads: Vec<PlannedLoad>) -> Plan {
        Plan {
            contestants: vec!["a".into()],
            endpoints: vec!["hello".into()],
            layouts: vec!["split".into()],
            loads,
            repeats: PlannedRepeats::Fixed { rounds: 1 },
            warmup_s: 1.0,
            duration_s: 3.0,
            budget: Budget {
                time_s: None,
                make_up_runs: 0,
                make_up_time_s: None,
            },
        }
    }

    fn headers(p: &Plan) -> Vec<String> {
        Planned::of(p).iter().map(|x| x.figure.header()).collect()
    }

    #[test]
    fn each_load_gives_its_figures_http11_first_then_http2_by_streams() {
        let p = plan(vec![
            load("h2 tls", None, true, &[10]),
            load("h2c rate", Some("5000"), false, &[10]),
            load("h2c", None, false, &[100, 1, 10]),
            load("tls", None, true, &[]),
            load("rate", Some("5000"), false, &[]),
            load("ka", None, false, &[]),
            load(
                "rate over tls, nothing over h2 to set it against",
                Some("5000"),
                true,
                &[],
            ),
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
        assert_eq!(
            planned[5].meaning(&planned),
            "µs/req h2c ×10: server CPU µs per request on kept connections, over HTTP/2 with \
             prior knowledge (h2c), 10 streams per connection, at 5000/s (load \"h2c rate\") \
             (and what it adds to HTTP/1.1's)"
        );
        let key = planned[2].cell_key(("hello", "split"));
        assert_eq!(
            (key.load.as_str(), key.streams, key.rate),
            ("h2c", Some(10), None)
        );
        let key = planned[5].cell_key(("hello", "split"));
        assert_eq!((key.streams, key.rate.as_deref()), (Some(10), Some("5000")));
    }

    #[test]
    fn without_a_load_over_http2_there_is_no_figure() {
        let p = plan(vec![
            load("ka", None, false, &[]),
            load("rate", Some("5000"), false, &[]),
        ]);
        assert!(Planned::of(&p).is_empty());
    }
}
