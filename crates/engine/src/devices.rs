//! Device loads (the Stressgrid shape): devices arrive and leave along stages; each keeps
//! one connection and runs a script of requests separated by a jittered think time.
//!
//! Devices are the loop's connection slots. A device's next request is a timer in one
//! heap per loop, so thousands of idle devices cost nothing until they are due. A device
//! that leaves frees its slot once its connection is closed: at once over HTTP, after the
//! close handshake over WebSocket (a message is a request here, and a device's
//! connection is its WebSocket).

use crate::schedule::RateSchedule;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::Duration;

/// What every device does, and how many devices there are over time.
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceScript {
    /// Device count over time: piecewise linear, as the `--rate` stages.
    pub count: RateSchedule,
    /// Requests each device sends before it leaves (and, if still wanted, is replaced).
    pub requests: u32,
    /// Mean time between a response (or failure) and the device's next request.
    pub think: Duration,
    /// Uniform jitter of the think time, as a fraction (0.05 = ±5%).
    pub jitter: f64,
}

/// One device: its place in its script and its timer.
#[derive(Debug, Clone, Copy, Default)]
struct Device {
    active: bool,
    /// Gone from the count, its connection still closing: the slot is not free yet.
    leaving: bool,
    /// Requests of the script still to start.
    left: u32,
    /// Bumped when the device leaves, so its old timers are ignored.
    epoch: u32,
    /// A request came due (intended time) and waits for the connection.
    due: Option<u64>,
    timer_set: bool,
}

/// What the loop should do for a device whose connection is free.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// Start a request meant for this instant.
    Send(u64),
    /// Nothing now: a timer is set, or a request is under way.
    Wait,
    /// The script is done or the device is no longer wanted: close and free the slot.
    Leave,
}

/// The devices of one loop.
#[derive(Debug)]
pub struct Fleet {
    script: DeviceScript,
    devices: Vec<Device>,
    free: Vec<usize>,
    timers: BinaryHeap<Reverse<(u64, usize, u32)>>,
    active: usize,
    /// This loop's devices are those numbered `offset`, `offset + stride`, ...
    offset: u64,
    stride: u64,
    rng: u64,
}

impl Fleet {
    /// The devices `offset`, `offset + stride`, ... of `script`, in `slots` slots.
    pub fn new(script: &DeviceScript, slots: usize, offset: u64, stride: u64) -> Fleet {
        Fleet {
            script: script.clone(),
            devices: vec![Device::default(); slots],
            free: (0..slots).rev().collect(),
            timers: BinaryHeap::with_capacity(slots),
            active: 0,
            offset,
            stride: stride.max(1),
            rng: 0x9E37_79B9_7F4A_7C15 ^ (offset + 1).wrapping_mul(0xBF58_476D_1CE4_E5B9),
        }
    }

    /// Slots a loop needs for its share of a script's peak.
    pub fn slots_for(script: &DeviceScript, offset: u64, stride: u64) -> usize {
        share(script.count.peak().floor() as u64, offset, stride.max(1)) as usize
    }

    /// Devices this loop should have active at `now`.
    pub fn wanted(&self, now: u64) -> usize {
        share(
            self.script.count.value_at(now).floor() as u64,
            self.offset,
            self.stride,
        ) as usize
    }

    /// Active devices.
    pub fn active(&self) -> usize {
        self.active
    }

    /// Brings in a new device if fewer than wanted are active; returns its slot.
    pub fn arrive(&mut self, now: u64) -> Option<usize> {
        if self.active >= self.wanted(now) {
            return None;
        }
        let slot = self.free.pop()?;
        let d = &mut self.devices[slot];
        *d = Device {
            active: true,
            leaving: false,
            left: self.script.requests,
            epoch: d.epoch.wrapping_add(1),
            due: Some(now),
            timer_set: false,
        };
        self.active += 1;
        Some(slot)
    }

    /// The device on `slot` has left: it no longer counts, and its slot is free once
    /// [`Fleet::vacate`] says its connection is closed.
    pub fn leave(&mut self, slot: usize) {
        let d = &mut self.devices[slot];
        if d.active {
            d.active = false;
            d.leaving = true;
            d.epoch = d.epoch.wrapping_add(1);
            self.active -= 1;
        }
    }

    /// The connection of the device that left `slot` is closed: the slot is free again.
    /// Nothing for a slot with no device leaving.
    pub fn vacate(&mut self, slot: usize) {
        let d = &mut self.devices[slot];
        if d.leaving {
            d.leaving = false;
            self.free.push(slot);
        }
    }

