//! Buffers placed against `PROT_NONE` guard pages, with canary bytes in
//! the slack around them.
//!
//! One mapping per buffer: `[guard page][slack | data][guard page]`. The
//! data ends exactly at the upper guard page (aligned to its element size
//! only), so the first byte read or written past its end faults at the
//! instruction that touches it. The slack before the data (the rest of its
//! first page) is filled with [`CANARY`]; a write there is found after the
//! call, and an access further down faults in the lower guard page.

use std::io;

/// The byte the slack around a buffer is filled with.
pub(crate) const CANARY: u8 = 0xFE;

/// One guarded buffer. Unmapped on drop.
pub(crate) struct Guarded {
    base: *mut u8,
    total: usize,
    page: usize,
    data: *mut u8,
    size: usize,
}

/// Where an address lies relative to a guarded buffer's data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Offset(pub i64);

fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if p > 0 {
        p as usize
    } else {
        4096
    }
}

impl Guarded {
    /// Maps a guarded buffer of `size` bytes whose start is aligned to `align`
    /// (a power of two; the element size).
    pub(crate) fn new(size: usize, align: usize) -> io::Result<Guarded> {
        let page = page_size();
        let data_pages = size
            .checked_add(page - 1)
            .map(|s| s / page * page)
            .ok_or_else(|| io::Error::new(io::ErrorKind::OutOfMemory, "buffer too large"))?;
        let total = data_pages
            .checked_add(2 * page)
            .ok_or_else(|| io::Error::new(io::ErrorKind::OutOfMemory, "buffer too large"))?;
        // SAFETY: an anonymous private mapping; checked below.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                total,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let base = base as *mut u8;
        let mut g = Guarded {
            base,
            total,
            page,
            data: std::ptr::null_mut(),
            size,
        };
        // SAFETY: both ranges lie inside the mapping just made.
        unsafe {
            let hi = base.add(page + data_pages);
            if libc::mprotect(base as *mut libc::c_void, page, libc::PROT_NONE) != 0
                || libc::mprotect(hi as *mut libc::c_void, page, libc::PROT_NONE) != 0
            {
                return Err(io::Error::last_os_error());
            }
            let align = align.max(1);
            let end = hi as usize;
            let data = ((end - size) & !(align - 1)) as *mut u8;
            let lo = base.add(page);
            std::ptr::write_bytes(lo, CANARY, data as usize - lo as usize);
            std::ptr::write_bytes(data.add(size), CANARY, end - (data as usize + size));
            g.data = data;
            Ok(g)
        }
    }

    pub(crate) fn ptr(&self) -> *mut u8 {
        self.data
    }

    #[cfg(test)]
    pub(crate) fn size(&self) -> usize {
        self.size
    }

    /// The data, readable and writable.
    pub(crate) fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: `data..data + size` lies in the mapping's writable pages.
        unsafe { std::slice::from_raw_parts_mut(self.data, self.size) }
    }

    pub(crate) fn bytes(&self) -> &[u8] {
        // SAFETY: as `bytes_mut`.
        unsafe { std::slice::from_raw_parts(self.data, self.size) }
    }

    /// `addr`'s offset from the data's start when it lies in this
    /// mapping's guard pages or slack (an access outside the data).
    pub(crate) fn locate(&self, addr: usize) -> Option<Offset> {
        let base = self.base as usize;
        let data = self.data as usize;
        let inside = addr >= base && addr < base + self.total;
        let in_data = addr >= data && addr < data + self.size;
        (inside && !in_data).then(|| Offset(addr as i64 - data as i64))
    }

    /// The offsets (from the data's start) of the first and last canary
    /// bytes that changed, if any did.
    pub(crate) fn damaged_canary(&self) -> Option<(Offset, Offset)> {
        let lo = self.base as usize + self.page;
        let data = self.data as usize;
        let end = lo + (self.total - 2 * self.page);
        let mut first = None;
        let mut last = None;
        for a in (lo..data).chain(data + self.size..end) {
            // SAFETY: `a` lies in the mapping's writable pages.
            if unsafe { *(a as *const u8) } != CANARY {
                let off = Offset(a as i64 - data as i64);
                first.get_or_insert(off);
                last = Some(off);
            }
        }
        first.zip(last)
    }
}

impl Drop for Guarded {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `new`, unmapped once.
        unsafe {
            libc::munmap(self.base as *mut libc::c_void, self.total);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_ends_at_the_guard_page_and_the_slack_holds_canaries() {
        let mut g = Guarded::new(12, 4).unwrap();
        assert_eq!(g.size(), 12);
        assert_eq!(g.ptr() as usize % 4, 0);
        assert_eq!((g.ptr() as usize + 12) % page_size(), 0);
        g.bytes_mut().fill(7);
        assert_eq!(g.damaged_canary(), None);
        // A write just before the data is found by the canary.
        unsafe { *g.ptr().sub(2) = 0 };
        assert_eq!(g.damaged_canary(), Some((Offset(-2), Offset(-2))));
        assert_eq!(g.locate(g.ptr() as usize + 12), Some(Offset(12)));
        assert_eq!(g.locate(g.ptr() as usize + 4), None);
        // Odd sizes keep the start aligned; the slack after the data is checked too.
        let g = Guarded::new(6, 4).unwrap();
        assert_eq!(g.ptr() as usize % 4, 0);
        unsafe { *g.ptr().add(6) = 1 };
        assert_eq!(g.damaged_canary(), Some((Offset(6), Offset(6))));
        let empty = Guarded::new(0, 1).unwrap();
        assert_eq!(empty.size(), 0);
    }
}
