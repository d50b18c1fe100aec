//! Per-port and per-VC router state, one record each, so that the allocator touches one
//! cache line per port and per VC instead of one per field.

use super::buffers::{InVc, OutVc};
use crate::topology::PortClass;

/// Both directions of one router port (ports are numbered globally: `port_base[r] + p`).
///
/// Aligned to a cache line so that touching a port costs one line, never two.
#[derive(Debug, Clone, Copy)]
#[repr(align(64))]
pub struct PortState {
    /// Input side: the crossbar input reads a packet until this cycle (no speedup).
    pub in_busy: u64,
    /// Output side: the link carries a packet until this cycle.
    pub out_busy: u64,
    /// First VC of this port in the VC table (`vc_count` of them).
    pub vc_base: u32,
    /// Bumped at every credit return to this output: wakes heads sleeping on it.
    pub credit_epoch: u32,
    /// Global index of the port at the other end of the link, or the terminal id.
    pub peer: u32,
    /// Link latency in cycles.
    pub latency: u32,
    /// Packets in this port's input VCs.
    pub pkts: u32,
    pub vc_count: u8,
    pub class: PortClass,
    /// Round-robin pointers of the input (over VCs) and output (over inputs) arbiters.
    pub rr_in: u8,
    pub rr_out: u8,
    /// Input VCs holding packets (bit per VC): the allocator skips empty ones unseen.
    pub vc_mask: u16,
    /// The peer port's router, local port number and first VC, copied here so that sending a
    /// packet or a credit does not touch the other router's records.
    pub peer_router: u32,
    pub peer_vc_base: u32,
    pub peer_local: u8,
    /// Phits sent on the output link so far (wrapping), for utilisation measurements.
    pub sent: u32,
    /// Input ports of the same router with a head sleeping on this output's credits (woken,
    /// and cleared, at the next credit return; kept next to `credit_epoch`).
    pub watchers: u64,
}

/// One VC: the input FIFO on this side, and this router's credit view of the VC with the
/// same index at the other end of the link.
///
/// Aligned to a cache line: the FIFO, the credit view and the LRS stamp share one line.
#[derive(Debug, Clone, Copy)]
#[repr(align(64))]
pub struct VcState {
    pub fifo: InVc,
    pub credit: OutVc,
    /// Cycle (+1) this input VC last won its input arbiter (least-recently-served).
    pub last_served: u64,
    /// Global port this VC belongs to.
    pub port: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_fill_exactly_one_cache_line() {
        assert_eq!(std::mem::size_of::<PortState>(), 64);
        assert_eq!(std::mem::size_of::<VcState>(), 64);
    }
}
