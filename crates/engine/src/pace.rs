//! How a load sends: closed loop, open loop, or devices.

use crate::{DeviceScript, RateSchedule};

/// The pace of a load: one of three, never a mix.
#[derive(Debug, Clone, PartialEq)]
pub enum Pace {
    /// Each connection sends its next request when the previous response arrives.
    Closed,
    /// Requests leave on a schedule, whatever the responses do (latency is measured
    /// from the intended send time).
    Open(RateSchedule),
    /// Devices arrive along stages, each running a script of requests and think times.
    Devices(DeviceScript),
}

impl Pace {
    /// The open loop's schedule.
    pub fn schedule(&self) -> Option<&RateSchedule> {
        match self {
            Pace::Open(schedule) => Some(schedule),
            _ => None,
        }
    }

    /// The device script.
    pub fn devices(&self) -> Option<&DeviceScript> {
        match self {
            Pace::Devices(script) => Some(script),
            _ => None,
        }
    }

    /// How long its stages last (zero for a closed loop or a constant rate).
    pub fn staged(&self) -> std::time::Duration {
        match self {
            Pace::Closed => std::time::Duration::ZERO,
            Pace::Open(schedule) => schedule.duration(),
            Pace::Devices(script) => script.count.duration(),
        }
    }
}
