//! shootout's integration tests, as one test binary with a module per topic: one link
//! instead of one per file (a release link with LTO is most of a test file's build).
//! Most drive the `shootout` binary as a user would, each in a made-up checkout of its own
//! with its own machine lock (`checkout`), so that they can run side by side.
//! Loads go to loopback or to network namespaces a test made, each bounded in time.

// What the topics share.
mod checkout;
mod mtls;
mod served_contestant;
mod ssh_hosts;
// The engine's TLS test kit (certificates made by rcgen, a tiny rustls server), shared
// rather than copied: the engine's own tests use the rest of it.
#[allow(dead_code)]
#[path = "../../../engine/tests/engine/tls_test_kit/mod.rs"]
mod tls_test_kit;

mod anywhere;
mod capacity_experiment;
mod capacity_load;
mod contestants;
mod database;
mod database_endpoints;
mod database_experiment;
mod endpoints;
mod generators_local;
mod h2_experiment;
mod k8s_job;
mod load_cli;
mod load_terminal;
mod module_layers;
mod one_harness;
mod own_table;
mod report_page;
mod run_experiment;
mod run_until_sure;
mod saved_loads;
mod shell;
mod spec_shards;
mod ssh_generators;
mod store_roundtrip;
mod tls_experiment;
mod workload_checks;
mod ws_experiment;
mod your_server;
