//! What a load is: the target, the request, and how hard and how long to send it.

use crate::pace::Pace;
use crate::spec::{Header, WebSocketSpec};
use crate::tls::TlsClient;
use http::Method;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::net::SocketAddr;
use std::time::Duration;
use url::Url;

/// A problem with the load description, found before any request is sent.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("URL {url:?}: {reason}")]
    Url { url: String, reason: String },
    #[error("URL {url:?}: cannot resolve host {host:?}: {reason}")]
    Resolve {
        url: String,
        host: String,
        reason: String,
    },
    #[error("{0}")]
    Invalid(String),
}

/// A shard that is not `I/N` with 1 <= I <= N.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("shard {0:?} is not I/N with 1 <= I <= N")]
pub struct ShardError(String);

/// Where the load goes: the resolved address and what the request line and Host header say.
#[derive(Debug, Clone)]
pub struct Target {
    /// The URL as the user gave it.
    pub url: String,
    /// The resolved address; the first the resolver returned.
    pub addr: SocketAddr,
    /// The Host header value (`host` or `host:port`).
    pub host_header: String,
    /// Path and query, starting with `/`.
    pub path: String,
}

impl Target {
    /// Parses an `http://host[:port][/path]` URL (not https: a Target alone has no TLS settings) and
    /// resolves its host.
    pub fn parse(url: &str) -> Result<Target, ConfigError> {
        Target::resolve(&checked_url(url)?)
    }

    /// Parses a URL as [`Target::parse`] does, without resolving its host: for a load
    /// that runs on another network (a Kubernetes pod), whose names this machine may not
    /// know. The address is the unspecified one, with the URL's port.
    pub fn parse_unresolved(url: &str) -> Result<Target, ConfigError> {
        Ok(Target::unresolved(&checked_url(url)?))
    }

    /// The target of a checked URL (see [`crate::parse_url`]), its host resolved.
    pub fn resolve(url: &Url) -> Result<Target, ConfigError> {
        let host = url.host_str().unwrap_or_default();
        let resolved = url.socket_addrs(|| None).map_err(|e| e.to_string());
        let addr = resolved.and_then(|addrs| {
            addrs
                .first()
                .copied()
                .ok_or_else(|| "no address found".to_string())
        });
        match addr {
            Ok(addr) => Ok(Target::at(url, addr)),
            Err(reason) => Err(ConfigError::Resolve {
                url: url.to_string(),
                host: host.trim_matches(['[', ']']).to_string(),
                reason,
            }),
        }
    }

    /// The target of a checked URL, its host not resolved (see [`Target::parse_unresolved`]).
    pub fn unresolved(url: &Url) -> Target {
        let port = url.port_or_known_default().unwrap_or(80);
        Target::at(url, SocketAddr::from(([0, 0, 0, 0], port)))
    }

    /// The target of a checked URL reached at `addr`, whatever its host resolves to: a
    /// server loaded by its address under its own name.
    pub fn at(url: &Url, addr: SocketAddr) -> Target {
        let host = url.host_str().unwrap_or_default();
        let host_header = match url.port() {
            Some(port) => format!("{host}:{port}"),
            None => host.to_string(),
        };
        let path = match url.query() {
            Some(q) => format!("{}?{q}", url.path()),
            None => url.path().to_string(),
        };
        Target {
            url: url.to_string(),
            addr,
            host_header,
            path,
        }
    }

    /// True when the target is on this machine's loopback.
    pub fn is_loopback(&self) -> bool {
        self.addr.ip().is_loopback()
    }
}

/// The URL checked as every load's is, as this module's error; http only, since a
/// `Target` alone has no TLS settings (an https load is made by `LoadSpec::resolve`).
fn checked_url(text: &str) -> Result<Url, ConfigError> {
    let url = crate::parse_url(text).map_err(|e| match e {
        crate::SpecError::Url { url, reason } => ConfigError::Url { url, reason },
        e => ConfigError::Invalid(e.to_string()),
    })?;
    match url.scheme() {
        "http" => Ok(url),
        scheme => Err(ConfigError::Url {
            url: text.to_string(),
            reason: format!("scheme {scheme:?} is not supported here (only http)"),
        }),
    }
}

