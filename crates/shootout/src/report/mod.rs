//! Printing results: the layouts of the tools and articles shootout stands in for.

pub mod ab;
pub mod cells;
pub mod chart;
pub mod charts;
pub mod comparison;
pub mod document;
#[cfg(test)]
pub(crate) mod fixture;
pub mod html;
pub mod matrix;
pub mod ramp;
pub mod servers;
pub mod significance;
pub mod spread;
pub mod summary;
pub mod table;
pub mod units;
pub mod webbench;
pub mod wrk;
