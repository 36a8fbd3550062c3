//! Every malformed case of bench/h2-probe/README.md's fuzz list (integers, string lengths,
//! Huffman, indexes, table size updates, entries, state) meets its own `HpackError`, never
//! a panic; and the edge cases next to them decode.

use super::Decoder;
use crate::hpack::decoded_fields::{decoded_fields, owned};
use crate::hpack::{huffman, integer, HpackError};

fn decode(block: &[u8]) -> Result<Vec<(String, String)>, HpackError> {
    decoded_fields(&mut Decoder::new(4096), block)
}

/// A literal field with incremental indexing and a new name, both strings raw.
fn literal(name: &[u8], value: &[u8]) -> Vec<u8> {
    let mut block = vec![0x40, name.len() as u8];
    block.extend_from_slice(name);
    block.push(value.len() as u8);
    block.extend_from_slice(value);
    block
}

/// A literal field without indexing, name `:path` (static 4), value Huffman-coded as given.
fn path_with_huffman_value(encoded: &[u8]) -> Vec<u8> {
    let mut block = vec![0x04, 0x80 | encoded.len() as u8];
    block.extend_from_slice(encoded);
    block
}

const PAST_STATIC: HpackError = HpackError::IndexOutOfRange {
    index: 62,
    entries: 61,
};

// Integers

#[test]
fn integers_truncated_in_each_prefix() {
    // 7 bits (indexed), 6 (indexed name), 5 (size update), 4 (without / never indexed),
    // and the 7 bits of a string's length.
    for block in [
        &[0xff][..],
        &[0x7f],
        &[0x3f],
        &[0x0f],
        &[0x1f],
        &[0xff, 0x80],
        &[0x40, 0x7f],
    ] {
        assert_eq!(
            decode(block),
            Err(HpackError::IntegerTruncated),
            "{block:02x?}"
        );
    }
}

#[test]
fn integers_over_four_continuation_octets_overflow() {
    // 2^32 - 1 and above, in each prefix, and a small value padded with zero groups.
    for first in [0xff, 0x7f, 0x3f, 0x0f, 0x1f] {
        let block = [first, 0xff, 0xff, 0xff, 0xff, 0x0f];
        assert_eq!(
            decode(&block),
            Err(HpackError::IntegerOverflow),
            "{block:02x?}"
        );
    }
    assert_eq!(
        decode(&[0xff, 0x80, 0x80, 0x80, 0x80, 0x00]),
        Err(HpackError::IntegerOverflow)
    );
    let length = [0x40, 0x7f, 0xff, 0xff, 0xff, 0xff, 0x0f];
    assert_eq!(decode(&length), Err(HpackError::IntegerOverflow));
}

#[test]
fn integers_with_continuation_octets_decode() {
    // 127 in 5 octets (redundant zero groups are allowed up to our limit), and a string
    // length of 127 + 1.
    let past = HpackError::IndexOutOfRange {
        index: 127,
        entries: 61,
    };
    assert_eq!(decode(&[0xff, 0x80, 0x80, 0x80, 0x00]), Err(past));
    let mut long = vec![0x04, 0x7f, 0x01];
    long.extend_from_slice(&[b'/'; 128]);
    assert_eq!(decode(&long).map(|fields| fields[0].1.len()), Ok(128));
}

// String lengths

#[test]
fn a_string_that_runs_past_the_block_is_truncated() {
    let name_past = [0x40, 0x05, b'a'];
    assert_eq!(
        decode(&name_past),
        Err(HpackError::StringTruncated { length: 5 })
    );
    let value_past = [0x40, 0x01, b'a', 0x03, b'b'];
    assert_eq!(
        decode(&value_past),
        Err(HpackError::StringTruncated { length: 3 })
    );
    let huffman_past = [0x04, 0x82, 0x1f];
    assert_eq!(
        decode(&huffman_past),
        Err(HpackError::StringTruncated { length: 2 })
    );
    let missing_value = [0x40, 0x01, b'a'];
    assert_eq!(decode(&missing_value), Err(HpackError::IntegerTruncated));
    let huge = [0x40, 0x7f, 0xff, 0xff, 0xff, 0x7f];
    let length = 127 + (1 << 28) - 1;
    assert_eq!(decode(&huge), Err(HpackError::StringTruncated { length }));
}

// Huffman

