//! What a run finds out once per contestant per experiment and every later run of it
//! reuses: whether it passes verification, and the versions it runs with.

use super::failure::VerifyFailure;
use super::Event;
use crate::contestant::manifest::Contestant;
use crate::contestant::toolchain;
use crate::contestant::verify::{self, Plan};
use crate::model::endpoint::Endpoint;
use std::collections::HashMap;
use std::net::SocketAddr;

/// Each contestant's verification and versions, found at its first run; and the
/// experiment's endpoints, which verification checks.
pub(super) struct ContestantCache<'e> {
    endpoints: &'e [Endpoint],
    verify_failures: HashMap<String, Option<VerifyFailure>>,
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

    /// Verifies `c` at `addr` (named `host` in requests) the first time it is loaded in
    /// this experiment; its failure, then and at every later run.
    pub(super) fn verify_once(
        &mut self,
        c: &Contestant,
        addr: SocketAddr,
        host: &str,
        on_event: &mut impl FnMut(Event),
    ) -> Result<(), VerifyFailure> {
        let endpoints = self.endpoints;
        let failed = (self.verify_failures.entry(c.name().to_string()))
            .or_insert_with(|| verify_failure(addr, host, c, endpoints, on_event));
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

/// Verifies `c` at `addr` (named `host` in requests) on the endpoints of `endpoints` it
/// serves, at its level, and tells `on_event`; the checks it fails, None when it passes
/// them all.
fn verify_failure(
    addr: SocketAddr,
    host: &str,
    c: &Contestant,
    endpoints: &[Endpoint],
    on_event: &mut impl FnMut(Event),
) -> Option<VerifyFailure> {
    let served: Vec<Endpoint> = (endpoints.iter().filter(|e| c.serves(&e.name)))
        .cloned()
        .collect();
    let plan = Plan {
        level: c.manifest.verify,
        endpoints: &served,
        parses_http: c.manifest.parses_http,
    };
    let checks = verify::run_as(addr, host, &plan);
    on_event(Event::Verified(c.name(), plan.level, &checks));
    VerifyFailure::of(&checks)
}
