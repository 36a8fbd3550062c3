//! What a load is: the target, the request, and how hard and how long to send it.

use crate::pace::Pace;
use std::net::{SocketAddr, ToSocketAddrs};
use std::time::Duration;

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
    #[error("method {0:?} is not a valid HTTP method token")]
    Method(String),
    #[error("header {:?} is not a valid HTTP header", format!("{name}: {value}"))]
    Header { name: String, value: String },
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
    /// Parses an `http://host[:port][/path]` URL and resolves its host.
    pub fn parse(url: &str) -> Result<Target, ConfigError> {
        Target::parse_with(url, resolve)
    }

    /// Parses a URL as [`Target::parse`] does, without resolving its host: for a load
    /// that runs on another network (a Kubernetes pod), whose names this machine may not
    /// know. The address is the unspecified one, with the URL's port.
    pub fn parse_unresolved(url: &str) -> Result<Target, ConfigError> {
        Target::parse_with(url, |_, port| Ok(SocketAddr::from(([0, 0, 0, 0], port))))
    }

    fn parse_with(
        url: &str,
        resolve: impl FnOnce(&str, u16) -> Result<SocketAddr, String>,
    ) -> Result<Target, ConfigError> {
        let bad = |reason: &str| ConfigError::Url {
            url: url.to_string(),
            reason: reason.to_string(),
        };
        let rest = match url.split_once("://") {
            Some((scheme, rest)) if scheme.eq_ignore_ascii_case("http") => rest,
            Some((scheme, _)) => {
                return Err(bad(&format!(
                    "scheme {scheme:?} is not supported (only http)"
                )))
            }
            None => return Err(bad("missing scheme (expected http://host[:port]/path)")),
        };
        let (authority, path) = match rest.find(['/', '?']) {
            Some(i) if rest.as_bytes()[i] == b'/' => (&rest[..i], rest[i..].to_string()),
            Some(i) => (&rest[..i], format!("/{}", &rest[i..])),
            None => (rest, "/".to_string()),
        };
        if authority.contains('@') {
            return Err(bad("user info in the URL is not supported"));
        }
        let (host, port) = split_host_port(authority).map_err(|r| bad(&r))?;
        if host.is_empty() {
            return Err(bad("missing host"));
        }
        let addr = resolve(host, port).map_err(|reason| ConfigError::Resolve {
            url: url.to_string(),
            host: host.to_string(),
            reason,
        })?;
        Ok(Target {
            url: url.to_string(),
            addr,
            host_header: authority.to_string(),
            path,
        })
    }

    /// True when the target is on this machine's loopback.
    pub fn is_loopback(&self) -> bool {
        self.addr.ip().is_loopback()
    }
}

fn split_host_port(authority: &str) -> Result<(&str, u16), String> {
    let (host, port) = if let Some(rest) = authority.strip_prefix('[') {
        let end = rest.find(']').ok_or("unclosed '[' in IPv6 host")?;
        let after = &rest[end + 1..];
        let port = match after.strip_prefix(':') {
            Some(p) => Some(p),
            None if after.is_empty() => None,
            None => return Err("unexpected text after IPv6 host".into()),
        };
        (&rest[..end], port)
    } else {
        match authority.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (authority, None),
        }
    };
    let port = match port {
        None => 80,
        Some(p) => p
            .parse::<u16>()
            .ok()
            .filter(|&p| p != 0)
            .ok_or_else(|| format!("bad port {p:?}"))?,
    };
    Ok((host, port))
}

fn resolve(host: &str, port: u16) -> Result<SocketAddr, String> {
    let mut addrs = (host, port).to_socket_addrs().map_err(|e| e.to_string())?;
    addrs.next().ok_or_else(|| "no address found".to_string())
}

/// When the measured load ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// After this long (the warm-up not included).
    After(Duration),
    /// After this many requests have been started and have ended.
    Requests(u64),
}

/// Which I/O interface the event loops use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IoChoice {
    /// io_uring when the kernel offers it, epoll otherwise.
    #[default]
    Auto,
    Uring,
    Epoll,
}

/// Most bytes of requests a connection may have outstanding (body × pipeline depth).
const MAX_PIPELINED_BYTES: usize = 64 << 20;

