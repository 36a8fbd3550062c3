//! Buffers a loop lends its connections while they need one: a connection holds a buffer
//! only while it has bytes to send or a record or frame split across reads (TLS, HTTP/2),
//! so memory grows with the connections doing that at once, not with those held, and a
//! buffer once made is used again (no allocation per request).

use std::cell::RefCell;
use std::rc::Rc;

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

    /// The pool with `n` buffers made now, so that the first connections to need one
    /// allocate nothing (a split across reads comes by chance: when it first does must not
    /// decide what a load allocates).
    pub fn made(mut self, n: usize) -> Pool {
        self.free.extend((0..n).map(|_| vec![0; self.size]));
        self
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

/// A loop's carries for HTTP/1.1 response heads split across reads, shared by its
/// connections (each parser holds a handle): a head splits where a read or a receive
/// buffer ends, seldom on two connections at once, so one is made up front and more only
/// when that happens. Over io_uring's incremental buffers (uring.rs) a head splits at every
/// buffer's end: a carry lent, not made, keeps that from allocating.
#[derive(Debug, Clone)]
pub struct Carries(Rc<RefCell<Pool>>);

impl Carries {
    /// Carries of `size` bytes for `connections`, `made` of them made now.
    pub fn new(size: usize, connections: usize, made: usize) -> Carries {
        let pool = Pool::new(size, connections.max(made)).made(made);
        Carries(Rc::new(RefCell::new(pool)))
    }

    /// An empty carry with room for `size` bytes.
    pub fn take(&self) -> Vec<u8> {
        let mut carry = self.0.borrow_mut().take();
        carry.clear();
        carry
    }

    /// Gives `carry` back for the next head that splits.
    pub fn give(&self, carry: Vec<u8>) {
        self.0.borrow_mut().give(carry);
    }

    /// How many are free now.
    #[cfg(test)]
    pub fn free(&self) -> usize {
        self.0.borrow().free.len()
    }
}
