//! A WebSocket load (`websocket = { in_flight = 16 }` in `[[loads]]`): an echo load on the
//! `websocket` endpoint (each contestant's `[websocket]` path), closed, at a fixed rate or
//! as devices, its messages as `shootout load ws://` sends them. Read once into the
//! engine's [`WebSocketSpec`]; what a WebSocket load cannot have (TLS, HTTP/2, a pipeline,
//! HTTP/1.0, a new connection per request, several messages per device, a capacity search)
//! is refused here, naming the field, before the engine would refuse it at the first run.

use super::error::{FieldError, FieldProblem, WebSocketProblem};
use super::file::LoadFile;
use super::LoadPace;
use crate::model::endpoint::{Builtin, Endpoint};
use engine::WebSocketSpec;

/// The most messages in flight per connection (the engine's `LoadConfig` check).
const MOST_IN_FLIGHT: usize = 1024;

/// The largest message (the engine's `LoadConfig` check).
const MOST_OCTETS: usize = 16 << 20;

/// The WebSocket settings of `l` (paced as `pace`, in an experiment of `endpoints`), None
/// for a load over HTTP; a mistake names its field.
pub(super) fn check(
    l: &LoadFile,
    pace: &LoadPace,
    endpoints: &[Endpoint],
) -> Result<Option<WebSocketSpec>, FieldError> {
    let Some(ws) = &l.websocket else {
        return Ok(None);
    };
    let at = |problem: WebSocketProblem, field| FieldProblem::from(problem).at(field);
    if ws.in_flight == 0 || ws.in_flight > MOST_IN_FLIGHT {
        return Err(at(WebSocketProblem::InFlight(ws.in_flight), "websocket"));
    }
    if ws.message_size > MOST_OCTETS {
        return Err(at(
            WebSocketProblem::MessageSize(ws.message_size),
            "websocket",
        ));
    }
    if ws.messages_per_connection == Some(0) {
        return Err(at(WebSocketProblem::PerConnection, "websocket"));
    }
    transport(l).map_err(|(problem, field)| at(problem, field))?;
    match pace {
        LoadPace::Capacity(_) => return Err(at(WebSocketProblem::Capacity, "websocket")),
        LoadPace::Devices { .. } if ws.in_flight != 1 || ws.messages_per_connection.is_some() => {
            return Err(at(WebSocketProblem::Devices, "websocket"))
        }
        _ => {}
    }
    let echo = Builtin::WebSocket.name();
    if !endpoints.iter().any(|e| e.name == echo) {
        return Err(at(WebSocketProblem::NoEndpoint, "websocket"));
    }
    if (l.endpoints.as_ref()).is_some_and(|names| names.iter().any(|n| n != echo)) {
        return Err(at(WebSocketProblem::OtherEndpoint, "endpoints"));
    }
    Ok(Some(ws.clone()))
}

/// What a WebSocket load cannot be sent over: the field that asks for it.
fn transport(l: &LoadFile) -> Result<(), (WebSocketProblem, &'static str)> {
    let over = |field| Err((WebSocketProblem::NotOverWebSocket(field), field));
    if l.tls.is_some() {
        return over("tls");
    }
    if l.http2 || !l.streams.is_empty() {
        return over("http2");
    }
    if l.http10 {
        return over("http10");
    }
    if l.pipeline > 1 {
        return over("pipeline");
    }
    match l.keepalive {
        true => Ok(()),
        false => Err((WebSocketProblem::NewConnections, "keepalive")),
    }
}

