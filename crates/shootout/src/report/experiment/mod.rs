//! The tables of an experiment: the 2009 matrix, the 2017 per-server tables, the 2019
//! device ramps, shootout's own table per cell, capacity at objective, two experiments
//! compared, and whether the cells of an experiment that repeats until sure converged;
//! and the comparison tables a plan declares ([`declared`]: what TLS costs each server,
//! what HTTP/2 gains or costs each server, the experiment's own), which
//! `report::declared` draws.

pub mod capacity;
pub mod ceiling;
pub mod cell_key;
pub mod cells;
pub mod convergence;
pub mod efficiency;
pub mod http2_gain;
pub mod leaders;
pub mod marks;
pub mod matrix;
pub mod ramp;
pub mod ranking;
pub mod row;
pub mod servers;
pub mod summary;
pub mod tls_cost;
pub mod unverified;

use crate::report::declared::Declared;
use crate::store::Plan;

/// The comparison tables `plan` declares: what TLS costs each server (loads over TLS),
/// what HTTP/2 gains or costs each server (loads over HTTP/2), and the experiment's own
/// (`[[table]]`).
pub fn declared(plan: &Plan) -> Vec<Declared> {
    let own = plan.tables.iter().map(|t| Declared::of_table(t, plan));
    [tls_cost::declared(plan), http2_gain::declared(plan)]
        .into_iter()
        .flatten()
        .chain(own)
        .collect()
}
