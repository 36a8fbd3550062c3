//! The HTTP/2 mode's frames on the wire, seen by a raw client written here: the
//! preface and SETTINGS, flow control both ways, and what each misbehaviour sends,
//! octet by octet where it matters. Loopback only; every read gives up after 5 s.

use crate::counters;

use counters::wait_for;
use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use testserver::{H2Behavior, RstCode, TestServer};

const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

// Frame types and flags (RFC 9113 §6).
const DATA: u8 = 0x0;
const HEADERS: u8 = 0x1;
const RST_STREAM: u8 = 0x3;
const SETTINGS: u8 = 0x4;
const PING: u8 = 0x6;
const GOAWAY: u8 = 0x7;
const WINDOW_UPDATE: u8 = 0x8;
const END_STREAM: u8 = 0x1;
const ACK: u8 = 0x1;
const END_HEADERS: u8 = 0x4;

// Settings identifiers.
const MAX_CONCURRENT_STREAMS: u16 = 0x3;
const INITIAL_WINDOW_SIZE: u16 = 0x4;
const MAX_FRAME_SIZE: u16 = 0x5;

/// `:method GET`, `:scheme http`, `:path /`: indexed fields of the static table.
const GET: &[u8] = &[0x82, 0x86, 0x84];
/// `:method HEAD` as a literal with the table's name, then `:scheme http`, `:path /`.
const HEAD: &[u8] = b"\x02\x04HEAD\x86\x84";

/// A frame as read.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Frame {
    kind: u8,
    flags: u8,
    stream: u32,
    payload: Vec<u8>,
}

impl Frame {
    /// A GOAWAY's last stream and error code, or an RST_STREAM's code (as `(0, code)`).
    fn code(&self) -> (u32, u32) {
        let word = |at: usize| u32::from_be_bytes(self.payload[at..at + 4].try_into().unwrap());
        match self.kind {
            GOAWAY => (word(0) & 0x7fff_ffff, word(4)),
            RST_STREAM => (0, word(0)),
            _ => panic!("no code in {self:?}"),
        }
    }
}

/// A raw HTTP/2 client.
struct Client(TcpStream);

impl Client {
    /// Connects, sends the preface and SETTINGS with `settings`.
    fn connect(server: &TestServer, settings: &[(u16, u32)]) -> Client {
        let tcp = TcpStream::connect(server.addr()).unwrap();
        tcp.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let mut client = Client(tcp);
        client.0.write_all(PREFACE).unwrap();
        let payload: Vec<u8> = settings
            .iter()
            .flat_map(|(id, value)| [&id.to_be_bytes()[..], &value.to_be_bytes()].concat())
            .collect();
        client.send(SETTINGS, 0, 0, &payload);
        client
    }

    /// Connects and reads the server's SETTINGS and its ack of ours.
    fn ready(server: &TestServer, settings: &[(u16, u32)]) -> Client {
        let mut client = Client::connect(server, settings);
        assert_eq!(client.next().unwrap().kind, SETTINGS);
        client.until(|f| f.kind == SETTINGS && f.flags == ACK);
        client
    }

    fn send(&mut self, kind: u8, flags: u8, stream: u32, payload: &[u8]) {
        let len = (payload.len() as u32).to_be_bytes();
        let mut frame = len[1..].to_vec();
        frame.extend_from_slice(&[kind, flags]);
        frame.extend_from_slice(&stream.to_be_bytes());
        frame.extend_from_slice(payload);
        self.0.write_all(&frame).unwrap();
    }

    /// A whole request without a body on `stream`.
    fn get(&mut self, stream: u32) {
        self.send(HEADERS, END_HEADERS | END_STREAM, stream, GET);
    }

    /// The next frame; None at the server's close.
    fn next(&mut self) -> Option<Frame> {
        let mut head = [0u8; 9];
        match self.0.read_exact(&mut head) {
            Err(e) if e.kind() == ErrorKind::UnexpectedEof => return None,
            Err(e) if e.kind() == ErrorKind::ConnectionReset => return None,
            other => other.unwrap(),
        }
        let len = u32::from_be_bytes([0, head[0], head[1], head[2]]) as usize;
        let mut payload = vec![0; len];
        self.0.read_exact(&mut payload).unwrap();
        let stream = u32::from_be_bytes(head[5..9].try_into().unwrap()) & 0x7fff_ffff;
        Some(Frame {
            kind: head[3],
            flags: head[4],
            stream,
            payload,
        })
    }

