//! The largest sizes a configuration may ask for: what the engines' compact records hold
//! (the input-queued router's bit masks and VC fields). The engines import these; the
//! configuration checks against them without importing an engine.

/// Ports per router: the allocator's 64-bit masks hold one bit per port.
pub const MAX_RADIX: usize = 64;
/// VCs per port.
pub const MAX_VCS: usize = 16;
/// Cycles a link may take (every latency key).
pub const MAX_LATENCY: u32 = 100_000;
