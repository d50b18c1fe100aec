//! Simulation configuration: TOML schema, defaults (seed 001, Table 1) and validation.
//!
//! Every struct rejects unknown keys, and [`Config::validate`] checks the cross-field rules
//! (topology feasibility, loads, buffer sizes, VC counts) so that a bad file stops before the
//! simulation starts, with a message naming the field and what is allowed.

mod overrides;

pub use overrides::apply_override;

use crate::error::ConfigError;
use serde::{Deserialize, Serialize};

/// The embedded default configuration: the seed 001 network (Table 1), uniform traffic, MIN.
pub const DEFAULT_TOML: &str = include_str!("default.toml");

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    pub topology: TopologyConfig,
    pub router: RouterConfig,
    pub routing: RoutingConfig,
    pub traffic: TrafficConfig,
    pub simulation: SimulationConfig,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TopologyKind {
    Dragonfly,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GlobalArrangement {
    /// Global link `l` of group `G` goes to group `G - l - 1` (mod g): the arrangement that ring A
    /// of seed 001 (section 3.3.2) presumes.
    PalmTree,
    /// Global link `l` of group `G` goes to the `l`-th other group in increasing order.
    Consecutive,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TopologyConfig {
    pub kind: TopologyKind,
    /// Terminals (computing nodes) per router.
    pub p: usize,
    /// Routers per group.
    pub a: usize,
    /// Global links per router.
    pub h: usize,
    /// Number of groups; 0 means the maximum, a*h + 1.
    pub groups: usize,
    pub arrangement: GlobalArrangement,
    /// Link latencies in cycles.
    pub local_latency: u32,
    pub global_latency: u32,
    /// Latency of the router-to-terminal (ejection) link; injection is into the router's
    /// injection buffer directly.
    pub terminal_latency: u32,
}

impl Default for TopologyConfig {
    fn default() -> Self {
        TopologyConfig {
            kind: TopologyKind::Dragonfly,
            p: 6,
            a: 12,
            h: 6,
            groups: 0,
            arrangement: GlobalArrangement::PalmTree,
            local_latency: 10,
            global_latency: 100,
            terminal_latency: 1,
        }
    }
}

impl TopologyConfig {
    pub fn num_groups(&self) -> usize {
        if self.groups == 0 {
            self.a * self.h + 1
        } else {
            self.groups
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ArbiterKind {
    RoundRobin,
    /// Least-recently served (seed 001, Table 1).
    Lrs,
    /// Oldest packet (smallest generation time) first.
    Age,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum VcSelection {
    /// The allowed VC with the most free credits (seed 001, Table 1).
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
    /// needs for deadlock avoidance: MIN 2/1, VAL 3/2, VAL-any 4/2, UGAL-L 3/2 (seed 001).
    pub vcs_local: usize,
    pub vcs_global: usize,
    pub vcs_injection: usize,
    /// Iterations of the separable allocator per cycle.
    pub allocator_iterations: usize,
    pub arbiter: ArbiterKind,
    pub vc_selection: VcSelection,
    /// Whether injections compete equally with transit packets for an output.
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
    /// buffer: FOGSim (the simulator of seed 001) moves a packet as one flit and returns its
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
    /// ranges and range k uses VC k, as FOGSim (the simulator of seed 001) does. A packet
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
    /// cycle. The router of FOGSim, the simulator of seed 001, behaves this way.
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
            injection_priority: InjectionPriority::Equal,
            crossbar_input: CrossbarInput::Port,
            injection_vc: InjectionVc::Emptiest,
            credit_return: CreditReturn::Phit,
            lrs_update: LrsUpdate::Grant,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RoutingAlgorithm {
    Min,
    Val,
    ValAny,
    UgalL,
    /// On-the-fly adaptive routing (seed 001, section 3) with local and global misrouting.
    Ofar,
    /// OFAR without local misrouting.
    OfarL,
    /// Piggyback source-adaptive routing (Jiang et al. 2009), the reference of seed 001.
    Pb,
}

impl RoutingAlgorithm {
    pub fn name(self) -> &'static str {
        match self {
            RoutingAlgorithm::Min => "min",
            RoutingAlgorithm::Val => "val",
            RoutingAlgorithm::ValAny => "val-any",
            RoutingAlgorithm::UgalL => "ugal-l",
            RoutingAlgorithm::Ofar => "ofar",
            RoutingAlgorithm::OfarL => "ofar-l",
            RoutingAlgorithm::Pb => "pb",
        }
    }

    /// Whether the routing decouples VCs from deadlock avoidance and needs an escape
    /// subnetwork.
    pub fn uses_escape(self) -> bool {
        matches!(self, RoutingAlgorithm::Ofar | RoutingAlgorithm::OfarL)
    }
}

/// Escape subnetwork of OFAR (seed 001, section 3.3), embedded with one extra VC per
/// subnetwork on the links it uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EscapeKind {
    /// Hamiltonian ring(s) with bubble flow control (`routing.rings`).
    Ring,
    /// Spanning tree rooted at `routing.tree_root` with up/down routing.
    Tree,
    /// No escape network: NOT deadlock-free; exists to show the deadlock OFAR would reach.
    None,
}

/// Injection-based congestion management (seed 001, section 3.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CongestionKind {
    None,
    /// Base congestion management: inject only if the target buffer keeps a bubble.
    Bcm,
    /// Escape congestion management: no injection while every escape buffer of the router is
    /// above a threshold.
    Ecm,
}

/// ECM: which escape buffers of a router must be above `routing.ecm_threshold` to stop
/// injection there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EcmRule {
    /// Every escape buffer the router receives on (seed 001, section 3.4.1).
    All,
    /// At least one of them. Not in seed 001: a tree router receives on several escape
    /// buffers, and "all above threshold" rarely holds there while the canonical buffers
    /// fill (docs/reproductions/ofar-history.md, Fig. 5 at h = 6).
    Any,
}

/// PB: which reading of Piggyback is modelled (docs/configuration.md, "Piggyback (PB)").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PbModel {
    /// Ours of Jiang, Kim and Dally: flags on the whole channel, UGAL-L weighing each path's
    /// queue by its router-to-router hops, the decision taken once at the head of the
    /// injection queue, minimal paths on the VCs after a Valiant path's first phase.
    Reference,
    /// FOGSim's (2014 source, the simulator of seed 001): flags and UGAL on the VC each hop
    /// would use, minimal paths on the lowest VCs, FOGSim's estimate of each path's local hops,
    /// the choice taken again at every allocation attempt while the packet is at injection.
    Fogsim,
}

/// ECM: which escape buffers a router watches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EcmBuffers {
    /// The escape buffers the router receives on (its own input buffers).
    Input,
    /// The escape buffers its outputs feed at the next routers, read from its credits (the
    /// buffers an injected packet would enter); FOGSim, the simulator of seed 001, reads these.
    Downstream,
}

/// OFAR: what a packet does when its minimal output has room but is still sending an
/// earlier packet (seed 001, section 3.2: misrouting is allowed when the minimal output "is
/// already assigned to another input or Q_min = 100%").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BusyMinimal {
    /// A busy output is unavailable: the packet may misroute.
    Misroute,
    /// Only an output granted to another input in this allocation (or one without room) is
    /// unavailable; a packet whose minimal output is merely busy waits for it.
    Wait,
}

