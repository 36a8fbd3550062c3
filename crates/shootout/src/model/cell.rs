//! Which run of the matrix a record is.

/// One contestant × endpoint × layout × load × connections, and which repeat: the names
/// as the experiment gave them.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Cell {
    pub contestant: String,
    pub endpoint: String,
    pub layout: String,
    pub load: String,
    /// Connections of a closed or open loop; the peak device count of a ramp.
    pub connections: usize,
    /// From 0.
    pub repeat: usize,
}
