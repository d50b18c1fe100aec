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
use crate::stats::RunResult;
use crate::switch::Switch;

pub trait Mechanism {
    /// Whether the mechanism sends control packets: then every link gets control VCs.
    fn sends_control(&self) -> bool {
        false
    }
    /// The kernel is built (network, VCs, routing): size the mechanism's tables.
    fn start(&mut self, _k: &Kernel) {}
    /// Once a cycle, after the switches moved: time-driven work (a congestion point's
    /// sampling timers). The switch is there to be read (its queues' contents).
    #[inline]
    fn on_cycle<S: Switch>(&mut self, _k: &mut Kernel, _sw: &S) {}
    /// Add what the mechanism measured to the run's result.
    fn report(&self, _k: &Kernel, _r: &mut RunResult) {}
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
    /// A packet (data or control: see its kind) entered an output queue of global port
    /// `port`, its crossbar transfer done (output sampling, counts of what an output sent).
    #[inline]
    fn on_output(&mut self, _k: &mut Kernel, _port: usize, _pkt: u32) {}
    /// A data packet reached its destination node.
    #[inline]
    fn on_deliver(&mut self, _k: &mut Kernel, _pkt: u32) {}
    /// Control packet `pkt` reached switch `s`, the switch it is addressed to, through
    /// input port `port` (global port index; None: sent by `s` itself); the kernel
    /// releases it afterwards.
    #[inline]
    fn on_control(&mut self, _k: &mut Kernel, _s: usize, _port: Option<usize>, _pkt: u32) {}
    /// Whether the mechanism chooses packets' paths at injection
    /// ([`Mechanism::route_at_injection`]): source-adaptive routing such as QCN-Switch's
    /// per-port minimal probabilities or piggybacking. Only on the dragonfly and Dragonfly+,
    /// whose VCs the kernel then orders for non-minimal paths (3 local, 2 global).
    fn routes_at_injection(&self) -> bool {
        false
    }
    /// Source routing: called once per data packet `pkt` when its head reaches the input
    /// buffer of its source switch `s`, after the routing (`routing.algorithm`) decided.
    /// `via` is that decision: the switch to route the packet to first (on the dragonfly it
    /// goes minimally to that switch's group, on Dragonfly+ to the switch itself, then
    /// minimally to its destination), or [`NO_VIA`](super::packet::NO_VIA) for the minimal
    /// path. Return the path to take: `via`, another intermediate switch (for instance
    /// [`Kernel::valiant_via`]'s random one, or one behind a chosen global port), or
    /// `NO_VIA`. A packet given an intermediate switch is counted as misrouted.
    /// [`Kernel::minimal_ports`] gives the ports of the minimal path at `s`.
    #[inline]
    fn route_at_injection(&mut self, _k: &mut Kernel, _s: usize, _pkt: u32, via: u32) -> u32 {
        via
    }
}

/// No congestion mechanism.
#[derive(Debug, Default)]
pub struct NoMechanism;

impl Mechanism for NoMechanism {}
