//! `shootout load URL --capacity EXPR`: a search for the highest rate that meets every
//! objective, each step shown as it is judged, the answer printed and gated.

use shootout::model::capacity::{CapacityResult, SCHEMA};

/// The search as `--json` and `--out` write it: schema shootout.capacity/1.
pub fn json(c: &CapacityResult) -> serde_json::Value {
    let mut value = serde_json::to_value(c).unwrap_or_default();
    if let Some(map) = value.as_object_mut() {
        map.insert("schema".into(), SCHEMA.into());
    }
    value
}
