//! `[router]`: buffers, VCs, allocator, arbiters and the details of the router pipeline.

use super::field_err;
use crate::error::ConfigError;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ArbiterKind {
    RoundRobin,
    /// Least-recently served (the OFAR paper, Table 1).
    Lrs,
    /// Oldest packet (smallest generation time) first.
    Age,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum VcSelection {
    /// The allowed VC with the most free credits (the OFAR paper, Table 1).
    ShortestQueue,
    /// The lowest allowed VC with room.
    First,
    /// A uniformly random allowed VC with room.
    Random,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RouterConfig {
    /// Packet length in phits.
    pub packet_length: u32,
    /// Buffer capacity per VC, in phits, per input-port class.
    pub buffer_injection: u32,
    pub buffer_local: u32,
    pub buffer_global: u32,
    /// Virtual channels per input-port class. 0 (local, global) = exactly what the routing
    /// needs for deadlock avoidance: MIN 2/1, VAL 3/2, VAL-any 4/2, UGAL-L 3/2 (the OFAR paper).
    pub vcs_local: usize,
    pub vcs_global: usize,
    pub vcs_injection: usize,
    /// Iterations of the separable allocator per cycle.
    pub allocator_iterations: usize,
    pub arbiter: ArbiterKind,
    pub vc_selection: VcSelection,
    /// Whether injections compete equally with transit packets for an output, or wait for
    /// them (the default, as in FOGSim, the simulator of the OFAR paper: without it OFAR's in-transit
    /// misrouting lets injections fill the network, and OFAR congests under ADVG+h).
    pub injection_priority: InjectionPriority,
    /// Whether an input port reads one packet at a time or each of its VCs reads on its own.
    /// Written only when not the default `port`, so that runs stored before the key existed
    /// keep their identity.
    #[serde(skip_serializing_if = "is_port")]
    pub crossbar_input: CrossbarInput,
    /// Which injection VC a new packet is queued in. Written only when not the default
    /// `emptiest`, for the same reason as `crossbar_input`.
    #[serde(skip_serializing_if = "is_emptiest")]
    pub injection_vc: InjectionVc,
    /// How credits come back upstream. Written only when not the default `phit`, for the
    /// same reason as `crossbar_input`.
    #[serde(skip_serializing_if = "is_per_phit")]
    pub credit_return: CreditReturn,
    /// When the least-recently-served input arbiter moves a VC to the back of its input's
    /// order. Written only when not the default `grant`, for the same reason as
    /// `crossbar_input`.
    #[serde(skip_serializing_if = "is_on_grant")]
    pub lrs_update: LrsUpdate,
}

/// When the least-recently-served input arbiter (`router.arbiter = "lrs"`) counts a VC as
/// served.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LrsUpdate {
    /// When the VC is granted an output.
    Grant,
    /// Whenever the VC makes a request, granted or not, as FOGSim (the simulator of seed
    /// 001, `switchModule::tryNextVC`) does: a VC that lost gives way to the input's other
    /// VCs in the next iteration and the next cycle.
    Request,
}

/// Longest run (warm-up plus measurement, or `simulation.max_cycles`) with
/// `router.lrs_update = "request"`: its stamps keep the allocator iteration in the low four
/// bits of a 32-bit cycle.
pub const LRS_REQUEST_MAX_CYCLES: u64 = (1 << 28) - 2;

/// How a downstream buffer's credits reach the upstream router.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CreditReturn {
    /// One credit per phit, a link delay after that phit leaves the downstream buffer.
    Phit,
    /// All of a packet's credits at once, a link delay after its head leaves the downstream
    /// buffer: FOGSim (the simulator of the OFAR paper) moves a packet as one flit and returns its
    /// credits in one message.
    Packet,
}

/// Which of a node's injection VCs a generated packet enters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum InjectionVc {
    /// The VC with the most free room; a packet is refused only when every VC is full.
    Emptiest,
    /// The VC fixed by the destination: the nodes are split into `vcs_injection` equal
    /// ranges and range k uses VC k, as FOGSim (the simulator of the OFAR paper) does. A packet
    /// whose VC is full is refused (Bernoulli) or waits at the node until it has room
    /// (bursts), so the order of a burst's destinations is kept.
    Destination,
}

