//! What each response of a database endpoint costs, and whose work it is (issue 35): for
//! an experiment with the database the harness owns, a declared table (`report::declared`)
//! per database endpoint and layout, a row per contestant: keep-alive requests/s and p99
//! latency, then CPU µs per response at a fixed rate on each side of the run, the server,
//! postgres and the generator, from the verdict's split of the same samples; so that a
//! reader sees how much of a framework's result is the database's work (`fortunes:
//! go-nethttp spends 41 µs in the server, 63 µs in postgres`). The title says the pool
//! every server had, the place says where postgres ran (`+db:server`, `+db:generator`).

use super::column::{Column, Digits, Measure, Side, Take};
use super::sentence::{Clause, Sentence, Worded};
use super::{Declared, Mark, Order};
use crate::model::endpoint::Endpoint;
use crate::store::{Plan, PlannedLoad};

/// One table per database endpoint of `plan` (none without a database).
pub fn declared(plan: &Plan) -> Vec<Declared> {
    let Some(database) = plan.database else {
        return Vec::new();
    };
    let reads_database = |e: &&String| {
        Endpoint::builtin(e)
            .and_then(|e| e.builtin)
            .is_some_and(|b| b.needs_database())
    };
    (plan.endpoints.iter().filter(reads_database))
        .filter_map(|e| of_endpoint(plan, e, database.pool))
        .collect()
}

/// The table of `endpoint`: its first closed load's figures and its first fixed rate's.
fn of_endpoint(plan: &Plan, endpoint: &str, pool: u32) -> Option<Declared> {
    let first = |kind: &str| (plan.loads.iter()).find(|l| l.kind == kind && l.runs_on(endpoint));
    let mut columns = Vec::new();
    if let Some(closed) = first("closed") {
        let take = at(closed, endpoint);
        columns.push(column(
            &take,
            "req/s",
            "requests/s",
            Measure::Rps,
            Digits::Whole,
        ));
        columns.push(column(
            &take,
            "p99 ms",
            "99% within, ms",
            Measure::P99Ms,
            Digits::Hundredths,
        ));
    }
    let sides = [
        (
            Side::Server,
            "server µs",
            "the server's CPU µs per response",
        ),
        (
            Side::Database,
            "postgres µs",
            "postgres's CPU µs per response",
        ),
        (
            Side::Generator,
            "generator µs",
            "the generator's CPU µs per response",
        ),
    ];
    let at_rate = columns.len();
    if let Some(rate) = first("rate") {
        let take = at(rate, endpoint);
        for (side, header, what) in sides {
            columns.push(column(
                &take,
                header,
                what,
                Measure::SideCpuUs(side),
                Digits::Tenths,
            ));
        }
    }
    if columns.is_empty() {
        return None;
    }
    let words = ["in the server", "in postgres", "in the generator"];
    let each = (at_rate..columns.len())
        .zip(words)
        .map(|(i, w)| Worded::new(i, w));
    Some(Declared {
        title: format!("{endpoint}: what each response costs the server, postgres and the generator (pool {pool} per server)"),
        order: Order {
            column: 0,
            highest_first: columns[0].measure == Measure::Rps,
        },
        marks: vec![Mark::LowerBound, Mark::GeneratorBound, Mark::Disturbed],
        sentence: Sentence {
            verb: Some("spends".into()),
            clauses: vec![Clause::Figures {
                each: each.collect(),
                unit: "µs".into(),
                unmeasured: "has no figure at a fixed rate (see notes)".into(),
            }],
            share: None,
        },
        charts: vec![0],
        columns,
        negotiated: None,
    })
}

/// The first cell of `load` at `endpoint`.
fn at(load: &PlannedLoad, endpoint: &str) -> Take {
    Take {
        endpoint: Some(endpoint.to_string()),
        ..Take::first_of(load, None)
    }
}

fn column(take: &Take, header: &str, what: &str, measure: Measure, digits: Digits) -> Column {
    Column {
        header: header.into(),
        meaning: take.meaning(header, what, ""),
        take: take.clone(),
        measure,
        digits,
        baseline: None,
        resumption: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixture::{load, plan, Settings};
    use crate::store::PlannedDatabase;

    fn database_plan() -> Plan {
        let mut p = plan(
            &["go-nethttp", "rust-hyper"],
            vec![load("keep-alive"), load("at 500/s").rate("500")],
        );
        p.endpoints = vec!["hello".into(), "fortunes".into(), "queries:20".into()];
        p.database = Some(PlannedDatabase {
            pool: 16,
            world_rows: 10_000,
        });
        p
    }

    #[test]
    fn each_database_endpoint_has_a_table_with_each_sides_cpu() {
        let p = database_plan();
        let tables = declared(&p);
        assert_eq!(tables.len(), 2, "fortunes and queries:20, not hello");
        let fortunes = &tables[0];
        assert!(
            fortunes.title.starts_with("fortunes: "),
            "{}",
            fortunes.title
        );
        assert!(
            fortunes.title.contains("pool 16 per server"),
            "{}",
            fortunes.title
        );
        let headers: Vec<&str> = fortunes.columns.iter().map(|c| c.header.as_str()).collect();
        assert_eq!(
            headers,
            [
                "req/s",
                "p99 ms",
                "server µs",
                "postgres µs",
                "generator µs"
            ]
        );
        assert!(fortunes
            .columns
            .iter()
            .all(|c| c.take.endpoint.as_deref() == Some("fortunes")));
        assert_eq!(fortunes.columns[3].take.rate.as_deref(), Some("500"));
        let mut without = p.clone();
        without.database = None;
        assert!(declared(&without).is_empty());
    }
}
