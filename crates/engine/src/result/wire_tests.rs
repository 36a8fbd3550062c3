//! The wire form and the domain form of a result: one round trip loses nothing, a
//! foreign schema or a broken histogram is a typed error, and the schema file in docs/
//! describes exactly what is written.

use super::*;
use crate::histcodec::EncodedHistogram;
use serde_json::{json, Value};

/// A result as read from JSON written by hand before TLS (no `tls` anywhere).
pub(crate) fn written_before_tls() -> LoadResult {
    let zero = json!({"mean": 0, "stdev": 0, "min": 0, "max": 0, "p50": 0, "p75": 0,
                      "p90": 0, "p99": 0, "p999": 0, "p9999": 0});
    let wire = json!({
        "schema": SCHEMA, "url": "http://127.0.0.1:1/hello", "started_unix_ms": 5,
        "config": {"method": "GET", "connections": 2, "threads": 1, "duration_s": 1.0,
                   "requests": null, "warmup_s": 0.0, "timeout_s": 5.0, "pipeline": 1,
                   "keepalive": true, "http_version": "1.1", "shard": "1/2", "start_at": 9},
        "duration_s": 1.0,
        "requests": {"ok": 3, "status": 0, "timeout": 0, "connect": 0, "read": 0,
                     "write": 0, "parse": 0, "in_flight": 0},
        "rps": 3.0, "bytes": {"read": 10, "written": 20}, "transfer_per_s": 10.0,
        "latency_us": zero, "latency_raw_us": zero, "connect_us": zero,
        "rate": {"target_rps": 3.0, "achieved_rps": 3.0, "scheduled": 3, "started": 3,
                 "late": 0, "waited": 0},
        "thread_rps": {"mean": 3.0, "stdev": 0.0, "max": 3.0, "samples": 1},
        "status_codes": {"200": 3}, "connections": {"opened": 2, "closed_by_server": 0},
        "per_second": [], "interrupted": false, "warnings": ["w"],
        "generator": {"cpu_seconds": 0.1, "user_seconds": 0.05, "sys_seconds": 0.05,
                      "cpu_percent": 10.0, "bound": false, "io": "epoll", "threads": 1},
        "histograms": {"latency": "", "latency_raw": "", "connect": ""}
    });
    serde_json::from_value(wire).unwrap()
}

/// An HTTP/2 summary with `retried` requests and a reset of `code`.
pub(crate) fn h2_part(retried: u64, code: &str) -> H2Summary {
    H2Summary {
        settings: Some(crate::h2::PeerSettings::default()),
        retried,
        resets: [(code.to_string(), 1)].into(),
        goaways: [("NO_ERROR".to_string(), 1)].into(),
        errors: [("PROTOCOL_ERROR".to_string(), 1)].into(),
        first_error: Some("the server's preface is not SETTINGS".into()),
        pings: 3,
    }
}

/// A result written by hand, then given samples and every optional part.
fn sample() -> LoadResult {
    let mut r = written_before_tls();
    for ns in [1_000_000u64, 2_000_000, 30_000_000] {
        r.histograms.latency.record(ns).unwrap();
        r.histograms.latency_raw.record(ns / 2).unwrap();
    }
    r.histograms.connect.record(50_000).unwrap();
    let mut second = crate::stats::Second::new();
    second.latency.record(1_000_000).unwrap();
    second.requests = 3;
    r.per_second = vec![SecondSummary::of(0, &second)];
    r.shards = vec![ShardFigures::of(&r)];
    r.shards[0].place = Some("local 1".into());
    r.histograms.handshake.record(80_000).unwrap();
    r.tls = Some(TlsSummary {
        negotiated: Some(crate::tls::Negotiated {
            version: "TLS 1.3".into(),
            suite: "TLS13_AES_128_GCM_SHA256".into(),
            group: Some("X25519".into()),
            alpn: Some("http/1.1".into()),
        }),
        full: 1,
        resumed: 0,
        handshake_us: Percentiles::of(&r.histograms.handshake),
        failures: [("alert:handshake_failure".to_string(), 2)].into(),
    });
    r.h2 = Some(h2_part(2, "REFUSED_STREAM"));
    r.histograms.upgrade.record(120_000).unwrap();
    r.ws = Some(crate::WsSummary {
        upgrades: 1,
        upgrade_us: Percentiles::of(&r.histograms.upgrade),
        refused: [("wrong_accept".to_string(), 1)].into(),
        errors: [("masked_frame".to_string(), 1)].into(),
        closes: [("1011".to_string(), 1)].into(),
        pings: 3,
        unsolicited: 0,
        closes_sent: 4,
        closes_answered: 3,
    });
    r.config.websocket = Some(crate::WebSocketSpec {
        messages_per_connection: Some(100),
        ..crate::WebSocketSpec::default()
    });
    r.requests.tls = 2;
    r.requests.dropped = 4;
    r.rate
        .as_mut()
        .expect("the sample is an open loop")
        .still_due = 1;
    r
}

