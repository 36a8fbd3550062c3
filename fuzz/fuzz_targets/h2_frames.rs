//! Feeds arbitrary server bytes to the engine's HTTP/2 client session, cut into pieces of
//! arbitrary sizes: the frame reader (lengths, padding, priority fields, frames split
//! across reads, a frame over the size limit) and the session's state (a preface that is
//! not SETTINGS, SETTINGS values, WINDOW_UPDATE of 0 or past 2^31-1, CONTINUATION for
//! another stream or interleaved with other frames, frames on streams never opened,
//! RST_STREAM, GOAWAY, PING) must never panic, and every request must end exactly once
//! (the engine's fuzzing entry asserts it).
//!
//! Input: one control octet (bit 0: requests carry a 70,000-octet body, so the send side's
//! windows are used), four octets of piece sizes, then the server's bytes. Seeds start
//! with a valid server preface (SETTINGS) so that the fuzzer reaches past it.
//!
//! Run: `cd fuzz && cargo +nightly fuzz run h2_frames corpus/h2_frames seeds/h2_frames --
//! -max_total_time=600`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&control, rest)) = data.split_first() else {
        return;
    };
    let (cuts, bytes) = rest.split_at(rest.len().min(4));
    let cuts = if cuts.is_empty() { &[255u8][..] } else { cuts };
    engine::fuzzing::h2_session(bytes, cuts, control & 1 == 1);
});
