//! Buffers a loop lends its connections while they need one: a connection holds a buffer
//! only while it has bytes to send or a record or frame split across reads (TLS, HTTP/2),
//! so memory grows with the connections doing that at once, not with those held, and a
//! buffer once made is used again (no allocation per request).

/// Buffers of one size, lent and given back.
#[derive(Debug)]
pub struct Pool {
    free: Vec<Vec<u8>>,
    size: usize,
}

impl Pool {
    /// A pool of `size`-byte buffers, with room to keep `connections` of them.
    pub fn new(size: usize, connections: usize) -> Pool {
        Pool {
            free: Vec::with_capacity(connections),
            size,
        }
    }

    /// A buffer of at least `size` bytes (zeroed when new; as last left when reused).
    pub fn take(&mut self) -> Vec<u8> {
        self.free.pop().unwrap_or_else(|| vec![0; self.size])
    }

    /// Gives `buf` back for the next connection that needs one.
    pub fn give(&mut self, buf: Vec<u8>) {
        self.free.push(buf);
    }
}
