//! The checks against the test kit's WebSocket servers: a well-behaved one passes every
//! row, each misbehaving one fails the row of what it breaks, and a server with no
//! WebSocket at all gets every row, labelled, rather than a crash.

use super::*;
use testserver::{Behavior, TestServer, WsBehavior};

fn checks_of(server: &TestServer) -> Vec<Check> {
    let addr = server.addr();
    run_websocket(addr, &addr.to_string(), "/ws")
}

fn checks(behavior: WsBehavior) -> Vec<Check> {
    checks_of(&TestServer::start_ws(behavior).unwrap())
}

/// The names of the rows that failed.
fn failed(checks: &[Check]) -> Vec<&str> {
    let bad = checks.iter().filter(|c| !c.passed);
    bad.map(|c| c.name.as_str()).collect()
}

fn detail<'a>(checks: &'a [Check], name: &str) -> &'a str {
    let found = checks.iter().find(|c| c.name == name);
    &found.unwrap_or_else(|| panic!("no row {name}")).detail
}

#[test]
fn an_echo_server_passes_every_row_even_in_fragments() {
    for behavior in [WsBehavior::Echo, WsBehavior::Fragmented] {
        let c = checks(behavior);
        let names: Vec<&str> = c.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "ws upgrade",
                "ws accept",
                "ws text",
                "ws binary",
                "ws ordering",
                "ws close",
                "ws no-upgrade"
            ]
        );
        assert!(failed(&c).is_empty(), "{behavior}: {c:?}");
        assert_eq!(
            detail(&c, "ws binary"),
            "a 1000-octet binary message echoed"
        );
        assert_eq!(
            detail(&c, "ws no-upgrade"),
            "a GET without Upgrade answered 400"
        );
    }
}

#[test]
fn a_wrong_accept_fails_the_accept_row_and_what_needs_a_connection() {
    let c = checks(WsBehavior::WrongAccept);
    assert_eq!(
        failed(&c),
        [
            "ws accept",
            "ws text",
            "ws binary",
            "ws ordering",
            "ws close"
        ]
    );
    assert_eq!(
        detail(&c, "ws accept"),
        "answered the upgrade with a 101 whose Sec-WebSocket-Accept is not the key's"
    );
    assert!(
        detail(&c, "ws text").starts_with("no WebSocket connection: "),
        "{c:?}"
    );
}

#[test]
fn a_refused_upgrade_is_named_with_its_status() {
    let c = checks(WsBehavior::Refuse);
    assert_eq!(
        detail(&c, "ws upgrade"),
        "answered 400, not 101 Switching Protocols"
    );
    assert_eq!(
        detail(&c, "ws accept"),
        "not checked: answered 400, not 101 Switching Protocols"
    );
    assert!(c.iter().find(|c| c.name == "ws no-upgrade").unwrap().passed);
}

#[test]
fn broken_frames_fail_the_echo_rows_naming_the_rule() {
    let c = checks(WsBehavior::MaskedFrame);
    assert_eq!(failed(&c), ["ws text", "ws binary", "ws ordering"]);
    assert_eq!(
        detail(&c, "ws text"),
        "broke RFC 6455: a masked server frame (the load counts it under ws, errors.masked_frame)"
    );
    let c = checks(WsBehavior::ReservedBits);
    assert_eq!(failed(&c), ["ws text", "ws binary", "ws ordering"]);
    assert!(detail(&c, "ws binary").contains("errors.reserved_bits"));
    // Only text is checked as UTF-8: binary passes.
    let c = checks(WsBehavior::InvalidUtf8);
    assert_eq!(failed(&c), ["ws text", "ws ordering"]);
    assert!(detail(&c, "ws text").contains("errors.invalid_utf8"));
}

#[test]
fn a_length_past_the_limit_and_a_close_mid_message_fail_the_echoes_and_a_ping_flood_passes() {
    let c = checks(WsBehavior::TooLong);
    assert_eq!(failed(&c), ["ws text", "ws binary", "ws ordering"]);
    assert_eq!(
        detail(&c, "ws binary"),
        "broke RFC 6455: a frame past 1 MiB (the load counts it under ws, errors.too_long)"
    );
    let c = checks(WsBehavior::CloseMidMessage);
    assert_eq!(failed(&c), ["ws text", "ws binary", "ws ordering"]);
    assert_eq!(
        detail(&c, "ws text"),
        "closed the WebSocket with close 1001"
    );
    // Pings are answered on the way: the echoes still come.
    let c = checks(WsBehavior::PingFlood(50));
    assert!(failed(&c).is_empty(), "{c:?}");
}

#[test]
fn a_server_that_closes_mid_stream_fails_ordering_and_one_that_ignores_close_fails_close() {
    let c = checks(WsBehavior::CloseAfter(4));
    assert_eq!(failed(&c), ["ws ordering"]);
    assert_eq!(
        detail(&c, "ws ordering"),
        "after 4 echoes, closed the WebSocket with close 1011"
    );
    let c = checks(WsBehavior::IgnoreClose);
    assert_eq!(failed(&c), ["ws close"]);
    assert_eq!(
        detail(&c, "ws close"),
        "close 1000 not answered: no answer within 3 s"
    );
}

#[test]
fn an_http_server_without_websocket_gets_every_row_labelled() {
    let server = TestServer::start(Behavior::Hello).unwrap();
    let c = checks_of(&server);
    assert_eq!(c.len(), 7);
    assert!(c.iter().all(|c| !c.passed), "{c:?}");
    assert_eq!(
        detail(&c, "ws upgrade"),
        "answered 200, not 101 Switching Protocols"
    );
    assert_eq!(
        detail(&c, "ws no-upgrade"),
        "a GET without Upgrade answered 200 (want a 4xx: it is no WebSocket request)"
    );
}
