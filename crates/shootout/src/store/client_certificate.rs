//! A saved load's client certificate (mTLS), as the store keeps it: the chain, which the
//! server was shown and is public, and never the private key. A spec carries the key's
//! bytes, so that shards and pods need no file; kept in `results/shootout.db`, they would
//! lie in plain text in a file that is copied, exported and compared. The spec is stored
//! without its `tls.client`, and the chain apart says that one was presented.

use engine::{Certificates, LoadSpec};

/// The certificate chain a saved load presented; its private key was not stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientCertificate {
    /// The client's certificate first, then any intermediates, as `--cert` gave them.
    pub chain: Certificates,
}

impl ClientCertificate {
    /// How many certificates the chain holds.
    pub fn certificates(&self) -> usize {
        self.chain.der().len()
    }
}

/// `spec` as the store keeps it, without its client identity; that identity's chain apart.
pub(super) fn without_key(spec: &LoadSpec) -> (LoadSpec, Option<ClientCertificate>) {
    let mut kept = spec.clone();
    let chain = kept.tls.client.take().map(|identity| ClientCertificate {
        chain: identity.cert,
    });
    (kept, chain)
}
