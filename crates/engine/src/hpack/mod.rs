//! TEMPORARY shim over the probe's decoder, replaced by the h2-hpack branch.
#![allow(dead_code, clippy::all)]
mod decoder;
mod huffman_table;

pub use decoder::HpackError;

pub struct Decoder {
    inner: decoder::Decoder,
}

impl Decoder {
    pub fn new(_max_table_size: usize) -> Decoder {
        Decoder {
            inner: decoder::Decoder::new(),
        }
    }
    pub fn decode(
        &mut self,
        block: &[u8],
        on_field: impl FnMut(&[u8], &[u8]),
    ) -> Result<(), HpackError> {
        self.inner.decode(block, on_field)
    }
    pub fn reset(&mut self) {
        self.inner = decoder::Decoder::new();
    }
}

pub struct RequestBlock {
    first: Vec<u8>,
    next: Vec<u8>,
}

impl RequestBlock {
    pub fn new(fields: &[(&[u8], &[u8])]) -> RequestBlock {
        let mut first = Vec::new();
        let mut next = Vec::new();
        let n = fields.len();
        for (i, (name, value)) in fields.iter().enumerate() {
            first.push(0x40);
            put(&mut first, name.len(), 7, 0);
            first.extend_from_slice(name);
            put(&mut first, value.len(), 7, 0);
            first.extend_from_slice(value);
            // newest entry is 62: field i lands at 62 + (n - 1 - i)
            put(&mut next, 62 + (n - 1 - i), 7, 0x80);
        }
        RequestBlock { first, next }
    }
    pub fn first(&self) -> &[u8] {
        &self.first
    }
    pub fn next(&self) -> &[u8] {
        &self.next
    }
    pub fn peer_table_size(&mut self, _size: usize) {}
}

fn put(out: &mut Vec<u8>, v: usize, prefix: u8, high: u8) {
    let max = (1usize << prefix) - 1;
    if v < max {
        out.push(high | v as u8);
        return;
    }
    out.push(high | max as u8);
    let mut v = v - max;
    while v >= 128 {
        out.push((v % 128 + 128) as u8);
        v /= 128;
    }
    out.push(v as u8);
}
impl RequestBlock {
    pub fn plain(&self) -> &[u8] {
        &self.first
    }
    pub fn table_size(&self) -> usize {
        0
    }
}
impl std::fmt::Debug for Decoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Decoder")
    }
}
impl std::fmt::Debug for RequestBlock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RequestBlock")
    }
}
impl Clone for RequestBlock {
    fn clone(&self) -> Self {
        RequestBlock {
            first: self.first.clone(),
            next: self.next.clone(),
        }
    }
}
