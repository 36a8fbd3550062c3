//! The buffers one event loop lends its HTTP/2 connections: an out buffer while a
//! connection has frames to write, a carry while a frame is split across reads. A held
//! connection with nothing to send and no split frame holds neither, so 10,000 idle
//! connections cost their streams and HPACK state, not 10,000 out buffers.
//!
//! The TLS layer sits beside the connections in the loop and passes its pools down; an
//! HTTP/2 session is reached through every one of the connection's calls, so its lender is
//! shared instead: one per loop, cloned into each session. A loop is one thread, and a
//! buffer is taken or given outside any other borrow of it, so the `RefCell` never fails.

use crate::pool::Pool;
use std::cell::RefCell;
use std::rc::Rc;

/// A loop's buffers for its HTTP/2 connections.
#[derive(Debug, Clone)]
pub struct Lender(Rc<RefCell<Pools>>);

#[derive(Debug)]
struct Pools {
    outs: Pool,
    carries: Pool,
    out_size: usize,
}

impl Lender {
    /// Out buffers of `out_size` octets and carries of `carry_size`, for `connections`.
    pub fn new(out_size: usize, carry_size: usize, connections: usize) -> Lender {
        Lender(Rc::new(RefCell::new(Pools {
            outs: Pool::new(out_size, connections),
            // One made now: a frame or head split across reads (at every buffer's end
            // over io_uring's incremental buffers) then allocates nothing.
            carries: Pool::new(carry_size, connections).made(1),
            out_size,
        })))
    }

    /// The size of an out buffer.
    pub fn out_size(&self) -> usize {
        self.0.borrow().out_size
    }

    /// An out buffer of [`Lender::out_size`] octets.
    pub fn take_out(&self) -> Vec<u8> {
        self.0.borrow_mut().outs.take()
    }

    pub fn give_out(&self, buf: Vec<u8>) {
        self.0.borrow_mut().outs.give(buf);
    }

    /// An empty carry with room for a whole frame.
    pub fn take_carry(&self) -> Vec<u8> {
        let mut carry = self.0.borrow_mut().carries.take();
        carry.clear();
        carry
    }

    pub fn give_carry(&self, carry: Vec<u8>) {
        self.0.borrow_mut().carries.give(carry);
    }
}