/// When the measured load ends: `{"after": "10s"}` or `{"requests": 5000}` in a spec.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Stop {
    /// After this long (the warm-up not included).
    After(#[serde(with = "crate::spec::duration_text")] Duration),
    /// After this many requests have been started and have ended.
    Requests(u64),
}

/// Which I/O interface the event loops use: `auto`, `uring` or `epoll` in a spec.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IoChoice {
    /// io_uring when the kernel offers it, epoll otherwise.
    #[default]
    Auto,
    Uring,
    Epoll,
}

/// Most bytes of requests a connection may have outstanding (body × pipeline depth).
const MAX_PIPELINED_BYTES: usize = 64 << 20;

/// The largest WebSocket message a load sends.
const MAX_MESSAGE: usize = 16 << 20;

/// A closed-loop load: fixed connections, each sending as soon as it may.
#[derive(Debug, Clone)]
pub struct LoadConfig {
    pub target: Target,
    /// Any token (checked where it entered, as a [`crate::LoadSpec`]'s).
    pub method: Method,
    /// Extra headers, sent after Host (and before Content-Length).
    pub headers: Vec<Header>,
    pub body: Vec<u8>,
    pub connections: usize,
    pub threads: usize,
    pub stop: Stop,
    /// Load sent before measuring; its requests are not recorded.
    pub warmup: Duration,
    /// Per request; a request unanswered for this long is a timeout.
    pub timeout: Duration,
    /// Requests written ahead on a connection before waiting for responses.
    pub pipeline: usize,
    /// Reuse connections; without it, one connection per request (as `ab` without `-k`).
    pub keepalive: bool,
    /// Send HTTP/1.0 requests (as `ab` and `webbench` do).
    pub http10: bool,
    /// Speak HTTP/2: with prior knowledge over `http://` (h2c), by ALPN over `https://`.
    pub http2: bool,
    /// HTTP/2: requests in flight per connection, each on its own stream (h2load's `-m`).
    pub streams: usize,
    pub io: IoChoice,
    /// Closed loop (the default), open loop on a schedule, or devices along stages.
    pub pace: Pace,
    /// This process runs one part of a load split over several.
    pub shard: Shard,
    /// Wall-clock instant (Unix milliseconds) at which to start, so shards start together.
    pub start_at: Option<u64>,
    /// An `https://` target: the TLS client every connection uses; None for `http://`.
    pub tls: Option<TlsClient>,
    /// Requests that vary (None: every request is the same).
    pub vary: Option<crate::vary::Vary>,
    /// A `ws://` or `wss://` target: the WebSocket messages sent (None: HTTP).
    pub websocket: Option<WebSocketSpec>,
}

/// Part `index` (0-based) of a load split into `count` equal parts; `"I/N"` in a spec.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Shard {
    pub index: u64,
    pub count: u64,
}

impl Default for Shard {
    fn default() -> Self {
        Shard { index: 0, count: 1 }
    }
}

impl fmt::Display for Shard {
    /// `I/N`, numbered from 1 as users number shards.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index + 1, self.count)
    }
}

impl From<Shard> for String {
    fn from(shard: Shard) -> String {
        shard.to_string()
    }
}

impl TryFrom<String> for Shard {
    type Error = ShardError;

    fn try_from(text: String) -> Result<Shard, ShardError> {
        Shard::parse(&text)
    }
}

impl Shard {
    /// Parses `I/N` with 1 <= I <= N (as users number shards).
    pub fn parse(text: &str) -> Result<Shard, ShardError> {
        let bad = || ShardError(text.to_string());
        let (i, n) = text.split_once('/').ok_or_else(bad)?;
        let (i, n): (u64, u64) = (i.parse().map_err(|_| bad())?, n.parse().map_err(|_| bad())?);
        if i == 0 || n == 0 || i > n {
            return Err(bad());
        }
        Ok(Shard {
            index: i - 1,
            count: n,
        })
    }

    /// This shard's part of `total` things (connections, requests).
    pub fn share(&self, total: u64) -> u64 {
        total / self.count + u64::from(self.index < total % self.count)
    }
}

