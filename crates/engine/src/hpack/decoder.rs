//! A minimal HPACK decoder (RFC 7541) that allocates nothing per header block once warm:
//! Huffman through a 4-bit state machine built once from the code table, the dynamic
//! table as one byte arena plus a ring of (offset, name length, value length), literal
//! strings either borrowed from the input (raw) or decoded into two scratch buffers that
//! keep their capacity. Written for the probe; the fuzz target it would need is listed in
//! REPORT.md.

use super::huffman_table::{HUFFMAN_CODE_TABLE, STATIC_TABLE};
use std::collections::VecDeque;
use std::sync::OnceLock;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HpackError {
    Truncated,
    IntegerOverflow,
    BadIndex,
    Huffman,
    SizeUpdate,
}

#[derive(Clone, Copy, Default)]
struct Trans {
    next: u8,
    sym: u8,
    emit: bool,
    fail: bool,
}

struct HuffFsm {
    trans: Vec<[Trans; 16]>, // 256 internal nodes x 16 nibbles
    accept: [bool; 256],
}

fn fsm() -> &'static HuffFsm {
    static FSM: OnceLock<HuffFsm> = OnceLock::new();
    FSM.get_or_init(|| {
        // Build the code tree: internal nodes 0..256, a child is either an internal node
        // (>= 0) or a leaf -(sym+1).
        const NONE: i32 = i32::MIN;
        let mut kids: Vec<[i32; 2]> = vec![[NONE, NONE]];
        for (sym, &(code, len)) in HUFFMAN_CODE_TABLE.iter().enumerate() {
            let mut node = 0usize;
            for i in (0..len).rev() {
                let bit = ((code >> i) & 1) as usize;
                if i == 0 {
                    kids[node][bit] = -(sym as i32 + 1);
                } else {
                    if kids[node][bit] == NONE {
                        kids.push([NONE, NONE]);
                        kids[node][bit] = (kids.len() - 1) as i32;
                    }
                    node = kids[node][bit] as usize;
                }
            }
        }
        assert_eq!(kids.len(), 256);
        let mut accept = [false; 256];
        let mut n = 0usize;
        accept[0] = true;
        for _ in 0..7 {
            n = kids[n][1] as usize;
            accept[n] = true;
        }
        let mut trans = vec![[Trans::default(); 16]; 256];
        for s in 0..256 {
            for nib in 0..16u32 {
                let mut cur = s;
                let mut t = Trans::default();
                for i in (0..4).rev() {
                    let c = kids[cur][((nib >> i) & 1) as usize];
                    if c < 0 {
                        let sym = (-c - 1) as usize;
                        if sym == 256 {
                            t.fail = true;
                        } else {
                            t.emit = true;
                            t.sym = sym as u8;
                        }
                        cur = 0;
                    } else {
                        cur = c as usize;
                    }
                }
                t.next = cur as u8;
                trans[s][nib as usize] = t;
            }
        }
        HuffFsm { trans, accept }
    })
}

pub fn huffman_decode(src: &[u8], dst: &mut Vec<u8>) -> Result<(), HpackError> {
    let f = fsm();
    let mut state = 0usize;
    for &b in src {
        let t = f.trans[state][(b >> 4) as usize];
        if t.fail {
            return Err(HpackError::Huffman);
        }
        if t.emit {
            dst.push(t.sym);
        }
        let t2 = f.trans[t.next as usize][(b & 15) as usize];
        if t2.fail {
            return Err(HpackError::Huffman);
        }
        if t2.emit {
            dst.push(t2.sym);
        }
        state = t2.next as usize;
    }
    // Padding: fewer than 8 bits, all ones (a prefix of EOS).
    if !f.accept[state] {
        return Err(HpackError::Huffman);
    }
    Ok(())
}

fn integer(buf: &[u8], prefix: u8) -> Result<(usize, usize), HpackError> {
    let mask = (1u16 << prefix) as usize - 1;
    let first = *buf.first().ok_or(HpackError::Truncated)? as usize & mask;
    if first < mask {
        return Ok((first, 1));
    }
    let mut value = mask;
    let mut shift = 0;
    for (i, &b) in buf[1..].iter().enumerate() {
        if i >= 4 {
            return Err(HpackError::IntegerOverflow);
        }
        value += ((b & 127) as usize) << shift;
        shift += 7;
        if b & 128 == 0 {
            if value > u32::MAX as usize {
                return Err(HpackError::IntegerOverflow);
            }
            return Ok((value, i + 2));
        }
    }
    Err(HpackError::Truncated)
}

pub struct Decoder {
    arena: Vec<u8>,
    head: usize,                              // arena[..head] is evicted
    entries: VecDeque<(usize, usize, usize)>, // (offset in arena, name len, value len); newest at back
    size: usize,
    max_size: usize,
    allowed_max: usize,
    name: Vec<u8>,
    value: Vec<u8>,
}

