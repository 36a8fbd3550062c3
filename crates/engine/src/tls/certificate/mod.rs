//! The check of a server's certificate, the same for every client shootout makes (a load,
//! its shards, an experiment's loads, `shootout verify --tls`), and why it refused one, in
//! words.
//!
//! The check is webpki's (what rustls does), and also accepts what OpenSSL accepts and
//! webpki does not: a certificate that is itself one of the trusted ones, such as the
//! self-signed `CA:TRUE` certificate `openssl req -x509` makes, given with `--cacert` as
//! curl takes it (partial_chain). A refusal is a [`CertificateRefusal`]: one line naming
//! the problem, whatever rustls or webpki called it, and which setting helps ([`Remedy`]).

mod leaf;
mod partial_chain;
mod refusal;
mod refusal_of;

pub use partial_chain::PartialChain;
pub use refusal::{CertificateRefusal, Remedy};
