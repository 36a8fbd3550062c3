//! A ring of provided receive buffers shared by every connection of an io_uring loop.
//!
//! The kernel picks a free buffer for each receive, so memory scales with the data in
//! flight, not with the number of connections.

use io_uring::types::BufRingEntry;
use io_uring::IoUring;
use std::io;
use std::sync::atomic::{AtomicU16, Ordering};

/// Provided buffers registered with one ring under one group id.
pub struct BufRing {
    entries: *mut BufRingEntry,
    count: u16,
    /// Local tail: buffers handed back but maybe not yet published to the kernel.
    tail: u16,
    buf_size: usize,
    bufs: Vec<u8>,
    map_len: usize,
}

impl BufRing {
    /// Registers `count` (a power of two) buffers of `buf_size` bytes as group `bgid`.
    pub fn new(ring: &IoUring, count: u16, buf_size: usize, bgid: u16) -> io::Result<BufRing> {
        assert!(
            count.is_power_of_two(),
            "buffer count must be a power of two"
        );
        let map_len = count as usize * std::mem::size_of::<BufRingEntry>();
        // The kernel wants the entry array page-aligned: mmap gives that.
        // SAFETY: anonymous private mapping; checked for failure below.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                map_len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let mut this = BufRing {
            entries: ptr.cast(),
            count,
            tail: 0,
            buf_size,
            bufs: vec![0; count as usize * buf_size],
            map_len,
        };
        // SAFETY: the entry array and the buffers live as long as `this`, which the
        // caller keeps until the ring is dropped.
        unsafe {
            ring.submitter()
                .register_buf_ring_with_flags(ptr as u64, count, bgid, 0)?;
        }
        for bid in 0..count {
            this.recycle(bid);
        }
        this.publish();
        Ok(this)
    }

    /// The first `len` bytes of buffer `bid`, as the kernel filled them.
    #[inline]
    pub fn get(&self, bid: u16, len: usize) -> &[u8] {
        let start = bid as usize * self.buf_size;
        &self.bufs[start..start + len.min(self.buf_size)]
    }

    /// Hands buffer `bid` back; the kernel sees it after [`publish`](Self::publish).
    #[inline]
    pub fn recycle(&mut self, bid: u16) {
        let slot = (self.tail & (self.count - 1)) as usize;
        let addr = self.bufs.as_ptr() as u64 + (bid as usize * self.buf_size) as u64;
        // SAFETY: `slot` is within the mapped entry array.
        let entry = unsafe { &mut *self.entries.add(slot) };
        entry.set_addr(addr);
        entry.set_len(self.buf_size as u32);
        entry.set_bid(bid);
        self.tail = self.tail.wrapping_add(1);
    }

    /// Makes every recycled buffer available to the kernel.
    #[inline]
    pub fn publish(&self) {
        // SAFETY: the tail field lies inside the first entry of the mapping, and the
        // kernel reads it atomically; a release store orders the entries before it.
        unsafe {
            let tail = BufRingEntry::tail(self.entries) as *const AtomicU16;
            (*tail).store(self.tail, Ordering::Release);
        }
    }
}

impl Drop for BufRing {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the mapping made in `new`; the ring that used it is gone.
        unsafe { libc::munmap(self.entries.cast(), self.map_len) };
    }
}