    /// Frames until one that `want` matches (that one last).
    fn until(&mut self, want: impl Fn(&Frame) -> bool) -> Vec<Frame> {
        let mut seen = Vec::new();
        loop {
            let frame = self
                .next()
                .unwrap_or_else(|| panic!("closed after {seen:?}"));
            let done = want(&frame);
            seen.push(frame);
            if done {
                return seen;
            }
        }
    }

    /// The body of the response on `stream`, read up to its END_STREAM.
    fn body(&mut self, stream: u32) -> Vec<u8> {
        let frames = self.until(|f| f.stream == stream && f.flags & END_STREAM != 0);
        let data = frames
            .iter()
            .filter(|f| f.kind == DATA && f.stream == stream);
        data.flat_map(|f| f.payload.clone()).collect()
    }

    /// Asserts that the server sends nothing for a while.
    fn assert_silent(&mut self) {
        self.0
            .set_read_timeout(Some(Duration::from_millis(300)))
            .unwrap();
        let mut byte = [0u8];
        let err = self.0.read(&mut byte).expect_err("expected silence");
        assert!(
            matches!(err.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut),
            "{err:?}"
        );
        self.0
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
    }
}

fn start(behavior: H2Behavior) -> TestServer {
    TestServer::start_h2(behavior).unwrap()
}

/// The (identifier, value) pairs of a SETTINGS payload.
fn pairs(frame: &Frame) -> Vec<(u16, u32)> {
    frame
        .payload
        .chunks(6)
        .map(|p| {
            let id = u16::from_be_bytes([p[0], p[1]]);
            (id, u32::from_be_bytes([p[2], p[3], p[4], p[5]]))
        })
        .collect()
}

#[test]
fn the_server_says_its_settings_and_acks_the_clients_and_its_pings() {
    let server = start(H2Behavior::Hello);
    let mut c = Client::connect(&server, &[]);
    let settings = c.next().unwrap();
    assert_eq!(
        (settings.kind, settings.flags, settings.stream),
        (SETTINGS, 0, 0)
    );
    assert_eq!(pairs(&settings), [(MAX_CONCURRENT_STREAMS, 100)]);
    assert_eq!(c.next().unwrap(), frame(SETTINGS, ACK, 0, b""));
    c.send(PING, 0, 0, b"12345678");
    assert_eq!(c.next().unwrap(), frame(PING, ACK, 0, b"12345678"));
    let zero = start(H2Behavior::ZeroWindow);
    let settings = Client::connect(&zero, &[]).next().unwrap();
    let want = [(MAX_CONCURRENT_STREAMS, 100), (INITIAL_WINDOW_SIZE, 0)];
    assert_eq!(pairs(&settings), want);
}

fn frame(kind: u8, flags: u8, stream: u32, payload: &[u8]) -> Frame {
    Frame {
        kind,
        flags,
        stream,
        payload: payload.to_vec(),
    }
}

#[test]
fn hello_is_headers_then_data_with_end_stream_and_head_gets_no_data() {
    let server = start(H2Behavior::Hello);
    let mut c = Client::ready(&server, &[]);
    c.get(1);
    let headers = c.next().unwrap();
    assert_eq!(
        (headers.kind, headers.flags, headers.stream),
        (HEADERS, END_HEADERS, 1)
    );
    // `:status 200` indexed, then content-length 11 as a literal with the table's name.
    assert_eq!(&headers.payload[..6], b"\x88\x0f\x0d\x0211");
    assert_eq!(
        c.next().unwrap(),
        frame(DATA, END_STREAM, 1, b"Hello World")
    );
    c.send(HEADERS, END_HEADERS | END_STREAM, 3, HEAD);
    let head = c.next().unwrap();
    assert_eq!(
        (head.kind, head.flags, head.stream),
        (HEADERS, END_HEADERS | END_STREAM, 3)
    );
    wait_for("responses", 2, || server.responses());
    assert_eq!(server.requests(), 2);
}

#[test]
fn the_clients_dynamic_table_is_followed_across_requests() {
    let server = start(H2Behavior::Hello);
    let mut c = Client::ready(&server, &[]);
    // `:authority localhost` added to the table (incremental indexing), then indexed (62).
    let first = [GET, b"\x41\x09localhost"].concat();
    c.send(HEADERS, END_HEADERS | END_STREAM, 1, &first);
    assert_eq!(c.body(1), b"Hello World");
    c.send(
        HEADERS,
        END_HEADERS | END_STREAM,
        3,
        &[GET, &[0xbe]].concat(),
    );
    assert_eq!(c.body(3), b"Hello World");
    // An index past the table is a connection error.
    c.send(
        HEADERS,
        END_HEADERS | END_STREAM,
        5,
        &[GET, &[0xc0]].concat(),
    );
    let goaway = c.until(|f| f.kind == GOAWAY).pop().unwrap();
    // The last stream the server took on is 3: 5 was never processed.
    assert_eq!(goaway.code(), (3, 0x9), "COMPRESSION_ERROR");
}

