//! A comparison table declared as data (issue 33): a row per contestant, columns of
//! figures each taking one cell of the experiment (a measure of a load, at its streams
//! and rate, at the table's endpoint and layout), a baseline some figures are set
//! against (another column, or the ceiling), the column the rows are ordered by, the
//! marks its figures may carry, the clauses of the sentence said under the table for
//! each row, and the chart drawn beside it on the page. One code path ([`Declared::tables`]
//! and [`Declared::charts`]) draws any declared table; an experiment kind (what TLS
//! costs, what HTTP/2 gains) is a declaration built from its plan, and an experiment
//! file may declare its own (`[[table]]`, `own`).
//!
//! Extensions, each named for what it adds: `resumption` (a TLS column whose clients
//! were asked to resume), `negotiated` (what the TLS runs negotiated, for the caption),
//! `breakdown` (where HTTP/2 broke down, for the sentence).

pub mod breakdown;
pub mod column;
pub mod database_cost;
pub mod drawn;
pub mod figure;
pub mod http2_gain;
pub mod line;
pub mod negotiated;
mod own;
mod resumption;
pub mod sentence;
pub mod tls_cost;

use crate::model::RunRecord;
use crate::report::experiment::ranking;
use crate::report::table::Table;
use crate::store::Plan;
pub use column::{
    cells, Against, Baseline, Column, Digits, Measure, Planned, Reference, Shown, Side, Take,
};
pub use figure::Mark;
pub use sentence::{Clause, Listed, Sentence, Worded};

/// A comparison table as data.
#[derive(Debug, Clone, PartialEq)]
pub struct Declared {
    /// The title, before the place (` — /hello, layout split`).
    pub title: String,
    pub columns: Vec<Column>,
    pub order: Order,
    /// The marks its figures may carry, said in the legend.
    pub marks: Vec<Mark>,
    pub sentence: Sentence,
    /// The columns drawn on the page: a bar chart of each one's figures, a bar per
    /// contestant.
    pub charts: Vec<usize>,
    /// Say in the title what the TLS runs negotiated (`negotiated`): the unit before it
    /// and what follows it (`server CPU µs`, `certificate ECDSA P-256`).
    pub negotiated: Option<(String, String)>,
}

/// How the rows are ordered: by one column's figure, those without one last.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Order {
    pub column: usize,
    /// The highest figure first (requests/s); else the lowest (CPU).
    pub highest_first: bool,
}

impl Declared {
    /// One table per place of `plan` (endpoint and layout; a column that names its own
    /// endpoint or layout takes it there).
    pub fn tables(&self, plan: &Plan, runs: &[RunRecord]) -> Vec<Table> {
        let cells = ranking::cells(runs);
        (self.places(plan).into_iter())
            .map(|place| drawn::Drawn::of(self, &plan.contestants, &cells, place).table())
            .collect()
    }

    /// The endpoints and layouts of `plan` the columns take their cells at.
    pub fn places<'p>(&self, plan: &'p Plan) -> Vec<(&'p str, &'p str)> {
        let open = |fixed: fn(&Take) -> bool| !self.columns.iter().all(|c| fixed(&c.take));
        let endpoints: &[String] = match open(|t| t.endpoint.is_some()) {
            true => &plan.endpoints,
            false => &plan.endpoints[..plan.endpoints.len().min(1)],
        };
        let layouts: &[String] = match open(|t| t.layout.is_some()) {
            true => &plan.layouts,
            false => &plan.layouts[..plan.layouts.len().min(1)],
        };
        (endpoints.iter())
            .flat_map(|e| layouts.iter().map(move |l| (e.as_str(), l.as_str())))
            .collect()
    }
}

/// The comparison tables `plan` declares: what TLS costs each server (loads over TLS),
/// what HTTP/2 gains or costs each server (loads over HTTP/2), what each database
/// endpoint's responses cost each side (with the database the harness owns), and the
/// experiment's own (`[[table]]`).
pub fn of_plan(plan: &Plan) -> Vec<Declared> {
    let own = plan.tables.iter().map(|t| Declared::of_table(t, plan));
    [tls_cost::declared(plan), http2_gain::declared(plan)]
        .into_iter()
        .flatten()
        .chain(database_cost::declared(plan))
        .chain(own)
        .collect()
}
