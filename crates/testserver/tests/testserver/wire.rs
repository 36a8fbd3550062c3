//! Checks each behavior's bytes on the wire with a plain `TcpStream` client.

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::thread;
use std::time::{Duration, Instant};

use testserver::{Behavior, TestServer};

const GET: &str = "GET / HTTP/1.1\r\nHost: t\r\n\r\n";
const GET_CLOSE: &str = "GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n";

/// A connected client whose reads give up after a second, so no test can hang.
fn connect(server: &TestServer) -> TcpStream {
    let stream = TcpStream::connect(server.addr()).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(1)))
        .unwrap();
    stream
}

fn start(behavior: Behavior) -> TestServer {
    TestServer::start(behavior).unwrap()
}

fn send(stream: &mut TcpStream, text: &str) {
    stream.write_all(text.as_bytes()).unwrap();
}

/// Reads until EOF; the bytes as text.
fn read_to_close(stream: &mut TcpStream) -> String {
    let mut out = Vec::new();
    stream.read_to_end(&mut out).unwrap();
    String::from_utf8(out).unwrap()
}

/// Reads exactly `n` bytes.
fn read_n(stream: &mut TcpStream, n: usize) -> String {
    let mut out = vec![0; n];
    stream.read_exact(&mut out).unwrap();
    String::from_utf8(out).unwrap()
}

/// Reads until the text ends with `end`.
fn read_until(stream: &mut TcpStream, end: &str) -> String {
    let mut out = Vec::new();
    let mut byte = [0u8];
    while !out.ends_with(end.as_bytes()) {
        assert_eq!(
            stream.read(&mut byte).unwrap(),
            1,
            "closed early: {:?}",
            String::from_utf8_lossy(&out)
        );
        out.push(byte[0]);
    }
    String::from_utf8(out).unwrap()
}

/// Reads one response framed by Content-Length.
fn read_response(stream: &mut TcpStream) -> String {
    let head = read_until(stream, "\r\n\r\n");
    let len = head
        .lines()
        .find_map(|l| l.strip_prefix("Content-Length: "))
        .map_or(0, |v| v.parse().unwrap());
    head + &read_n(stream, len)
}

/// Replaces the Date header's value, which changes every second.
fn undate(response: &str) -> String {
    let start = response.find("Date: ").expect("a Date header") + 6;
    let end = start + response[start..].find("\r\n").unwrap();
    assert_eq!(end - start, 29, "IMF-fixdate length: {response:?}");
    assert!(response[start..end].ends_with(" GMT"));
    format!("{}DATE{}", &response[..start], &response[end..])
}

/// Asserts that the server sends nothing for a while (the read times out).
fn assert_silent(stream: &mut TcpStream, wait: Duration) {
    stream.set_read_timeout(Some(wait)).unwrap();
    let mut byte = [0u8];
    let err = stream.read(&mut byte).expect_err("expected silence");
    assert!(
        matches!(err.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut),
        "{err:?}"
    );
}

/// Asserts that the next read sees the server's FIN.
fn assert_eof(stream: &mut TcpStream) {
    let mut byte = [0u8];
    assert_eq!(stream.read(&mut byte).unwrap(), 0);
}

/// Waits for a counter to reach a value (counters lag the bytes slightly): for a minute
/// at most, which only a stuck server needs.
fn wait_for(what: &str, want: u64, get: impl Fn() -> u64) {
    let end = Instant::now() + Duration::from_secs(60);
    while get() != want && Instant::now() < end {
        // Between polls only.
        thread::sleep(Duration::from_millis(1));
    }
    assert_eq!(get(), want, "{what}");
}

const HELLO: &str = "HTTP/1.1 200 OK\r\nDate: DATE\r\nContent-Length: 11\r\n\r\nHello World";

#[test]
fn hello_is_exact_and_keeps_the_connection() {
    let server = start(Behavior::Hello);
    let mut c = connect(&server);
    for _ in 0..2 {
        send(&mut c, GET);
        assert_eq!(undate(&read_response(&mut c)), HELLO);
    }
    wait_for("responses", 2, || server.responses());
    assert_eq!((server.requests(), server.connections()), (2, 1));
}