/// OFAR: which unavailable minimal outputs make a packet look for a non-minimal one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MisrouteTrigger {
    /// Any unavailable minimal output (granted to another input this cycle, or without
    /// room; with `busy_minimal = "misroute"` also one still sending).
    Unavailable,
    /// Only a minimal output granted to another input earlier in this cycle's allocation.
    /// A full minimal output sends the packet to the escape network instead of misrouting
    /// it. With `busy_minimal = "wait"` this is the 2014 code of FOGSim (the simulator of
    /// seed 001); its 2015 rewrite and the paper's text misroute around full outputs too.
    Granted,
}

/// OFAR: what "the occupancy of an output's queue" (seed 001, section 3.2: Q_min and
/// Q_non-min) measures, given that an output has several VCs and any of them may be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum QueueOccupancy {
    /// The least occupied canonical VC of the output (the one a shortest-queue VC selection
    /// would use).
    Vc,
    /// All canonical VCs of the output together: phits held over their total capacity.
    Port,
}

/// OFAR: FOGSim's restriction on misrouting around a minimal *global* output (its
/// `vc_misrouting_congested_restriction`, on in its 2014 example configuration): such a
/// packet may misroute only while that link is congested, i.e. the phits held in VC 0 of the
/// link exceed `factor` times the mean over the router's global links plus `packets` packets.
/// Under uniform traffic no link stands out and packets wait for their minimal global link;
/// under ADVG+h the one minimal link does. FOGSim checks it only for a minimal hop on VC 0,
/// the VC it takes when VC 0 has the most credits; `all_vcs` applies it whatever the VC.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CongestedGlobal {
    /// Multiple of the mean occupancy of the router's global links (FOGSim: 150% = 1.5).
    pub factor: f64,
    /// Packets held beyond that for the link to count as congested (FOGSim: 5).
    pub packets: f64,
    /// Restrict whatever VC the minimal hop would take. False (FOGSim): only while VC 0 has
    /// at least as many credits as every other canonical VC of the minimal output, i.e. when
    /// FOGSim's most-credits VC choice would put the hop on VC 0; with one global VC the two
    /// are the same.
    pub all_vcs: bool,
}

impl Default for CongestedGlobal {
    fn default() -> Self {
        CongestedGlobal {
            factor: 1.5,
            packets: 5.0,
            all_vcs: false,
        }
    }
}

