//! Which loads of an experiment give the TLS table its figures: a load's kind, whether it
//! keeps its connections and how it speaks TLS (its stored plan) say what its runs
//! measured.

use crate::report::experiment::cell_key::CellKey;
use crate::store::{Certificate, Plan, PlannedLoad};
use crate::units;
use engine::Resume;

/// What a load's runs measure, for the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Figure {
    /// A new connection per request over TLS at a fixed rate: CPU per new client (its
    /// connection, handshake and one request).
    NewClient {
        certificate: Certificate,
        resumed: bool,
    },
    /// Kept connections at a fixed rate: CPU per request, over TLS or in clear text.
    Request { tls: bool },
    /// Kept connections over TLS as fast as responses allow: requests/s.
    Capacity,
}

impl Figure {
    /// The table's columns, in order.
    const ORDER: [Figure; 7] = [
        Figure::NewClient {
            certificate: Certificate::Ecdsa,
            resumed: false,
        },
        Figure::NewClient {
            certificate: Certificate::Ecdsa,
            resumed: true,
        },
        Figure::NewClient {
            certificate: Certificate::Rsa,
            resumed: false,
        },
        Figure::NewClient {
            certificate: Certificate::Rsa,
            resumed: true,
        },
        Figure::Request { tls: true },
        Figure::Request { tls: false },
        Figure::Capacity,
    ];

    /// What `load` measures, if the table shows it (a load over HTTP/2 is the HTTP/2
    /// table's).
    fn of(load: &PlannedLoad) -> Option<Figure> {
        if load.http2.is_some() {
            return None;
        }
        match (load.kind.as_str(), load.keepalive, &load.tls) {
            ("rate", false, Some(tls)) => Some(Figure::NewClient {
                certificate: tls.certificate,
                resumed: tls.resume != Resume::Off,
            }),
            ("rate", true, tls) => Some(Figure::Request { tls: tls.is_some() }),
            ("closed", true, Some(_)) => Some(Figure::Capacity),
            _ => None,
        }
    }

    pub fn over_tls(self) -> bool {
        self != Figure::Request { tls: false }
    }

    /// Whether the client was asked to resume.
    pub fn resumes(self) -> bool {
        matches!(self, Figure::NewClient { resumed: true, .. })
    }

    pub fn header(self) -> &'static str {
        use Certificate::{Ecdsa, Rsa};
        match self {
            Figure::NewClient {
                certificate: Ecdsa,
                resumed: false,
            } => "per new client: full handshake",
            Figure::NewClient {
                certificate: Ecdsa,
                resumed: true,
            } => "… resumed",
            Figure::NewClient {
                certificate: Rsa,
                resumed: false,
            } => "… RSA",
            Figure::NewClient {
                certificate: Rsa,
                resumed: true,
            } => "… RSA resumed",
            Figure::Request { tls: true } => "per request over TLS",
            Figure::Request { tls: false } => "… in clear text",
            Figure::Capacity => "keep-alive req/s over TLS",
        }
    }

    /// What it is, in words, before where it was measured.
    fn what(self) -> String {
        match self {
            Figure::NewClient {
                certificate,
                resumed,
            } => format!(
                "a new connection, its TLS handshake ({}, {}) and one request",
                certificate.title(),
                match resumed {
                    false => "full: nothing resumed",
                    true => "resuming the client's earlier session",
                }
            ),
            Figure::Request { tls: true } => "one request on a kept TLS connection".into(),
            Figure::Request { tls: false } => "the same in clear text".into(),
            Figure::Capacity => {
                "requests/s on kept TLS connections, as fast as responses come".into()
            }
        }
    }

    /// A CPU figure as the table shows it: whole µs for a new client (`1,542`), tenths
    /// for a request.
    pub fn format(self, us: f64) -> String {
        match self {
            Figure::NewClient { .. } => units::grouped(us),
            _ => format!("{us:.1}"),
        }
    }
}

/// A load that gives the table one of its figures.
#[derive(Debug, Clone, Copy)]
pub struct Planned<'p> {
    pub figure: Figure,
    pub load: &'p PlannedLoad,
}

