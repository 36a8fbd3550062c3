//! TLS between the socket and HTTP: rustls through its unbuffered (sans-IO) API, so that
//! it runs inside the engine's own event loops on the engine's own buffers. The client
//! configuration is made once per load ([`TlsClient`]) and copied once per loop with a
//! session store of its own (loop_config, session_store); each connection keeps only its
//! rustls state (session) and, while it has any, a split record or ciphertext to send, in
//! buffers the loop lends (pool, out). The loop's side of it is [`TlsLayer`]; the event
//! loops use it where they touch bytes (event_loop/wire.rs). docs/tls.md tells the whole.
//!
//! The provider is aws-lc-rs: measured on the machine of record it cost 16-41% less client
//! CPU per handshake than ring and the same per small record (docs/tls.md).

mod certificate;
mod client;
mod config;
mod failure;
pub(crate) mod handshake_error;
mod insecure;
mod layer;
mod loop_config;
mod negotiated;
mod out;
pub(crate) mod preflight;
mod pump;
mod roots;
mod session;
mod session_store;
mod verified_chain;

pub use certificate::{CertificateRefusal, PartialChain, Remedy};
pub use client::{Resume, TlsClient};
pub use failure::{Failure, Failures};
pub use layer::TlsLayer;
pub use negotiated::Negotiated;
pub use session::MAX_PLAINTEXT;