    /// True when `slot` holds an active device.
    pub fn is_active(&self, slot: usize) -> bool {
        self.devices[slot].active
    }

    /// The device on `slot` has a free connection with nothing pending at `now`.
    pub fn next(&mut self, slot: usize, now: u64) -> Next {
        let d = &mut self.devices[slot];
        if !d.active {
            return Next::Wait;
        }
        if let Some(due) = d.due.take() {
            d.left -= 1;
            return Next::Send(due);
        }
        if d.timer_set {
            return Next::Wait;
        }
        if d.left == 0 {
            return Next::Leave;
        }
        let at = now + self.think();
        let epoch = self.devices[slot].epoch;
        self.devices[slot].timer_set = true;
        self.timers.push(Reverse((at, slot, epoch)));
        Next::Wait
    }

    /// When the earliest timer is due.
    pub fn next_timer(&self) -> Option<u64> {
        self.timers.peek().map(|Reverse((t, _, _))| *t)
    }

    /// Pops a timer due by `now`: the slot whose device has a request due, or must
    /// leave because fewer devices are wanted (`Err`).
    pub fn fire(&mut self, now: u64) -> Option<Result<usize, usize>> {
        loop {
            let &Reverse((at, slot, epoch)) = self.timers.peek()?;
            if at > now {
                return None;
            }
            self.timers.pop();
            let d = &mut self.devices[slot];
            if !d.active || d.epoch != epoch {
                continue;
            }
            d.timer_set = false;
            if self.active > self.wanted(now) {
                return Some(Err(slot));
            }
            self.devices[slot].due = Some(at);
            return Some(Ok(slot));
        }
    }

    /// A think time with uniform jitter, in nanoseconds.
    fn think(&mut self) -> u64 {
        // xorshift64*: cheap, and good enough to spread devices apart.
        self.rng ^= self.rng >> 12;
        self.rng ^= self.rng << 25;
        self.rng ^= self.rng >> 27;
        let u = (self.rng.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64;
        let factor = 1.0 + self.script.jitter * (2.0 * u - 1.0);
        (self.script.think.as_nanos() as f64 * factor).max(0.0) as u64
    }
}

/// How many of devices `0..total` are numbered `offset + k * stride`.
fn share(total: u64, offset: u64, stride: u64) -> u64 {
    if total <= offset {
        return 0;
    }
    (total - offset).div_ceil(stride)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn script(count: &str) -> DeviceScript {
        DeviceScript {
            count: RateSchedule::parse_device_count(count).unwrap(),
            requests: 2,
            think: Duration::from_millis(100),
            jitter: 0.05,
        }
    }

    #[test]
    fn shares_cover_every_device_once() {
        let total: u64 = (0..3).map(|o| share(10, o, 3)).sum();
        assert_eq!(total, 10);
        assert_eq!(share(2, 3, 4), 0);
    }

    #[test]
    fn devices_arrive_up_to_the_wanted_count_and_run_their_script() {
        let s = script("4");
        let mut f = Fleet::new(&s, Fleet::slots_for(&s, 0, 1), 0, 1);
        let slots: Vec<usize> = std::iter::from_fn(|| f.arrive(0)).collect();
        assert_eq!(slots.len(), 4);
        assert_eq!(f.next(slots[0], 0), Next::Send(0));
        assert_eq!(f.next(slots[0], 10), Next::Wait);
        let t = f.next_timer().unwrap();
        assert!((95_000_010..=105_000_010).contains(&t), "{t}");
        assert_eq!(f.fire(t), Some(Ok(slots[0])));
        assert_eq!(f.next(slots[0], t), Next::Send(t));
        assert_eq!(f.next(slots[0], t + 1), Next::Leave);
        f.leave(slots[0]);
        assert_eq!(f.active(), 3);
        // Its connection is still closing: the slot waits, and no other is free.
        assert_eq!(f.arrive(t + 2), None);
        f.vacate(slots[0]);
        f.vacate(slots[0]);
        assert_eq!(f.arrive(t + 2), Some(slots[0]));
        assert_eq!(f.arrive(t + 2), None, "the slot was freed once");
    }

    #[test]
    fn devices_leave_at_their_timer_when_fewer_are_wanted() {
        let s = script("2:0s,0:1s");
        let mut f = Fleet::new(&s, 2, 0, 1);
        let a = f.arrive(0).unwrap();
        assert_eq!(f.next(a, 0), Next::Send(0));
        assert_eq!(f.next(a, 1), Next::Wait);
        let t = f.next_timer().unwrap().max(900_000_000);
        assert_eq!(f.fire(t + 200_000_000), Some(Err(a)));
    }
}