impl<'p> Planned<'p> {
    /// The first load of `plan` giving each figure, in the table's order. A request in
    /// clear text is shown only beside one over TLS (the difference is the figure).
    pub fn of(plan: &'p Plan) -> Vec<Planned<'p>> {
        let first = |figure: Figure| {
            (plan.loads.iter())
                .find(|l| Figure::of(l) == Some(figure))
                .map(|load| Planned { figure, load })
        };
        let mut out: Vec<Planned> = Figure::ORDER.into_iter().filter_map(first).collect();
        if first(Figure::Request { tls: true }).is_none() {
            out.retain(|p| p.figure != Figure::Request { tls: false });
        }
        out
    }

    /// The cell of its runs at `(endpoint, layout)`: its first level and schedule.
    pub fn cell_key(&self, (endpoint, layout): (&str, &str)) -> CellKey {
        CellKey {
            endpoint: endpoint.to_string(),
            layout: layout.to_string(),
            load: self.load.name.clone(),
            connections: self.load.levels.first().copied().unwrap_or_default(),
            streams: None,
            rate: match self.load.kind.as_str() {
                "rate" => self.load.schedules.first().cloned(),
                _ => None,
            },
        }
    }

    /// The column's meaning: the header, what it measures, and where (load, rate,
    /// connections).
    pub fn meaning(&self) -> String {
        let at = match self.load.kind.as_str() {
            "rate" => format!(
                "at {}/s",
                self.load.schedules.first().map_or("?", String::as_str)
            ),
            _ => format!(
                "{} connections",
                self.load.levels.first().copied().unwrap_or_default()
            ),
        };
        format!(
            "{}: {}, {at} (load {:?})",
            self.figure.header(),
            self.figure.what(),
            self.load.name
        )
    }

    /// For the clear-text request: the place of the request over TLS in `planned`.
    pub fn paired_with(&self, planned: &[Planned]) -> Option<usize> {
        match self.figure {
            Figure::Request { tls: false } => planned
                .iter()
                .position(|p| p.figure == Figure::Request { tls: true }),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{Budget, PlannedRepeats, PlannedTls};
    use engine::TlsVersions;

    fn load(
        name: &str,
        kind: &str,
        keepalive: bool,
        tls: Option<(Certificate, Resume)>,
    ) -> PlannedLoad {
        PlannedLoad {
            name: name.into(),
            kind: kind.into(),
            schedules: match kind {
                "rate" => vec!["500".into()],
                _ => Vec::new(),
            },
            levels: vec![50],
            duration_s: None,
            keepalive,
            tls: tls.map(|(certificate, resume)| PlannedTls {
                certificate,
                resume,
                version: TlsVersions::every(),
            }),
            http2: None,
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

    #[test]
    fn each_load_gives_the_figure_its_settings_say_in_the_tables_order() {
        let ecdsa = Some((Certificate::Ecdsa, Resume::Off));
        let p = plan(vec![
            load("clear", "rate", true, None),
            load(
                "capacity",
                "closed",
                true,
                Some((Certificate::Ecdsa, Resume::Tickets)),
            ),
            load("rsa", "rate", false, Some((Certificate::Rsa, Resume::Off))),
            load(
                "resumed",
                "rate",
                false,
                Some((Certificate::Ecdsa, Resume::Ids)),
            ),
            load("full", "rate", false, ecdsa),
            load("full again", "rate", false, ecdsa),
            load("over tls", "rate", true, ecdsa),
            load("clear close", "rate", false, None),
        ]);
        let names: Vec<&str> = Planned::of(&p)
            .iter()
            .map(|x| x.load.name.as_str())
            .collect();
        assert_eq!(
            names,
            ["full", "resumed", "rsa", "over tls", "clear", "capacity"]
        );
        let planned = Planned::of(&p);
        assert_eq!(planned[4].paired_with(&planned), Some(3));
        assert_eq!(
            planned[0].meaning(),
            "per new client: full handshake: a new connection, its TLS handshake (ECDSA P-256, \
             full: nothing resumed) and one request, at 500/s (load \"full\")"
        );
        let key = planned[0].cell_key(("hello", "split"));
        assert_eq!((key.connections, key.rate.as_deref()), (50, Some("500")));
    }

    #[test]
    fn a_clear_request_alone_says_nothing_of_tls() {
        let p = plan(vec![load("clear", "rate", true, None)]);
        assert!(Planned::of(&p).is_empty());
    }
}
