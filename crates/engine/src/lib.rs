//! The load engine of shootout: share-nothing event loops (io_uring or epoll) that drive
//! HTTP/1.1 connections, frame responses, and account for every request exactly once.
//!
//! It knows nothing of contestants or experiments: give it a [`LoadConfig`], get a
//! [`LoadResult`].

pub mod buf_ring;
pub mod config;
pub mod conn;
pub mod cpu;
pub mod devices;
pub mod duration;
pub mod epoll;
pub mod event_loop;
pub mod hdr_log;
pub mod histcodec;
pub mod ledger;
pub mod limits;
pub mod live;
pub mod merge;
pub mod outcome;
mod pace;
pub mod request;
pub mod response;
pub mod result;
pub mod runner;
pub mod schedule;
pub mod socket;
pub mod stats;
pub mod uring;

pub use config::{ConfigError, IoChoice, LoadConfig, Shard, Stop, Target};
pub use devices::DeviceScript;
pub use live::Live;
pub use merge::{merge, MergeError};
pub use outcome::{Counts, Outcome};
pub use pace::Pace;
pub use result::LoadResult;
pub use runner::{check, run, run_checked, run_watched, CheckedLoad, Io, RunError};
pub use schedule::RateSchedule;
