//! What TLS costs each server (issue 22): for an experiment with loads over TLS, a
//! declared table (`report::declared`) per endpoint and layout, a row per contestant,
//! that a reader follows without knowing TLS. Its figures are the server's CPU per
//! response at a fixed rate as the efficiency tables compute it: per new client (a new
//! connection, its handshake and one request: full, resumed, with an RSA certificate),
//! per request on a kept connection over TLS and in clear text, and what TLS adds; then
//! the keep-alive capacity over TLS against the TLS ceiling. Which load gives which
//! figure comes from the stored plan ([`figure`]); the caption says what was negotiated.

mod figure;

use crate::contestant::catalog::TLS_CEILING;
use crate::report::declared::{
    Against, Baseline, Clause, Column, Declared, Digits, Mark, Measure, Order, Reference, Sentence,
    Shown, Worded,
};
use crate::store::{Certificate, Plan};
use figure::{Figure, Planned};

/// The table of `plan` when it has loads over TLS; None otherwise.
pub fn declared(plan: &Plan) -> Option<Declared> {
    let planned = Planned::of(plan);
    if !planned.iter().any(|p| p.figure.over_tls()) {
        return None;
    }
    let columns: Vec<Column> = (planned.iter()).map(|p| column(p, &planned)).collect();
    Some(Declared {
        title: "What TLS costs each server".into(),
        sentence: sentence(&planned),
        // The cheapest new client first; requests/s, when it is the first figure, highest
        // first.
        order: Order {
            column: 0,
            highest_first: columns.first().is_some_and(|c| c.measure == Measure::Rps),
        },
        marks: vec![Mark::Disturbed],
        charts: (!columns.is_empty()).then_some(0).into_iter().collect(),
        columns,
        negotiated: Some(("server CPU µs".into(), certificates(&planned))),
    })
}

/// The column of `p`'s figure: a request over TLS with what it adds to the one in clear
/// text, the capacity with its share of the TLS ceiling's.
fn column(p: &Planned, planned: &[Planned]) -> Column {
    let clear = planned
        .iter()
        .position(|q| q.figure == Figure::Request { tls: false });
    let baseline = match p.figure {
        Figure::Request { tls: true } => clear.map(|k| Baseline {
            of: Reference::Column(k),
            against: Against::Difference,
            shown: Shown::Column {
                header: "+ per request for TLS".into(),
                meaning: "+ per request for TLS: the request over TLS minus the one in clear \
                          text"
                    .into(),
            },
        }),
        Figure::Capacity => Some(Baseline {
            of: Reference::Ceiling,
            against: Against::Percent,
            shown: Shown::Column {
                header: "% of TLS ceiling".into(),
                meaning: format!(
                    "% of TLS ceiling: keep-alive req/s over TLS in percent of {TLS_CEILING}'s, \
                     the cheapest TLS server this machine allows"
                ),
            },
        }),
        _ => None,
    };
    let take = p.take();
    Column {
        header: p.figure.header().into(),
        meaning: take.meaning(p.figure.header(), &p.figure.what(), ""),
        take,
        measure: match p.figure {
            Figure::Capacity => Measure::Rps,
            _ => Measure::CpuUs,
        },
        digits: match p.figure {
            Figure::Request { .. } => Digits::Tenths,
            _ => Digits::Whole,
        },
        baseline,
        resumption: p.figure.resumes(),
    }
}

/// `c-x spends 310 µs CPU per new client, 41 µs if the client resumes, 520 µs with an
/// RSA certificate; +6.0 µs per request over clear text (60% of c-epoll-tls's keep-alive
/// requests/s)`.
fn sentence(planned: &[Planned]) -> Sentence {
    let at = |f: Figure| planned.iter().position(|p| p.figure == f);
    let new_clients = (planned.iter().enumerate())
        .filter_map(|(i, p)| Some((i, new_client(p.figure)?)))
        .map(|(i, (words, withheld))| Worded {
            column: i,
            words: words.into(),
            withheld: withheld.into(),
        });
    let over_tls = at(Figure::Request { tls: true });
    Sentence {
        verb: Some("spends".into()),
        clauses: vec![
            Clause::Figures {
                each: new_clients.collect(),
                unit: "µs".into(),
                unmeasured: "has no figure per new client (see notes)".into(),
            },
            Clause::Changes {
                each: (over_tls.into_iter())
                    .map(|i| Worded::new(i, "per request over clear text"))
                    .collect(),
                unit: "µs".into(),
                or_figure: over_tls.map(|i| Worded::new(i, "per request over TLS")),
            },
        ],
        share: (at(Figure::Capacity))
            .map(|i| Worded::new(i, format!("of {TLS_CEILING}'s keep-alive requests/s"))),
    }
}

/// A new client's figure in words, and what is said when none resumed.
fn new_client(figure: Figure) -> Option<(&'static str, &'static str)> {
    let Figure::NewClient {
        certificate,
        resumed,
    } = figure
    else {
        return None;
    };
    let none = "no resumption (no handshake resumed)";
    let none_rsa = "no resumption with an RSA certificate (no handshake resumed)";
    Some(match (certificate, resumed) {
        (Certificate::Ecdsa, false) => ("CPU per new client", none),
        (Certificate::Ecdsa, true) => ("if the client resumes", none),
        (Certificate::Rsa, false) => ("with an RSA certificate", none_rsa),
        (Certificate::Rsa, true) => ("resumed with an RSA certificate", none_rsa),
    })
}