pub use crate::topology::escape::{RingDirection, RingKind};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RoutingConfig {
    pub algorithm: RoutingAlgorithm,
    /// UGAL-L and PB: route minimally when q_min * H_min <= q_val * H_val + threshold (phits).
    pub ugal_threshold: f64,
    /// PB: a global channel is flagged saturated when its occupancy exceeds this factor times
    /// the mean occupancy of its router's global channels.
    pub pb_factor: f64,
    /// PB: cycles between samples of the flags; a group sees flags one to two periods old.
    pub pb_period: u64,
    /// PB: a global channel busy at least 90% of the recent periods is flagged too, whatever
    /// its occupancy. Written only when false (runs stored before the key keep their identity).
    #[serde(skip_serializing_if = "is_true")]
    pub pb_utilisation: bool,
    /// PB: the flag threshold's margin in packets, on top of `pb_factor` times the mean (FOGSim:
    /// 5). Written only when not 0.
    #[serde(skip_serializing_if = "is_zero_f64")]
    pub pb_margin: f64,
    /// PB: the reading of PB modelled (see [`PbModel`]). Written only when not "reference".
    #[serde(skip_serializing_if = "is_reference")]
    pub pb_model: PbModel,
    /// When false, every hop may use any VC: NOT deadlock-free. Exists to study deadlock and
    /// to exercise the watchdog.
    pub ordered_vcs: bool,
    /// OFAR: misroute only to outputs with occupancy < misroute_threshold * Q_min (strict:
    /// see routing/ofar.rs).
    pub misroute_threshold: f64,
    /// OFAR: escape subnetwork.
    pub escape: EscapeKind,
    /// OFAR with escape = "ring": the rings, one extra VC each; a packet is assigned one at
    /// random when generated.
    pub rings: Vec<RingKind>,
    /// OFAR with escape = "ring": the direction packets travel every ring.
    pub ring_direction: RingDirection,
    /// OFAR with escape = "tree": the root router.
    pub tree_root: usize,
    /// OFAR: injection restriction.
    pub congestion: CongestionKind,
    /// BCM: packets of free space the target buffer must keep beyond the injected packet.
    pub bcm_bubble: u32,
    /// BCM: the same for injections straight into a global port (absent: `bcm_bubble`). Not
    /// in seed 001: a 2-packet bubble in a 32-packet global buffer barely throttles them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bcm_bubble_global: Option<u32>,
    /// ECM: occupancy (0..1) above which an escape buffer counts as congested.
    pub ecm_threshold: f64,
    /// ECM: stop injection when all (seed 001) or any of the router's escape buffers are above
    /// `ecm_threshold`.
    pub ecm_rule: EcmRule,
    /// ECM: the router's own escape input buffers or those its outputs feed downstream.
    /// Written only when not the default `input`.
    #[serde(skip_serializing_if = "is_input")]
    pub ecm_buffers: EcmBuffers,
    /// OFAR, MM+L: after the non-minimal local hop of a global misroute (taken from a local
    /// queue in the source group), take a global port of the next router instead of
    /// re-evaluating there against that router's own (local) minimal output. Not the default.
    pub mml_commit: bool,
    /// OFAR, MM+L: least occupancy (0..1) of the minimal output's queue for a packet in a local
    /// queue of the source group to start a global misroute (seed 001, footnote 2).
    pub mml_min_occupancy: f64,
    /// OFAR-L: a packet in a local queue of the source group may start a global misroute with
    /// MM+L's non-minimal local hop. `false`: OFAR-L takes no non-minimal local hop at all and
    /// misroutes globally only from injection queues (seed 001 §4, "without allowing
    /// misrouting in local links"). Plain OFAR ignores it.
    pub ofar_l_mml: bool,
    /// OFAR: misroute or wait when the minimal output is busy sending an earlier packet.
    pub busy_minimal: BusyMinimal,
    /// OFAR with `busy_minimal = "wait"`: a busy minimal output is waited for only while its
    /// occupancy Q (as `occupancy` reads it) is at most this; above it, busy counts as
    /// unavailable, as with `misroute`. 1.0: always wait.
    pub busy_wait_max: f64,
    /// OFAR: the occupancy Q that the misrouting threshold compares (one VC or the port).
    pub occupancy: QueueOccupancy,
    /// OFAR: cycles a head packet must have been asking for an output at a router before it
    /// may enter the escape subnetwork there. 0 (seed 001): as soon as every canonical output
    /// is unavailable. Left out of the written configuration when 0, so that runs stored
    /// before the key existed keep their identity.
    #[serde(skip_serializing_if = "is_zero")]
    pub escape_patience: u32,
    /// OFAR: a packet still in its injection queue may enter the escape network when every
    /// canonical output is unavailable (true: seed 001 §3.3 makes no exception). An injection
    /// queue is never part of a deadlock cycle, so false (such packets wait) keeps deadlock
    /// freedom. BCM always keeps them out. Written only when false, like `escape_patience`.
    #[serde(skip_serializing_if = "is_true")]
    pub escape_from_injection: bool,
    /// BCM: a packet in an injection queue whose minimal output has no room for it (and no
    /// non-minimal output takes it) may enter the escape network, if the escape VC keeps
    /// BCM's bubble (FOGSim, the simulator of seed 001); room for the packet but not for the
    /// bubble means waiting. false (default): BCM keeps injected packets out of the escape
    /// network. Written only when true.
    #[serde(skip_serializing_if = "is_false")]
    pub bcm_escape: bool,
    /// OFAR, MM+L: a packet that reaches a router of its source group on an escape VC may
    /// take MM+L's non-minimal local hop there (true: seed 001 makes no exception). false:
    /// it may not, as in FOGSim, the simulator of seed 001 (`misrouteTypeOFAR` offers
    /// `LOCAL_MM` only to packets on canonical VCs), so it leaves the escape network by its
    /// minimal output or stays in it. Written only when false.
    #[serde(skip_serializing_if = "is_true")]
    pub mml_from_escape: bool,
    /// OFAR: which unavailable minimal outputs start a search for a non-minimal one.
    /// Written only when not the default `unavailable`.
    #[serde(skip_serializing_if = "is_unavailable")]
    pub misroute_trigger: MisrouteTrigger,
    /// OFAR: misroute around a minimal global output only while it is congested (FOGSim's
    /// restriction; absent, the default: no such restriction, as in seed 001's text).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub misroute_congested_global: Option<CongestedGlobal>,
}

fn is_false(v: &bool) -> bool {
    !*v
}

fn is_input(v: &EcmBuffers) -> bool {
    *v == EcmBuffers::Input
}

fn is_unavailable(v: &MisrouteTrigger) -> bool {
    *v == MisrouteTrigger::Unavailable
}

fn is_port(v: &CrossbarInput) -> bool {
    *v == CrossbarInput::Port
}

fn is_per_phit(v: &CreditReturn) -> bool {
    *v == CreditReturn::Phit
}

fn is_on_grant(v: &LrsUpdate) -> bool {
    *v == LrsUpdate::Grant
}

fn is_emptiest(v: &InjectionVc) -> bool {
    *v == InjectionVc::Emptiest
}

fn is_zero(v: &u32) -> bool {
    *v == 0
}

fn is_true(v: &bool) -> bool {
    *v
}

fn is_zero_f64(v: &f64) -> bool {
    *v == 0.0
}

fn is_reference(v: &PbModel) -> bool {
    *v == PbModel::Reference
}

