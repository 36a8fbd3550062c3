//! shootout as a library: the harness that runs experiments, the typed run record it
//! writes, the store that keeps records, and the reports that read them. The `shootout`
//! binary is a thin shell over this crate (arguments and printing only); the load
//! generator itself is the `engine` crate. The modules are layers, each using only those
//! before it in the order data flows (docs/architecture.md; tests/shootout/module_layers.rs
//! checks): units, toml_file, workload, model, stats, threshold, capacity, contestant, machine,
//! process, generators, k8s, experiment, store, report, and the binary's cli.

pub mod capacity;
pub mod contestant;
pub mod database;
pub mod experiment;
pub mod generators;
pub mod k8s;
pub mod machine;
pub mod model;
pub mod process;
pub mod report;
pub mod stats;
pub mod store;
pub mod threshold;
pub mod toml_file;
pub mod units;
pub mod workload;