impl LoadConfig {
    /// A keep-alive GET load on `target` with a spec's defaults (one thread).
    pub fn new(target: Target) -> LoadConfig {
        use crate::spec::defaults;
        LoadConfig {
            target,
            method: defaults::method(),
            headers: Vec::new(),
            body: Vec::new(),
            connections: defaults::connections(),
            threads: 1,
            stop: Stop::After(defaults::duration()),
            warmup: defaults::warmup(),
            timeout: defaults::timeout(),
            pipeline: defaults::pipeline(),
            keepalive: defaults::keepalive(),
            http10: false,
            http2: false,
            streams: defaults::streams(),
            io: IoChoice::Auto,
            pace: Pace::Closed,
            shard: Shard::default(),
            start_at: None,
            tls: None,
            vary: None,
            websocket: None,
        }
    }

    /// Checks what no flag parser can: that the numbers fit together. The request needs
    /// no check here: its method and headers are `http`'s types, checked where they entered.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let invalid = |s: &str| Err(ConfigError::Invalid(s.to_string()));
        if self.connections == 0 {
            return invalid("connections must be at least 1");
        }
        if self.threads == 0 {
            return invalid("threads must be at least 1");
        }
        if self.pipeline == 0 || self.pipeline > 1024 {
            return invalid("pipeline depth must be between 1 and 1024");
        }
        if !self.keepalive && self.pipeline > 1 {
            return invalid("pipelining needs keep-alive (drop --no-keepalive or --pipeline)");
        }
        // Each loop holds the pipeline depth's worth of requests in one buffer.
        let pipelined = (self.body.len() + 1024).saturating_mul(self.pipeline);
        if pipelined > MAX_PIPELINED_BYTES {
            return invalid("body size times pipeline depth exceeds 64 MiB");
        }
        if self.timeout.is_zero() {
            return invalid("timeout must be above zero");
        }
        if let Some(vary) = &self.vary {
            // Each connection holds twice its depth's worth of the longest request.
            let held = (2 * self.depth()).saturating_mul(vary.max_request_len());
            if held > MAX_PIPELINED_BYTES {
                return invalid("the longest varying request times the depth exceeds 32 MiB");
            }
        }
        if let Pace::Devices(d) = &self.pace {
            if !self.keepalive || self.pipeline != 1 {
                return invalid("devices keep one connection and one request at a time");
            }
            if d.requests == 0 || !(0.0..1.0).contains(&d.jitter) {
                return invalid("devices need at least 1 request and a jitter in [0, 1)");
            }
        }
        if self.http2 {
            self.validate_http2()?;
        }
        if let Some(ws) = &self.websocket {
            self.validate_websocket(ws)?;
        }
        if self.shard.share(self.connections as u64) == 0 {
            return invalid("this shard would get no connections: use more -c or fewer shards");
        }
        match self.stop {
            Stop::After(d) if d.is_zero() => invalid("duration must be above zero"),
            Stop::Requests(0) => invalid("request count must be at least 1"),
            _ => Ok(()),
        }
    }
}

impl LoadConfig {
    /// HTTP/2 settings that fit together: streams instead of a pipeline, kept connections.
    fn validate_http2(&self) -> Result<(), ConfigError> {
        let invalid = |s: &str| Err(ConfigError::Invalid(s.to_string()));
        if self.streams == 0 || self.streams > 1024 {
            return invalid("streams per connection (-m) must be between 1 and 1024");
        }
        if self.pipeline > 1 {
            return invalid("HTTP/2 has streams, not a pipeline: use -m instead of --pipeline");
        }
        if self.http10 || !self.keepalive {
            return invalid("HTTP/2 keeps its connections: drop --http10 and --no-keepalive");
        }
        if matches!(self.pace, Pace::Devices(_)) && self.streams != 1 {
            return invalid("devices send one request at a time: -m must be 1");
        }
        Ok(())
    }

