//! An experiment's own table (`[[table]]` in its file, stored with its plan) as a
//! declaration: each column the cell its load gives at its first level and schedule,
//! figures set against their baseline in the cell, rows by the order column, and a
//! sentence per row of each comparison.

use super::column::{Against, Baseline, Column, Digits, Measure, Reference, Shown, Take};
use super::sentence::{Clause, Sentence, Worded};
use super::{Declared, Mark, Order};
use crate::experiment::{Table, TableAgainst, TableColumn, TableMeasure};
use crate::store::Plan;

impl Declared {
    /// `table`, an experiment's own, over the loads of `plan`.
    pub fn of_table(table: &Table, plan: &Plan) -> Declared {
        let columns: Vec<Column> = (table.columns.iter())
            .map(|c| column(c, table, plan))
            .collect();
        let compared = (table.columns.iter().enumerate())
            .filter_map(|(i, c)| Some((i, c, &table.columns[c.baseline?.0])))
            .map(|(i, c, base)| Worded::new(i, format!("{} against {}", c.header, base.header)));
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
            sentence: Sentence {
                verb: None,
                clauses: vec![Clause::Changes {
                    each: compared.collect(),
                    unit: String::new(),
                    or_figure: None,
                }],
                share: None,
            },
            chart: Some(table.order),
            negotiated: None,
        }
    }
}

/// Column `c` of `table`: its load's first cell in `plan` (its endpoint and layout when
/// it names them).
fn column(c: &TableColumn, table: &Table, plan: &Plan) -> Column {
    let load = plan.loads.iter().find(|l| l.name == c.load);
    let take = Take {
        endpoint: c.endpoint.clone(),
        layout: c.layout.clone(),
        ..load.map_or_else(|| Take::named(&c.load), |l| Take::first_of(l, c.streams))
    };
    let (measure, digits, what) = match c.measure {
        TableMeasure::Rps => (Measure::Rps, Digits::Whole, "requests/s"),
        TableMeasure::Cpu => (Measure::CpuUs, Digits::Tenths, "server CPU µs per response"),
    };
    let baseline = c.baseline.map(|(k, how)| Baseline {
        of: Reference::Column(k),
        against: match how {
            TableAgainst::Percent => Against::Percent,
            TableAgainst::Difference => Against::Difference,
        },
        shown: Shown::InCell,
    });
    let then = match c.baseline {
        Some((k, TableAgainst::Percent)) => {
            format!(" (in percent of {}'s)", table.columns[k].header)
        }
        Some((k, TableAgainst::Difference)) => {
            format!(" (and what it adds to {}'s)", table.columns[k].header)
        }
        None => String::new(),
    };
    let at = c
        .endpoint
        .as_ref()
        .map_or(String::new(), |e| format!(" of /{e}"));
    Column {
        header: c.header.clone(),
        meaning: take.meaning(&c.header, &format!("{what}{at}"), &then),
        take,
        measure,
        digits,
        baseline,
        resumption: false,
    }
}

#[cfg(test)]
mod tests {
    use crate::experiment::{Table, TableAgainst, TableColumn, TableMeasure};
    use crate::report::fixture::{row, tls_document};

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
        assert!(t
            .notes
            .contains(&"nginx-static +6.0 TLS against clear".to_string()));
        let page = crate::report::page::html::page(&[d]);
        assert!(page.contains("<caption>My server over TLS — /hello, layout split"));
        assert!(page.contains("id=\"my-server-over-tls-tls-hello-layout-split\""));
    }
}
