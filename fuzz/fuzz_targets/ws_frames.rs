//! Feeds arbitrary server bytes to the engine's WebSocket client session, cut into pieces
//! of arbitrary sizes, with 1 to 8 messages in flight: the frame reader (headers split
//! anywhere, 7-, 16- and 64-bit lengths, a length past the limit, reserved bits, masked
//! server frames, unknown opcodes, fragments and control frames between them, pings,
//! closes and their codes, UTF-8 split across pieces) and the upgrade's answer (when the
//! control octet lets the input give it) must never panic, and every message must end
//! exactly once (the engine's fuzzing entry asserts it).
//!
//! Input: one control octet (bit 0: binary messages; bits 1-2: 1, 32, 300 or 70,000
//! octets; bits 3-4: 1, 2, 4 or 8 in flight; bit 5: the input answers the upgrade, else a
//! right 101 comes first), four octets of piece sizes, then the server's bytes.
//!
//! Run: `scripts/fuzz-ws [SECONDS]`, or `cd fuzz && cargo +nightly fuzz run ws_frames
//! corpus/ws_frames seeds/ws_frames -- -max_total_time=600`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&control, rest)) = data.split_first() else {
        return;
    };
    let (cuts, bytes) = rest.split_at(rest.len().min(4));
    let cuts = if cuts.is_empty() { &[255u8][..] } else { cuts };
    engine::fuzzing::ws_session(bytes, cuts, control);
});
