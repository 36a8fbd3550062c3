//! Which run of the matrix a record is.

/// Where one run sits: its contestant, its cell (endpoint × layout × load × connections ×
/// streams; the cell is `experiment::MatrixCell` as run, `CellKey` as reported) and which
/// repeat; the names as the experiment gave them.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RunCoordinates {
    pub contestant: String,
    pub endpoint: String,
    pub layout: String,
    pub load: String,
    /// Connections of a closed or open loop; the peak device count of a ramp.
    pub connections: usize,
    /// HTTP/2 streams in flight per connection; None over HTTP/1.x (and in records made
    /// before HTTP/2). A load is one protocol, so the load's name tells HTTP/1.x from
    /// HTTP/2 too; this tells its stream counts apart.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub streams: Option<usize>,
    /// From 0.
    pub repeat: usize,
}

impl RunCoordinates {
    /// ` streams=10` over HTTP/2 (as `shootout load --streams`), nothing over HTTP/1.x: what
    /// follows `c=50` where a run is named in one line.
    pub fn streams_text(&self) -> String {
        self.streams
            .map_or(String::new(), |n| format!(" streams={n}"))
    }
}
