//! What identifies a cell of the matrix in the report: the runs of every contestant
//! that share it are compared.

use crate::model::RunRecord;

/// What identifies a cell: endpoint, layout, load, connections, rate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CellKey {
    pub endpoint: String,
    pub layout: String,
    pub load: String,
    pub connections: usize,
    pub rate: Option<String>,
}

impl CellKey {
    /// The cell `r` belongs to.
    pub fn of(r: &RunRecord) -> CellKey {
        CellKey {
            endpoint: r.coordinates.endpoint.clone(),
            layout: r.coordinates.layout.clone(),
            load: r.coordinates.load.clone(),
            connections: r.coordinates.connections,
            rate: r.rate().map(str::to_string),
        }
    }

    /// `/hello, layout split, keep-alive, 50 connections[, rate R/s]`.
    pub fn title(&self) -> String {
        let rate = self
            .rate
            .as_ref()
            .map(|r| format!(", rate {r}/s"))
            .unwrap_or_default();
        format!(
            "/{}, layout {}, {}, {} connections{rate}",
            self.endpoint, self.layout, self.load, self.connections
        )
    }
}
