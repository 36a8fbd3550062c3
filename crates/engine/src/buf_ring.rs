//! A ring of provided receive buffers shared by every connection of an io_uring loop.
//!
//! The kernel picks a free buffer for each receive, so memory scales with the data in
//! flight, not with the number of connections. Where the kernel can (6.12 on), the ring is
//! incremental (`IOU_PBUF_RING_INC`): a receive takes only the bytes it fills and the next
//! one goes on after them, in whatever buffer is at the head, so a few large buffers serve
//! small answers and a 20 MB download alike (one completion per 128 KiB, not per 8 KiB:
//! bench/upload-cost).

use io_uring::cqueue;
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
    /// Incremental: where the kernel goes on filling each buffer (empty otherwise).
    filled: Vec<u32>,
}

/// The bytes one completion put in a buffer: where they start in it, and whether the
/// kernel goes on filling that buffer (incremental, `IORING_CQE_F_BUF_MORE`), in which case
/// it is not the loop's to hand back.
#[derive(Debug, Clone, Copy)]
pub struct Lent {
    bid: u16,
    start: u32,
    kept: bool,
}

/// `IOU_PBUF_RING_INC` (linux/io_uring.h), which the io-uring crate does not export.
const INCREMENTAL: u16 = 2;

impl BufRing {
    /// Registers `count` (a power of two) buffers of `buf_size` bytes as group `bgid`,
    /// consumed a receive's bytes at a time when `incremental` (an error where the kernel
    /// cannot).
    pub fn new(
        ring: &IoUring,
        count: u16,
        buf_size: usize,
        bgid: u16,
        incremental: bool,
    ) -> io::Result<BufRing> {
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
            filled: match incremental {
                true => vec![0; count as usize],
                false => Vec::new(),
            },
        };
        let flags = if incremental { INCREMENTAL } else { 0 };
        // SAFETY: the entry array and the buffers live as long as `this`, which the
        // caller keeps until the ring is dropped.
        unsafe {
            ring.submitter()
                .register_buf_ring_with_flags(ptr as u64, count, bgid, flags)?;
        }
        for bid in 0..count {
            this.recycle(bid);
        }
        this.publish();
        Ok(this)
    }

    /// The `len` bytes a completion with `flags` put in buffer `bid`: after those of the
    /// completions before it that the kernel kept filling it for, when incremental.
    #[inline]
    pub fn lent(&mut self, bid: u16, len: usize, flags: u32) -> Lent {
        let Some(filled) = self.filled.get_mut(bid as usize) else {
            return Lent {
                bid,
                start: 0,
                kept: false,
            };
        };
        let start = *filled;
        let kept = cqueue::buffer_more(flags);
        *filled = if kept { start + len as u32 } else { 0 };
        Lent { bid, start, kept }
    }

    /// The first `len` bytes of what `lent` says, as the kernel filled them.
    #[inline]
    pub fn get(&self, lent: Lent, len: usize) -> &[u8] {
        let start = lent.bid as usize * self.buf_size + lent.start as usize;
        let end = (lent.bid as usize + 1) * self.buf_size;
        &self.bufs[start..(start + len).min(end)]
    }

    /// Hands back the buffer of `lent`, unless the kernel goes on filling it.
    #[inline]
    pub fn give_back(&mut self, lent: Lent) {
        if !lent.kept {
            self.recycle(lent.bid);
        }
    }

    /// Hands buffer `bid` back; the kernel sees it after [`publish`](Self::publish).
    #[inline]
    fn recycle(&mut self, bid: u16) {
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
