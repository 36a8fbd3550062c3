//! The load engine of shootout: share-nothing event loops (io_uring or epoll) that drive
//! HTTP/1.1, HTTP/2 and WebSocket connections (in clear text or over TLS), frame responses
//! (and echoed messages), and account for every request (and message) exactly once.
//!
//! It knows nothing of contestants or experiments: give it a [`LoadSpec`] (made into a
//! [`LoadConfig`] by [`LoadSpec::resolve`]), get a [`LoadResult`]. Everything a caller needs is re-exported here; the modules are private.

mod buf_ring;
mod config;
mod conn;
mod cpu;
mod devices;
mod duration;
mod epoll;
mod event_loop;
mod h2;
mod hdr_log;
mod histcodec;
mod hpack;
mod ledger;
mod limits;
mod live;
mod merge;
mod outcome;
mod pace;
mod pool;
mod request;
mod response;
mod result;
mod runner;
mod schedule;
mod socket;
mod spec;
mod stats;
mod tls;
mod uring;
mod vary;
mod ws;

pub use config::{ConfigError, IoChoice, LoadConfig, Shard, ShardError, Stop, Target};
pub use cpu::allowed_cpus;
pub use devices::DeviceScript;
pub use duration::{parse_duration, DurationError};
pub use h2::{ErrorCode as H2ErrorCode, PeerSettings as H2Settings};
pub use hdr_log::write_hdr_log;
pub use histcodec::{decode_histogram, EncodedHistogram, HistogramError};
// For the fuzz target and the allocation test; the event loops use `hpack` directly.
#[doc(hidden)]
pub use hpack::{Decoder as HpackDecoder, HpackError, RequestBlock as HpackRequestBlock};
pub use limits::raise_nofile;
pub use live::Live;
pub use merge::{merge, MergeError};
pub use outcome::{Counts, Outcome};
pub use pace::Pace;
pub use response::{
    ChunkError, ChunkErrorKind, Framing, LineKind, LineStart, Progress, Response, ResponseError,
    ResponseParser, ResponseSink,
};
pub use result::{
    Bytes, ConfigEcho, Connections, EncodedHistograms, Generator, H2Summary, Histograms,
    LoadResult, Percentiles, RateSummary, SecondSummary, ShardFigures, Spread, TlsSummary,
    WireError, WireResult, WsSummary, SCHEMA,
};
pub use runner::{check, check_settings, run, run_checked, run_watched, CheckedLoad, Io, RunError};
pub use schedule::{Quantity, RateSchedule, ScheduleError};
pub use spec::tls::{
    parse_sni, Alpn, Certificates, CipherSuite, ClientIdentity, KxGroup, PrivateKey, TlsVersion,
    TlsVersions,
};
pub use spec::{
    default_devices, defaults, duration_text, format_duration, parse_method, parse_url, Header,
    LoadSpec, SpecError, TlsSpec, WebSocketSpec,
};

/// WebSocket's upgrade, client frames and frame reader, for a check of a server made
/// outside a load (`shootout verify --websocket`): the same code a load judges it by.
pub mod websocket {
    pub use crate::ws::client::*;
    pub use crate::ws::{Refusal, Violation};
}

/// The parsers the fuzz targets drive (fuzz/): not an API.
#[doc(hidden)]
pub mod fuzzing {
    pub use crate::h2::fuzzing::h2_session;
    pub use crate::ws::fuzzing::ws_session;
    pub use crate::ws::probe::WsProbe;
}
pub use tls::handshake_error::HandshakeError;
pub use tls::{CertificateRefusal, Negotiated, PartialChain, Remedy, Resume, TlsClient};
pub use vary::{RequestLine, Template, Vary, VaryError, VarySpec};
