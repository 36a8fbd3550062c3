//! An experiment's own comparison tables (`[[table]]`), checked once: each column names a
//! load (at one of its stream counts), and may name an endpoint and layout, of the
//! experiment; a baseline or an order names another column. Stored with the plan, so the
//! report draws them (`report::declared`) without reading the file again.

use super::error::{under, FieldError, FieldProblem, Segment};
use super::file::{ColumnFile, TableFile};
pub use super::file::{TableAgainst, TableMeasure};
use super::layout::Layout;
use super::{Load, LoadPace};
use crate::model::endpoint::Endpoint;
use serde::{Deserialize, Serialize};

/// A `[[table]]`, checked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Table {
    pub title: String,
    pub columns: Vec<TableColumn>,
    /// The column the rows are ordered by.
    pub order: usize,
    /// The columns drawn on the page, a bar chart each.
    #[serde(default)]
    pub charts: Vec<usize>,
}

/// A column of a `[[table]]`, checked: a load of the experiment, at its first level and
/// schedule.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TableColumn {
    pub header: String,
    pub load: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layout: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub streams: Option<usize>,
    pub measure: TableMeasure,
    /// The column its figure is set against (its place among the columns), and how.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<(usize, TableAgainst)>,
}

/// What the columns may name.
pub(super) struct Names<'e> {
    pub loads: &'e [Load],
    pub endpoints: &'e [Endpoint],
    pub layouts: &'e [Layout],
}

/// Every `[[table]]` of the file, checked against the experiment's `names`.
pub(super) fn check(tables: &[TableFile], names: &Names) -> Result<Vec<Table>, FieldError> {
    (tables.iter())
        .map(|t| check_one(t, names).map_err(under(Segment::Table(t.title.clone()))))
        .collect()
}

fn check_one(t: &TableFile, names: &Names) -> Result<Table, FieldError> {
    if t.columns.is_empty() {
        return Err(FieldProblem::Empty.at("columns"));
    }
    let place = |header: &str| {
        (t.columns.iter().position(|c| c.header == header)).ok_or_else(|| unknown("column", header))
    };
    let columns: Vec<TableColumn> = (t.columns.iter().enumerate())
        .map(|(i, c)| {
            if place(&c.header)? != i {
                return Err(FieldProblem::SameHeader(c.header.clone()));
            }
            let baseline = c.baseline.as_deref().map(place).transpose()?;
            column(c, names, baseline)
        })
        .collect::<Result<_, _>>()
        .map_err(|p| p.at("columns"))?;
    for c in &columns {
        per_connection(c, &columns, names.loads).map_err(|p| p.at("columns"))?;
    }
    let order = (t.order.as_deref().map(place).transpose())
        .map_err(|p| p.at("order"))?
        .unwrap_or(0);
    let charts = match &t.charts {
        Some(headers) => (headers.iter().map(|h| place(h)))
            .collect::<Result<_, _>>()
            .map_err(|p| p.at("charts"))?,
        None => vec![order],
    };
    Ok(Table {
        title: t.title.clone(),
        columns,
        order,
        charts,
    })
}

/// Column `c`, its names checked; `baseline` the place of the column it names.
fn column(
    c: &ColumnFile,
    names: &Names,
    baseline: Option<usize>,
) -> Result<TableColumn, FieldProblem> {
    let load =
        (names.loads.iter().find(|l| l.name == c.load)).ok_or_else(|| unknown("load", &c.load))?;
    let streams = load.http2.as_ref().map_or(&[][..], |h2| &h2.streams[..]);
    if let Some(n) = c.streams.filter(|n| !streams.contains(n)) {
        return Err(unknown("stream count", &n.to_string()));
    }
    if let Some(e) = c
        .endpoint
        .as_ref()
        .filter(|e| !names.endpoints.iter().any(|x| x.name == **e))
    {
        return Err(unknown("endpoint", e));
    }
    if let Some(l) = c
        .layout
        .as_ref()
        .filter(|l| !names.layouts.iter().any(|x| x.name == **l))
    {
        return Err(unknown("layout", l));
    }
    let cpu = matches!(c.measure, TableMeasure::Cpu | TableMeasure::CpuPerMb);
    if cpu && !matches!(load.pace, LoadPace::Rates(_)) {
        return Err(FieldProblem::CpuWithoutRate(c.load.clone()));
    }
    Ok(TableColumn {
        header: c.header.clone(),
        load: c.load.clone(),
        endpoint: c.endpoint.clone(),
        layout: c.layout.clone(),
        streams: c.streams.or(streams.first().copied()),
        measure: c.measure,
        baseline: baseline.map(|b| (b, c.against)),
    })
}

/// A column set against its baseline `per-connection`: both measure memory, and its load
/// holds more connections than the baseline's (at their first levels, which they take).
fn per_connection(
    c: &TableColumn,
    all: &[TableColumn],
    loads: &[Load],
) -> Result<(), FieldProblem> {
    let Some((k, TableAgainst::PerConnection)) = c.baseline else {
        return Ok(());
    };
    let base = &all[k];
    if c.measure != TableMeasure::Rss || base.measure != TableMeasure::Rss {
        return Err(FieldProblem::PerConnection(
            "give both columns measure = \"rss\"",
        ));
    }
    let first = |name: &str| {
        (loads.iter().find(|l| l.name == name)).and_then(|l| l.levels.first().copied())
    };
    match (first(&c.load), first(&base.load)) {
        (Some(n), Some(b)) if n > b => Ok(()),
        _ => Err(FieldProblem::PerConnection(
            "the baseline's load has as many connections or more",
        )),
    }
}

fn unknown(what: &'static str, name: &str) -> FieldProblem {
    FieldProblem::Unknown {
        what,
        name: name.to_string(),
    }
}
