//! Software prefetch hints for the hot loop.
//!
//! The engine is bound by memory latency: a simulated cycle touches several megabytes of
//! router state in an order decided by the traffic, so nearly every record it reads misses
//! the private caches. Where the engine knows a few steps ahead which record it will need
//! (the target of an event further down the current bucket), it asks for the line early, so
//! that several misses are in flight at once instead of one after another. A hint never
//! changes results.

/// Ask for the cache line holding `*r` (no effect on other architectures).
#[inline(always)]
pub fn prefetch<T>(r: &T) {
    prefetch_addr(r as *const T as *const u8);
}

/// Ask for every cache line of `s` (a record array laid out contiguously).
#[inline(always)]
pub fn prefetch_slice<T>(s: &[T]) {
    let start = s.as_ptr() as *const u8;
    let bytes = std::mem::size_of_val(s);
    let mut off = 0;
    while off < bytes {
        prefetch_addr(start.wrapping_add(off));
        off += 64;
    }
}

/// The hint itself, for an address inside a live object.
#[inline(always)]
fn prefetch_addr(addr: *const u8) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: a prefetch is only a hint; it never faults and never changes memory, and
        // both callers pass an address inside a live reference or slice.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(addr as *const i8) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = addr;
}