impl Default for Decoder {
    fn default() -> Self {
        Self::new()
    }
}

/// Where a literal's string ended up: borrowed from the block, or in a scratch buffer.
#[derive(Clone, Copy)]
enum Str {
    Input(usize, usize),
    Scratch,
    Table(usize), // a table entry's name, by its index
}

impl Decoder {
    pub fn new() -> Self {
        let _ = fsm();
        Decoder {
            arena: Vec::with_capacity(2 * 4096),
            head: 0,
            entries: VecDeque::with_capacity(128),
            size: 0,
            max_size: 4096,
            allowed_max: 4096,
            name: Vec::with_capacity(256),
            value: Vec::with_capacity(256),
        }
    }

    fn get(&self, index: usize) -> Result<(&[u8], &[u8]), HpackError> {
        if index == 0 {
            return Err(HpackError::BadIndex);
        }
        if index <= STATIC_TABLE.len() {
            let (n, v) = STATIC_TABLE[index - 1];
            return Ok((n, v));
        }
        let d = index - STATIC_TABLE.len() - 1;
        if d >= self.entries.len() {
            return Err(HpackError::BadIndex);
        }
        let (off, nl, vl) = self.entries[self.entries.len() - 1 - d];
        Ok((
            &self.arena[off..off + nl],
            &self.arena[off + nl..off + nl + vl],
        ))
    }

    fn evict_to(&mut self, limit: usize) {
        while self.size > limit {
            let (_, nl, vl) = self.entries.pop_front().expect("size > 0 means entries");
            self.size -= nl + vl + 32;
            self.head += nl + vl;
        }
        if self.entries.is_empty() {
            self.arena.clear();
            self.head = 0;
        }
    }

    fn insert(&mut self, name: &[u8], value: &[u8]) {
        let sz = name.len() + value.len() + 32;
        if sz > self.max_size {
            self.evict_to(0);
            return;
        }
        self.evict_to(self.max_size - sz);
        // Evicted bytes stay as a dead prefix [0, head); when the arena would outgrow its
        // capacity (twice the table), the live bytes move to the front: amortised, one byte
        // moved per byte inserted, and the arena never reallocates once at capacity.
        if self.arena.len() + sz > self.arena.capacity() && self.head > 0 {
            self.arena.copy_within(self.head.., 0);
            self.arena.truncate(self.arena.len() - self.head);
            for e in self.entries.iter_mut() {
                e.0 -= self.head;
            }
            self.head = 0;
        }
        let off = self.arena.len();
        self.arena.extend_from_slice(name);
        self.arena.extend_from_slice(value);
        self.entries.push_back((off, name.len(), value.len()));
        self.size += sz;
    }

    /// SETTINGS_HEADER_TABLE_SIZE this side advertised (the encoder may then lower it).
    pub fn set_allowed_max(&mut self, n: usize) {
        self.allowed_max = n;
    }

    /// Decode one complete header block, calling `cb(name, value)` per field.
    pub fn decode(
        &mut self,
        block: &[u8],
        mut cb: impl FnMut(&[u8], &[u8]),
    ) -> Result<(), HpackError> {
        let mut pos = 0;
        let mut fields = 0;
        while pos < block.len() {
            let b = block[pos];
            if b & 0x80 != 0 {
                let (idx, n) = integer(&block[pos..], 7)?;
                pos += n;
                let (name, value) = self.get(idx)?;
                cb(name, value);
                fields += 1;
                continue;
            }
            if b & 0xe0 == 0x20 {
                if fields > 0 {
                    return Err(HpackError::SizeUpdate);
                }
                let (sz, n) = integer(&block[pos..], 5)?;
                pos += n;
                if sz > self.allowed_max {
                    return Err(HpackError::SizeUpdate);
                }
                self.max_size = sz;
                self.evict_to(sz);
                continue;
            }
            let (indexing, prefix) = if b & 0x40 != 0 { (true, 6) } else { (false, 4) };
            let (idx, n) = integer(&block[pos..], prefix)?;
            pos += n;
            let name = if idx == 0 {
                let (s, n) = self.string(block, pos, true)?;
                pos += n;
                s
            } else {
                self.get(idx)?; // validate
                Str::Table(idx)
            };
            let (value, n) = self.string(block, pos, false)?;
            pos += n;
            // Resolve and hand over; copy to the table if indexing.
            let name_slice: &[u8] = match name {
                Str::Input(a, b) => &block[a..b],
                Str::Scratch => &self.name,
                Str::Table(i) => self.get(i)?.0,
            };
            let value_slice: &[u8] = match value {
                Str::Input(a, b) => &block[a..b],
                _ => &self.value,
            };
            cb(name_slice, value_slice);
            fields += 1;
            if indexing {
                // Take the strings out of `self` for the borrow checker without allocating.
                let mut nm = std::mem::take(&mut self.name);
                let mut vl = std::mem::take(&mut self.value);
                if let Str::Table(i) = name {
                    nm.clear();
                    nm.extend_from_slice(self.get(i)?.0);
                } else if let Str::Input(a, b) = name {
                    nm.clear();
                    nm.extend_from_slice(&block[a..b]);
                }
                if let Str::Input(a, b) = value {
                    vl.clear();
                    vl.extend_from_slice(&block[a..b]);
                }
                self.insert(&nm, &vl);
                self.name = nm;
                self.value = vl;
            }
        }
        Ok(())
    }

