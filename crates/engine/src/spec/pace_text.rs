//! The pace as data: `"closed"`, `{"rate": "1000:10s,5000:30s"}` or
//! `{"devices": {"stages": "0,150:3s", "requests": 100, "think": "900ms", "jitter": 0.05}}`;
//! schedules in the text `--rate` and `--devices` read, checked as they are read.

use super::{defaults, duration_text};
use crate::{DeviceScript, Pace, RateSchedule};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::time::Duration;

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
enum PaceText {
    Closed,
    Rate(String),
    Devices(DevicesText),
}

/// A device script; every field but the stages has its default.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct DevicesText {
    stages: String,
    #[serde(default = "defaults::device_requests")]
    requests: u32,
    #[serde(default = "defaults::think", with = "duration_text")]
    think: Duration,
    #[serde(default = "defaults::jitter")]
    jitter: f64,
}

pub fn serialize<S: Serializer>(pace: &Pace, s: S) -> Result<S::Ok, S::Error> {
    let text = match pace {
        Pace::Closed => PaceText::Closed,
        Pace::Open(schedule) => PaceText::Rate(schedule.to_string()),
        Pace::Devices(d) => PaceText::Devices(DevicesText {
            stages: d.count.to_string(),
            requests: d.requests,
            think: d.think,
            jitter: d.jitter,
        }),
    };
    text.serialize(s)
}

pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Pace, D::Error> {
    let bad =
        |what: &str, e: crate::ScheduleError| serde::de::Error::custom(format!("{what}: {e}"));
    Ok(match PaceText::deserialize(d)? {
        PaceText::Closed => Pace::Closed,
        PaceText::Rate(text) => Pace::Open(RateSchedule::parse(&text).map_err(|e| bad("rate", e))?),
        PaceText::Devices(t) => Pace::Devices(DeviceScript {
            count: RateSchedule::parse_device_count(&t.stages).map_err(|e| bad("stages", e))?,
            requests: t.requests,
            think: t.think,
            jitter: t.jitter,
        }),
    })
}

/// A device script of `stages` with every other setting at its default.
pub fn default_devices(count: RateSchedule) -> DeviceScript {
    DeviceScript {
        count,
        requests: defaults::device_requests(),
        think: defaults::think(),
        jitter: defaults::jitter(),
    }
}
