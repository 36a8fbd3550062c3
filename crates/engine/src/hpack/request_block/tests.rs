use super::RequestBlock;
use crate::hpack::decoded_fields::{decoded_fields, from_hex, owned};
use crate::hpack::Decoder;

const REQUEST: [(&[u8], &[u8]); 4] = [
    (b":method", b"GET"),
    (b":scheme", b"http"),
    (b":path", b"/"),
    (b":authority", b"www.example.com"),
];

const REQUEST_TEXT: [(&str, &str); 4] = [
    (":method", "GET"),
    (":scheme", "http"),
    (":path", "/"),
    (":authority", "www.example.com"),
];

fn wrk_like() -> Vec<(&'static [u8], &'static [u8])> {
    let mut fields = REQUEST.to_vec();
    fields.push((b"User-Agent", b"shootout"));
    fields.push((b"accept", b"*/*"));
    fields
}

fn wrk_like_text() -> Vec<(String, String)> {
    let mut fields = owned(&REQUEST_TEXT);
    fields.extend(owned(&[("user-agent", "shootout"), ("accept", "*/*")]));
    fields
}

#[test]
fn the_first_block_is_rfc7541_c4_1_and_the_next_ones_are_indexed() {
    // Hand-decoded: C.4.1 is this request Huffman-coded with :authority indexed (literal
    // with incremental indexing, name index 1), so later blocks are 82 86 84 and index 62.
    let block = RequestBlock::new(&REQUEST);
    assert_eq!(
        block.first(),
        from_hex("8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff")
    );
    assert_eq!(block.next(), from_hex("8286 84be"));
}

#[test]
fn every_block_decodes_to_the_same_fields() {
    let mut block = RequestBlock::new(&wrk_like());
    let mut decoder = Decoder::new(4096);
    for request in 0..5 {
        let fields = decoded_fields(&mut decoder, block.block());
        assert_eq!(fields, Ok(wrk_like_text()), "request {request}");
    }
    // Indexed fields: one octet each; :authority, user-agent and accept were inserted in
    // that order, so they are 64, 63 and 62.
    assert_eq!(block.next(), [0x82, 0x86, 0x84, 0xc0, 0xbf, 0xbe]);
    assert_eq!(decoder.table_len(), 3);
}

#[test]
fn static_fields_and_names_are_used() {
    // :scheme https is 0x87, :method POST 0x83, :path /index.html 0x85; content-type
    // (static name 31) is a literal with incremental indexing naming index 31.
    let fields: [(&[u8], &[u8]); 4] = [
        (b":method", b"POST"),
        (b":scheme", b"https"),
        (b":path", b"/index.html"),
        (b"content-type", b"text/plain"),
    ];
    let block = RequestBlock::new(&fields);
    assert_eq!(&block.first()[..4], [0x83, 0x87, 0x85, 0x40 | 31]);
    assert_eq!(block.next(), [0x83, 0x87, 0x85, 0xbe]);
}

#[test]
fn literals_are_raw_when_huffman_is_not_shorter() {
    // Octets of 28 or 30 bits each: raw is shorter.
    let value = [0x01u8, 0x02, 0x03];
    let fields: [(&[u8], &[u8]); 1] = [(b"x-binary", &value)];
    let block = RequestBlock::new(&fields);
    let first = block.first();
    assert_eq!(&first[first.len() - 4..], [0x03, 0x01, 0x02, 0x03]);
    let mut decoder = Decoder::new(4096);
    let mut got = Vec::new();
    decoder
        .decode(first, |n, v| got.push((n.to_vec(), v.to_vec())))
        .unwrap();
    assert_eq!(got, [(b"x-binary".to_vec(), value.to_vec())]);
}

#[test]
fn a_field_larger_than_the_table_is_a_literal_and_the_rest_are_indexed() {
    let big = vec![b'c'; 5000];
    let fields: [(&[u8], &[u8]); 3] = [(b"cookie", &big), (b"x-a", b"1"), (b":path", b"/a")];
    let mut block = RequestBlock::new(&fields);
    let mut decoder = Decoder::new(4096);
    for _ in 0..3 {
        let got = decoded_fields(&mut decoder, block.block()).unwrap();
        let names: Vec<&str> = got.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, [":path", "cookie", "x-a"]);
        assert_eq!(got[1].1.len(), 5000);
    }
    // :path /a (static name 4) and x-a are indexed; the cookie is a literal without
    // indexing every time.
    assert_eq!(decoder.table_len(), 2);
    assert_eq!(block.next()[0], 0xbf);
    assert_eq!(block.next()[1] & 0xf0, 0x00);
    assert_eq!(block.next()[block.next().len() - 1], 0xbe);
}

