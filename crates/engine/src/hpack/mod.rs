//! HPACK (RFC 7541), the header compression of HTTP/2, as a load generator needs it: a
//! decoder for the responses' header blocks that allocates nothing per block, and the one
//! request block a connection sends, encoded once (bench/h2-probe/README.md measured why
//! it is our own: 3 to 200 times cheaper than the HPACK crates, and no allocation).
//!
//! - `decoder`: header blocks into fields, through `block_reader` (integers and string
//!   literals), `huffman` (a 4-bit state machine built at compile time), the
//!   `static_table` and the `dynamic_table` (one arena, no allocation after `new`);
//! - `request_block`: a request's fields into the blocks a connection sends, literals with
//!   incremental indexing first, then indexed fields, and back to plain literals when the
//!   peer's table shrinks under them;
//! - `error`: the ways a block can be bad.

mod block_reader;
mod decoder;
mod dynamic_table;
mod error;
mod huffman;
mod integer;
mod request_block;
mod static_table;

pub use decoder::Decoder;
pub use error::HpackError;
pub use request_block::{literal_field, RequestBlock};

#[cfg(test)]
mod decoded_fields;
