//! Switch architectures of the general kernel ([`crate::kernel`]). A [`Switch`] owns what
//! happens inside every switch of the network: its buffers, crossbar, queues and
//! arbitration. The kernel hands it packets as they arrive and timers as they fire, and
//! asks it once a cycle to move what it holds; it sends on links and signals upstream
//! through the kernel. One architecture is chosen per run (`switch.kind`), so the kernel is
//! generic over it and nothing is dispatched dynamically per packet.
//!
//! To add an architecture: a module here implementing [`Switch`], a `SwitchKind` variant in
//! the configuration, and a line in [`crate::kernel::build`].

pub mod cioq;

use crate::kernel::mechanism::Mechanism;
use crate::kernel::Kernel;

pub trait Switch {
    /// The head of `pkt` has reached input VC `vc` (global input-VC index); the kernel has
    /// already accounted for its space ([`Kernel::buffer_enter`]).
    /// A control packet addressed to this switch goes to the mechanism instead.
    fn arrive<M: Mechanism>(&mut self, k: &mut Kernel, m: &mut M, vc: u32, pkt: u32);
    /// A crossbar transfer the switch scheduled has ended.
    #[allow(clippy::too_many_arguments)]
    fn transfer_done<M: Mechanism>(
        &mut self,
        k: &mut Kernel,
        m: &mut M,
        pkt: u32,
        vc: u32,
        port: usize,
        queue: u16,
    );
    /// A credit, PAUSE or resume frame has reached output `port` (global port): a packet
    /// waiting for it may go.
    fn flow_control_changed(&mut self, k: &Kernel, port: usize);
    /// Move what the switches hold this cycle: control packets the mechanism sent into
    /// their switches' control queues, then links, then allocation.
    fn step<M: Mechanism>(&mut self, k: &mut Kernel, m: &mut M);
    /// Every packet held inside the switches (for conservation audits).
    fn held(&self, f: &mut dyn FnMut(u32));
    /// The packets whole in output `gp`'s queues (global port), nearest the link first
    /// (queue by queue where a port has several): what a congestion point samples there.
    fn output_packets(&self, gp: usize) -> impl Iterator<Item = u32> + '_;
    /// The packets in input VC `vc` (global input-VC index), oldest first.
    fn input_packets(&self, vc: u32) -> impl Iterator<Item = u32> + '_;
}
