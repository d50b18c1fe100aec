//! Router model: input-queued, virtual cut-through, one crossbar input per input port and no
//! speedup (the OFAR paper, section 4). Input VCs are FIFOs of packet ids; output VCs keep the
//! upstream view of the downstream buffer as credits.

pub mod allocator;
pub mod arbiter;
pub mod buffers;
pub mod state;

/// Ports per router the allocator's bit masks can hold, and VCs per port: limits the
/// configuration checks ([`crate::config::limits`]).
pub use crate::config::limits::{MAX_RADIX, MAX_VCS};