    /// Decode the string at `block[pos..]` into the name or value scratch (Huffman) or
    /// point at it (raw). Returns where it is and the bytes consumed.
    fn string(
        &mut self,
        block: &[u8],
        pos: usize,
        is_name: bool,
    ) -> Result<(Str, usize), HpackError> {
        let rest = &block[pos..];
        let (len, n) = integer(rest, 7)?;
        if n + len > rest.len() {
            return Err(HpackError::Truncated);
        }
        let raw = (pos + n, pos + n + len);
        if rest[0] & 0x80 == 0 {
            return Ok((Str::Input(raw.0, raw.1), n + len));
        }
        let dst = if is_name {
            &mut self.name
        } else {
            &mut self.value
        };
        dst.clear();
        huffman_decode(&block[raw.0..raw.1], dst)?;
        Ok((Str::Scratch, n + len))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc7541_c4_requests_with_huffman() {
        let mut d = Decoder::new();
        let blocks = [
            "828684418cf1e3c2e5f23a6ba0ab90f4ff",
            "828684be5886a8eb10649cbf",
            "828785bf408825a849e95ba97d7f8925a849e95bb8e8b4bf",
        ];
        let want: [&[(&str, &str)]; 3] = [
            &[
                (":method", "GET"),
                (":scheme", "http"),
                (":path", "/"),
                (":authority", "www.example.com"),
            ],
            &[
                (":method", "GET"),
                (":scheme", "http"),
                (":path", "/"),
                (":authority", "www.example.com"),
                ("cache-control", "no-cache"),
            ],
            &[
                (":method", "GET"),
                (":scheme", "https"),
                (":path", "/index.html"),
                (":authority", "www.example.com"),
                ("custom-key", "custom-value"),
            ],
        ];
        for (hex, want) in blocks.iter().zip(want) {
            let bytes: Vec<u8> = (0..hex.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
                .collect();
            let mut got = Vec::new();
            d.decode(&bytes, |n, v| {
                got.push((
                    String::from_utf8(n.to_vec()).unwrap(),
                    String::from_utf8(v.to_vec()).unwrap(),
                ))
            })
            .unwrap();
            let want: Vec<(String, String)> = want
                .iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect();
            assert_eq!(got, want);
        }
        assert_eq!(d.size, 164);
    }

    #[test]
    fn rfc7541_c6_responses_with_eviction() {
        let mut d = Decoder::new();
        d.max_size = 256;
        let blocks = [
            "488264025885aec3771a4b6196d07abe941054d444a8200595040b8166e082a62d1bff6e919d29ad171863c78f0b97c8e9ae82ae43d3",
            "4883640effc1c0bf",
            "88c16196d07abe941054d444a8200595040b8166e084a62d1bffc05a839bd9ab77ad94e7821dd7f2e6c7b335dfdfcd5b3960d5af27087f3672c1ab270fb5291f9587316065c003ed4ee5b1063d5007",
        ];
        for hex in blocks {
            let bytes: Vec<u8> = (0..hex.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
                .collect();
            let mut n = 0;
            d.decode(&bytes, |_, _| n += 1).unwrap();
            assert!(n >= 4);
        }
        assert_eq!(d.size, 215);
        let (n, v) = d.get(62).unwrap();
        assert_eq!(
            (n, v),
            (
                &b"set-cookie"[..],
                &b"foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1"[..]
            )
        );
    }

    #[test]
    fn huffman_rejects_eos_and_long_padding() {
        let mut v = Vec::new();
        assert!(huffman_decode(&[0xff, 0xff, 0xff, 0xff], &mut v).is_err());
        v.clear();
        // 'a' (00011, 5 bits) + 11 bits of ones = too much padding
        assert!(huffman_decode(&[0x1f, 0xff], &mut v).is_err());
        v.clear();
        assert!(huffman_decode(&[0x1f], &mut v).is_ok());
        assert_eq!(v, b"a");
    }
}