/// The certificates the loads served: `certificate ECDSA P-256`, `certificates ECDSA
/// P-256, RSA 2048 in the RSA columns`.
fn certificates(planned: &[Planned]) -> String {
    let mut kinds: Vec<&str> = (planned.iter())
        .filter_map(|p| Some(p.load.tls?.certificate.title()))
        .collect();
    kinds.sort_unstable();
    kinds.dedup();
    match kinds.as_slice() {
        [one] => format!("certificate {one}"),
        _ => format!("certificates {} in the RSA columns", kinds.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::RunRecord;
    use crate::report::fixture::{disturbed, only_table, row, tls_document};
    use crate::report::table::Table;

    fn table_of(runs: &[RunRecord]) -> Table {
        only_table(&tls_document(), declared, runs)
    }

    #[test]
    fn each_server_has_a_row_of_what_tls_costs_it_cheapest_new_client_first() {
        let t = table_of(&tls_document().runs);
        assert_eq!(
            t.title,
            "What TLS costs each server — /hello, layout split: server CPU µs (TLS 1.3, \
             TLS13_AES_256_GCM_SHA384, key exchange X25519; certificates ECDSA P-256, RSA \
             2048 in the RSA columns)"
        );
        let order: Vec<&str> = t.rows.iter().map(|r| r[0].as_str()).collect();
        assert_eq!(
            order,
            ["c-epoll-tls", "nginx-static", "go-nethttp", "py-clear"]
        );
        assert_eq!(
            row(&t, "nginx-static"),
            [
                ("contestant", "nginx-static"),
                ("per new client: full handshake", "310"),
                ("… resumed", "41"),
                ("… RSA", "520"),
                ("per request over TLS", "28.1"),
                ("… in clear text", "22.1"),
                ("+ per request for TLS", "+6.0"),
                ("keep-alive req/s over TLS", "60,000"),
                ("% of TLS ceiling", "60%"),
                ("notes", ""),
            ]
        );
        assert_eq!(row(&t, "c-epoll-tls")[8], ("% of TLS ceiling", "100%"));
    }

    #[test]
    fn a_server_that_resumed_nothing_shows_no_false_figure() {
        let t = table_of(&tls_document().runs);
        let go = row(&t, "go-nethttp");
        assert_eq!(go[2], ("… resumed", "none resumed"));
        let sentence = t
            .notes
            .iter()
            .find(|n| n.starts_with("go-nethttp spends"))
            .unwrap();
        assert_eq!(
            sentence,
            "go-nethttp spends 400 µs CPU per new client, no resumption (no handshake \
             resumed), 1,200 µs with an RSA certificate; +10.0 µs per request over clear text \
             (50% of c-epoll-tls's keep-alive requests/s)"
        );
    }

    #[test]
    fn a_server_without_tls_says_why_once_and_the_others_negotiated_otherwise_are_named() {
        let t = table_of(&tls_document().runs);
        let py = row(&t, "py-clear");
        assert_eq!(py[1].1, "-");
        assert_eq!(py[5], ("… in clear text", "60.0"));
        assert_eq!(
            py[9].1,
            "per new client: full handshake, … resumed, … RSA, per request over TLS, \
             keep-alive req/s over TLS: 1 skipped: does not serve TLS (no [tls] in its \
             contestant.toml)"
        );
        assert!(
            !t.notes.iter().any(|n| n.starts_with("py-clear")),
            "{:?}",
            t.notes
        );
        let legend = &t.notes[0];
        assert!(
            legend.ends_with("negotiated otherwise: go-nethttp: TLS13_AES_128_GCM_SHA256"),
            "{legend}"
        );
        assert!(legend.contains(
            "… resumed: a new connection, its TLS handshake (ECDSA P-256, resuming the \
             client's earlier session) and one request, at 500/s (load \"new client, resumed\")"
        ));
        assert_eq!(
            t.notes[2],
            "nginx-static spends 310 µs CPU per new client, 41 µs if the client resumes, 520 \
             µs with an RSA certificate; +6.0 µs per request over clear text (60% of \
             c-epoll-tls's keep-alive requests/s)"
        );
    }

    #[test]
    fn a_figure_without_a_run_that_counts_is_marked() {
        let t = table_of(&disturbed(
            tls_document().runs,
            "nginx-static",
            "new client",
        ));
        let nginx = row(&t, "nginx-static");
        assert_eq!(nginx[1], ("per new client: full handshake", "310†"));
        assert!(
            nginx[9]
                .1
                .starts_with("per new client: full handshake: 1 disturbed"),
            "a figure that does not count says why: {}",
            nginx[9].1
        );
        assert!(t.notes[0].contains("† no run counts"));
    }

    #[test]
    fn an_experiment_without_tls_has_no_such_table_and_the_page_shows_it_when_it_has() {
        let d = tls_document();
        let mut clear = d.experiment.plan.clone().unwrap();
        clear.loads.retain(|l| l.tls.is_none());
        assert!(declared(&clear).is_none());
        assert!(crate::report::fixture::document()
            .tables()
            .iter()
            .all(|t| !t.title.starts_with("What TLS")));
        assert!(d.tables()[0]
            .title
            .starts_with("What TLS costs each server"));
        let page = crate::report::page::html::page(&[d]);
        assert!(
            page.contains("<caption>What TLS costs each server — /hello, layout split"),
            "the page shows it"
        );
        assert!(page.contains("go-nethttp spends 400 µs CPU per new client"));
    }
}
