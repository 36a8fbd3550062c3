pub mod alloc_count;
pub mod hpack_own;
pub mod huffman_table;
pub mod h2client;
