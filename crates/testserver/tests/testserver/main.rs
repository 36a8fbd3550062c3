//! The test server's integration tests, as one test binary with a module per topic: what
//! it sends on the wire, over TLS and HTTP/2, and against h2load. Loopback only.

mod counters;
mod h2_wire;
mod h2load;
mod process;
mod tls;
mod wire;