#[test]
fn responses_keep_to_the_clients_windows_and_frame_size() {
    let server = start(H2Behavior::Body(100_000));
    let mut c = Client::ready(&server, &[(INITIAL_WINDOW_SIZE, 1000)]);
    c.get(1);
    assert_eq!(c.next().unwrap().kind, HEADERS);
    let first = c.next().unwrap();
    assert_eq!((first.kind, first.payload.len()), (DATA, 1000));
    c.assert_silent();
    // The stream's window opens wide: the connection's 65 535 is what is left.
    c.send(WINDOW_UPDATE, 0, 1, &1_000_000u32.to_be_bytes());
    let mut sent = 1000;
    while sent < 65_535 {
        let data = c.next().unwrap();
        assert!(
            data.kind == DATA && data.payload.len() <= 16_384,
            "{data:?}"
        );
        sent += data.payload.len();
    }
    assert_eq!(sent, 65_535);
    c.assert_silent();
    c.send(WINDOW_UPDATE, 0, 0, &1_000_000u32.to_be_bytes());
    assert_eq!(c.body(1).len(), 100_000 - 65_535);
}

#[test]
fn request_bodies_get_their_window_back_unless_the_behavior_withholds_it() {
    // (behavior, the WINDOW_UPDATEs two DATA frames of 1000 octets get: stream, increment)
    let cases = [
        (
            H2Behavior::Hello,
            vec![(0, 1000), (1, 1000), (0, 1000), (1, 1000)],
        ),
        (
            H2Behavior::WindowStopsAfter(500),
            vec![(0, 1000), (1, 1000), (1, 1000)],
        ),
        (H2Behavior::ZeroWindow, vec![]),
    ];
    for (behavior, want) in cases {
        let server = start(behavior.clone());
        let mut c = Client::ready(&server, &[]);
        c.send(HEADERS, END_HEADERS, 1, GET);
        for _ in 0..2 {
            c.send(DATA, 0, 1, &[b'b'; 1000]);
        }
        c.send(DATA, END_STREAM, 1, b"");
        let frames = c.until(|f| f.kind == HEADERS);
        let updates: Vec<_> = frames
            .iter()
            .filter(|f| f.kind == WINDOW_UPDATE)
            .map(|f| {
                (
                    f.stream,
                    u32::from_be_bytes(f.payload[..4].try_into().unwrap()),
                )
            })
            .collect();
        assert_eq!(updates, want, "{behavior}");
    }
}

#[test]
fn a_bad_preface_is_answered_with_an_http1_refusal_then_a_close() {
    let server = start(H2Behavior::BadPreface);
    let mut c = Client::connect(&server, &[]);
    let mut got = Vec::new();
    c.0.read_to_end(&mut got).unwrap();
    let want = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
    assert_eq!(String::from_utf8_lossy(&got), want);
}

#[test]
fn the_oversized_frame_is_one_octet_past_the_clients_max_frame_size() {
    let server = start(H2Behavior::OversizedFrameAfter(1));
    let mut c = Client::ready(&server, &[(MAX_FRAME_SIZE, 20_000)]);
    c.get(1);
    assert_eq!(c.body(1), b"Hello World");
    c.get(3);
    let data = c.until(|f| f.kind == DATA).pop().unwrap();
    assert_eq!(
        (data.stream, data.flags, data.payload.len()),
        (3, END_STREAM, 20_001)
    );
}

#[test]
fn hpack_garbage_is_an_index_past_both_tables() {
    let server = start(H2Behavior::HpackGarbageAfter(1));
    let mut c = Client::ready(&server, &[]);
    c.get(1);
    assert_eq!(c.body(1), b"Hello World");
    c.get(3);
    let headers = c.until(|f| f.kind == HEADERS).pop().unwrap();
    assert_eq!((headers.stream, headers.payload), (3, vec![0x88, 0xfe]));
}

#[test]
fn a_response_without_status_starts_with_content_length() {
    let server = start(H2Behavior::NoStatus);
    let mut c = Client::ready(&server, &[]);
    c.get(1);
    let headers = c.next().unwrap();
    assert_eq!(&headers.payload[..5], b"\x0f\x0d\x0211");
}

