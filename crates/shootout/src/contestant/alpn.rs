//! `alpn` of a contestant's `[tls]`: the application protocols its TLS command offers in
//! the handshake (RFC 7301), and so whether it serves HTTP/2 over TLS.

use serde::Deserialize;

/// One protocol a TLS server offers: the two HTTP versions shootout loads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub enum Alpn {
    /// HTTP/2 over TLS (RFC 9113 section 3.2).
    #[serde(rename = "h2")]
    H2,
    #[serde(rename = "http/1.1")]
    Http11,
}

impl Alpn {
    /// Its name on the wire, as the manifest writes it.
    pub fn name(self) -> &'static str {
        match self {
            Alpn::H2 => "h2",
            Alpn::Http11 => "http/1.1",
        }
    }

    /// What a `[tls]` without `alpn` offers: HTTP/1.1 alone, as every TLS contestant did
    /// before HTTP/2.
    pub fn http11_only() -> Vec<Alpn> {
        vec![Alpn::Http11]
    }
}

/// Why an `alpn` list cannot be a `[tls]` command's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum AlpnProblem {
    /// `[tls]` is the HTTP/1.1-over-TLS command too (verify --tls and the loads over TLS
    /// speak HTTP/1.1 to it), so it must keep offering it.
    #[error("alpn must offer \"http/1.1\": the [tls] command serves HTTP/1.1 over TLS too")]
    NoHttp11,
    #[error("alpn offers {:?} twice", .0.name())]
    Twice(Alpn),
}

/// The first problem of `offered`, if any.
pub fn problem(offered: &[Alpn]) -> Option<AlpnProblem> {
    let again = (1..offered.len()).find(|&i| offered[..i].contains(&offered[i]));
    if let Some(i) = again {
        return Some(AlpnProblem::Twice(offered[i]));
    }
    (!offered.contains(&Alpn::Http11)).then_some(AlpnProblem::NoHttp11)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_must_offer_http11_once_and_each_protocol_once() {
        assert_eq!(problem(&[Alpn::H2, Alpn::Http11]), None);
        assert_eq!(problem(&Alpn::http11_only()), None);
        assert_eq!(problem(&[Alpn::H2]), Some(AlpnProblem::NoHttp11));
        assert_eq!(problem(&[]), Some(AlpnProblem::NoHttp11));
        let twice = problem(&[Alpn::H2, Alpn::Http11, Alpn::H2]).unwrap();
        assert_eq!(twice.to_string(), "alpn offers \"h2\" twice");
    }
}
