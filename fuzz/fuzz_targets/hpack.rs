//! Feeds arbitrary header blocks to the engine's HPACK decoder, several on one decoder so
//! that the dynamic table carries from block to block, next to loona-hpack 0.4.3 as a slow
//! oracle: the two must agree on whether each block decodes and to what fields. It must
//! never panic, before or after an error. A second mode builds a request block from the
//! input and checks that every block it hands out (across a peer table size change)
//! decodes, in both decoders, to the fields of the first.
//!
//! Where the oracle is not RFC 7541 and a disagreement is expected (the sequence stops being
//! compared there, and goes on through our decoder alone):
//! - a size update after the first field: section 4.2 makes it an error; loona accepts it;
//! - a block that ends with a size update: loona refuses it (`SizeUpdateAtEnd`), the RFC
//!   does not (and a block of size updates only is how an encoder may shrink the table).
//!
//! Input: one control octet, then blocks, each one length octet (255: the rest of the
//! input) and that many octets. Control bit 7 picks the request-block mode; otherwise its
//! low 3 bits pick our SETTINGS_HEADER_TABLE_SIZE.
//!
//! Run: `cd fuzz && cargo +nightly fuzz run -s none hpack corpus/hpack seeds/hpack --
//! -max_total_time=600`. Without ASan (`-s none`): the code under test is safe Rust, and
//! loona builds a Huffman tree per string, which ASan slowed to 40-90 executions/s.
#![no_main]

use engine::{HpackDecoder, HpackError, HpackRequestBlock};
use libfuzzer_sys::fuzz_target;
use loona_hpack::decoder::DecoderError;

type Fields = Vec<(Vec<u8>, Vec<u8>)>;

const TABLE_SIZES: [usize; 8] = [4096, 256, 0, 64, 100, 4096, 1024, 32];

fn ours(decoder: &mut HpackDecoder, block: &[u8]) -> Result<Fields, HpackError> {
    let mut fields = Vec::new();
    decoder.decode(block, |name, value| {
        fields.push((name.to_vec(), value.to_vec()))
    })?;
    Ok(fields)
}

fn oracle(decoder: &mut loona_hpack::Decoder, block: &[u8]) -> Result<Fields, DecoderError> {
    let mut fields = Vec::new();
    decoder.decode_with_cb(block, |name, value| {
        fields.push((name.into_owned(), value.into_owned()))
    })?;
    Ok(fields)
}

fn oracle_with_limit(limit: usize) -> loona_hpack::Decoder<'static> {
    let mut decoder = loona_hpack::Decoder::new();
    decoder.set_max_allowed_table_size(limit);
    decoder.set_max_table_size(limit);
    decoder
}

/// The blocks of the input, each after its length octet.
fn blocks(mut data: &[u8]) -> impl Iterator<Item = &[u8]> {
    std::iter::from_fn(move || {
        let (&length, rest) = data.split_first()?;
        let length = if length == 255 {
            rest.len()
        } else {
            rest.len().min(length.into())
        };
        let (block, after) = rest.split_at(length);
        data = after;
        Some(block)
    })
}

/// Whether the two decoders may disagree on this block, for the reasons listed above.
fn known_oracle_difference(
    ours: &Result<Fields, HpackError>,
    theirs: &Result<Fields, DecoderError>,
) -> bool {
    matches!(
        (ours, theirs),
        (Err(HpackError::SizeUpdateAfterField), Ok(_))
            | (Ok(_), Err(DecoderError::SizeUpdateAtEnd))
    )
}

fn decode_blocks(limit: usize, data: &[u8]) {
    let mut decoder = HpackDecoder::new(limit);
    let mut reference = Some(oracle_with_limit(limit));
    for block in blocks(data) {
        let got = ours(&mut decoder, block);
        let Some(oracle_decoder) = reference.as_mut() else {
            continue;
        };
        let want = oracle(oracle_decoder, block);
        match (&got, &want) {
            (Ok(got), Ok(want)) => assert_eq!(got, want, "fields of {block:02x?}"),
            (Err(_), Err(_)) => reference = None,
            _ if known_oracle_difference(&got, &want) => reference = None,
            _ => panic!("ours {got:?}, loona {want:?}, on {block:02x?}"),
        }
    }
    // Reused as for a new connection, it decodes as a new decoder does.
    decoder.reset();
    let mut fresh = HpackDecoder::new(limit);
    for block in blocks(data) {
        assert_eq!(
            ours(&mut decoder, block),
            ours(&mut fresh, block),
            "after reset: {block:02x?}"
        );
    }
}

/// Fields from NUL-separated names and values; one octet saying before which request the
/// peer's table size changes, one its new size (halved).
fn request_blocks(data: &[u8]) {
    let [when, size, rest @ ..] = data else {
        return;
    };
    let tokens: Vec<&[u8]> = rest.split(|&b| b == 0).collect();
    let fields: Vec<(&[u8], &[u8])> = tokens
        .chunks_exact(2)
        .map(|pair| (pair[0], pair[1]))
        .collect();
    let mut request = HpackRequestBlock::new(&fields);
    let mut decoder = HpackDecoder::new(4096);
    let mut reference = oracle_with_limit(4096);
    let mut first: Option<Fields> = None;
    for i in 0..4 {
        if i == when % 4 {
            request.peer_table_size(usize::from(*size) * 2);
        }
        let block = request.block().to_vec();
        let got = ours(&mut decoder, &block).expect("our decoder decodes our request block");
        match oracle(&mut reference, &block) {
            Ok(want) => assert_eq!(got, want, "request {i}: {block:02x?}"),
            // A request without fields is only the size update.
            Err(DecoderError::SizeUpdateAtEnd) => assert!(got.is_empty()),
            Err(error) => panic!("loona refuses request {i}, {block:02x?}: {error:?}"),
        }
        match &first {
            None => first = Some(got),
            Some(first) => assert_eq!(&got, first, "request {i} differs from the first"),
        }
    }
    assert!(first.is_some_and(|fields| fields.len() <= tokens.len() / 2));
}

fuzz_target!(|input: &[u8]| {
    let Some((&control, data)) = input.split_first() else {
        return;
    };
    if control & 0x80 != 0 {
        request_blocks(data);
    } else {
        decode_blocks(TABLE_SIZES[usize::from(control & 7)], data);
    }
});
