//! The tables of an experiment: the 2009 matrix, the 2017 per-server tables, the 2019
//! device ramps, shootout's own table per cell, and two experiments compared.

pub mod ceiling;
pub mod cells;
pub mod comparison;
pub mod matrix;
pub mod ramp;
pub mod ranking;
pub mod servers;
