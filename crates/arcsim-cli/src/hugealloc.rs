//! Global allocator that backs large allocations with transparent huge pages.
//!
//! The simulator reads tens of megabytes of router, packet and table records in an order set
//! by the traffic. With 4 KiB pages nearly every such access also misses the TLB and walks
//! the page tables; with 2 MiB pages the whole working set fits in the TLB's reach. Linux
//! only uses huge pages for memory the program asks for them with `madvise` (the common
//! `transparent_hugepage=madvise` setting), so allocations of at least [`THRESHOLD`] bytes
//! are aligned to 2 MiB and advised before they are touched. Everything else, and every
//! other platform, goes to the system allocator unchanged.

use std::alloc::{GlobalAlloc, Layout, System};

pub struct HugePageAlloc;

const HUGE: usize = 2 << 20;
/// Smaller allocations are not worth a 2 MiB page each.
const THRESHOLD: usize = 256 << 10;

/// Whether a block gets huge pages: from 2 MiB on, and from [`THRESHOLD`] on for sizes that
/// are not powers of two. The exception keeps growable buffers (a `Vec` doubling its
/// capacity, such as the engine's event buckets, of which there are hundreds) in small pages:
/// rounded up to 2 MiB each, the buckets of the 16,512-node network would take 300 MiB instead
/// of 100. The fixed record arrays (ports, VCs, arbiter stamps) have sizes that are not powers
/// of two. The rule depends on the layout only, so `dealloc` knows where a block came from.
#[inline]
fn is_large(layout: &Layout) -> bool {
    let size = layout.size();
    cfg!(target_os = "linux")
        && layout.align() <= HUGE
        && (size >= HUGE || (size >= THRESHOLD && !size.is_power_of_two()))
}

// SAFETY: small blocks go to `System` unchanged. Large blocks are private anonymous
// mappings of whole huge pages at 2 MiB-aligned addresses (which satisfies any `Layout`
// alignment up to 2 MiB; larger alignments go to `System`), unmapped with the same rounded
// size they were mapped with.
unsafe impl GlobalAlloc for HugePageAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if is_large(&layout) {
            return map_huge(layout.size());
        }
        System.alloc(layout)
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if is_large(&layout) {
            // Fresh anonymous mappings are zero-filled by the kernel.
            return map_huge(layout.size());
        }
        System.alloc_zeroed(layout)
    }

    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        if is_large(&layout) {
            unmap_huge(p, layout.size());
        } else {
            System.dealloc(p, layout)
        }
    }

    unsafe fn realloc(&self, p: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let new_layout = Layout::from_size_align_unchecked(new_size, layout.align());
        if !is_large(&layout) && !is_large(&new_layout) {
            return System.realloc(p, layout, new_size);
        }
        let q = self.alloc(new_layout);
        if !q.is_null() {
            std::ptr::copy_nonoverlapping(p, q, layout.size().min(new_size));
            self.dealloc(p, layout);
        }
        q
    }
}

/// Map `size` bytes rounded up to whole 2 MiB pages at a 2 MiB-aligned address, advised for
/// huge pages; null if the system refuses (an allocation failure, as for `System`).
#[cfg(target_os = "linux")]
unsafe fn map_huge(size: usize) -> *mut u8 {
    let len = size.div_ceil(HUGE) * HUGE;
    // Over-map by one huge page, then trim both ends to the aligned range.
    let raw = libc::mmap(
        std::ptr::null_mut(),
        len + HUGE,
        libc::PROT_READ | libc::PROT_WRITE,
        libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
        -1,
        0,
    );
    if raw == libc::MAP_FAILED {
        return std::ptr::null_mut();
    }
    let start = raw as usize;
    let aligned = start.div_ceil(HUGE) * HUGE;
    if aligned > start {
        libc::munmap(raw, aligned - start);
    }
    let tail = start + len + HUGE - (aligned + len);
    if tail > 0 {
        libc::munmap((aligned + len) as *mut libc::c_void, tail);
    }
    // Only a hint: if the kernel refuses, the memory simply stays in small pages.
    libc::madvise(aligned as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
    aligned as *mut u8
}

#[cfg(target_os = "linux")]
unsafe fn unmap_huge(p: *mut u8, size: usize) {
    let len = size.div_ceil(HUGE) * HUGE;
    libc::munmap(p as *mut libc::c_void, len);
}

// Never called: `is_large` is false off Linux.
#[cfg(not(target_os = "linux"))]
unsafe fn map_huge(_: usize) -> *mut u8 {
    std::ptr::null_mut()
}

#[cfg(not(target_os = "linux"))]
unsafe fn unmap_huge(_: *mut u8, _: usize) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_blocks_are_huge_aligned_and_keep_contents_across_realloc() {
        let a = HugePageAlloc;
        unsafe {
            // Small to large: the copy must keep the contents.
            let small = Layout::from_size_align(1000, 8).unwrap();
            let p = a.alloc(small);
            assert!(!p.is_null());
            for i in 0..1000 {
                *p.add(i) = (i % 251) as u8;
            }
            let big = 3 * THRESHOLD + 123;
            let q = a.realloc(p, small, big);
            assert!(!q.is_null());
            if cfg!(target_os = "linux") {
                assert_eq!(q as usize % HUGE, 0, "large block not 2 MiB aligned");
            }
            assert!((0..1000).all(|i| *q.add(i) == (i % 251) as u8));
            // Large to larger, then back to small.
            let big_layout = Layout::from_size_align(big, 8).unwrap();
            let r = a.realloc(q, big_layout, 2 * big);
            assert!((0..1000).all(|i| *r.add(i) == (i % 251) as u8));
            let s = a.realloc(r, Layout::from_size_align(2 * big, 8).unwrap(), 500);
            assert!((0..500).all(|i| *s.add(i) == (i % 251) as u8));
            a.dealloc(s, Layout::from_size_align(500, 8).unwrap());
            // Zeroed large blocks are zero.
            let z = a.alloc_zeroed(big_layout);
            assert!((0..big).step_by(4093).all(|i| *z.add(i) == 0));
            a.dealloc(z, big_layout);
        }
    }
}
