//! Router model: input-queued, virtual cut-through, one crossbar input per input port and no
//! speedup (the OFAR paper, section 4). Input VCs are FIFOs of packet ids; output VCs keep the
//! upstream view of the downstream buffer as credits.

pub mod allocator;
pub mod arbiter;
pub mod buffers;
pub mod state;

/// Ports per router the allocator's bit masks can hold.
pub const MAX_RADIX: usize = 64;
/// VCs per port.
pub const MAX_VCS: usize = 16;
