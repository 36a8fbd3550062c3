//! A load over HTTP/2 (`http2 = true`, `streams = [1, 10, 100]` in `[[loads]]`): in clear
//! text with prior knowledge (h2c), or with `tls = {...}` by ALPN over TLS (h2); the stream
//! counts it runs at, one run each, as `connections` are. Read once into [`OverHttp2`];
//! the settings HTTP/2 cannot have with it (a pipeline, HTTP/1.0, a new connection per
//! request, several streams per device) are refused here, naming the field, before the
//! engine would refuse them at the first run.

use super::error::{FieldError, FieldProblem, Http2Problem, MOST_STREAMS};
use super::file::LoadFile;
use super::LoadPace;

/// How a load speaks HTTP/2, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OverHttp2 {
    /// Requests in flight per connection (h2load's `-m`), one run each, as written.
    pub streams: Vec<usize>,
}

/// The HTTP/2 settings of `l` (paced as `pace`), None for a load over HTTP/1.x; a
/// mistake names its field.
pub(super) fn check(l: &LoadFile, pace: &LoadPace) -> Result<Option<OverHttp2>, FieldError> {
    let at = |problem: Http2Problem, field| FieldProblem::from(problem).at(field);
    if !l.http2 {
        return match l.streams.is_empty() {
            true => Ok(None),
            false => Err(at(Http2Problem::WithoutHttp2, "streams")),
        };
    }
    if let Some(&n) = (l.streams.iter()).find(|&&n| n == 0 || n > MOST_STREAMS) {
        return Err(at(Http2Problem::Count(n), "streams"));
    }
    if l.pipeline > 1 {
        return Err(at(Http2Problem::Pipeline, "pipeline"));
    }
    if l.http10 {
        return Err(at(Http2Problem::Http10, "http10"));
    }
    if !l.keepalive {
        return Err(at(Http2Problem::NewConnections, "keepalive"));
    }
    let streams = match l.streams.is_empty() {
        true => vec![engine::defaults::streams()],
        false => l.streams.clone(),
    };
    if matches!(pace, LoadPace::Devices { .. }) && streams != [1] {
        return Err(at(Http2Problem::DeviceStreams, "streams"));
    }
    Ok(Some(OverHttp2 { streams }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(extra: &str) -> LoadFile {
        toml::from_str(&format!("name = \"h2\"\nconnections = [50]\n{extra}")).unwrap()
    }

    fn checked(extra: &str) -> Result<Option<OverHttp2>, String> {
        check(&load(extra), &LoadPace::Closed).map_err(|e| e.to_string())
    }

    #[test]
    fn a_load_over_http2_runs_at_each_stream_count_and_one_without_a_list() {
        assert_eq!(checked(""), Ok(None));
        assert_eq!(
            checked("http2 = true\nstreams = [1, 10, 100]"),
            Ok(Some(OverHttp2 {
                streams: vec![1, 10, 100]
            }))
        );
        assert_eq!(
            checked("http2 = true"),
            Ok(Some(OverHttp2 { streams: vec![1] }))
        );
    }

    #[test]
    fn what_http2_cannot_have_is_named_by_its_field_in_one_line() {
        for (extra, want) in [
            (
                "streams = [10]",
                "streams: streams are HTTP/2's: add http2 = true, or leave streams out",
            ),
            (
                "http2 = true\nstreams = [10, 0]",
                "streams: 0 streams per connection: between 1 and 1024",
            ),
            (
                "http2 = true\nstreams = [2000]",
                "streams: 2000 streams per connection: between 1 and 1024",
            ),
            (
                "http2 = true\npipeline = 8",
                "pipeline: HTTP/2 has streams, not a pipeline: give streams instead",
            ),
            (
                "http2 = true\nhttp10 = true",
                "http10: HTTP/2 is not HTTP/1.0: give http2 or http10, not both",
            ),
            (
                "http2 = true\nkeepalive = false",
                "keepalive: HTTP/2 keeps its connections: leave keepalive = false out",
            ),
        ] {
            assert_eq!(checked(extra), Err(want.to_string()), "{extra}");
        }
    }

    #[test]
    fn a_device_sends_one_request_at_a_time() {
        let script = engine::DeviceScript {
            count: engine::RateSchedule::parse_device_count("0,10:5s").unwrap(),
            requests: 1,
            think: std::time::Duration::from_millis(100),
            jitter: 0.0,
        };
        let devices = LoadPace::Devices {
            stages: "0,10:5s".into(),
            script,
        };
        let one = load("http2 = true\nstreams = [1]");
        assert!(check(&one, &devices).unwrap().is_some());
        let ten = load("http2 = true\nstreams = [10]");
        assert_eq!(
            check(&ten, &devices).unwrap_err().to_string(),
            "streams: a device sends one request at a time: streams = [1] or none"
        );
    }
}
