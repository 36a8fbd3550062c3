//! RFC 7541 Appendix C: each example's blocks decoded on one decoder, in order, with the
//! fields and the dynamic table (its entries, newest first, and its size) the RFC prints.

use super::Decoder;
use crate::hpack::decoded_fields::{decoded_fields, from_hex, owned};

/// One block of an example: what it decodes to and the table after it.
struct Step<'a> {
    hex: &'a str,
    fields: &'a [(&'a str, &'a str)],
    table: &'a [(&'a str, &'a str)],
    table_size: usize,
}

fn play(decoder: &mut Decoder, steps: &[Step<'_>]) {
    for (i, step) in steps.iter().enumerate() {
        let got = decoded_fields(decoder, &from_hex(step.hex));
        assert_eq!(got, Ok(owned(step.fields)), "block {}", i + 1);
        let table: Vec<(&[u8], &[u8])> = (0..decoder.table.len())
            .filter_map(|index| decoder.table.get(index))
            .collect();
        let want: Vec<(&[u8], &[u8])> = step
            .table
            .iter()
            .map(|&(n, v)| (n.as_bytes(), v.as_bytes()))
            .collect();
        assert_eq!(table, want, "table after block {}", i + 1);
        assert_eq!(
            decoder.table.size(),
            step.table_size,
            "table size after block {}",
            i + 1
        );
    }
}

const AUTHORITY: (&str, &str) = (":authority", "www.example.com");
const NO_CACHE: (&str, &str) = ("cache-control", "no-cache");
const CUSTOM: (&str, &str) = ("custom-key", "custom-value");
const REQUEST_1: &[(&str, &str)] = &[
    (":method", "GET"),
    (":scheme", "http"),
    (":path", "/"),
    AUTHORITY,
];
const REQUEST_2: &[(&str, &str)] = &[
    (":method", "GET"),
    (":scheme", "http"),
    (":path", "/"),
    AUTHORITY,
    NO_CACHE,
];
const REQUEST_3: &[(&str, &str)] = &[
    (":method", "GET"),
    (":scheme", "https"),
    (":path", "/index.html"),
    AUTHORITY,
    CUSTOM,
];

#[test]
fn c2_1_literal_with_indexing() {
    play(
        &mut Decoder::new(4096),
        &[Step {
            hex: "400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572",
            fields: &[("custom-key", "custom-header")],
            table: &[("custom-key", "custom-header")],
            table_size: 55,
        }],
    );
}

#[test]
fn c2_2_literal_without_indexing() {
    play(
        &mut Decoder::new(4096),
        &[Step {
            hex: "040c 2f73 616d 706c 652f 7061 7468",
            fields: &[(":path", "/sample/path")],
            table: &[],
            table_size: 0,
        }],
    );
}

#[test]
fn c2_3_literal_never_indexed() {
    play(
        &mut Decoder::new(4096),
        &[Step {
            hex: "1008 7061 7373 776f 7264 0673 6563 7265 74",
            fields: &[("password", "secret")],
            table: &[],
            table_size: 0,
        }],
    );
}

#[test]
fn c2_4_indexed() {
    let step = Step {
        hex: "82",
        fields: &[(":method", "GET")],
        table: &[],
        table_size: 0,
    };
    play(&mut Decoder::new(4096), &[step]);
}

/// C.3 and C.4 leave the same table after each request.
fn request_steps<'a>(hex: [&'a str; 3]) -> [Step<'a>; 3] {
    [
        Step {
            hex: hex[0],
            fields: REQUEST_1,
            table: &[AUTHORITY],
            table_size: 57,
        },
        Step {
            hex: hex[1],
            fields: REQUEST_2,
            table: &[NO_CACHE, AUTHORITY],
            table_size: 110,
        },
        Step {
            hex: hex[2],
            fields: REQUEST_3,
            table: &[CUSTOM, NO_CACHE, AUTHORITY],
            table_size: 164,
        },
    ]
}

#[test]
fn c3_requests_without_huffman() {
    let steps = request_steps([
        "8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d",
        "8286 84be 5808 6e6f 2d63 6163 6865",
        "8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65",
    ]);
    play(&mut Decoder::new(4096), &steps);
}

#[test]
fn c4_requests_with_huffman() {
    let steps = request_steps([
        "8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff",
        "8286 84be 5886 a8eb 1064 9cbf",
        "8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf",
    ]);
    play(&mut Decoder::new(4096), &steps);
}

const DATE_1: (&str, &str) = ("date", "Mon, 21 Oct 2013 20:13:21 GMT");
const DATE_2: (&str, &str) = ("date", "Mon, 21 Oct 2013 20:13:22 GMT");
const PRIVATE: (&str, &str) = ("cache-control", "private");
const LOCATION: (&str, &str) = ("location", "https://www.example.com");
const GZIP: (&str, &str) = ("content-encoding", "gzip");
const COOKIE: (&str, &str) = (
    "set-cookie",
    "foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1",
);

/// C.5 and C.6 (a table of 256 octets, so that responses evict) leave the same tables.
fn response_steps<'a>(hex: [&'a str; 3]) -> [Step<'a>; 3] {
    [
        Step {
            hex: hex[0],
            fields: &[(":status", "302"), PRIVATE, DATE_1, LOCATION],
            table: &[LOCATION, DATE_1, PRIVATE, (":status", "302")],
            table_size: 222,
        },
        Step {
            hex: hex[1],
            fields: &[(":status", "307"), PRIVATE, DATE_1, LOCATION],
            table: &[(":status", "307"), LOCATION, DATE_1, PRIVATE],
            table_size: 222,
        },
        Step {
            hex: hex[2],
            fields: &[(":status", "200"), PRIVATE, DATE_2, LOCATION, GZIP, COOKIE],
            table: &[COOKIE, GZIP, DATE_2],
            table_size: 215,
        },
    ]
}

#[test]
fn c5_responses_without_huffman_evicting() {
    let steps = response_steps([
        "4803 3330 3258 0770 7269 7661 7465 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 \
         2032 303a 3133 3a32 3120 474d 546e 1768 7474 7073 3a2f 2f77 7777 2e65 7861 6d70 \
         6c65 2e63 6f6d",
        "4803 3330 37c1 c0bf",
        "88c1 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3220 474d \
         54c0 5a04 677a 6970 7738 666f 6f3d 4153 444a 4b48 514b 425a 584f 5157 454f 5049 \
         5541 5851 5745 4f49 553b 206d 6178 2d61 6765 3d33 3630 303b 2076 6572 7369 6f6e \
         3d31",
    ]);
    play(&mut Decoder::new(256), &steps);
}

#[test]
fn c6_responses_with_huffman_evicting() {
    let steps = response_steps([
        "4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6 \
         2d1b ff6e 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3",
        "4883 640e ffc1 c0bf",
        "88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab \
         77ad 94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f \
         9587 3160 65c0 03ed 4ee5 b106 3d50 07",
    ]);
    play(&mut Decoder::new(256), &steps);
}

#[test]
fn reset_forgets_the_table() {
    let mut decoder = Decoder::new(4096);
    play(
        &mut decoder,
        &request_steps(["8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff", "", ""])[..1],
    );
    decoder.reset();
    // Index 62 was :authority; after a reset it is past the end.
    let past = crate::hpack::HpackError::IndexOutOfRange {
        index: 62,
        entries: 61,
    };
    assert_eq!(decoded_fields(&mut decoder, &[0xbe]), Err(past));
}
