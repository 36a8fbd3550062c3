//! Which loads of an experiment give the TLS table its figures: a load's kind, whether it
//! keeps its connections and how it speaks TLS (its stored plan) say what its runs
//! measured.

use crate::store::{Certificate, Plan, PlannedLoad};
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
    fn order() -> impl Iterator<Item = Figure> {
        use Certificate::{Ecdsa, Rsa};
        let clients = [(Ecdsa, false), (Ecdsa, true), (Rsa, false), (Rsa, true)];
        let clients = clients.map(|(certificate, resumed)| Figure::NewClient {
            certificate,
            resumed,
        });
        let others = [
            Figure::Request { tls: true },
            Figure::Request { tls: false },
        ];
        clients.into_iter().chain(others).chain([Figure::Capacity])
    }

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
                certificate,
                resumed,
            } => match (certificate, resumed) {
                (Ecdsa, false) => "per new client: full handshake",
                (Ecdsa, true) => "… resumed",
                (Rsa, false) => "… RSA",
                (Rsa, true) => "… RSA resumed",
            },
            Figure::Request { tls: true } => "per request over TLS",
            Figure::Request { tls: false } => "… in clear text",
            Figure::Capacity => "keep-alive req/s over TLS",
        }
    }

    /// What it is, in words, before where it was measured.
    pub fn what(self) -> String {
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
}

/// A load that gives the table one of its figures.
pub type Planned<'p> = crate::report::declared::Planned<'p, Figure>;

impl<'p> Planned<'p> {
    /// The first load of `plan` giving each figure, in the table's order. A request in
    /// clear text is shown only beside one over TLS (the difference is the figure).
    pub fn of(plan: &'p Plan) -> Vec<Planned<'p>> {
        let every = Planned::every(plan, |load, _| Figure::of(load));
        let first = |figure: Figure| every.iter().find(|p| p.figure == figure).copied();
        let mut out: Vec<Planned> = Figure::order().filter_map(first).collect();
        if first(Figure::Request { tls: true }).is_none() {
            out.retain(|p| p.figure != Figure::Request { tls: false });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixture::{load, plan, Settings};
    use Certificate::{Ecdsa, Rsa};

    /// A new client per request at 500/s over TLS.
    fn new_client(name: &str, certificate: Certificate, resume: Resume) -> PlannedLoad {
        (load(name).rate("500").new_connections()).tls(certificate, resume)
    }

    #[test]
    fn each_load_gives_the_figure_its_settings_say_in_the_tables_order() {
        let p = plan(
            &["a"],
            vec![
                load("clear").rate("500"),
                load("capacity").tls(Ecdsa, Resume::Tickets),
                new_client("rsa", Rsa, Resume::Off),
                new_client("resumed", Ecdsa, Resume::Ids),
                new_client("full", Ecdsa, Resume::Off),
                new_client("full again", Ecdsa, Resume::Off),
                load("over tls").rate("500").tls(Ecdsa, Resume::Off),
                load("clear close").rate("500").new_connections(),
            ],
        );
        let names: Vec<&str> = Planned::of(&p)
            .iter()
            .map(|x| x.load.name.as_str())
            .collect();
        assert_eq!(
            names,
            ["full", "resumed", "rsa", "over tls", "clear", "capacity"]
        );
        let planned = Planned::of(&p);
        let (full, take) = (planned[0].figure, planned[0].take());
        assert_eq!(
            take.meaning(full.header(), &full.what(), ""),
            "per new client: full handshake: a new connection, its TLS handshake (ECDSA P-256, \
             full: nothing resumed) and one request, at 500/s (load \"full\")"
        );
        let key = take.key(("hello", "split"));
        assert_eq!((key.connections, key.rate.as_deref()), (50, Some("500")));
    }

    #[test]
    fn a_clear_request_alone_says_nothing_of_tls() {
        let p = plan(&["a"], vec![load("clear").rate("500")]);
        assert!(Planned::of(&p).is_empty());
    }
}