#[test]
fn a_peer_table_of_zero_before_the_first_request_means_literals_after_a_size_update() {
    let mut block = RequestBlock::new(&REQUEST);
    block.peer_table_size(0);
    assert_eq!(block.first(), block.next(), "nothing indexed");
    let mut decoder = Decoder::new(4096);
    let first = block.block().to_vec();
    assert_eq!(first[0], 0x20, "a size update to 0 first");
    assert_eq!(&first[1..], block.next());
    assert_eq!(
        decoded_fields(&mut decoder, &first),
        Ok(owned(&REQUEST_TEXT))
    );
    // Owed once: later blocks have no update, and the decoder's table stays empty.
    for _ in 0..3 {
        let next = block.block().to_vec();
        assert_eq!(next, block.next());
        assert_eq!(
            decoded_fields(&mut decoder, &next),
            Ok(owned(&REQUEST_TEXT))
        );
    }
    assert_eq!(decoder.table_len(), 0);
}

#[test]
fn a_peer_table_lowered_under_the_entries_after_the_first_request_falls_back() {
    // The first block inserts :authority: 57 octets.
    let mut block = RequestBlock::new(&REQUEST);
    let mut decoder = Decoder::new(4096);
    decoded_fields(&mut decoder, block.block()).unwrap();
    decoded_fields(&mut decoder, block.block()).unwrap();
    block.peer_table_size(56);
    let lowered = block.block().to_vec();
    // 56 = 31 + 25: 0x3f 0x19, then literals without indexing.
    assert_eq!(&lowered[..2], [0x3f, 0x19]);
    assert_eq!(&lowered[2..], block.next());
    assert_eq!(&block.next()[..3], [0x82, 0x86, 0x84]);
    assert_eq!(block.next()[3], 0x01, ":authority, without indexing");
    assert_eq!(
        decoded_fields(&mut decoder, &lowered),
        Ok(owned(&REQUEST_TEXT))
    );
    assert_eq!(decoder.table_len(), 0, "the size update evicted :authority");
    // Raised again: a limit, not a change; the blocks stay literals, no update.
    block.peer_table_size(65_536);
    let after = block.block().to_vec();
    assert_eq!(after, block.next());
    assert_eq!(
        decoded_fields(&mut decoder, &after),
        Ok(owned(&REQUEST_TEXT))
    );
}

#[test]
fn a_peer_table_lowered_but_still_holding_the_entries_keeps_them_indexed() {
    let mut block = RequestBlock::new(&REQUEST);
    let mut decoder = Decoder::new(4096);
    decoded_fields(&mut decoder, block.block()).unwrap();
    block.peer_table_size(57);
    let lowered = block.block().to_vec();
    // 57 = 31 + 26.
    assert_eq!(lowered, [0x3f, 0x1a, 0x82, 0x86, 0x84, 0xbe]);
    assert_eq!(
        decoded_fields(&mut decoder, &lowered),
        Ok(owned(&REQUEST_TEXT))
    );
    assert_eq!(block.block(), [0x82, 0x86, 0x84, 0xbe]);
}

#[test]
fn the_lowest_setting_between_two_blocks_is_the_update_sent() {
    // RFC 7541 section 4.2: lowered then raised between blocks, the lowest is signalled;
    // we keep the table that small, so it is the only update.
    let mut block = RequestBlock::new(&REQUEST);
    block.peer_table_size(10);
    block.peer_table_size(4096);
    block.peer_table_size(20);
    let first = block.block().to_vec();
    assert_eq!(first[0], 0x20 | 10);
    assert_eq!(&first[1..], block.next(), "10 octets hold no entry");
    let mut decoder = Decoder::new(4096);
    assert_eq!(
        decoded_fields(&mut decoder, &first),
        Ok(owned(&REQUEST_TEXT))
    );
}

#[test]
fn a_setting_at_or_above_the_default_changes_nothing() {
    let mut block = RequestBlock::new(&REQUEST);
    let (first, next) = (block.first().to_vec(), block.next().to_vec());
    block.peer_table_size(4096);
    block.peer_table_size(1 << 20);
    assert_eq!(block.block(), first);
    assert_eq!(block.block(), next);
}

#[test]
fn reset_is_a_new_connection_and_allocates_nothing_new() {
    let mut block = RequestBlock::new(&wrk_like());
    let (first, next) = (block.first().to_vec(), block.next().to_vec());
    let capacities = (block.first.capacity(), block.next.capacity());
    block.block();
    block.peer_table_size(0);
    assert_eq!(block.block()[0], 0x20);
    block.reset();
    assert_eq!(block.block(), first);
    assert_eq!(block.block(), next);
    assert_eq!((block.first.capacity(), block.next.capacity()), capacities);
}

#[test]
fn blocks_decode_across_many_table_sizes() {
    // For each peer setting, before and after the first request: every block decodes to
    // the request, on a decoder that applies the updates the blocks carry.
    let fields = wrk_like();
    for size in [0, 1, 31, 32, 56, 57, 58, 100, 110, 120, 150, 4095, 4096] {
        for after in 0..3 {
            let mut block = RequestBlock::new(&fields);
            let mut decoder = Decoder::new(4096);
            for request in 0..4 {
                if request == after {
                    block.peer_table_size(size);
                }
                let got = decoded_fields(&mut decoder, block.block());
                assert_eq!(
                    got,
                    Ok(wrk_like_text()),
                    "size {size}, set before request {after}"
                );
            }
        }
    }
}
