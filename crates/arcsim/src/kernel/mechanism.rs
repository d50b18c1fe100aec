//! The seam for congestion mechanisms (QCN congestion points, QCN-Switch's routing
//! probabilities, snoop tables, RECN): a [`Mechanism`] sees data packets where they are
//! queued and delivered (its sampling points), and control packets when they reach the
//! switch they are addressed to. It sends control packets with
//! [`Kernel::send_control`](super::Kernel::send_control): they come from the same pool as data,
//! cross the network on VCs of their own (after the data VCs of every link), take link
//! bandwidth like data, and win arbitration over data at every input and output (strict
//! priority). The kernel is generic over the mechanism, so its hooks cost nothing when
//! they do nothing (`NoMechanism`).
//!
//! To add a mechanism: a module implementing [`Mechanism`], and (for configurations to
//! choose it) a configuration section with its parameters and an arm in
//! [`crate::kernel::build`].

use super::Kernel;

pub trait Mechanism {
    /// Whether the mechanism sends control packets: then every link gets control VCs.
    fn sends_control(&self) -> bool {
        false
    }
    /// Whether node `node`'s NIC may send data packet `pkt` now: the hook of per-flow rate
    /// limiters (QCN reaction points). A packet held back stays at the head of its queue
    /// and is asked about again next cycle.
    #[inline]
    fn may_inject(&mut self, _k: &Kernel, _node: usize, _pkt: u32) -> bool {
        true
    }
    /// A data packet's head reached input VC `vc` (input sampling).
    #[inline]
    fn on_input(&mut self, _k: &mut Kernel, _vc: u32, _pkt: u32) {}
    /// A data packet entered an output queue of global port `port` (output sampling).
    #[inline]
    fn on_output(&mut self, _k: &mut Kernel, _port: usize, _pkt: u32) {}
    /// A data packet reached its destination node.
    #[inline]
    fn on_deliver(&mut self, _k: &mut Kernel, _pkt: u32) {}
    /// Control packet `pkt` reached switch `s`, the switch it is addressed to; the kernel
    /// releases it afterwards.
    #[inline]
    fn on_control(&mut self, _k: &mut Kernel, _s: usize, _pkt: u32) {}
}

/// No congestion mechanism.
#[derive(Debug, Default)]
pub struct NoMechanism;

impl Mechanism for NoMechanism {}
