//! What TLS costs each server (issue 22): for an experiment with loads over TLS, one
//! table per endpoint and layout, a row per contestant, that a reader follows without
//! knowing TLS. Its figures are the server's CPU per response at a fixed rate as the
//! efficiency tables compute it (`efficiency::Cost`): per new client (a new connection,
//! its handshake and one request: full, resumed, with an RSA certificate), per request
//! on a kept connection over TLS and in clear text, and what TLS adds; then the
//! keep-alive capacity over TLS against the TLS ceiling. Under the table each row is said
//! in a sentence ([`sentence`]). Which load gives which figure comes from the stored plan
//! ([`figure`]); the caption says what was negotiated ([`negotiated`]).

mod figure;
mod negotiated;
mod sentence;
mod shown;

use crate::contestant::catalog::TLS_CEILING;
use crate::model::RunRecord;
use crate::report::experiment::ceiling;
use crate::report::experiment::efficiency::why_not_counted;
use crate::report::experiment::ranking::{self, RankedCell};
use crate::report::experiment::row::Row;
use crate::report::table::columns::{Column, Design};
use crate::report::table::Table;
use crate::store::Plan;
use figure::{Figure, Planned};
use negotiated::Said;
use shown::{added, resumed_share, Shown};

/// One table per endpoint and layout of `plan` when it has loads over TLS; none otherwise.
pub fn tables(plan: &Plan, runs: &[RunRecord]) -> Vec<Table> {
    let planned = Planned::of(plan);
    if !planned.iter().any(|p| p.figure.over_tls()) {
        return Vec::new();
    }
    let cells = ranking::cells(runs);
    let places = (plan.endpoints.iter())
        .flat_map(|e| plan.layouts.iter().map(move |l| (e.as_str(), l.as_str())));
    places
        .map(|place| table(&plan.contestants, &planned, &cells, place))
        .collect()
}

/// One contestant's rows in the cells of the table's figures (`Planned::of`'s order).
struct Line<'r, 'a> {
    contestant: &'r str,
    rows: Vec<Option<&'r Row<'a>>>,
}

impl Line<'_, '_> {
    /// Each column's figure, the clear-text request's with the request over TLS beside it.
    fn figures(&self, planned: &[Planned]) -> Vec<(Figure, Shown, Option<Shown>)> {
        let shown = |i: usize| Shown::of(planned[i].figure, self.rows[i]);
        (planned.iter().enumerate())
            .map(|(i, p)| (p.figure, shown(i), p.paired_with(planned).map(shown)))
            .collect()
    }
}

/// The table of one endpoint and layout (`place`).
fn table(
    contestants: &[String],
    planned: &[Planned],
    cells: &[RankedCell],
    place: (&str, &str),
) -> Table {
    let at: Vec<Option<&RankedCell>> = (planned.iter())
        .map(|p| cells.iter().find(|(k, _)| *k == p.cell_key(place)))
        .collect();
    let lines = lines(contestants, planned, &at);
    let capacity = planned.iter().position(|p| p.figure == Figure::Capacity);
    let top = (capacity.and_then(|i| at[i])).and_then(|(_, rows)| ceiling::find(rows));
    let said = Said::of(
        at.iter()
            .flatten()
            .flat_map(|(_, rows)| rows.iter())
            .flat_map(|r| r.runs.clone()),
    );
    let design = Design {
        title: format!(
            "What TLS costs each server — /{}, layout {}: server CPU µs ({}; {})",
            place.0,
            place.1,
            said.caption(),
            certificates(planned)
        ),
        columns: columns(planned, capacity.zip(top)),
        marks: [MARKED_MEANING.to_string()]
            .into_iter()
            .chain(said.otherwise())
            .collect(),
    };
    let mut t = design.draw(&lines);
    let percent = |l: &Line| Some(ceiling::percent_of(capacity.and_then(|i| l.rows[i])?, top?));
    let sentences = (lines.iter())
        .filter_map(|l| sentence::sentence(l.contestant, &l.figures(planned), percent(l)));
    t.notes.extend(sentences);
    t
}

/// Each contestant's rows in the cells `at` (None where it has none), cheapest new client
/// first.
fn lines<'r, 'a>(
    contestants: &'r [String],
    planned: &[Planned],
    at: &[Option<&'r RankedCell<'a>>],
) -> Vec<Line<'r, 'a>> {
    let row = |cell: &Option<&'r RankedCell<'a>>, name: &str| {
        cell.and_then(|(_, rows)| rows.iter().find(|r| r.contestant == name))
    };
    let mut lines: Vec<Line> = (contestants.iter())
        .map(|name| Line {
            contestant: name,
            rows: at.iter().map(|cell| row(cell, name)).collect(),
        })
        .collect();
    lines.sort_by(|a, b| cheapest(planned, a).total_cmp(&cheapest(planned, b)));
    lines
}

/// What `†` means here.
const MARKED_MEANING: &str = "† no run counts: the median of runs disturbed or off the \
     schedule by the generator's doing (the load's own table says how)";

/// The certificates the loads served: `certificate ECDSA P-256`, `certificates ECDSA
/// P-256, RSA 2048 in the RSA columns`.
fn certificates(planned: &[Planned]) -> String {
    let mut kinds: Vec<&str> = Vec::new();
    for title in planned
        .iter()
        .filter_map(|p| Some(p.load.tls?.certificate.title()))
    {
        if !kinds.contains(&title) {
            kinds.push(title);
        }
    }
    match kinds.as_slice() {
        [one] => format!("certificate {one}"),
        _ => format!("certificates {} in the RSA columns", kinds.join(", ")),
    }
}

