//! An experiment's own table (`[[table]]` in its file, stored with its plan) as a
//! declaration: each column the cell its load gives at its first level and schedule,
//! figures set against their baseline in the cell, rows by the order column, and a
//! sentence per row of each comparison.

use super::column::{Against, Baseline, Column, Digits, Measure, Reference, Shown, Take};
use super::sentence::{Clause, Sentence, Worded};
use super::{Declared, Mark, Order};
use crate::experiment::{Table, TableAgainst, TableColumn, TableMeasure};
use crate::model::endpoint::Builtin;
use crate::store::Plan;

impl Declared {
    /// `table`, an experiment's own, over the loads of `plan`.
    pub fn of_table(table: &Table, plan: &Plan) -> Declared {
        let columns: Vec<Column> = (table.columns.iter())
            .map(|c| column(c, table, plan))
            .collect();
        let highest_first = columns
            .get(table.order)
            .is_some_and(|c| c.measure == Measure::Rps);
        Declared {
            title: table.title.clone(),
            columns,
            order: Order {
                column: table.order,
                highest_first,
            },
            marks: vec![Mark::LowerBound, Mark::GeneratorBound, Mark::Disturbed],
            sentence: sentence(table, Answer::of(plan)),
            // A table stored before it could name its charts drew its order column.
            charts: match table.charts.is_empty() {
                true => vec![table.order],
                false => table.charts.clone(),
            },
            negotiated: None,
        }
    }
}

/// What a table's CPU figures are per: a response, or over the WebSocket endpoint (the
/// only one of an experiment that loads it) an echoed message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Answer {
    Response,
    Message,
}

impl Answer {
    fn of(plan: &Plan) -> Answer {
        let websocket = Builtin::WebSocket.name();
        match plan.endpoints.iter().all(|e| e == websocket) && !plan.endpoints.is_empty() {
            true => Answer::Message,
            false => Answer::Response,
        }
    }
}

/// Each comparison, then each other figure but the order column's: `2.1× json against
/// hello; 41.3 µs per MB for 2 MB upload`.
fn sentence(table: &Table, answer: Answer) -> Sentence {
    let compared = (table.columns.iter().enumerate())
        .filter_map(|(i, c)| Some((i, c, &table.columns[c.baseline?.0])))
        .map(|(i, c, base)| Worded::new(i, format!("{} against {}", c.header, base.header)));
    let mut clauses = vec![Clause::Changes {
        each: compared.collect(),
        unit: String::new(),
        or_figure: None,
    }];
    let alone = (table.columns.iter().enumerate())
        .filter(|(i, c)| c.baseline.is_none() && *i != table.order)
        .map(|(i, c)| Clause::Figures {
            each: vec![Worded::new(i, format!("for {}", c.header))],
            unit: unit(c.measure, answer).into(),
            unmeasured: String::new(),
        });
    clauses.extend(alone);
    Sentence {
        verb: None,
        clauses,
        share: None,
    }
}

/// A measure's unit as a sentence says it, per `answer`.
fn unit(measure: TableMeasure, answer: Answer) -> &'static str {
    match (measure, answer) {
        (TableMeasure::Cpu, Answer::Message) => "µs CPU per message",
        _ => what(measure).2,
    }
}

/// A measure's figure, its digits, and its unit as a sentence says it.
fn what(measure: TableMeasure) -> (Measure, Digits, &'static str) {
    match measure {
        TableMeasure::Rps => (Measure::Rps, Digits::Whole, "requests/s"),
        TableMeasure::Cpu => (Measure::CpuUs, Digits::Tenths, "µs CPU per response"),
        TableMeasure::CpuPerMb => (Measure::CpuUsPerMb, Digits::Tenths, "µs CPU per MB"),
        TableMeasure::Rss => (Measure::RssKib, Digits::Whole, "KiB of peak RSS"),
    }
}

/// The cell column `c` takes in `plan`: its load's first (its endpoint and layout when
/// it names them).
fn take(c: &TableColumn, plan: &Plan) -> Take {
    let load = plan.loads.iter().find(|l| l.name == c.load);
    Take {
        endpoint: c.endpoint.clone(),
        layout: c.layout.clone(),
        ..load.map_or_else(|| Take::named(&c.load), |l| Take::first_of(l, c.streams))
    }
}

/// Column `c` of `table`: its load's first cell in `plan` (its endpoint and layout when
/// it names them).
fn column(c: &TableColumn, table: &Table, plan: &Plan) -> Column {
    let take = take(c, plan);
    let (measure, digits, _) = what(c.measure);
    let meant = match c.measure {
        TableMeasure::Rps => "requests/s",
        TableMeasure::Cpu => "server CPU µs per response",
        TableMeasure::CpuPerMb => "server CPU µs per MB moved (request and response bytes)",
        TableMeasure::Rss => "server peak RSS, KiB",
    };
    let baseline = c.baseline.map(|(k, how)| Baseline {
        of: Reference::Column(k),
        against: match how {
            TableAgainst::Percent => Against::Percent,
            TableAgainst::Difference => Against::Difference,
            TableAgainst::Ratio => Against::Ratio,
            TableAgainst::PerConnection => Against::PerConnection {
                added: (take.connections)
                    .saturating_sub(self::take(&table.columns[k], plan).connections),
            },
        },
        shown: Shown::InCell,
    });
    let then = match c.baseline {
        Some((k, how)) => {
            let base = &table.columns[k].header;
            match how {
                TableAgainst::Percent => format!(" (in percent of {base}'s)"),
                TableAgainst::Difference => format!(" (and what it adds to {base}'s)"),
                TableAgainst::Ratio => format!(" (and how many times {base}'s)"),
                TableAgainst::PerConnection => {
                    format!(" (and what each connection beyond {base}'s adds, bytes)")
                }
            }
        }
        None => String::new(),
    };
    let at = c
        .endpoint
        .as_ref()
        .map_or(String::new(), |e| format!(" of /{e}"));
    Column {
        header: c.header.clone(),
        meaning: take.meaning(&c.header, &format!("{meant}{at}"), &then),
        take,
        measure,
        digits,
        baseline,
        resumption: false,
    }
}