#[test]
fn pipelined_requests_are_answered_in_order() {
    let server = start(Behavior::Hello);
    let mut c = connect(&server);
    // A body to skip, then a HEAD (no body in its answer), then a close.
    let post = "POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nabcde";
    send(&mut c, &format!("{post}HEAD / HTTP/1.1\r\n\r\n{GET_CLOSE}"));
    let head_only = "HTTP/1.1 200 OK\r\nDate: DATE\r\nContent-Length: 11\r\n\r\n";
    let closing = "HTTP/1.1 200 OK\r\nDate: DATE\r\nContent-Length: 11\r\nConnection: close\r\n\r\nHello World";
    let all = read_to_close(&mut c);
    let parts: Vec<String> = all.split_inclusive("\r\n\r\n").map(String::from).collect();
    assert_eq!(parts.len(), 4, "{all:?}");
    assert_eq!(undate(&(parts[0].clone() + &parts[1][..11])), HELLO);
    assert_eq!(undate(&parts[1][11..]), head_only);
    assert_eq!(undate(&(parts[2].clone() + &parts[3])), closing);
    assert_eq!(server.requests(), 3);
}

#[test]
fn a_request_split_across_writes_is_reassembled() {
    let server = start(Behavior::Hello);
    let mut c = connect(&server);
    c.set_nodelay(true).unwrap();
    for piece in ["GET / HT", "TP/1.1\r\nHost: t\r", "\n\r\n"] {
        send(&mut c, piece);
        // Apart, so that the server reads them apart (the split is what is tested).
        thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(undate(&read_response(&mut c)), HELLO);
}

#[test]
fn http10_closes_unless_asked_to_keep_alive() {
    let server = start(Behavior::Hello);
    let mut c = connect(&server);
    send(&mut c, "GET / HTTP/1.0\r\n\r\n");
    let want = "HTTP/1.1 200 OK\r\nDate: DATE\r\nContent-Length: 11\r\nConnection: close\r\n\r\nHello World";
    assert_eq!(undate(&read_to_close(&mut c)), want);

    let mut c = connect(&server);
    for _ in 0..2 {
        send(&mut c, "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
        let want = "HTTP/1.1 200 OK\r\nDate: DATE\r\nContent-Length: 11\r\nConnection: keep-alive\r\n\r\nHello World";
        assert_eq!(undate(&read_response(&mut c)), want);
    }
}

#[test]
fn delay_answers_late() {
    let server = start(Behavior::Delay(Duration::from_millis(60)));
    let mut c = connect(&server);
    let t = Instant::now();
    send(&mut c, GET);
    assert_eq!(undate(&read_response(&mut c)), HELLO);
    assert!(t.elapsed() >= Duration::from_millis(60));
}

#[test]
fn status_sets_the_status_line() {
    let server = start(Behavior::Status(503));
    let mut c = connect(&server);
    send(&mut c, GET);
    assert_eq!(
        undate(&read_response(&mut c)),
        HELLO.replace("200 OK", "503 Service Unavailable")
    );
    let server = start(Behavior::Status(204));
    let mut c = connect(&server);
    send(&mut c, GET);
    assert_eq!(
        undate(&read_response(&mut c)),
        "HTTP/1.1 204 No Content\r\nDate: DATE\r\n\r\n"
    );
}

#[test]
fn malformed_status_line() {
    let server = start(Behavior::MalformedStatusLine);
    let mut c = connect(&server);
    send(&mut c, GET);
    assert_eq!(read_n(&mut c, 16), "HTTX/1.1 abc\r\n\r\n");
    assert_silent(&mut c, Duration::from_millis(100));
}

#[test]
fn long_content_length_closes_early() {
    let server = start(Behavior::LongContentLength);
    let mut c = connect(&server);
    send(&mut c, GET);
    let want = "HTTP/1.1 200 OK\r\nDate: DATE\r\nContent-Length: 100\r\n\r\nHello World";
    assert_eq!(undate(&read_to_close(&mut c)), want);
}

#[test]
fn short_content_length_sends_extra_bytes_and_stays_open() {
    let server = start(Behavior::ShortContentLength);
    let mut c = connect(&server);
    send(&mut c, GET);
    let want = "HTTP/1.1 200 OK\r\nDate: DATE\r\nContent-Length: 5\r\n\r\nHello World";
    assert_eq!(
        undate(&(read_until(&mut c, "\r\n\r\n") + &read_n(&mut c, 11))),
        want
    );
    assert_silent(&mut c, Duration::from_millis(100));
}

#[test]
fn reset_mid_response_resets() {
    let server = start(Behavior::ResetMidResponse);
    let mut c = connect(&server);
    send(&mut c, GET);
    let mut got = Vec::new();
    let mut chunk = [0u8; 1024];
    let err = loop {
        match c.read(&mut chunk) {
            Ok(0) => panic!(
                "clean EOF instead of RST after {:?}",
                String::from_utf8_lossy(&got)
            ),
            Ok(n) => got.extend_from_slice(&chunk[..n]),
            Err(e) => break e,
        }
    };
    assert_eq!(err.kind(), ErrorKind::ConnectionReset, "{err:?}");
    // The partial response normally arrives before the RST, but a client that reads late
    // may lose it to the reset, so only check whatever did arrive.
    assert!("HTTP/1.1 200 OK\r\n"
        .as_bytes()
        .starts_with(&got[..got.len().min(17)]));
}

#[test]
fn invalid_chunk_size() {
    let server = start(Behavior::InvalidChunkSize);
    let mut c = connect(&server);
    send(&mut c, GET);
    let want = "HTTP/1.1 200 OK\r\nDate: DATE\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nHello World\r\n0\r\n\r\n";
    let got = read_until(&mut c, "\r\n\r\n") + &read_until(&mut c, "0\r\n\r\n");
    assert_eq!(undate(&got), want);
}

#[test]
fn chunked_body_decodes_to_hello_world() {
    let server = start(Behavior::Chunked);
    let mut c = connect(&server);
    for _ in 0..2 {
        send(&mut c, GET);
        let head = read_until(&mut c, "\r\n\r\n");
        assert_eq!(
            undate(&head),
            "HTTP/1.1 200 OK\r\nDate: DATE\r\nTransfer-Encoding: chunked\r\nTrailer: X-Trailer\r\n\r\n"
        );
        let body = read_until(&mut c, "X-Trailer: done\r\n\r\n");
        assert_eq!(decode_chunked(&body), "Hello World");
    }
}

/// Decodes a chunked body (ignoring extensions and the trailer).
fn decode_chunked(mut body: &str) -> String {
    let mut out = String::new();
    loop {
        let (line, rest) = body.split_once("\r\n").unwrap();
        let size = usize::from_str_radix(line.split(';').next().unwrap(), 16).unwrap();
        if size == 0 {
            return out;
        }
        out.push_str(&rest[..size]);
        assert_eq!(&rest[size..size + 2], "\r\n");
        body = &rest[size + 2..];
    }
}

#[test]
fn huge_headers_then_a_valid_body() {
    let server = start(Behavior::HugeHeaders(40_000));
    let mut c = connect(&server);
    send(&mut c, GET);
    let response = read_response(&mut c);
    let head_len = response.find("\r\n\r\n").unwrap() + 4;
    assert!((40_000..41_200).contains(&head_len), "{head_len}");
    assert!(response.contains("\r\nX-Pad-0: "));
    assert!(response.ends_with("\r\n\r\nHello World"));
}

#[test]
fn never_answer_reads_but_stays_silent() {
    let server = start(Behavior::NeverAnswer);
    let mut c = connect(&server);
    send(&mut c, &GET.repeat(2));
    assert_silent(&mut c, Duration::from_millis(150));
    assert_eq!((server.requests(), server.responses()), (2, 0));
}

#[test]
fn close_after_responses_closes_after_the_nth() {
    let server = start(Behavior::CloseAfterResponses(2));
    let mut c = connect(&server);
    for _ in 0..2 {
        send(&mut c, GET);
        assert_eq!(undate(&read_response(&mut c)), HELLO);
    }
    assert_eof(&mut c);
    // Counted per connection: a new one gets two answers again.
    let mut c = connect(&server);
    send(&mut c, &GET.repeat(3));
    let all = read_to_close(&mut c);
    assert_eq!(all.matches("HTTP/1.1 200 OK").count(), 2, "{all:?}");
    wait_for("responses", 4, || server.responses());
}

#[test]
fn close_idle_closes_an_idle_connection() {
    // A limit far above the pause below, which a busy machine may stretch.
    let limit = Duration::from_millis(1000);
    let server = start(Behavior::CloseIdle(limit));
    let mut c = connect(&server);
    c.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    send(&mut c, GET);
    assert_eq!(undate(&read_response(&mut c)), HELLO);
    // Activity before the limit keeps it open.
    thread::sleep(Duration::from_millis(40));
    send(&mut c, GET);
    assert_eq!(undate(&read_response(&mut c)), HELLO);
    let t = Instant::now();
    assert_eof(&mut c);
    // Not before the limit (less what passed between its answer and this clock); how
    // long after is the machine's business.
    let idle = t.elapsed();
    assert!(idle >= limit / 2, "{idle:?}");
}

#[test]
fn interim_responses_come_first() {
    let server = start(Behavior::Interim);
    let mut c = connect(&server);
    send(&mut c, GET);
    assert_eq!(
        read_until(&mut c, "\r\n\r\n"),
        "HTTP/1.1 100 Continue\r\n\r\n"
    );
    assert_eq!(
        read_until(&mut c, "\r\n\r\n"),
        "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n"
    );
    assert_eq!(undate(&read_response(&mut c)), HELLO);
    wait_for("responses", 1, || server.responses());
}

#[test]
fn connection_close_announces_and_closes() {
    let server = start(Behavior::ConnectionClose);
    let mut c = connect(&server);
    send(&mut c, GET);
    let want = "HTTP/1.1 200 OK\r\nDate: DATE\r\nContent-Length: 11\r\nConnection: close\r\n\r\nHello World";
    assert_eq!(undate(&read_to_close(&mut c)), want);
}

#[test]
fn http10_close_delimited_body() {
    let server = start(Behavior::Http10CloseDelimited);
    let mut c = connect(&server);
    send(&mut c, GET);
    assert_eq!(
        undate(&read_to_close(&mut c)),
        "HTTP/1.0 200 OK\r\nDate: DATE\r\n\r\nHello World"
    );
}

#[test]
fn head_requests_get_no_body() {
    let server = start(Behavior::Http10CloseDelimited);
    let mut c = connect(&server);
    send(&mut c, "HEAD / HTTP/1.1\r\n\r\n");
    assert_eq!(
        undate(&read_to_close(&mut c)),
        "HTTP/1.0 200 OK\r\nDate: DATE\r\n\r\n"
    );
}

#[test]
fn stall_after_counts_answers_across_connections() {
    let server = start(Behavior::StallAfter(1));
    let mut first = connect(&server);
    send(&mut first, GET);
    assert_eq!(undate(&read_response(&mut first)), HELLO);
    let mut second = connect(&server);
    send(&mut second, GET);
    assert_silent(&mut second, Duration::from_millis(100));
    send(&mut first, GET);
    assert_silent(&mut first, Duration::from_millis(100));
    assert_eq!(
        (server.requests(), server.responses(), server.connections()),
        (3, 1, 2)
    );
}

#[test]
fn workers_serve_every_connection_with_at_most_w_at_once() {
    let (workers, service) = (2, Duration::from_millis(50));
    let server = start(Behavior::Workers { workers, service });
    let t = Instant::now();
    let clients: Vec<_> = (0..8)
        .map(|_| {
            let mut c = connect(&server);
            // Queued behind the others for up to ~0.6 s; a busy machine may stretch that.
            c.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
            thread::spawn(move || {
                for _ in 0..3 {
                    send(&mut c, GET);
                    assert_eq!(undate(&read_response(&mut c)), HELLO);
                }
            })
        })
        .collect();
    for client in clients {
        client.join().expect("every request gets its 200");
    }
    wait_for("responses", 24, || server.responses());
    assert_eq!((server.requests(), server.connections()), (24, 8));
    // Eight clients keep both workers busy, and no more than both ever serve.
    assert_eq!(server.peak_in_service(), 2, "peak in service");
    // 24 services of 50 ms on 2 workers take 0.6 s at least; less would mean more workers.
    let took = t.elapsed();
    assert!(took >= service * 24 / workers, "{took:?}");
}

#[test]
fn stop_ends_requests_waiting_for_a_worker() {
    let server = start(Behavior::Workers {
        workers: 1,
        service: Duration::from_secs(30),
    });
    // One request holds the only worker for 30 s; the other two wait for it.
    let mut clients: Vec<TcpStream> = (0..3).map(|_| connect(&server)).collect();
    for c in &mut clients {
        send(c, GET);
    }
    wait_for("requests", 3, || server.requests());
    wait_for("peak in service", 1, || server.peak_in_service());
    let stopping = thread::spawn(move || server.stop());
    let end = Instant::now() + Duration::from_secs(10);
    while !stopping.is_finished() && Instant::now() < end {
        // Between polls only.
        thread::sleep(Duration::from_millis(1));
    }
    assert!(stopping.is_finished(), "stop still running after 10 s");
    // A connection closes when its thread ends: a waiter that never ended would keep its
    // own open past the stop's budget for threads, and its read would time out instead.
    // (A waiter ends at its own look at the stop flag, or on the worker freed by a stopped
    // service, whose service the stop cuts short in turn: this checks both at once.)
    for c in &mut clients {
        c.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        assert_eq!(read_to_close(c), "");
    }
}

#[test]
fn oversized_and_garbage_requests_are_closed() {
    let server = start(Behavior::Hello);
    for request in [
        format!("GET / HTTP/1.1\r\nX: {}\r\n\r\n", "a".repeat(70_000)),
        "NONSENSE\r\n\r\n".into(),
    ] {
        let mut c = connect(&server);
        // The server may close while we still write, so a write error is fine here.
        let _ = c.write_all(request.as_bytes());
        let mut rest = Vec::new();
        match c.read_to_end(&mut rest) {
            Ok(_) => assert!(rest.is_empty()),
            Err(e) => assert_eq!(e.kind(), ErrorKind::ConnectionReset),
        }
    }
    assert_eq!(server.responses(), 0);
}

#[test]
fn stop_is_prompt_and_closes_every_connection() {
    let server = start(Behavior::NeverAnswer);
    let addr = server.addr();
    let mut clients: Vec<TcpStream> = (0..20).map(|_| connect(&server)).collect();
    for c in &mut clients {
        send(c, GET);
    }
    wait_for("requests", 20, || server.requests());
    assert_eq!(server.connections(), 20);
    // Prompt: the connections' threads see the stop at their next poll. Unprompted they
    // would wait for clients that never write again, and stop would hang; the bound is
    // only there to fail rather than hang.
    let t = Instant::now();
    server.stop();
    assert!(t.elapsed() < Duration::from_secs(30), "{:?}", t.elapsed());
    for c in &mut clients {
        assert_eof(c);
    }
    assert!(TcpStream::connect(addr).is_err());
}

#[test]
fn stop_interrupts_a_long_delay() {
    let server = start(Behavior::Delay(Duration::from_secs(30)));
    let mut c = connect(&server);
    send(&mut c, GET);
    // In the delay: the request was read.
    wait_for("requests", 1, || server.requests());
    let t = Instant::now();
    drop(server);
    // Well before the 30 s delay would have ended.
    assert!(t.elapsed() < Duration::from_secs(15), "{:?}", t.elapsed());
    assert_eq!(read_to_close(&mut c), "");
}

#[test]
fn url_names_the_address() {
    let server = start(Behavior::Hello);
    let port = server.addr().port();
    assert_eq!(server.url("/a?b"), format!("http://127.0.0.1:{port}/a?b"));
    assert_eq!(server.url("x"), format!("http://127.0.0.1:{port}/x"));
}