impl Default for RoutingConfig {
    fn default() -> Self {
        RoutingConfig {
            algorithm: RoutingAlgorithm::Min,
            ugal_threshold: 0.0,
            pb_factor: 2.0,
            pb_period: 10,
            pb_utilisation: true,
            pb_margin: 0.0,
            pb_model: PbModel::Reference,
            ordered_vcs: true,
            misroute_threshold: 0.9,
            escape: EscapeKind::Ring,
            rings: vec![RingKind::A],
            ring_direction: RingDirection::Ascending,
            tree_root: 0,
            congestion: CongestionKind::None,
            bcm_bubble: 2,
            bcm_bubble_global: None,
            ecm_threshold: 0.2,
            ecm_rule: EcmRule::All,
            ecm_buffers: EcmBuffers::Input,
            mml_commit: false,
            mml_min_occupancy: 0.0,
            ofar_l_mml: false,
            busy_minimal: BusyMinimal::Misroute,
            busy_wait_max: 1.0,
            occupancy: QueueOccupancy::Vc,
            escape_patience: 0,
            escape_from_injection: true,
            bcm_escape: false,
            mml_from_escape: true,
            misroute_trigger: MisrouteTrigger::Unavailable,
            misroute_congested_global: None,
        }
    }
}

impl RoutingConfig {
    /// Keys set to something other than their default that this configuration's routing does
    /// not read, each with the reason: `routing.rings` with MIN, `routing.pb_factor` with OFAR,
    /// `routing.tree_root` with a ring. Not an error (a figure's curves share one base that
    /// sets the keys of every routing it compares), but worth a warning when no simulation of
    /// a command reads a key the user set.
    pub fn unused_keys(&self) -> Vec<(&'static str, String)> {
        let d = RoutingConfig::default();
        let alg = self.algorithm;
        let ofar = alg.uses_escape();
        let not_ofar = || {
            format!(
                "only OFAR and OFAR-L read it, and routing.algorithm = \"{}\"",
                alg.name()
            )
        };
        let mut out = Vec::new();
        let mut check = |changed: bool, key: &'static str, read: bool, why: &dyn Fn() -> String| {
            if changed && !read {
                out.push((key, why()));
            }
        };
        let pb = alg == RoutingAlgorithm::Pb;
        let only_pb = || {
            format!(
                "only PB reads it, and routing.algorithm = \"{}\"",
                alg.name()
            )
        };
        check(
            self.ugal_threshold != d.ugal_threshold,
            "routing.ugal_threshold",
            pb || alg == RoutingAlgorithm::UgalL,
            &|| {
                format!(
                    "only UGAL-L and PB read it, and routing.algorithm = \"{}\"",
                    alg.name()
                )
            },
        );
        check(
            self.pb_factor != d.pb_factor,
            "routing.pb_factor",
            pb,
            &only_pb,
        );
        check(
            self.pb_period != d.pb_period,
            "routing.pb_period",
            pb,
            &only_pb,
        );
        check(
            self.pb_utilisation != d.pb_utilisation,
            "routing.pb_utilisation",
            pb,
            &only_pb,
        );
        check(
            self.pb_margin != d.pb_margin,
            "routing.pb_margin",
            pb,
            &only_pb,
        );
        check(
            self.pb_model != d.pb_model,
            "routing.pb_model",
            pb,
            &only_pb,
        );
        for (changed, key) in [
            (
                self.misroute_threshold != d.misroute_threshold,
                "routing.misroute_threshold",
            ),
            (self.escape != d.escape, "routing.escape"),
            (self.busy_minimal != d.busy_minimal, "routing.busy_minimal"),
            (self.occupancy != d.occupancy, "routing.occupancy"),
            (
                self.escape_patience != d.escape_patience,
                "routing.escape_patience",
            ),
            (
                self.escape_from_injection != d.escape_from_injection,
                "routing.escape_from_injection",
            ),
            (
                self.misroute_trigger != d.misroute_trigger,
                "routing.misroute_trigger",
            ),
            (
                self.misroute_congested_global != d.misroute_congested_global,
                "routing.misroute_congested_global",
            ),
        ] {
            check(changed, key, ofar, &not_ofar);
        }
        let ring = self.escape == EscapeKind::Ring;
        let tree = self.escape == EscapeKind::Tree;
        let escape_is = |kind: &'static str| {
            move || {
                if ofar {
                    format!("only routing.escape = \"{kind}\" reads it")
                } else {
                    not_ofar()
                }
            }
        };
        check(
            self.rings != d.rings,
            "routing.rings",
            ofar && ring,
            &escape_is("ring"),
        );
        check(
            self.ring_direction != d.ring_direction,
            "routing.ring_direction",
            ofar && ring,
            &escape_is("ring"),
        );
        check(
            self.tree_root != d.tree_root,
            "routing.tree_root",
            ofar && tree,
            &escape_is("tree"),
        );
        let congestion_is = |kind: &'static str| {
            move || {
                if ofar {
                    format!("only routing.congestion = \"{kind}\" reads it")
                } else {
                    not_ofar()
                }
            }
        };
        let bcm = ofar && self.congestion == CongestionKind::Bcm;
        check(
            self.bcm_bubble != d.bcm_bubble,
            "routing.bcm_bubble",
            bcm,
            &congestion_is("bcm"),
        );
        check(
            self.bcm_bubble_global != d.bcm_bubble_global,
            "routing.bcm_bubble_global",
            bcm,
            &congestion_is("bcm"),
        );
        check(
            self.ecm_threshold != d.ecm_threshold,
            "routing.ecm_threshold",
            ofar && self.congestion == CongestionKind::Ecm,
            &congestion_is("ecm"),
        );
        check(
            self.busy_wait_max != d.busy_wait_max,
            "routing.busy_wait_max",
            ofar && self.busy_minimal == BusyMinimal::Wait,
            &|| {
                if ofar {
                    "only routing.busy_minimal = \"wait\" reads it".to_string()
                } else {
                    not_ofar()
                }
            },
        );
        // MM+L's local hop: OFAR always takes it, OFAR-L only with ofar_l_mml.
        let mml =
            alg == RoutingAlgorithm::Ofar || (alg == RoutingAlgorithm::OfarL && self.ofar_l_mml);
        check(
            self.ofar_l_mml != d.ofar_l_mml,
            "routing.ofar_l_mml",
            alg == RoutingAlgorithm::OfarL,
            &|| {
                format!(
                    "only OFAR-L reads it, and routing.algorithm = \"{}\"",
                    alg.name()
                )
            },
        );
        let no_mml = || {
            if alg == RoutingAlgorithm::OfarL {
                "OFAR-L takes MM+L's local hop only with routing.ofar_l_mml = true".to_string()
            } else {
                not_ofar()
            }
        };
        for (changed, key) in [
            (
                self.mml_min_occupancy != d.mml_min_occupancy,
                "routing.mml_min_occupancy",
            ),
            (self.mml_commit != d.mml_commit, "routing.mml_commit"),
            (
                self.mml_from_escape != d.mml_from_escape,
                "routing.mml_from_escape",
            ),
        ] {
            check(changed, key, mml, &no_mml);
        }
        out
    }

    pub fn validate(
        &self,
        topo: &TopologyConfig,
        router: &RouterConfig,
    ) -> Result<(), ConfigError> {
        // Fractions of a buffer: [0, 1], NaN rejected.
        for (field, value, hint) in [
            (
                "routing.misroute_threshold",
                self.misroute_threshold,
                " (seed 001 uses 0.9)",
            ),
            (
                "routing.ecm_threshold",
                self.ecm_threshold,
                " (seed 001 uses 0.2)",
            ),
            (
                "routing.busy_wait_max",
                self.busy_wait_max,
                " (1.0: always wait for a busy minimal output)",
            ),
            ("routing.mml_min_occupancy", self.mml_min_occupancy, ""),
        ] {
            if !(0.0..=1.0).contains(&value) {
                return Err(field_err(field, format!("{value} is outside [0, 1]{hint}")));
            }
        }
        if self.ugal_threshold.is_nan() {
            // Every comparison with NaN is false: the routing would silently pick one path.
            return Err(field_err(
                "routing.ugal_threshold",
                "NaN is not a threshold: give a number (phits*hops; inf and -inf are allowed)",
            ));
        }
        check_finite_at_least("routing.pb_factor", self.pb_factor, 1.0, "")?;
        check_finite_at_least("routing.pb_margin", self.pb_margin, 0.0, " of packets")?;
        if self.pb_period == 0 {
            return Err(field_err("routing.pb_period", "must be at least 1 cycle"));
        }
        if self.bcm_escape && self.congestion != CongestionKind::Bcm {
            return Err(field_err(
                "routing.bcm_escape",
                "changes BCM, and routing.congestion is not \"bcm\": set congestion = \"bcm\" or drop bcm_escape",
            ));
        }
        if self.ecm_buffers == EcmBuffers::Downstream && self.congestion != CongestionKind::Ecm {
            return Err(field_err(
                "routing.ecm_buffers",
                "\"downstream\" changes ECM, and routing.congestion is not \"ecm\": set congestion = \"ecm\" or drop ecm_buffers",
            ));
        }
        if self.ecm_rule == EcmRule::Any && self.congestion != CongestionKind::Ecm {
            return Err(field_err(
                "routing.ecm_rule",
                "\"any\" changes ECM, and routing.congestion is not \"ecm\": set congestion = \"ecm\" or drop ecm_rule",
            ));
        }
        if let Some(c) = self.misroute_congested_global {
            for (key, value) in [("factor", c.factor), ("packets", c.packets)] {
                if !(value >= 0.0 && value.is_finite()) {
                    return Err(field_err(
                        &format!("routing.misroute_congested_global.{key}"),
                        format!("{value} is not allowed: must be a finite number >= 0 (FOGSim: factor = 1.5, packets = 5)"),
                    ));
                }
            }
        }
        if !self.algorithm.uses_escape() {
            if self.congestion != CongestionKind::None {
                return Err(field_err(
                    "routing.congestion",
                    format!("BCM and ECM belong to OFAR; routing.algorithm = \"{}\" takes congestion = \"none\"", self.algorithm.name()),
                ));
            }
            return Ok(());
        }
        let df = crate::topology::Dragonfly::new(topo);
        let subnets = match self.escape {
            EscapeKind::Ring => self.rings.len(),
            EscapeKind::Tree => 1,
            EscapeKind::None => 0,
        };
        let auto = crate::routing::default_vcs(self.algorithm);
        for (name, n, auto_n) in [
            ("router.vcs_local", router.vcs_local, auto.local),
            ("router.vcs_global", router.vcs_global, auto.global),
        ] {
            let n = if n == 0 { auto_n } else { n };
            if n + subnets > crate::router::MAX_VCS {
                return Err(field_err(
                    name,
                    format!(
                        "{n} VCs plus {subnets} escape VC(s) exceed the {} VCs a port supports: use at most {}",
                        crate::router::MAX_VCS,
                        crate::router::MAX_VCS - subnets
                    ),
                ));
            }
        }
        if self.escape == EscapeKind::None && self.congestion == CongestionKind::Ecm {
            return Err(field_err(
                "routing.congestion",
                "ECM watches the escape buffers, and routing.escape = \"none\" has none: use bcm or an escape network",
            ));
        }
        // Keys that only change how packets enter or use the escape network need one.
        for (set, key, what) in [
            (
                !self.escape_from_injection,
                "escape_from_injection",
                "keeps injected packets out of",
            ),
            (
                self.escape_patience > 0,
                "escape_patience",
                "delays entering",
            ),
            (
                !self.mml_from_escape,
                "mml_from_escape",
                "keeps MM+L's local hop from packets on",
            ),
        ] {
            if set && self.escape == EscapeKind::None {
                return Err(field_err(
                    &format!("routing.{key}"),
                    format!("{what} the escape network, and routing.escape = \"none\" has none: drop {key} or choose a ring or the tree"),
                ));
            }
        }
        match self.escape {
            EscapeKind::Ring => {
                if self.rings.is_empty() {
                    return Err(field_err(
                        "routing.rings",
                        "give at least one ring, e.g. [\"a\"]",
                    ));
                }
                for (i, k) in self.rings.iter().enumerate() {
                    if self.rings[..i].contains(k) {
                        return Err(field_err(
                            "routing.rings",
                            format!("ring {k:?} is listed twice"),
                        ));
                    }
                    crate::topology::escape::ring(&df, *k, self.ring_direction)
                        .map_err(|m| field_err("routing.rings", m))?;
                }
            }
            EscapeKind::Tree => {
                crate::topology::escape::tree(&df, self.tree_root)
                    .map_err(|m| field_err("routing.tree_root", m))?;
            }
            EscapeKind::None => {}
        }
        if self.congestion == CongestionKind::Bcm {
            let global = self.bcm_bubble_global.unwrap_or(self.bcm_bubble);
            for (name, size, bubble, key) in [
                (
                    "router.buffer_local",
                    router.buffer_local,
                    self.bcm_bubble,
                    "bcm_bubble",
                ),
                (
                    "router.buffer_global",
                    router.buffer_global,
                    global,
                    if self.bcm_bubble_global.is_some() {
                        "bcm_bubble_global"
                    } else {
                        "bcm_bubble"
                    },
                ),
            ] {
                // In u64: a bubble near u32::MAX must not wrap around to a small need.
                let need = (u64::from(bubble) + 1) * u64::from(router.packet_length);
                if u64::from(size) < need {
                    return Err(field_err(
                        name,
                        format!("{size} phits cannot hold a packet plus the BCM bubble of {bubble} packets ({need} phits): lower routing.{key} or enlarge the buffer"),
                    ));
                }
            }
        }
        if self.escape == EscapeKind::Ring
            && router.buffer_local.min(router.buffer_global) < 2 * router.packet_length
        {
            let field = if router.buffer_local <= router.buffer_global {
                "router.buffer_local"
            } else {
                "router.buffer_global"
            };
            return Err(field_err(
                field,
                format!(
                    "bubble flow control on the escape ring needs buffers of at least two packets ({} phits)",
                    2 * router.packet_length
                ),
            ));
        }
        Ok(())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PatternKind {
    /// Any node other than the source.
    Uniform,
    /// A random node of group (src_group + offset) mod g.
    AdvGlobal,
    /// A random node of router (src_router + offset) mod a of the source group.
    AdvLocal,
    /// 25% of the traffic to the first 12.5% of the nodes, the rest uniform.
    HotRegion,
    /// A fixed random permutation of the nodes (derangement, drawn from the seed).
    Permutation,
    /// `hot_fraction` of the traffic to `hot_nodes` nodes, the rest uniform.
    HotSpot,
    /// MPI_Alltoall-style schedule: node n's i-th packet goes to (n + 1 + i mod (N-1)) mod N,
    /// so a burst of N - 1 packets per node sends exactly one packet to every other node.
    AllToAll,
}

/// One component of a traffic mixture.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MixEntry {
    pub pattern: PatternKind,
    #[serde(default = "default_offset")]
    pub offset: usize,
    /// Relative weight (percentages are the usual choice; they need not add to 100).
    pub weight: f64,
}

