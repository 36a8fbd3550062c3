//! Printing results: the layouts of the tools and articles shootout stands in for.
//!
//! `load_output` prints one load as wrk, ab or webbench would; `document` is one stored
//! experiment, whose tables (`experiment`) and charts (`page`) are drawn from the
//! statistics of its runs (`stats`) into `table`s and SVG; `side` is what one side of a
//! comparison names (an experiment, a run, a saved load, a JSON file).

pub mod comparison;
pub mod declared;
pub mod document;
pub mod experiment;
#[cfg(test)]
pub(crate) mod fixture;
pub mod load_output;
pub mod page;
pub mod side;
pub mod table;
pub mod thresholds;
