//! Printing results: the layouts of the tools and articles shootout stands in for.

pub mod ab;
pub mod cells;
pub mod spread;
pub mod units;
pub mod webbench;
pub mod wrk;