#[test]
fn goaway_names_the_nth_stream_answers_up_to_it_and_ignores_the_rest() {
    let server = start(H2Behavior::GoawayAfter(2));
    let mut c = Client::ready(&server, &[]);
    for stream in [1, 3, 5] {
        c.get(stream);
    }
    let mut frames = Vec::new();
    while let Some(frame) = c.next() {
        frames.push(frame);
    }
    let goaway = frames.iter().find(|f| f.kind == GOAWAY).unwrap();
    assert_eq!(goaway.code(), (3, 0), "last stream 3, NO_ERROR");
    let ended: Vec<_> = frames
        .iter()
        .filter(|f| f.kind == DATA && f.flags & END_STREAM != 0)
        .map(|f| f.stream)
        .collect();
    assert_eq!(ended, [1, 3]);
    assert_eq!((server.requests(), server.goaways()), (2, 1));
}

#[test]
fn a_stream_beyond_max_concurrent_streams_is_refused() {
    let server = start(H2Behavior::MaxConcurrentStreams(1));
    let mut c = Client::connect(&server, &[]);
    assert_eq!(pairs(&c.next().unwrap()), [(MAX_CONCURRENT_STREAMS, 1)]);
    // Stream 1 stays open (its body to come), so stream 3 is one too many.
    c.send(HEADERS, END_HEADERS, 1, GET);
    c.get(3);
    let rst = c.until(|f| f.kind == RST_STREAM).pop().unwrap();
    assert_eq!((rst.stream, rst.code()), (3, (0, 0x7)), "REFUSED_STREAM");
    c.send(DATA, END_STREAM, 1, b"");
    assert_eq!(c.body(1), b"Hello World");
    assert_eq!((server.refused(), server.requests()), (1, 1));
}

#[test]
fn every_kth_stream_is_reset_with_the_code_asked() {
    for (code, number) in [(RstCode::Internal, 0x2), (RstCode::Refused, 0x7)] {
        let server = start(H2Behavior::RstEvery { every: 2, code });
        let mut c = Client::ready(&server, &[]);
        c.get(1);
        assert_eq!(c.body(1), b"Hello World");
        c.get(3);
        let rst = c.until(|f| f.stream == 3).pop().unwrap();
        assert_eq!(
            (rst.kind, rst.code()),
            (RST_STREAM, (0, number)),
            "{code:?}"
        );
        assert_eq!(server.resets(), 1);
    }
}

#[test]
fn the_ping_flood_follows_each_response_and_counts_acks() {
    let server = start(H2Behavior::PingFlood(2));
    let mut c = Client::ready(&server, &[]);
    c.get(1);
    c.body(1);
    let pings = [c.next().unwrap(), c.next().unwrap()];
    for ping in &pings {
        assert_eq!((ping.kind, ping.flags, ping.payload.len()), (PING, 0, 8));
    }
    assert_eq!(server.pings(), 2);
    c.send(PING, ACK, 0, &pings[0].payload);
    wait_for("ping acks", 1, || server.ping_acks());
}

#[test]
fn a_protocol_error_after_n_is_a_goaway_naming_the_last_answer_then_a_close() {
    let server = start(H2Behavior::ProtocolErrorAfter(1));
    let mut c = Client::ready(&server, &[]);
    c.get(1);
    assert_eq!(c.body(1), b"Hello World");
    let goaway = c.until(|f| f.kind == GOAWAY).pop().unwrap();
    assert_eq!(goaway.code(), (1, 0x1), "PROTOCOL_ERROR");
    assert_eq!(c.next(), None);
}

#[test]
fn close_after_n_closes_with_no_goaway() {
    let server = start(H2Behavior::CloseAfter(1));
    let mut c = Client::ready(&server, &[]);
    c.get(1);
    c.get(3);
    assert_eq!(c.body(1), b"Hello World");
    assert_eq!(c.next(), None);
    assert_eq!((server.requests(), server.goaways()), (2, 0));
}

#[test]
fn a_client_that_breaks_the_protocol_gets_goaway_with_the_code() {
    // (what the client sends after its SETTINGS, the code of the GOAWAY it gets)
    let oversized = [&[0x00, 0x40, 0x01, DATA, 0, 0, 0, 0, 1][..], &[0; 16_385]].concat();
    let data_on_0 = [&[0, 0, 1, DATA, 0, 0, 0, 0, 0][..], b"x"].concat();
    for (bytes, code) in [(oversized, 0x6), (data_on_0, 0x1)] {
        let server = start(H2Behavior::Hello);
        let mut c = Client::ready(&server, &[]);
        c.0.write_all(&bytes).unwrap();
        let goaway = c.until(|f| f.kind == GOAWAY).pop().unwrap();
        assert_eq!(goaway.code().1, code);
        assert_eq!(server.goaways(), 1);
    }
}