/// A closed-loop load: fixed connections, each sending as soon as it may.
#[derive(Debug, Clone)]
pub struct LoadConfig {
    pub target: Target,
    pub method: String,
    /// Extra headers, sent after Host (and before Content-Length).
    pub headers: Vec<(String, String)>,
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
    pub io: IoChoice,
    /// Closed loop (the default), open loop on a schedule, or devices along stages.
    pub pace: Pace,
    /// This process runs one part of a load split over several.
    pub shard: Shard,
    /// Wall-clock instant (Unix milliseconds) at which to start, so shards start together.
    pub start_at: Option<u64>,
}

/// Part `index` (0-based) of a load split into `count` equal parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: u64,
    pub count: u64,
}

impl Default for Shard {
    fn default() -> Self {
        Shard { index: 0, count: 1 }
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
    /// A keep-alive GET load on `target` with wrk-like defaults.
    pub fn new(target: Target) -> LoadConfig {
        LoadConfig {
            target,
            method: "GET".into(),
            headers: Vec::new(),
            body: Vec::new(),
            connections: 10,
            threads: 1,
            stop: Stop::After(Duration::from_secs(10)),
            warmup: Duration::ZERO,
            timeout: Duration::from_secs(5),
            pipeline: 1,
            keepalive: true,
            http10: false,
            io: IoChoice::Auto,
            pace: Pace::Closed,
            shard: Shard::default(),
            start_at: None,
        }
    }

    /// Checks what no flag parser can: that the request is well-formed HTTP (a request
    /// line and headers that cannot smuggle a second request), and that the numbers fit.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.validate_request()?;
        self.validate_numbers()
    }

    /// The method is a token and every header a name and a value without line breaks.
    fn validate_request(&self) -> Result<(), ConfigError> {
        let method_ok = !self.method.is_empty()
            && self
                .method
                .bytes()
                .all(|b| b.is_ascii_alphabetic() || b == b'-');
        if !method_ok {
            return Err(ConfigError::Method(self.method.clone()));
        }
        for (name, value) in &self.headers {
            let name_ok =
                !name.is_empty() && name.bytes().all(|b| b.is_ascii_graphic() && b != b':');
            if !name_ok || value.contains(['\r', '\n']) {
                return Err(ConfigError::Header {
                    name: name.clone(),
                    value: value.clone(),
                });
            }
        }
        Ok(())
    }

    fn validate_numbers(&self) -> Result<(), ConfigError> {
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
        if let Pace::Devices(d) = &self.pace {
            if !self.keepalive || self.pipeline != 1 {
                return invalid("devices keep one connection and one request at a time");
            }
            if d.requests == 0 || !(0.0..1.0).contains(&d.jitter) {
                return invalid("devices need at least 1 request and a jitter in [0, 1)");
            }
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
        assert!(Target::parse("http:///x").is_err());
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
    fn methods_must_be_tokens() {
        let mut c = LoadConfig::new(Target::parse("http://127.0.0.1:1/").unwrap());
        for good in ["GET", "PATCH", "M-SEARCH"] {
            c.method = good.into();
            assert!(c.validate().is_ok(), "{good}");
        }
        for bad in ["", "GE T", "GET /x HTTP/1.1\r\nX:", "G1"] {
            c.method = bad.into();
            let e = c.validate().unwrap_err().to_string();
            assert_eq!(
                e,
                format!("method {bad:?} is not a valid HTTP method token")
            );
        }
    }

    #[test]
    fn headers_must_not_break_lines() {
        let mut c = LoadConfig::new(Target::parse("http://127.0.0.1:1/").unwrap());
        let header = |n: &str, v: &str| (n.to_string(), v.to_string());
        c.headers = vec![header("X-A", "b c"), header("Accept", "*/*")];
        assert!(c.validate().is_ok());
        for (name, value) in [("X", "a\r\nY: b"), ("X", "a\n"), ("", "v"), ("X Y", "v")] {
            c.headers = vec![header(name, value)];
            let e = c.validate().unwrap_err().to_string();
            let shown = format!("{name}: {value}");
            assert_eq!(e, format!("header {shown:?} is not a valid HTTP header"));
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
