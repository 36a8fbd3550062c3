//! The tables of an experiment: the 2009 matrix, the 2017 per-server tables, the 2019
//! device ramps, shootout's own table per cell, capacity at objective, two experiments
//! compared, and whether the cells of an experiment that repeats until sure converged.
//! The comparison tables a plan declares (what TLS costs, what HTTP/2 gains, the
//! experiment's own) are `report::declared`'s.

pub mod capacity;
pub mod ceiling;
pub mod cell_key;
pub mod cells;
pub mod convergence;
pub mod efficiency;
pub mod kinds;
pub mod leaders;
pub mod marks;
pub mod matrix;
pub mod ramp;
pub mod ranking;
pub mod row;
pub mod servers;
pub mod summary;
pub mod unverified;
