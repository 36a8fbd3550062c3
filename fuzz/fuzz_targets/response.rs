//! Feeds arbitrary bytes to the response framer in pieces; it must never panic, must account
//! for every byte, and must frame the same responses however the bytes are split.
#![no_main]

use engine::{Response, ResponseParser};
use libfuzzer_sys::fuzz_target;

/// What one way of feeding the input framed, kept to compare feeding strategies.
struct Run {
    responses: Vec<Response>,
    /// `finish_eof` at the end, when no feed failed.
    eof: Option<Response>,
    failed: bool,
}

fn run(data: &[u8], piece: usize, head_request: bool) -> Run {
    let mut parser = ResponseParser::new();
    parser.start(head_request);
    let mut out = Run {
        responses: Vec::new(),
        eof: None,
        failed: false,
    };
    for mut chunk in data.chunks(piece) {
        while !chunk.is_empty() {
            let Ok(progress) = parser.feed(chunk) else {
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
            out.responses.push(response);
            parser.start(head_request);
            chunk = &chunk[progress.consumed..];
        }
    }
    out.eof = parser.finish_eof().ok();
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
    if !split.failed && !whole.failed {
        assert_eq!(split.responses, whole.responses);
        assert_eq!(split.eof, whole.eof);
    }
});
