//! The marks and notes the report's tables share, said once: what a mark on a figure
//! means, and what the spread after a median is.

/// What `25,809 ±1.2%` means, said under every table that shows it.
pub const RPS_SPREAD: &str = "median over ok runs ±half its 95% interval (order statistics, \
     distribution-free); under 6 runs ±half their range, and (88%) how sure that is";

/// What marks a figure that rests on runs that were not valid (disturbed).
pub const MARKED: &str = "†";

/// What `†` means, under a table that has such a row.
pub const MARKED_MEANING: &str = "† no valid run: the median of its disturbed runs, ranked \
     with the mark (its notes give the disturbance: steal and foreign CPU, medians over \
     those runs)";

/// What `*` means in the tables of a cell.
pub const BOUND_MARK: &str = "* generator-bound runs only: not ranked";

/// What `≥` means, under a table that has such a row.
pub const LOWER_BOUND_MARK: &str =
    "≥ both sides were saturated: a lower bound of the server's capacity";
