//! Which run of the matrix a record is.

/// Where one run sits: its contestant, its cell (endpoint × layout × load × connections;
/// the cell is `experiment::MatrixCell` as run, `CellKey` as reported) and which repeat;
/// the names as the experiment gave them.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RunCoordinates {
    pub contestant: String,
    pub endpoint: String,
    pub layout: String,
    pub load: String,
    /// Connections of a closed or open loop; the peak device count of a ramp.
    pub connections: usize,
    /// From 0.
    pub repeat: usize,
}