#[test]
fn huffman_eos_and_bad_padding_are_refused_in_names_and_values() {
    let eos = [0xff, 0xff, 0xff, 0xff];
    assert_eq!(
        decode(&path_with_huffman_value(&eos)),
        Err(HpackError::HuffmanEos)
    );
    let name_with_eos = [0x40, 0x84, 0xff, 0xff, 0xff, 0xff, 0x00];
    assert_eq!(decode(&name_with_eos), Err(HpackError::HuffmanEos));
    let too_long = [0x1f, 0xff]; // 'a', then 11 ones
    let got = decode(&path_with_huffman_value(&too_long));
    assert_eq!(got, Err(HpackError::HuffmanPaddingTooLong));
    let not_ones = [0x18]; // 'a', then 000
    let got = decode(&path_with_huffman_value(&not_ones));
    assert_eq!(got, Err(HpackError::HuffmanPaddingNotEos));
}

#[test]
fn huffman_round_trips_all_256_symbols_through_the_decoder() {
    let text: Vec<u8> = (0..=255).collect();
    let mut encoded = Vec::new();
    huffman::encode(&text, &mut encoded);
    // A literal with incremental indexing, name `x` Huffman-coded, then read back by index.
    let mut name = Vec::new();
    huffman::encode(b"x", &mut name);
    let mut block = vec![0x40];
    for string in [&name, &encoded] {
        integer::encode(string.len(), 7, 0x80, &mut block);
        block.extend_from_slice(string);
    }
    block.push(0xbe);
    let mut decoder = Decoder::new(4096);
    let mut fields = Vec::new();
    let result = decoder.decode(&block, |name, value| {
        fields.push((name.to_vec(), value.to_vec()))
    });
    assert_eq!(result, Ok(()));
    let want = (b"x".to_vec(), text);
    assert_eq!(fields, [want.clone(), want]);
}

// Indexes

#[test]
fn index_zero_is_refused() {
    assert_eq!(decode(&[0x80]), Err(HpackError::IndexZero));
}

#[test]
fn an_index_past_the_end_is_refused() {
    assert_eq!(decode(&[0xbe]), Err(PAST_STATIC));
    // As a literal's name, with each prefix.
    assert_eq!(decode(&[0x7e, 0x01, b'a']), Err(PAST_STATIC));
    assert_eq!(decode(&[0x0f, 0x2f, 0x01, b'a']), Err(PAST_STATIC));
    assert_eq!(decode(&[0x1f, 0x2f, 0x01, b'a']), Err(PAST_STATIC));
    // One past the dynamic table's newest entry.
    let mut block = literal(b"a", b"b");
    block.push(0xbf);
    let past = HpackError::IndexOutOfRange {
        index: 63,
        entries: 62,
    };
    assert_eq!(decode(&block), Err(past));
}

#[test]
fn an_index_evicted_by_an_insertion_is_past_the_end() {
    // A table of 100: `a: b` (34) then a 70-octet entry evicts it.
    let mut decoder = Decoder::new(100);
    let mut block = literal(b"a", b"b");
    block.extend_from_slice(&literal(b"name", &[b'v'; 34]));
    block.push(0xbe);
    let fields = decoded_fields(&mut decoder, &block).unwrap();
    assert_eq!(fields.len(), 3);
    assert_eq!(fields[2].0, "name");
    let past = HpackError::IndexOutOfRange {
        index: 63,
        entries: 62,
    };
    assert_eq!(decoded_fields(&mut decoder, &[0xbf]), Err(past));
}

#[test]
fn an_index_evicted_by_a_size_update_is_past_the_end() {
    let mut decoder = Decoder::new(4096);
    decoded_fields(&mut decoder, &literal(b"a", b"b")).unwrap();
    assert_eq!(
        decoded_fields(&mut decoder, &[0x20, 0xbe]),
        Err(PAST_STATIC)
    );
}

// Table size updates

#[test]
fn a_size_update_over_our_limit_is_refused() {
    // 4097 = 31 + 4066; 4066 is 0x62 then 0x1f in groups of 7 bits.
    let over = HpackError::SizeUpdateOverLimit {
        size: 4097,
        limit: 4096,
    };
    assert_eq!(decode(&[0x3f, 0xe2, 0x1f]), Err(over));
    assert_eq!(
        decode(&[0x3f, 0xe1, 0x1f, 0x82]),
        Ok(owned(&[(":method", "GET")]))
    );
    let over_zero = HpackError::SizeUpdateOverLimit { size: 1, limit: 0 };
    assert_eq!(
        decoded_fields(&mut Decoder::new(0), &[0x21]),
        Err(over_zero)
    );
}

