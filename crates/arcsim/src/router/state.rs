//! Per-port and per-VC router state, one compact record each.
//!
//! The allocator of the 5,256-node network sweeps nearly every router each cycle, so these
//! records are the simulator's hot working set: at 32 bytes each (two per cache line, never
//! straddling one) the ports and VCs of the OFAR paper's network take 1.6 MB instead of 3.2 MB,
//! which roughly halves the memory traffic of a cycle. Times are stored as `u32` cycles: the
//! configuration rejects runs that could reach 2^32 cycles ([`crate::config::MAX_CYCLES`]).
//! Cold or rarely written per-port data (watchers) lives in side arrays of the engine.

use super::buffers::{InVc, OutVc};
use crate::topology::PortClass;

/// Both directions of one router port (ports are numbered globally: `port_base[r] + p`).
#[derive(Debug, Clone, Copy)]
#[repr(C, align(32))]
pub struct PortState {
    /// Output side: the link carries a packet until this cycle.
    pub out_busy: u32,
    /// First VC of this port in the VC table (`vc_count` of them).
    pub vc_base: u32,
    /// Link ports: the router at the other end. Terminal ports: the node (terminal) id.
    pub peer_router: u32,
    /// First VC of the peer port (link ports), copied here so that sending a packet or a
    /// credit does not touch the other router's records.
    pub peer_vc_base: u32,
    /// Phits sent on the output link so far (wrapping), for utilisation measurements.
    pub sent: u32,
    /// Link latency in cycles.
    pub latency: u16,
    /// Input VCs holding packets (bit per VC): the allocator skips empty ones unseen.
    pub vc_mask: u16,
    pub vc_count: u8,
    pub class: PortClass,
    /// Round-robin pointers of the input (over VCs) and output (over inputs) arbiters.
    pub rr_in: u8,
    pub rr_out: u8,
    /// Local port number of the peer port at the other end of the link.
    pub peer_local: u8,
    /// Bumped (wrapping) at every credit return to this output: wakes heads sleeping on it.
    /// Eight bits are enough: a sleeper compares it within one packet time of the first bump
    /// (see [`InVc`]), and a port gets at most a couple of bumps per VC in that time.
    pub credit_epoch: u8,
}

/// One VC: the input FIFO on this side, and this router's credit view of the VC with the
/// same index at the other end of the link.
#[derive(Debug, Clone, Copy)]
#[repr(C, align(32))]
pub struct VcState {
    pub fifo: InVc,
    pub credit: OutVc,
    /// Cycle (+1) this input VC last won its input arbiter (least-recently-served); with
    /// `router.lrs_update = "request"`, (cycle + 1) · 16 + allocator iteration of its last
    /// request.
    pub last_served: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_take_half_a_cache_line() {
        assert_eq!(std::mem::size_of::<PortState>(), 32);
        assert_eq!(std::mem::size_of::<VcState>(), 32);
    }
}
