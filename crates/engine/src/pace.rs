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