/// Results written before dropped requests were counted lack `dropped` and `still_due`:
/// they read as none, and the version stays (a reader of either kind reads both).
#[test]
fn a_result_written_before_dropped_requests_reads_as_none_dropped() {
    let r = written_before_tls();
    assert_eq!(r.requests.dropped, 0);
    assert_eq!(r.rate.as_ref().map(|rate| rate.still_due), Some(0));
    let v = serde_json::to_value(sample()).unwrap();
    assert_eq!(
        (
            v["requests"]["dropped"].as_u64(),
            v["requests"]["total"].as_u64()
        ),
        (Some(4), Some(9))
    );
    assert_eq!(v["rate"]["still_due"], 1);
    assert_eq!(v["schema"], "shootout.load/1");
}

#[test]
fn a_result_written_before_tls_reads_as_clear_text_and_writes_no_tls() {
    let r = written_before_tls();
    assert!(r.tls.is_none());
    assert_eq!(r.requests.tls, 0);
    assert!(r.histograms.handshake.is_empty());
    let v = serde_json::to_value(&r).unwrap();
    assert!(v.get("tls").is_none(), "{v}");
    assert!(v["histograms"].get("handshake").is_none(), "{v}");
    assert_eq!(v["requests"]["tls"], 0);
}

#[test]
fn a_result_through_json_keeps_its_histograms_exactly() {
    let r = sample();
    let text = serde_json::to_string(&r).unwrap();
    let back: LoadResult = serde_json::from_str(&text).unwrap();
    assert_eq!(back.histograms, r.histograms);
    assert_eq!(back.histograms.latency.len(), 3);
    assert_eq!(back.histograms.handshake.len(), 1);
    let (tls, sent) = (back.tls.unwrap(), r.tls.unwrap());
    assert_eq!((tls.full, tls.failures), (sent.full, sent.failures));
    assert_eq!(tls.negotiated, sent.negotiated);
    assert_eq!(back.requests, r.requests);
    assert_eq!(back.per_second[0].hist, r.per_second[0].hist);
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["schema"], SCHEMA);
    assert!(
        v.get("latency").is_none(),
        "no decoded histogram on the wire"
    );
}

#[test]
fn a_foreign_schema_or_a_broken_histogram_is_an_error_naming_it() {
    let mut wire = WireResult::from(sample());
    wire.schema = "shootout.load/9".into();
    let err = LoadResult::try_from(wire.clone()).unwrap_err();
    assert!(matches!(err, WireError::Schema { .. }), "{err}");
    wire.schema = SCHEMA.into();
    wire.histograms.latency_raw = serde_json::from_value(json!("not base64!")).unwrap();
    let err = LoadResult::try_from(wire).unwrap_err();
    assert!(
        err.to_string().starts_with("histograms.latency_raw: "),
        "{err}"
    );
    assert_eq!(EncodedHistogram::default().text(), "");
}

#[test]
fn the_schema_file_describes_what_is_written() {
    let schema: Value = serde_json::from_str(include_str!(
        "../../../../docs/schema/shootout.load-1.schema.json"
    ))
    .unwrap();
    assert_eq!(schema["title"], SCHEMA);
    let written = serde_json::to_value(sample()).unwrap();
    if let Err(e) = conforms(&schema, &schema, &written, "$") {
        panic!("docs/schema/shootout.load-1.schema.json: {e}");
    }
}

/// Whether `value` has the types, keys and required keys `node` says (the part of JSON
/// Schema the file uses: type, const, properties, required, additionalProperties, items,
/// oneOf, and `$ref` to `#/$defs/NAME`).
fn conforms(root: &Value, node: &Value, value: &Value, at: &str) -> Result<(), String> {
    if let Some(Value::String(r)) = node.get("$ref") {
        let name = r.trim_start_matches("#/$defs/");
        return conforms(root, &root["$defs"][name], value, at);
    }
    if let Some(Value::Array(branches)) = node.get("oneOf") {
        return match branches
            .iter()
            .any(|b| conforms(root, b, value, at).is_ok())
        {
            true => Ok(()),
            false => Err(format!("{at}: matches no branch of oneOf")),
        };
    }
    if node.get("const").is_some_and(|c| c != value) {
        return Err(format!("{at}: {value} is not {}", node["const"]));
    }
    if let Some(t) = node.get("type") {
        let types: Vec<&str> = match t {
            Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
            t => t.as_str().into_iter().collect(),
        };
        if !types.iter().any(|t| has_type(value, t)) {
            return Err(format!("{at}: {value} is not {types:?}"));
        }
    }
    match value {
        Value::Object(map) => {
            for key in node["required"].as_array().into_iter().flatten() {
                let key = key.as_str().unwrap_or_default();
                if !map.contains_key(key) {
                    return Err(format!("{at}: required {key:?} is missing"));
                }
            }
            for (key, v) in map {
                let here = format!("{at}.{key}");
                match (
                    node["properties"].get(key),
                    node.get("additionalProperties"),
                ) {
                    (Some(p), _) => conforms(root, p, v, &here)?,
                    (None, Some(Value::Bool(false))) => {
                        return Err(format!("{here}: not in the schema"))
                    }
                    (None, Some(extra)) => conforms(root, extra, v, &here)?,
                    (None, None) => {}
                }
            }
            Ok(())
        }
        Value::Array(items) => (items.iter().enumerate())
            .try_for_each(|(i, v)| conforms(root, &node["items"], v, &format!("{at}[{i}]"))),
        _ => Ok(()),
    }
}

fn has_type(value: &Value, t: &str) -> bool {
    match t {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        "integer" => value.is_u64() || value.is_i64(),
        "number" => value.is_number(),
        _ => false,
    }
}