#[cfg(test)]
mod tests {
    use super::{unit, Answer};
    use crate::experiment::{Table, TableAgainst, TableColumn, TableMeasure};
    use crate::report::fixture::{row, tls_document};

    #[test]
    fn cpu_over_the_websocket_endpoint_is_said_per_message() {
        let mut d = tls_document();
        let plan = d.experiment.plan.as_mut().unwrap();
        assert_eq!(
            unit(TableMeasure::Cpu, Answer::of(plan)),
            "µs CPU per response"
        );
        plan.endpoints = vec!["websocket".into()];
        assert_eq!(
            unit(TableMeasure::Cpu, Answer::of(plan)),
            "µs CPU per message"
        );
        assert_eq!(unit(TableMeasure::Rss, Answer::of(plan)), "KiB of peak RSS");
    }

    fn column(header: &str, load: &str, baseline: Option<usize>) -> TableColumn {
        TableColumn {
            header: header.into(),
            load: load.into(),
            endpoint: None,
            layout: None,
            streams: None,
            measure: TableMeasure::Cpu,
            baseline: baseline.map(|k| (k, TableAgainst::Difference)),
        }
    }

    #[test]
    fn an_experiments_own_table_is_drawn_as_declared() {
        let mut d = tls_document();
        let plan = d.experiment.plan.as_mut().unwrap();
        plan.tables = vec![Table {
            title: "My server over TLS".into(),
            columns: vec![
                column("clear", "requests in clear text", None),
                column("TLS", "requests over TLS", Some(0)),
            ],
            order: 1,
            charts: vec![1],
        }];
        let all = d.tables();
        let t = (all.iter())
            .find(|t| t.title == "My server over TLS — /hello, layout split")
            .expect("the table is drawn");
        assert_eq!(
            row(t, "nginx-static"),
            [
                ("contestant", "nginx-static"),
                ("clear", "22.1"),
                ("TLS", "28.1 (+6.0)"),
                ("notes", ""),
            ]
        );
        let order: Vec<&str> = t.rows.iter().map(|r| r[0].as_str()).collect();
        assert_eq!(
            order,
            ["c-epoll-tls", "nginx-static", "go-nethttp", "py-clear"]
        );
        let said = "nginx-static +6.0 TLS against clear; 22.1 µs CPU per response for clear";
        assert!(t.notes.contains(&said.to_string()), "{:?}", t.notes);
        let page = crate::report::page::html::page(&[d]);
        assert!(page.contains("<caption>My server over TLS — /hello, layout split"));
        assert!(page.contains("id=\"my-server-over-tls-tls-hello-layout-split\""));
    }

    #[test]
    fn a_figure_reads_as_a_multiple_of_its_baseline_and_a_byte_has_its_cost() {
        let mut d = tls_document();
        let plan = d.experiment.plan.as_mut().unwrap();
        let mut times = column("TLS", "requests over TLS", Some(0));
        times.baseline = Some((0, TableAgainst::Ratio));
        let mut per_mb = column("TLS per MB", "requests over TLS", None);
        per_mb.measure = TableMeasure::CpuPerMb;
        plan.tables = vec![Table {
            title: "What a byte costs".into(),
            columns: vec![
                column("clear", "requests in clear text", None),
                times,
                per_mb,
            ],
            order: 0,
            charts: vec![0, 2],
        }];
        let all = d.tables();
        let t = (all.iter())
            .find(|t| t.title.starts_with("What a byte costs"))
            .expect("the table is drawn");
        // 28.1 µs per response of 160 bytes (the made-up runs' 120 read, 40 written).
        assert_eq!(
            row(t, "nginx-static"),
            [
                ("contestant", "nginx-static"),
                ("clear", "22.1"),
                ("TLS", "28.1 (1.3×)"),
                ("TLS per MB", "175625.0"),
                ("notes", ""),
            ]
        );
        let said = "nginx-static 1.3× TLS against clear; 175625.0 µs CPU per MB for TLS per MB";
        assert!(t.notes.contains(&said.to_string()), "{:?}", t.notes);
        let page = crate::report::page::html::page(&[d]);
        let charts = page.matches("<svg class=\"chart\"").count();
        assert!(page.contains("<title>TLS per MB — /hello, layout split</title>"));
        assert!(charts >= 2, "{charts} charts");
    }
}
