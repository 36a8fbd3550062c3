//! From a spec to the load the event loops run: the one place a [`LoadSpec`] becomes a
//! [`LoadConfig`] (the target resolved, the stop and threads decided, TLS configured).

use super::{defaults, LoadSpec, SpecError, WebSocketSpec};
use crate::config::{LoadConfig, Stop, Target};
use crate::tls::TlsClient;
use crate::vary::{Context, RequestLine, Template, Vary, Written};
use std::net::SocketAddr;

impl LoadSpec {
    /// The load, its URL's host resolved here.
    pub fn resolve(&self) -> Result<LoadConfig, SpecError> {
        self.config(Target::resolve(&self.url)?)
    }

    /// The load for a process on another network (a Kubernetes pod), whose names this
    /// machine may not know: the host is not resolved (see [`Target::parse_unresolved`]).
    pub fn resolve_elsewhere(&self) -> Result<LoadConfig, SpecError> {
        self.config(Target::unresolved(&self.url))
    }

    /// The load sent to `addr` with the URL's host in its requests: a server loaded by
    /// its address under its own name.
    pub fn resolve_at(&self, addr: SocketAddr) -> Result<LoadConfig, SpecError> {
        self.config(Target::at(&self.url, addr))
    }

    /// When the measured load ends: the spec's stop, else 10 s, or with stages, the
    /// stages' length (the warm-up being their first part).
    pub fn ends(&self) -> Result<Stop, SpecError> {
        if let Some(stop) = self.stop {
            return Ok(stop);
        }
        let staged = self.pace.staged();
        if staged.is_zero() {
            return Ok(Stop::After(defaults::duration()));
        }
        if staged <= self.warmup {
            return Err(SpecError::WarmupCoversStages);
        }
        Ok(Stop::After(staged - self.warmup))
    }

    /// Every setting as the loops read it. `engine::check` validates the whole load,
    /// the numbers included, for every caller.
    fn config(&self, target: Target) -> Result<LoadConfig, SpecError> {
        let vary = self.vary_for(&target)?;
        Ok(LoadConfig {
            target,
            method: self.method.clone(),
            headers: self.headers.clone(),
            body: self.body.clone(),
            connections: self.connections,
            threads: self.threads.unwrap_or_else(crate::allowed_cpus),
            stop: self.ends()?,
            warmup: self.warmup,
            timeout: self.timeout,
            pipeline: self.pipeline,
            keepalive: self.keepalive,
            http10: self.http10,
            http2: self.http2,
            streams: self.streams,
            io: self.io,
            pace: self.pace.clone(),
            shard: self.shard,
            start_at: self.start_at,
            tls: self.tls_client()?,
            vary,
            websocket: self.websocket_load()?,
        })
    }

    /// The varying requests compiled for `target`: the spec's request lines, or none given,
    /// its own method, URL path and body as templates (the URL's braces, which the URL
    /// parser escapes, back as written).
    fn vary_for(&self, target: &Target) -> Result<Option<Vary>, SpecError> {
        let Some(v) = self.vary.as_ref() else {
            return Ok(None);
        };
        let own = match v.requests.is_empty() {
            true => Some(RequestLine {
                weight: 1,
                method: self.method.clone(),
                target: target
                    .path
                    .replace("%7B", "{")
                    .replace("%7D", "}")
                    .parse()?,
                body: match std::str::from_utf8(&self.body) {
                    Ok(text) => text.parse()?,
                    Err(_) => Template::literal(&self.body),
                },
            }),
            false => None,
        };
        let lines = own.as_slice().iter().chain(&v.requests);
        let written: Vec<Written> = lines.map(Written::from).collect();
        let cx = Context {
            host: &target.host_header,
            http10: self.http10,
            keepalive: self.keepalive,
            https: self.over_tls(),
            headers: &self.headers,
            expect: v.expect.as_ref(),
        };
        let seed = v.seed.unwrap_or_else(clock_seed);
        Ok(Some(Vary::compile(&written, cx, seed)?))
    }

    /// For `https://`, the one TLS client configuration every connection shares; for
    /// `http://`, none, and TLS settings there are a mistake worth saying.
    fn tls_client(&self) -> Result<Option<TlsClient>, SpecError> {
        if self.over_tls() {
            return TlsClient::of(&self.tls, &self.url, self.http2).map(Some);
        }
        match self.tls.first_set() {
            Some(setting) => Err(SpecError::TlsWithoutHttps(setting)),
            None => Ok(None),
        }
    }
}

impl LoadSpec {
    /// For `ws://` and `wss://`, the messages to send; for `http[s]://`, none, and
    /// WebSocket settings there are a mistake worth saying.
    fn websocket_load(&self) -> Result<Option<WebSocketSpec>, SpecError> {
        match (self.is_websocket(), self.websocket.is_default()) {
            (true, _) => Ok(Some(self.websocket.clone())),
            (false, true) => Ok(None),
            (false, false) => Err(SpecError::WebSocketWithoutWs),
        }
    }
}

/// A seed for a load that names none: the clock's nanoseconds, new each run.
pub(crate) fn clock_seed() -> u64 {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
    now.map_or(0, |d| d.as_nanos() as u64)
}
