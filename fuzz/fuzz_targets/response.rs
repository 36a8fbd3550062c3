//! Feeds arbitrary bytes to the response framer in pieces; it must never panic, must account
//! for every byte, must show a sink exactly the body it counts, and must frame the same
//! responses (and show the same bodies) however the bytes are split.
#![no_main]

use engine::{Response, ResponseParser, ResponseSink};
use libfuzzer_sys::fuzz_target;

/// The body bytes a sink was shown for the response under way.
#[derive(Default)]
struct Body(Vec<u8>);

impl ResponseSink for Body {
    fn body(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes);
    }
}

/// What one way of feeding the input framed, kept to compare feeding strategies.
struct Run {
    responses: Vec<Response>,
    /// The body each response (and the `eof` one) showed its sink.
    bodies: Vec<Vec<u8>>,
    /// `finish_eof` at the end, when no feed failed.
    eof: Option<Response>,
    failed: bool,
}

fn run(data: &[u8], piece: usize, head_request: bool) -> Run {
    let mut parser = ResponseParser::new();
    parser.start(head_request);
    let mut body = Body::default();
    let mut out = Run {
        responses: Vec::new(),
        bodies: Vec::new(),
        eof: None,
        failed: false,
    };
    for mut chunk in data.chunks(piece) {
        while !chunk.is_empty() {
            let Ok(progress) = parser.feed_to(chunk, &mut body) else {
                out.failed = true;
                // Must not panic after an error either.
                let _ = parser.finish_eof();
                return out;
            };
            assert!(progress.consumed <= chunk.len());
            let Some(response) = progress.done else {
                assert_eq!(progress.consumed, chunk.len(), "unfinished feed left bytes");
                break;
            };
            assert!(
                progress.consumed > 0,
                "response completed without consuming"
            );
            assert_eq!(
                response.body_bytes,
                body.0.len() as u64,
                "sink saw another body"
            );
            out.responses.push(response);
            out.bodies.push(std::mem::take(&mut body.0));
            parser.start(head_request);
            chunk = &chunk[progress.consumed..];
        }
    }
    out.eof = parser.finish_eof().ok();
    if let Some(response) = out.eof {
        assert_eq!(
            response.body_bytes,
            body.0.len() as u64,
            "sink saw another body"
        );
        out.bodies.push(body.0);
    }
    out
}

fuzz_target!(|input: &[u8]| {
    let Some((&control, data)) = input.split_first() else {
        return;
    };
    let head_request = control & 0x80 != 0;
    // Low bits pick the feed size; 0 means the whole input in one feed.
    let piece = match usize::from(control & 0x7f) {
        0 => data.len().max(1),
        n => n,
    };
    let split = run(data, piece, head_request);
    let whole = run(data, data.len().max(1), head_request);
    // Splitting may only delay error detection, never change what was framed.
    let common = split.responses.len().min(whole.responses.len());
    assert_eq!(split.responses[..common], whole.responses[..common]);
    assert_eq!(split.bodies[..common], whole.bodies[..common]);
    if !split.failed && !whole.failed {
        assert_eq!(split.responses, whole.responses);
        assert_eq!(split.eof, whole.eof);
        assert_eq!(split.bodies, whole.bodies);
    }
});