fn default_offset() -> usize {
    1
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TrafficConfig {
    pub pattern: PatternKind,
    /// Offset N of ADVG+N and ADVL+N.
    pub offset: usize,
    /// Offered load in phits/(node*cycle), in (0, 1].
    pub load: f64,
    /// When non-empty, replaces `pattern`/`offset` with a weighted mixture.
    pub mix: Vec<MixEntry>,
    pub hot_nodes: usize,
    pub hot_fraction: f64,
    /// Burst mode: when > 0 every node sends this many packets as fast as it can and the run
    /// ends when all are delivered; `load` and the measurement window are then ignored.
    pub burst_packets: u64,
    /// A change of pattern and/or load at a given cycle (transient experiments).
    pub change: Option<TrafficChange>,
}

impl Default for TrafficConfig {
    fn default() -> Self {
        TrafficConfig {
            pattern: PatternKind::Uniform,
            offset: 1,
            load: 0.4,
            mix: Vec::new(),
            hot_nodes: 1,
            hot_fraction: 0.1,
            burst_packets: 0,
            change: None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrafficChange {
    /// Cycle at which the new pattern/load takes effect.
    pub at_cycle: u64,
    pub pattern: Option<PatternKind>,
    pub offset: Option<usize>,
    pub load: Option<f64>,
    #[serde(default)]
    pub mix: Vec<MixEntry>,
}

/// Longest run the engine supports: router records keep times as 32-bit cycles, and this
/// leaves room below 2^32 for every event horizon.
pub const MAX_CYCLES: u64 = 4_000_000_000;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SimulationConfig {
    pub seed: u64,
    pub warmup_cycles: u64,
    pub measure_cycles: u64,
    /// Independent runs with seeds seed, seed+1, ...; the summary reports mean and 95% CI.
    pub repetitions: u32,
    /// Stop with a deadlock report when packets are in flight and none has moved for this
    /// many cycles.
    pub watchdog_cycles: u64,
    /// Width of the time-series windows in cycles (0 = no time series).
    pub series_window: u64,
    /// Burst mode only: give up after this many cycles.
    pub max_cycles: u64,
}

impl Default for SimulationConfig {
    fn default() -> Self {
        SimulationConfig {
            seed: 1,
            warmup_cycles: 5_000,
            measure_cycles: 10_000,
            repetitions: 1,
            watchdog_cycles: 20_000,
            series_window: 0,
            max_cycles: 10_000_000,
        }
    }
}

impl Config {
    /// Parse a TOML document. Unknown keys and wrong types are reported with their path.
    pub fn from_toml_str(text: &str) -> Result<Config, ConfigError> {
        let value: toml::Value =
            toml::from_str(text).map_err(|e| ConfigError::Syntax(e.to_string()))?;
        Config::from_value(value)
    }

    /// Build from an already-parsed TOML tree (after `--set` overrides were applied).
    pub fn from_value(value: toml::Value) -> Result<Config, ConfigError> {
        let cfg: Config = serde_path_to_error::deserialize(value).map_err(|e| {
            let path = e.path().to_string();
            // The TOML deserialiser appends "in `path`" on a line of its own: the field is
            // already named, keep the first line.
            let message = e.into_inner().to_string();
            ConfigError::Field {
                field: path,
                message: message
                    .lines()
                    .next()
                    .unwrap_or_default()
                    .trim()
                    .to_string(),
            }
        })?;
        Ok(cfg)
    }

    /// The embedded default (seed 001 network, UN, MIN).
    pub fn embedded_default() -> Config {
        Config::from_toml_str(DEFAULT_TOML).expect("embedded default configuration is valid")
    }

    pub fn to_toml_string(&self) -> Result<String, ConfigError> {
        toml::to_string_pretty(self)
            .map_err(|e| ConfigError::Syntax(format!("serialising the configuration: {e}")))
    }

    /// Cross-field validation. Call before building a simulation.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.topology.validate()?;
        self.router.validate()?;
        self.traffic.validate(&self.topology)?;
        self.simulation.validate()?;
        self.routing.validate(&self.topology, &self.router)?;
        crate::routing::check_vcs(self)?;
        let burst = self.traffic.burst_packets;
        let len = u64::from(self.router.packet_length);
        let inject_cycles = u128::from(burst) * u128::from(len);
        if burst > 0 && inject_cycles > u128::from(self.simulation.max_cycles) {
            // An injection port sends one phit per cycle, so the burst cannot be consumed in
            // time: the run would only stop at max_cycles (and the packet count overflows).
            return Err(field_err(
                "traffic.burst_packets",
                format!(
                    "{burst} packets of {len} phits per node need at least {inject_cycles} cycles to inject (one phit per cycle), more than simulation.max_cycles = {}: allowed up to {} packets, or raise simulation.max_cycles (at most {MAX_CYCLES})",
                    self.simulation.max_cycles,
                    self.simulation.max_cycles / len
                ),
            ));
        }
        if self.router.lrs_update == LrsUpdate::Request {
            let sim = &self.simulation;
            for (field, cycles) in [
                ("simulation.max_cycles", sim.max_cycles),
                (
                    "simulation.measure_cycles",
                    sim.warmup_cycles.saturating_add(sim.measure_cycles),
                ),
            ] {
                if cycles > LRS_REQUEST_MAX_CYCLES {
                    return Err(field_err(
                        field,
                        format!("{cycles} cycles is too long with router.lrs_update = \"request\": allowed up to {LRS_REQUEST_MAX_CYCLES} (warm-up plus measurement, and max_cycles)"),
                    ));
                }
            }
        }
        let t = &self.topology;
        let longest = t
            .local_latency
            .max(t.global_latency)
            .max(t.terminal_latency) as u64
            + self.router.packet_length as u64;
        if self.simulation.watchdog_cycles <= longest {
            return Err(field_err(
                "simulation.watchdog_cycles",
                format!("{} cycles is shorter than one hop ({longest} cycles: longest link latency plus a packet); use more", self.simulation.watchdog_cycles),
            ));
        }
        Ok(())
    }
}

fn field_err(field: &str, message: impl Into<String>) -> ConfigError {
    ConfigError::Field {
        field: field.to_string(),
        message: message.into(),
    }
}

impl TopologyConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.p == 0 {
            return Err(field_err(
                "topology.p",
                "must be at least 1 terminal per router",
            ));
        }
        if self.a == 0 {
            return Err(field_err(
                "topology.a",
                "must be at least 1 router per group",
            ));
        }
        if self.h == 0 {
            return Err(field_err(
                "topology.h",
                "must be at least 1 global link per router",
            ));
        }
        // The radix first: it bounds p, a and h, so the products below cannot overflow.
        // In u128, so that absurd values are reported exactly instead of wrapping around.
        let radix = self.p as u128 + self.a as u128 + self.h as u128 - 1;
        if radix > crate::router::MAX_RADIX as u128 {
            return Err(field_err(
                "topology",
                format!(
                    "router radix p + a - 1 + h = {radix} exceeds the supported maximum of {} (p = {}, a = {}, h = {})",
                    crate::router::MAX_RADIX,
                    self.p,
                    self.a,
                    self.h
                ),
            ));
        }
        let max_groups = self.a * self.h + 1;
        if self.groups != 0 && (self.groups < 2 || self.groups > max_groups) {
            return Err(field_err(
                "topology.groups",
                format!(
                    "{} group{} is impossible with a={} and h={}: allowed 2..={} (a*h+1), or 0 for the maximum",
                    self.groups,
                    if self.groups == 1 { "" } else { "s" },
                    self.a,
                    self.h,
                    max_groups
                ),
            ));
        }
        for (name, lat) in [
            ("topology.local_latency", self.local_latency),
            ("topology.global_latency", self.global_latency),
        ] {
            if lat == 0 || lat > 10_000 {
                return Err(field_err(
                    name,
                    format!("{lat} cycles is out of range: allowed 1..=10000"),
                ));
            }
        }
        if self.terminal_latency > 10_000 {
            return Err(field_err(
                "topology.terminal_latency",
                format!(
                    "{} cycles is out of range: allowed 0..=10000",
                    self.terminal_latency
                ),
            ));
        }
        Ok(())
    }
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
            if (n == 0 && !auto) || n > crate::router::MAX_VCS {
                return Err(field_err(
                    name,
                    format!(
                        "{n} VCs is out of range: allowed 1..={}",
                        crate::router::MAX_VCS
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

impl TrafficConfig {
    pub fn validate(&self, topo: &TopologyConfig) -> Result<(), ConfigError> {
        check_load("traffic.load", self.load)?;
        check_pattern("traffic", self.pattern, self.offset, &self.mix, self, topo)?;
        if let Some(ch) = &self.change {
            if let Some(load) = ch.load {
                check_load("traffic.change.load", load)?;
            }
            let pattern = ch.pattern.unwrap_or(self.pattern);
            let offset = ch.offset.unwrap_or(self.offset);
            check_pattern("traffic.change", pattern, offset, &ch.mix, self, topo)?;
            if self.burst_packets > 0 {
                return Err(field_err(
                    "traffic.change",
                    "a transient change cannot be combined with burst mode (traffic.burst_packets > 0)",
                ));
            }
        }
        Ok(())
    }
}

/// `value` must be finite and at least `min` (NaN fails too); `unit` follows "number" in
/// the message (e.g. " of packets").
fn check_finite_at_least(field: &str, value: f64, min: f64, unit: &str) -> Result<(), ConfigError> {
    if value >= min && value.is_finite() {
        return Ok(());
    }
    Err(field_err(
        field,
        format!("{value} is not allowed: must be a finite number{unit} >= {min}"),
    ))
}

fn check_load(name: &str, load: f64) -> Result<(), ConfigError> {
    if !(load > 0.0 && load <= 1.0) {
        return Err(field_err(
            name,
            format!("{load} is outside (0, 1]: the offered load is in phits/(node*cycle) and a link carries at most 1"),
        ));
    }
    Ok(())
}

fn check_pattern(
    prefix: &str,
    pattern: PatternKind,
    offset: usize,
    mix: &[MixEntry],
    traffic: &TrafficConfig,
    topo: &TopologyConfig,
) -> Result<(), ConfigError> {
    let single = [MixEntry {
        pattern,
        offset,
        weight: 1.0,
    }];
    let entries: &[MixEntry] = if mix.is_empty() { &single } else { mix };
    let groups = topo.num_groups();
    let nodes = groups * topo.a * topo.p;
    let mut total = 0.0;
    for (i, e) in entries.iter().enumerate() {
        let name = if mix.is_empty() {
            format!("{prefix}.offset")
        } else {
            format!("{prefix}.mix[{i}]")
        };
        check_finite_at_least(&format!("{prefix}.mix[{i}].weight"), e.weight, 0.0, "")?;
        total += e.weight;
        if !mix.is_empty() && e.pattern == PatternKind::AllToAll {
            return Err(field_err(
                &name,
                format!("all-to-all is a per-node schedule, not a destination distribution, and cannot be part of a mixture: use {prefix}.pattern = \"all-to-all\" with no mix"),
            ));
        }
        match e.pattern {
            PatternKind::AdvGlobal if e.offset % groups == 0 => {
                return Err(field_err(
                    &name,
                    format!("ADVG+{} sends every group to itself with {groups} groups: use an offset that is not a multiple of {groups}", e.offset),
                ))
            }
            PatternKind::AdvLocal if e.offset % topo.a == 0 => {
                return Err(field_err(
                    &name,
                    format!("ADVL+{} sends every router to itself with a={}: use an offset that is not a multiple of {}", e.offset, topo.a, topo.a),
                ))
            }
            PatternKind::HotSpot => {
                if traffic.hot_nodes == 0 || traffic.hot_nodes >= nodes {
                    return Err(field_err(
                        "traffic.hot_nodes",
                        format!("allowed 1..{nodes} (the network has {nodes} nodes)"),
                    ));
                }
                if !(0.0..=1.0).contains(&traffic.hot_fraction) {
                    return Err(field_err(
                        "traffic.hot_fraction",
                        format!("{} is outside [0, 1]", traffic.hot_fraction),
                    ));
                }
            }
            _ => {}
        }
    }
    if total <= 0.0 {
        return Err(field_err(
            &format!("{prefix}.mix"),
            "weights add up to 0: give at least one positive weight",
        ));
    }
    if !total.is_finite() {
        // Each weight is finite, but e.g. 1e308 + 1e308 is not: every share would be 0.
        return Err(field_err(
            &format!("{prefix}.mix"),
            "weights add up to more than the largest float: use smaller weights (percentages, say)",
        ));
    }
    Ok(())
}

impl SimulationConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.measure_cycles == 0 {
            return Err(field_err(
                "simulation.measure_cycles",
                "must be at least 1 cycle",
            ));
        }
        if self.repetitions == 0 || self.repetitions > 1000 {
            return Err(field_err(
                "simulation.repetitions",
                format!("{} is out of range: allowed 1..=1000", self.repetitions),
            ));
        }
        if self.warmup_cycles.saturating_add(self.measure_cycles) > MAX_CYCLES {
            return Err(field_err(
                "simulation.measure_cycles",
                format!(
                    "warm-up plus measurement is {} cycles: allowed up to {MAX_CYCLES}",
                    self.warmup_cycles.saturating_add(self.measure_cycles)
                ),
            ));
        }
        if self.max_cycles > MAX_CYCLES {
            return Err(field_err(
                "simulation.max_cycles",
                format!(
                    "{} is out of range: allowed up to {MAX_CYCLES}",
                    self.max_cycles
                ),
            ));
        }
        if self.watchdog_cycles < 100 {
            return Err(field_err(
                "simulation.watchdog_cycles",
                format!(
                    "{} cycles is too short: must be at least 100 cycles (longer than any link latency plus a packet)",
                    self.watchdog_cycles
                ),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_default_equals_struct_defaults() {
        // The file users see (`arcsim config`) and the library defaults must not drift apart.
        assert_eq!(Config::embedded_default(), Config::default());
        Config::default().validate().unwrap();
    }

    #[test]
    fn round_trips_through_toml() {
        let c = Config::embedded_default();
        assert_eq!(
            Config::from_toml_str(&c.to_toml_string().unwrap()).unwrap(),
            c
        );
    }
}