    /// WebSocket settings that fit together: messages in flight instead of a pipeline, a
    /// GET upgrade without a body, kept connections (or closed after so many messages);
    /// devices send one message at a time, and their script ends their connections.
    fn validate_websocket(&self, ws: &WebSocketSpec) -> Result<(), ConfigError> {
        let invalid = |s: &str| Err(ConfigError::Invalid(s.to_string()));
        if ws.in_flight == 0 || ws.in_flight > 1024 {
            return invalid("messages in flight per connection must be between 1 and 1024");
        }
        if ws.message_size > MAX_MESSAGE {
            return invalid("the WebSocket message size is above 16 MiB");
        }
        if self.http2 || self.pipeline > 1 {
            return invalid(
                "WebSocket has messages in flight, not HTTP/2 or a pipeline: use --in-flight",
            );
        }
        if self.http10 || !self.keepalive {
            return invalid("WebSocket keeps its connections: drop --http1.0 and --no-keepalive");
        }
        if self.method != Method::GET || !self.body.is_empty() || self.vary.is_some() {
            return invalid("WebSocket sends messages (--message-size, --binary): drop the method, body and --vary");
        }
        if ws.messages_per_connection == Some(0) {
            return invalid("messages per connection must be at least 1");
        }
        if matches!(self.pace, Pace::Devices(_)) {
            if ws.in_flight != 1 {
                return invalid("devices send one message at a time: --in-flight must be 1");
            }
            if ws.messages_per_connection.is_some() {
                return invalid("a device's connection lasts its script (--device-requests): drop --messages-per-connection");
            }
        }
        Ok(())
    }

    /// Requests a connection holds at once: its streams over HTTP/2, its messages in flight
    /// over WebSocket, its pipeline else.
    pub fn depth(&self) -> usize {
        match (&self.websocket, self.http2) {
            (Some(ws), _) => ws.in_flight.max(1),
            (None, true) => self.streams.max(1),
            (None, false) => self.pipeline.max(1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_host_port_and_path() {
        let t = Target::parse("http://127.0.0.1:8080/hello?x=1").unwrap();
        assert_eq!(t.addr, "127.0.0.1:8080".parse().unwrap());
        assert_eq!(t.host_header, "127.0.0.1:8080");
        assert_eq!(t.path, "/hello?x=1");
        assert!(t.is_loopback());
    }

    #[test]
    fn an_unresolved_target_keeps_its_port_and_is_checked_alike() {
        let t = Target::parse_unresolved("http://nginx.bench.svc:8080/hello").unwrap();
        assert_eq!(t.addr, "0.0.0.0:8080".parse().unwrap());
        assert_eq!(t.host_header, "nginx.bench.svc:8080");
        assert!(Target::parse_unresolved("https://a/").is_err());
        assert!(Target::parse_unresolved("http://:80/").is_err());
    }

    #[test]
    fn defaults_port_and_path() {
        let t = Target::parse("http://[::1]").unwrap();
        assert_eq!(t.addr, "[::1]:80".parse().unwrap());
        assert_eq!(t.path, "/");
        let q = Target::parse("http://127.0.0.1?a").unwrap();
        assert_eq!(q.path, "/?a");
    }

    #[test]
    fn rejects_other_schemes_and_bad_ports() {
        let e = Target::parse("https://127.0.0.1/").unwrap_err().to_string();
        assert!(e.contains("scheme \"https\""), "{e}");
        assert!(Target::parse("127.0.0.1:80").is_err());
        assert!(Target::parse("http://127.0.0.1:0/").is_err());
        assert!(Target::parse("http://127.0.0.1:99999/").is_err());
        assert!(Target::parse("http://user@127.0.0.1/").is_err());
    }

    #[test]
    fn shards_parse_and_split_evenly() {
        let s = Shard::parse("2/3").unwrap();
        assert_eq!((s.index, s.count), (1, 3));
        let total: u64 = (1..=3)
            .map(|i| Shard::parse(&format!("{i}/3")).unwrap().share(10))
            .sum();
        assert_eq!(total, 10);
        for bad in ["0/2", "3/2", "x/2", "1", "1/0"] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn unresolvable_host_names_the_host() {
        let e = Target::parse("http://no-such-host.invalid/")
            .unwrap_err()
            .to_string();
        assert!(e.contains("no-such-host.invalid"), "{e}");
    }
}
