//! What identifies a cell of the matrix in the report: the runs of every contestant
//! that share it are compared.

use crate::model::RunRecord;

/// What identifies a cell: endpoint, layout, load, connections, HTTP/2 streams, rate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CellKey {
    pub endpoint: String,
    pub layout: String,
    pub load: String,
    pub connections: usize,
    /// HTTP/2 streams per connection; None over HTTP/1.x.
    pub streams: Option<usize>,
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
            streams: r.coordinates.streams,
            rate: r.rate().map(str::to_string),
        }
    }

    /// `/hello, layout split, keep-alive, 50 connections[ × 10 streams][, rate R/s]`.
    pub fn title(&self) -> String {
        let rate = self
            .rate
            .as_ref()
            .map(|r| format!(", rate {r}/s"))
            .unwrap_or_default();
        format!(
            "/{}, layout {}, {}, {}{rate}",
            self.endpoint,
            self.layout,
            self.load,
            self.connections_text()
        )
    }

    /// `50 connections`, or over HTTP/2 `50 connections × 10 streams`.
    pub fn connections_text(&self) -> String {
        let streams = (self.streams)
            .map(|n| format!(" × {n} stream{}", if n == 1 { "" } else { "s" }))
            .unwrap_or_default();
        format!("{} connections{streams}", self.connections)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_over_http2_names_its_streams() {
        let mut k = CellKey {
            endpoint: "hello".into(),
            layout: "split".into(),
            load: "h2c".into(),
            connections: 50,
            streams: None,
            rate: Some("5000".into()),
        };
        assert_eq!(
            k.title(),
            "/hello, layout split, h2c, 50 connections, rate 5000/s"
        );
        k.streams = Some(10);
        assert_eq!(
            k.title(),
            "/hello, layout split, h2c, 50 connections × 10 streams, rate 5000/s"
        );
        k.streams = Some(1);
        assert_eq!(k.connections_text(), "50 connections × 1 stream");
    }
}