/// An experiment whose endpoints include the WebSocket echo needs a WebSocket load to
/// run it.
pub(super) fn check_endpoint(
    endpoints: &[Endpoint],
    websocket_loads: usize,
) -> Result<(), FieldError> {
    let echo = endpoints
        .iter()
        .any(|e| e.builtin == Some(Builtin::WebSocket));
    match echo && websocket_loads == 0 {
        true => Err(FieldProblem::from(WebSocketProblem::NoLoad).at("endpoints")),
        false => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(extra: &str) -> LoadFile {
        toml::from_str(&format!("name = \"ws\"\nconnections = [50]\n{extra}")).unwrap()
    }

    fn echo() -> Vec<Endpoint> {
        vec![Endpoint::builtin("websocket").unwrap()]
    }

    fn checked(extra: &str) -> Result<Option<WebSocketSpec>, String> {
        check(&load(extra), &LoadPace::Closed, &echo()).map_err(|e| e.to_string())
    }

    #[test]
    fn a_websocket_load_reads_into_the_engines_settings() {
        assert_eq!(checked(""), Ok(None));
        let ws = checked("websocket = { in_flight = 16, binary = true }")
            .unwrap()
            .unwrap();
        assert_eq!((ws.in_flight, ws.binary, ws.message_size), (16, true, 32));
        let defaults = checked("websocket = {}").unwrap().unwrap();
        assert_eq!(defaults, WebSocketSpec::default());
        let churn = checked("websocket = { messages_per_connection = 100 }").unwrap();
        assert_eq!(churn.unwrap().messages_per_connection, Some(100));
    }

    #[test]
    fn what_a_websocket_load_cannot_have_is_named_by_its_field_in_one_line() {
        for (extra, want) in [
            (
                "websocket = { in_flight = 0 }",
                "websocket: 0 messages in flight per connection: between 1 and 1024",
            ),
            (
                "websocket = { message_size = 20000000 }",
                "websocket: a message of 20000000 octets: at most 16 MiB",
            ),
            (
                "websocket = { messages_per_connection = 0 }",
                "websocket: at least 1 message per connection",
            ),
            (
                "websocket = {}\ntls = {}",
                "tls: the contestants serve WebSocket in clear text (ws://): leave tls out",
            ),
            (
                "websocket = {}\nhttp2 = true",
                "http2: the contestants serve WebSocket in clear text (ws://): leave http2 out",
            ),
            (
                "websocket = {}\npipeline = 4",
                "pipeline: the contestants serve WebSocket in clear text (ws://): leave pipeline out",
            ),
            (
                "websocket = {}\nkeepalive = false",
                "keepalive: a WebSocket load keeps its connections: leave keepalive = false out",
            ),
            (
                "websocket = {}\nendpoints = [\"websocket\", \"hello\"]",
                "endpoints: a WebSocket load runs on the websocket endpoint alone",
            ),
            (
                "websocket = { in_flight = 2000 }",
                "websocket: 2000 messages in flight per connection: between 1 and 1024",
            ),
        ] {
            assert_eq!(checked(extra), Err(want.to_string()), "{extra}");
        }
        let hello = vec![Endpoint::hello()];
        let e = check(&load("websocket = {}"), &LoadPace::Closed, &hello).unwrap_err();
        assert_eq!(
            e.to_string(),
            "websocket: a WebSocket load runs on the websocket endpoint: add \"websocket\" to the experiment's endpoints"
        );
        assert!(check_endpoint(&echo(), 1).is_ok() && check_endpoint(&hello, 0).is_ok());
        assert_eq!(
            check_endpoint(&echo(), 0).unwrap_err().to_string(),
            "endpoints: the websocket endpoint is loaded by WebSocket loads (websocket = {...}), and none is"
        );
    }

    #[test]
    fn a_device_sends_one_message_at_a_time() {
        let script = engine::DeviceScript {
            count: engine::RateSchedule::parse_device_count("0,10:5s").unwrap(),
            requests: 5,
            think: std::time::Duration::from_millis(100),
            jitter: 0.0,
        };
        let devices = LoadPace::Devices {
            stages: "0,10:5s".into(),
            script,
        };
        assert!(check(&load("websocket = {}"), &devices, &echo())
            .unwrap()
            .is_some());
        let eight = load("websocket = { in_flight = 8 }");
        assert_eq!(
            check(&eight, &devices, &echo()).unwrap_err().to_string(),
            "websocket: a device sends one message at a time, and its script ends its connection: leave in_flight and messages_per_connection out"
        );
    }
}