#[test]
fn a_size_update_after_the_first_field_is_refused() {
    assert_eq!(decode(&[0x82, 0x20]), Err(HpackError::SizeUpdateAfterField));
    let mut block = literal(b"a", b"b");
    block.extend_from_slice(&[0x3f, 0xe1, 0x1f]);
    assert_eq!(decode(&block), Err(HpackError::SizeUpdateAfterField));
    // In the next block it is at the start again.
    let mut decoder = Decoder::new(4096);
    decoded_fields(&mut decoder, &[0x82]).unwrap();
    assert_eq!(
        decoded_fields(&mut decoder, &[0x20, 0x82]).map(|f| f.len()),
        Ok(1)
    );
}

#[test]
fn a_size_update_to_zero_then_back_up_empties_the_table_and_lets_it_fill() {
    let mut decoder = Decoder::new(4096);
    decoded_fields(&mut decoder, &literal(b"a", b"b")).unwrap();
    // Two updates at the start (RFC 7541 section 4.2 allows them), then a new entry.
    let mut block = vec![0x20, 0x3f, 0xe1, 0x1f];
    block.extend_from_slice(&literal(b"c", b"d"));
    block.push(0xbe);
    let fields = decoded_fields(&mut decoder, &block).unwrap();
    assert_eq!(fields, owned(&[("c", "d"), ("c", "d")]));
    assert_eq!((decoder.table.len(), decoder.table.size()), (1, 34));
    // A block of size updates only is a valid block.
    assert_eq!(decoded_fields(&mut decoder, &[0x20]), Ok(Vec::new()));
    assert_eq!(decoder.table.len(), 0);
}

// Entries

#[test]
fn an_entry_larger_than_the_table_empties_it_and_is_still_a_field() {
    let mut decoder = Decoder::new(64);
    let mut block = literal(b"a", b"b");
    block.extend_from_slice(&literal(b"big", &[b'v'; 30]));
    let fields = decoded_fields(&mut decoder, &block).unwrap();
    assert_eq!(fields[1], ("big".to_owned(), "v".repeat(30)));
    assert_eq!((decoder.table.len(), decoder.table.size()), (0, 0));
    assert_eq!(decoded_fields(&mut decoder, &[0xbe]), Err(PAST_STATIC));
}

#[test]
fn a_literal_may_name_the_entry_its_insertion_evicts() {
    // A table of 80: `custom: 1` (39), then `62: 2222` names it and evicts it (42).
    let mut decoder = Decoder::new(80);
    let mut block = literal(b"custom", b"1");
    block.extend_from_slice(&[0x40 | 62, 0x04]);
    block.extend_from_slice(b"2222");
    block.push(0xbe);
    let fields = decoded_fields(&mut decoder, &block).unwrap();
    assert_eq!(
        fields,
        owned(&[("custom", "1"), ("custom", "2222"), ("custom", "2222")])
    );
    assert_eq!(decoder.table.len(), 1);
}

// State

#[test]
fn the_decoder_neither_panics_nor_stops_after_an_error() {
    let mut decoder = Decoder::new(4096);
    decoded_fields(&mut decoder, &literal(b"a", b"b")).unwrap();
    for bad in [
        &[0x80][..],
        &[0xff],
        &[0x40, 0x05],
        &[0x82, 0x20],
        &[0x04, 0x81, 0x18],
    ] {
        assert!(decoded_fields(&mut decoder, bad).is_err(), "{bad:02x?}");
    }
    // The table as it was: errors before any insertion leave it alone.
    assert_eq!(
        decoded_fields(&mut decoder, &[0xbe]),
        Ok(owned(&[("a", "b")]))
    );
}

#[test]
fn an_empty_block_has_no_fields() {
    assert_eq!(decode(&[]), Ok(Vec::new()));
}

#[test]
fn the_errors_name_what_is_wrong_in_one_line() {
    let over = HpackError::SizeUpdateOverLimit {
        size: 4097,
        limit: 4096,
    };
    let text = over.to_string();
    assert!(
        text.contains("4097") && text.contains("SETTINGS_HEADER_TABLE_SIZE"),
        "{text}"
    );
    assert!(!HpackError::IntegerOverflow.to_string().contains('\n'));
}
