//! One load, every setting of it, as data. The CLI's flags, scenario files, experiment
//! loads, saved loads, shards (`shootout load --spec`) and Kubernetes pods all produce or
//! read this type; [`LoadSpec::resolve`] turns it into the [`LoadConfig`] the event loops
//! run, in one place.
//!
//! In JSON (and TOML) every field but `url` may be left out and takes its default
//! ([`defaults`]); durations are text (`10s`, `500ms`), the body is base64:
//!
//! ```json
//! {"url": "http://127.0.0.1:8080/hello", "method": "POST", "headers": ["x-a: b"],
//!  "body": "AAEC", "connections": 100, "stop": {"requests": 5000},
//!  "pace": {"rate": "1000:10s,5000:30s"}}
//! ```
//!
//! A `ws://` or `wss://` load sends WebSocket messages ([`WebSocketSpec`],
//! docs/websocket.md): `{"url": "ws://127.0.0.1:8080/echo", "websocket": {"message_size":
//! 64, "binary": true, "in_flight": 8}}`.
//!
//! An `https://` (or `wss://`) load may have `tls` settings ([`TlsSpec`]), certificates as PEM text.
//! Requests that vary have `vary` ([`VarySpec`], docs/varying-requests.md):
//! `{"vary": {"seed": 7, "requests": ["GET /sum?a={a=rand:1-9}&b={b=seq}"],
//! "expect": "{sum:a,b}"}}`.
//!
//! [`LoadConfig`]: crate::LoadConfig

mod body;
pub mod defaults;
pub mod duration_text;
mod error;
mod header;
mod method;
mod pace_text;
mod resolve;
pub mod tls;
mod url_text;
pub mod websocket;

pub use duration_text::text as format_duration;
pub use error::SpecError;
pub use header::Header;
pub use method::parse_method;
pub use pace_text::default_devices;
pub(crate) use resolve::clock_seed;
pub use tls::TlsSpec;
pub use url_text::parse_url;
pub use websocket::WebSocketSpec;

use crate::config::{IoChoice, Shard, Stop};
use crate::vary::VarySpec;
use crate::Pace;
use http::Method;
use serde::{Deserialize, Serialize};
use std::time::Duration;
use url::Url;

/// Every setting of one load, checked where it entered, defaults filled in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoadSpec {
    #[serde(with = "url_text")]
    pub url: Url,
    #[serde(with = "method", default = "defaults::method")]
    pub method: Method,
    /// Sent after Host (and before Content-Length).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub headers: Vec<Header>,
    /// Any bytes.
    #[serde(with = "body", default, skip_serializing_if = "Vec::is_empty")]
    pub body: Vec<u8>,
    #[serde(default = "defaults::connections")]
    pub connections: usize,
    /// Event-loop threads; None: one per core this process may run on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threads: Option<usize>,
    /// None: [`defaults::duration`], or a staged pace's stages less the warm-up.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<Stop>,
    /// Load sent before measuring, not recorded.
    #[serde(with = "duration_text", default = "defaults::warmup")]
    pub warmup: Duration,
    /// Per request.
    #[serde(with = "duration_text", default = "defaults::timeout")]
    pub timeout: Duration,
    /// Requests written ahead on a connection.
    #[serde(default = "defaults::pipeline")]
    pub pipeline: usize,
    /// Without it, a new connection per request (ab without -k).
    #[serde(default = "defaults::keepalive")]
    pub keepalive: bool,
    /// HTTP/1.0 requests (as ab and webbench send).
    #[serde(default)]
    pub http10: bool,
    /// HTTP/2: with prior knowledge over `http://` (h2c, `--h2c`), by ALPN over
    /// `https://` (`--http2`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub http2: bool,
    /// HTTP/2 streams in flight per connection (h2load's `-m`).
    #[serde(default = "defaults::streams", skip_serializing_if = "is_one")]
    pub streams: usize,
    #[serde(with = "pace_text", default = "closed")]
    pub pace: Pace,
    #[serde(default)]
    pub io: IoChoice,
    /// This process's part of a load split over several (`"2/3"`).
    #[serde(default)]
    pub shard: Shard,
    /// Wall-clock start (Unix milliseconds), so that shards start together.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_at: Option<u64>,
    /// How an `https://` URL speaks TLS; left out of a spec, and at its defaults, for
    /// `http://`.
    #[serde(default, skip_serializing_if = "TlsSpec::is_default")]
    pub tls: TlsSpec,
    /// Requests that vary per request (crate::vary); None: every request is the same.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vary: Option<VarySpec>,
    /// A `ws://` or `wss://` load's messages; left out of a spec, and at its defaults,
    /// for `http[s]://`.
    #[serde(default, skip_serializing_if = "WebSocketSpec::is_default")]
    pub websocket: WebSocketSpec,
}

fn is_one(n: &usize) -> bool {
    *n == 1
}

fn closed() -> Pace {
    Pace::Closed
}

impl LoadSpec {
    /// A load of `url` with every other setting at its default: a keep-alive GET from
    /// 10 connections for 10 s.
    pub fn new(url: Url) -> LoadSpec {
        LoadSpec {
            url,
            method: defaults::method(),
            headers: Vec::new(),
            body: Vec::new(),
            connections: defaults::connections(),
            threads: None,
            stop: None,
            warmup: defaults::warmup(),
            timeout: defaults::timeout(),
            pipeline: defaults::pipeline(),
            keepalive: defaults::keepalive(),
            http10: false,
            http2: false,
            streams: defaults::streams(),
            pace: Pace::Closed,
            io: IoChoice::default(),
            shard: Shard::default(),
            start_at: None,
            tls: TlsSpec::default(),
            vary: None,
            websocket: WebSocketSpec::default(),
        }
    }

    /// True for a `ws://` or `wss://` URL: a WebSocket load.
    pub fn is_websocket(&self) -> bool {
        matches!(self.url.scheme(), "ws" | "wss")
    }

    /// True for an `https://` or `wss://` URL: the load speaks TLS.
    pub fn over_tls(&self) -> bool {
        matches!(self.url.scheme(), "https" | "wss")
    }
}

#[cfg(test)]
mod tests;
