//! What a run finds out once per contestant per experiment and every later run of it
//! reuses: whether it passes verification (in clear text, over TLS with each kind of
//! certificate, and over HTTP/2 in each: each is a server of its own), and the versions
//! it runs with.

use super::failure::VerifyFailure;
use super::Event;
use crate::contestant::certificates::{CertificateFiles, KeyKind};
use crate::contestant::manifest::Contestant;
use crate::contestant::toolchain;
use crate::contestant::verify::{self, Check, Plan, Tables};
use crate::model::endpoint::{Builtin, Endpoint};
use crate::model::VerifyLevel;
use engine::TlsSpec;
use std::collections::HashMap;
use std::net::SocketAddr;

/// How a run reaches its server: in clear text, or over TLS to a server serving these
/// certificates; over HTTP/1.1 or HTTP/2.
#[derive(Debug, Clone, Copy)]
pub(super) enum Transport<'a> {
    Clear,
    Tls(&'a CertificateFiles),
    /// HTTP/2 in clear text with prior knowledge, to the server its `[h2c]` started.
    H2c,
    /// HTTP/2 by ALPN over TLS to a server serving this kind of certificate, with the
    /// client's TLS settings (trusting their CA alone).
    H2(KeyKind, &'a TlsSpec),
}

/// What a verification is kept under: the kind of certificate (None: clear text), and
/// whether over HTTP/2.
type TransportKey = (Option<KeyKind>, bool);

impl Transport<'_> {
    fn key(self) -> TransportKey {
        match self {
            Transport::Clear => (None, false),
            Transport::Tls(files) => (Some(files.kind), false),
            Transport::H2c => (None, true),
            Transport::H2(kind, _) => (Some(kind), true),
        }
    }
}

/// Each contestant's verification (per transport) and versions, found at its first run;
/// and the experiment's endpoints, which verification checks.
pub(super) struct ContestantCache<'e> {
    endpoints: &'e [Endpoint],
    verify_failures: HashMap<(String, TransportKey), Option<VerifyFailure>>,
    toolchains: HashMap<String, String>,
}

impl<'e> ContestantCache<'e> {
    pub(super) fn new(endpoints: &'e [Endpoint]) -> Self {
        ContestantCache {
            endpoints,
            verify_failures: HashMap::new(),
            toolchains: HashMap::new(),
        }
    }

    /// Verifies `c` at `addr` (named `host` in its requests) the first time it is loaded
    /// in this experiment over `transport`; its failure, then and at every later run over
    /// the same transport.
    pub(super) fn verify_once(
        &mut self,
        c: &Contestant,
        (addr, host): (SocketAddr, &str),
        (transport, tables): (Transport, Option<&dyn Tables>),
        on_event: &mut impl FnMut(Event),
    ) -> Result<(), VerifyFailure> {
        let endpoints = self.endpoints;
        let key = (c.name().to_string(), transport.key());
        let failed = (self.verify_failures.entry(key)).or_insert_with(|| {
            let with = (transport, tables);
            verify_failure((addr, host), with, c, endpoints, on_event)
        });
        match failed {
            Some(failure) => Err(failure.clone()),
            None => Ok(()),
        }
    }

    /// The versions `c` runs with, found the first time it is asked.
    pub(super) fn toolchain(&mut self, c: &Contestant) -> String {
        (self.toolchains.entry(c.name().to_string()))
            .or_insert_with(|| toolchain::versions(c))
            .clone()
    }
}

/// Verifies `c` at `addr` (named `host` in its requests) over `transport`, on the
/// endpoints of `endpoints` it serves (each built-in once: `queries:1` and `queries:20`
/// are one check, which draws its own row counts), at its level, against the experiment's
/// database's `tables`, and tells `on_event`; the checks it fails, None when it passes
/// them all. Over HTTP/2, whether each endpoint answers over HTTP/2 (the engine checks
/// the certificate's chain before its first request). The WebSocket echo is checked as
/// `verify --websocket` checks it (in clear text: the contestants serve it so).
fn verify_failure(
    (addr, host): (SocketAddr, &str),
    (transport, tables): (Transport, Option<&dyn Tables>),
    c: &Contestant,
    endpoints: &[Endpoint],
    on_event: &mut impl FnMut(Event),
) -> Option<VerifyFailure> {
    let mut served: Vec<Endpoint> = Vec::new();
    for e in endpoints.iter().filter(|e| c.serves(e.served_as())) {
        if !served.iter().any(|s| s.served_as() == e.served_as()) {
            served.push(e.clone());
        }
    }
    let echo = (served.iter())
        .position(|e| e.builtin == Some(Builtin::WebSocket))
        .map(|at| served.remove(at));
    let plan = Plan {
        level: c.manifest.verify,
        endpoints: &served,
        parses_http: c.manifest.parses_http,
        database: tables,
    };
    let mut checks = match (transport, served.is_empty()) {
        (_, true) => Vec::new(),
        (Transport::Clear, false) => verify::run_as(addr, host, &plan),
        (Transport::Tls(files), false) => over_tls(addr, &plan, files),
        (Transport::H2c, false) => verify::run_h2(addr, host, &plan, None),
        (Transport::H2(_, client), false) => verify::run_h2(addr, host, &plan, Some(client)),
    };
    let path = c.manifest.websocket.as_ref().map(|ws| ws.path.as_str());
    if let Some(path) = path.filter(|_| echo.is_some() && plan.level != VerifyLevel::None) {
        checks.extend(verify::run_websocket(addr, host, path));
    }
    on_event(Event::Verified(c.name(), plan.level, &checks));
    VerifyFailure::of(&checks)
}

/// The checks over TLS; a CA that cannot be read fails the `tls` check.
fn over_tls(addr: SocketAddr, plan: &Plan, files: &CertificateFiles) -> Vec<Check> {
    verify::run_over_tls(addr, plan, files).unwrap_or_else(|e| {
        vec![Check {
            name: "tls".into(),
            passed: false,
            flagged: false,
            detail: e.to_string(),
        }]
    })
}