/// What a crossbar input is: a whole input port, or each VC of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CrossbarInput {
    /// An input port sends one packet at a time (for `packet_length` cycles), whatever VC
    /// it comes from.
    Port,
    /// Each input VC sends one packet at a time, so an input port may send packets of
    /// different VCs to different outputs at once; it still wins at most one output per
    /// cycle. The router of FOGSim, the simulator of the OFAR paper, behaves this way.
    Vc,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum InjectionPriority {
    /// Injection inputs are arbitrated like any other input.
    Equal,
    /// An output serves transit packets before packets from injection queues.
    TransitFirst,
}

impl Default for RouterConfig {
    fn default() -> Self {
        RouterConfig {
            packet_length: 8,
            buffer_injection: 256,
            buffer_local: 32,
            buffer_global: 256,
            vcs_local: 0,
            vcs_global: 0,
            vcs_injection: 1,
            allocator_iterations: 3,
            arbiter: ArbiterKind::Lrs,
            vc_selection: VcSelection::ShortestQueue,
            injection_priority: InjectionPriority::TransitFirst,
            crossbar_input: CrossbarInput::Port,
            injection_vc: InjectionVc::Emptiest,
            credit_return: CreditReturn::Phit,
            lrs_update: LrsUpdate::Grant,
        }
    }
}

fn is_port(v: &CrossbarInput) -> bool {
    !super::writing_every_key() && *v == CrossbarInput::Port
}

fn is_per_phit(v: &CreditReturn) -> bool {
    !super::writing_every_key() && *v == CreditReturn::Phit
}

fn is_on_grant(v: &LrsUpdate) -> bool {
    !super::writing_every_key() && *v == LrsUpdate::Grant
}

fn is_emptiest(v: &InjectionVc) -> bool {
    !super::writing_every_key() && *v == InjectionVc::Emptiest
}

impl RouterConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.packet_length == 0 || self.packet_length > 4096 {
            return Err(field_err(
                "router.packet_length",
                format!(
                    "{} phits is out of range: allowed 1..=4096",
                    self.packet_length
                ),
            ));
        }
        for (name, size) in [
            ("router.buffer_injection", self.buffer_injection),
            ("router.buffer_local", self.buffer_local),
            ("router.buffer_global", self.buffer_global),
        ] {
            if size < self.packet_length {
                return Err(field_err(
                    name,
                    format!(
                        "{size} phits cannot hold one packet of {} phits (virtual cut-through needs room for a whole packet): use at least {}",
                        self.packet_length, self.packet_length
                    ),
                ));
            }
            if size > 65_535 {
                // Credit counters are 16-bit to keep the router records compact.
                return Err(field_err(
                    name,
                    format!("{size} phits is out of range: allowed up to 65535 phits per VC"),
                ));
            }
        }
        for (name, n, auto) in [
            ("router.vcs_local", self.vcs_local, true),
            ("router.vcs_global", self.vcs_global, true),
            ("router.vcs_injection", self.vcs_injection, false),
        ] {
            if (n == 0 && !auto) || n > super::limits::MAX_VCS {
                return Err(field_err(
                    name,
                    format!(
                        "{n} VCs is out of range: allowed 1..={}",
                        super::limits::MAX_VCS
                    ),
                ));
            }
        }
        if self.allocator_iterations == 0 || self.allocator_iterations > 16 {
            return Err(field_err(
                "router.allocator_iterations",
                format!(
                    "{} is out of range: allowed 1..=16",
                    self.allocator_iterations
                ),
            ));
        }
        if self.lrs_update == LrsUpdate::Request && self.arbiter != ArbiterKind::Lrs {
            return Err(field_err(
                "router.lrs_update",
                format!(
                    "\"request\" is for the least-recently-served arbiter, and router.arbiter is \"{}\": set router.arbiter = \"lrs\" or leave router.lrs_update out",
                    match self.arbiter {
                        ArbiterKind::Lrs => "lrs",
                        ArbiterKind::Age => "age",
                        ArbiterKind::RoundRobin => "round-robin",
                    }
                ),
            ));
        }
        Ok(())
    }
}
