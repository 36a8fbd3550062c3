//! Printing results: the layouts of the tools and articles shootout stands in for.
//!
//! `load_output` prints one load as wrk, ab or webbench would; `document` is one stored
//! experiment, whose tables (`experiment`) and charts (`page`) are drawn from the
//! statistics of its runs (`stats`) into `table`s and SVG; `declared` is the comparison
//! table as data, which one path draws for every kind that declares one (what TLS costs,
//! what HTTP/2 gains, an experiment's own `[[table]]`); `side` is what one side of a
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
