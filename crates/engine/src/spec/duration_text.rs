//! Durations as users write them (`10s`, `500ms`, `250us`), exact to the microsecond
//! both ways, so that a spec reads back as the same load.

use crate::duration::parse_duration;
use serde::{Deserialize, Deserializer, Serializer};
use std::time::Duration;

/// `10s`, `1500ms` or `1500250us`: the coarsest unit that is exact.
pub fn text(d: Duration) -> String {
    match (d.subsec_nanos(), d.subsec_nanos() % 1_000_000) {
        (0, _) => format!("{}s", d.as_secs()),
        (_, 0) => format!("{}ms", d.as_millis()),
        _ => format!("{}us", d.as_micros()),
    }
}

pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&text(*d))
}

pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
    let t = String::deserialize(d)?;
    parse_duration(&t).map_err(serde::de::Error::custom)
}
