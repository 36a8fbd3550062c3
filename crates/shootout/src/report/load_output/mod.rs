//! What `shootout load` prints: one load's result in the layout of wrk, ab or webbench,
//! so articles built on those tools can be compared line by line.

pub mod ab;
pub mod tls_settings;
pub mod webbench;
pub mod wrk;
