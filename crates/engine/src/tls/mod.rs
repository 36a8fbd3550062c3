//! TLS between the socket and HTTP: rustls through its unbuffered (sans-IO) API, so that
//! it runs inside the engine's own event loops on the engine's own buffers. The client
//! configuration is made once per load ([`TlsClient`]); each connection keeps only its
//! rustls state and, while a record is split across reads, that record's bytes.
//!
//! The provider is aws-lc-rs: measured on the machine of record it cost 16-41% less client
//! CPU per handshake than ring and the same per small record (docs/tls.md).

mod client;
mod config;
pub(crate) mod handshake_error;
mod insecure;
pub(crate) mod preflight;
mod roots;

pub use client::{Resume, TlsClient};