/// The first column's figure, to sort by: cheapest first, those without one last.
fn cheapest(planned: &[Planned], line: &Line) -> f64 {
    match line.figures(planned).first() {
        Some((_, Shown::Us { us, .. }, _)) => *us,
        _ => f64::INFINITY,
    }
}

/// The contestant, a column per figure (the clear-text request followed by what TLS
/// adds), the share of the TLS ceiling when the capacity's cell has it, and the notes.
/// `top` is the capacity's column and the ceiling's row there.
fn columns<'c, 'a: 'c>(
    planned: &'c [Planned],
    top: Option<(usize, &'c Row<'a>)>,
) -> Vec<Column<'c, Line<'c, 'a>>> {
    let mut out = vec![Column::name("contestant", |l: &Line| l.contestant.into())];
    for (i, p) in planned.iter().enumerate() {
        let column = Column::number(p.figure.header(), move |l: &Line| cell(p.figure, l.rows[i]));
        out.push(column.meaning(p.meaning()));
        if let Some(tls) = p.paired_with(planned) {
            let more = move |l: &Line| {
                let shown = |j: usize| Shown::of(planned[j].figure, l.rows[j]);
                added(shown(tls), shown(i)).unwrap_or_default()
            };
            out.push(Column::number("+ per request for TLS", more).meaning(
                "+ per request for TLS: the request over TLS minus the one in clear text",
            ));
        }
    }
    if let Some((i, top)) = top {
        let percent =
            move |l: &Line| l.rows[i].map_or(String::new(), |r| ceiling::percent_of(r, top));
        out.push(Column::number("% of TLS ceiling", percent).meaning(format!(
            "% of TLS ceiling: keep-alive req/s over TLS in percent of {TLS_CEILING}'s, the \
             cheapest TLS server this machine allows"
        )));
    }
    out.push(Column::name("notes", move |l: &Line| notes(planned, l)));
    out
}

/// A figure's cell: the capacity's requests/s as the other tables show it, else the CPU
/// figure; `-` when nothing measured it.
fn cell(figure: Figure, row: Option<&Row>) -> String {
    match (figure, row) {
        (Figure::Capacity, Some(row)) => row.rps_or_bound_text(),
        _ => Shown::of(figure, row).cell(figure),
    }
}

/// Why figures are missing (each reason once, after the columns it left blank), and how
/// many new clients resumed where not all did.
fn notes(planned: &[Planned], line: &Line) -> String {
    let mut why: Vec<(String, Vec<&str>)> = Vec::new();
    for (p, row) in planned.iter().zip(&line.rows) {
        let missing = cell(p.figure, *row) == "-";
        let Some(text) = row
            .filter(|_| missing)
            .map(why_not_counted)
            .filter(|t| !t.is_empty())
        else {
            continue;
        };
        match why.iter_mut().find(|(t, _)| *t == text) {
            Some((_, columns)) => columns.push(p.figure.header()),
            None => why.push((text, vec![p.figure.header()])),
        }
    }
    let partly = (planned.iter().zip(&line.rows))
        .filter(|(p, _)| p.figure.resumes())
        .filter_map(|(p, row)| Some((p, resumed_share((*row)?)?)))
        .filter(|(_, share)| *share > 0.0 && *share < 0.99)
        .map(|(p, share)| {
            format!(
                "{}: {:.0}% of new clients resumed",
                p.figure.header(),
                share * 100.0
            )
        });
    (why.into_iter())
        .map(|(text, columns)| format!("{}: {text}", columns.join(", ")))
        .chain(partly)
        .collect::<Vec<String>>()
        .join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixture::{disturb, tls_document};

    fn table_of(runs: &[RunRecord]) -> Table {
        let d = tls_document();
        let mut t = tables(d.experiment.plan.as_ref().unwrap(), runs);
        assert_eq!(t.len(), 1, "one endpoint, one layout");
        t.remove(0)
    }

    /// The row of `contestant`, by column header.
    fn row<'t>(t: &'t Table, contestant: &str) -> Vec<(&'t str, &'t str)> {
        let cells = t.rows.iter().find(|r| r[0] == contestant).unwrap();
        t.headers
            .iter()
            .map(String::as_str)
            .zip(cells.iter().map(String::as_str))
            .collect()
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
        let mut runs = tls_document().runs;
        for r in runs.iter_mut().filter(|r| {
            r.coordinates.contestant == "nginx-static" && r.coordinates.load == "new client"
        }) {
            disturb(r, 0.2);
        }
        let t = table_of(&runs);
        assert_eq!(
            row(&t, "nginx-static")[1],
            ("per new client: full handshake", "310†")
        );
        assert!(t.notes[0].contains("† no run counts"));
    }

    #[test]
    fn an_experiment_without_tls_has_no_such_table_and_the_page_shows_it_when_it_has() {
        let d = tls_document();
        let mut clear = d.experiment.plan.clone().unwrap();
        clear.loads.retain(|l| l.tls.is_none());
        assert!(tables(&clear, &d.runs).is_empty());
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
