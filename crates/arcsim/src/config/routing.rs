//! `[routing]`: the routing algorithm and its keys (OFAR's escape subnetworks and
//! congestion management, Piggyback's flags); which keys a routing does not read.

use super::{check_finite_at_least, field_err, RouterConfig};
use crate::error::ConfigError;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RoutingAlgorithm {
    Min,
    Val,
    ValAny,
    UgalL,
    /// On-the-fly adaptive routing (the OFAR paper, section 3) with local and global misrouting.
    Ofar,
    /// OFAR without local misrouting.
    OfarL,
    /// Piggyback source-adaptive routing (Jiang et al. 2009), the reference of the OFAR paper.
    Pb,
    /// Dragonfly+'s minimal and non-minimal routing (general kernel only).
    Dfp,
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
            RoutingAlgorithm::Dfp => "dfp",
        }
    }

    /// Whether the routing decouples VCs from deadlock avoidance and needs an escape
    /// subnetwork.
    pub fn uses_escape(self) -> bool {
        matches!(self, RoutingAlgorithm::Ofar | RoutingAlgorithm::OfarL)
    }
}

/// Escape subnetwork of OFAR (the OFAR paper, section 3.3), embedded with one extra VC per
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

/// Injection-based congestion management (the OFAR paper, section 3.4).
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
    /// Every escape buffer the router receives on (the OFAR paper, section 3.4.1).
    All,
    /// At least one of them. Not in the OFAR paper: a tree router receives on several escape
    /// buffers, and "all above threshold" rarely holds there while the canonical buffers
    /// fill (notes/ofar-history.md, Fig. 5 at h = 6).
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
    /// FOGSim's (2014 source, the simulator of the OFAR paper): flags and UGAL on the VC each hop
    /// would use, minimal paths on the lowest VCs, FOGSim's estimate of each path's local hops,
    /// the choice taken again at every allocation attempt while the packet is at injection.
    Fogsim,
}

/// VAL and VAL-any: how the intermediate of a Valiant path is drawn
/// (docs/configuration.md, `routing.valiant_model`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ValiantModel {
    /// The OFAR paper's definitions: VAL a random group other than the source's and the
    /// destination's, VAL-any a random router of the whole network.
    Reference,
    /// FOGSim's (2014 source, `generatorModule::action`): a random node outside the source
    /// group, its group the intermediate of VAL (the destination's included, which makes the
    /// path minimal) and its router that of VAL-any.
    Fogsim,
}

/// ECM: which escape buffers a router watches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EcmBuffers {
    /// The escape buffers the router receives on (its own input buffers).
    Input,
    /// The escape buffers its outputs feed at the next routers, read from its credits (the
    /// buffers an injected packet would enter); FOGSim, the simulator of the OFAR paper, reads these.
    Downstream,
}

/// OFAR: what a packet does when its minimal output has room but is still sending an
/// earlier packet (the OFAR paper, section 3.2: misrouting is allowed when the minimal output "is
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
    /// the OFAR paper); its 2015 rewrite and the paper's text misroute around full outputs too.
    Granted,
}

/// OFAR: what "the occupancy of an output's queue" (the OFAR paper, section 3.2: Q_min and
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
            packets: 0.0,
            all_vcs: false,
        }
    }
}

/// `routing.misroute_congested_global` in TOML: `false` (no restriction), `true` (the
/// defaults of [`CongestedGlobal`]) or a table of its keys. A custom visitor rather than an
/// untagged enum, so that an unknown key inside the table is still reported by name.
mod congested_global_toml {
    use super::CongestedGlobal;
    use serde::de::{self, MapAccess, Visitor};
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use std::fmt;

    pub fn serialize<S: Serializer>(v: &Option<CongestedGlobal>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            None => s.serialize_bool(false),
            Some(c) => c.serialize(s),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<CongestedGlobal>, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Option<CongestedGlobal>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("false, true or a table { factor, packets, all_vcs }")
            }
            fn visit_bool<E: de::Error>(self, on: bool) -> Result<Self::Value, E> {
                Ok(on.then(CongestedGlobal::default))
            }
            fn visit_map<M: MapAccess<'de>>(self, map: M) -> Result<Self::Value, M::Error> {
                CongestedGlobal::deserialize(de::value::MapAccessDeserializer::new(map)).map(Some)
            }
        }
        d.deserialize_any(V)
    }
}

/// Which Hamiltonian ring (the OFAR paper: A in 3.3.2, B and C in 3.3.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RingKind {
    A,
    B,
    C,
}

/// Direction in which packets travel a ring. The OFAR paper describes each ring by its links only
/// (ring A: "router i is connected to routers i ± 1"), so either direction is the paper's ring.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RingDirection {
    /// Local hops by +step inside a group (ring A: R_0 -> R_1 -> ... -> R_{a-1}), then the
    /// global hop to the next group's R_in (ring A: group j + 1).
    Ascending,
    /// The same links the other way (ring A: R_{a-1} -> ... -> R_0 -> R_{a-1} of group j - 1).
    Descending,
    /// Both ways (FOGSim's `ringDirs = 2`): every link of the ring carries the escape VC in
    /// each direction, and each escape hop takes the shorter way round to the destination
    /// router (ascending on a tie). The two directions are two separate rings of buffers, each
    /// with bubble flow control; a packet never changes direction on the way, because a hop
    /// the shorter way keeps that way the shorter one.
    Both,
}

/// `routing.selection`: how a switch of the general kernel picks among the output ports on
/// shortest paths.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Selection {
    /// Minimal adaptive routing. On fat trees and multistage networks (generated
    /// topologies): d-mod-k's port unless its load exceeds the least loaded port's by more
    /// than two packets, then the least loaded. On graphs and the dragonfly: as
    /// [`Selection::FirstFree`].
    #[default]
    Adaptive,
    /// Try the ports from the destination modulo their number and take the first that can
    /// take the packet now (the kernel's "adaptive" before 2026-11-29).
    FirstFree,
    /// Deterministic tables on fat trees and multistage networks: port
    /// floor(d / (w_1 ·· w_i)) mod w_(i+1) at a switch of level i (d the destination).
    DModK,
    /// The same with the source.
    SModK,
    /// floor(d / (m_1 ·· m_i)) mod w_(i+1).
    DModM,
    /// The same with the source.
    SModM,
    /// A random shortest path per source-destination pair, fixed for the run (from
    /// `simulation.seed`); any topology of the general kernel.
    Random,
    /// Per packet, the least loaded port of the group that can take it now (output queue
    /// plus the next buffer's occupancy as credits tell); ties round robin (a pointer per
    /// switch, ingress port and group), or to the most preferred port of a per-destination
    /// DAG.
    LeastLoaded,
    /// Per packet, round robin over the group's ports (a pointer per switch and group).
    RoundRobin,
    /// Per packet, round robin over the group's ports with a pointer per switch, ingress
    /// port and group; the head packet of an ingress keeps the port its pointer names until
    /// it leaves (the choice made at the ingress, as the InfiniBand adaptive-routing
    /// paper's switches observably alternate per packet).
    IngressRoundRobin,
}

impl Selection {
    pub fn is_adaptive(&self) -> bool {
        *self == Selection::Adaptive
    }
    /// A selection that needs no structure of a generated topology.
    pub fn any_topology(self) -> bool {
        matches!(
            self,
            Selection::Adaptive
                | Selection::FirstFree
                | Selection::Random
                | Selection::LeastLoaded
                | Selection::RoundRobin
                | Selection::IngressRoundRobin
        )
    }
    pub fn name(self) -> &'static str {
        match self {
            Selection::Adaptive => "adaptive",
            Selection::FirstFree => "first-free",
            Selection::DModK => "d-mod-k",
            Selection::SModK => "s-mod-k",
            Selection::DModM => "d-mod-m",
            Selection::SModM => "s-mod-m",
            Selection::Random => "random",
            Selection::LeastLoaded => "least-loaded",
            Selection::RoundRobin => "round-robin",
            Selection::IngressRoundRobin => "ingress-round-robin",
        }
    }
}

/// `routing.paths`: which routes the tables of the general kernel hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Paths {
    /// Every shortest path.
    #[default]
    Shortest,
    /// Up*/down* on any graph: a breadth-first spanning tree from `routing.up_down_root`
    /// orients every link (up towards the root, or the lower switch number at the same
    /// depth); legal paths go up, then down, and need one VC.
    UpDown,
    /// Per destination, the loop-free DAG of the DCB adaptive-routing paper: every link
    /// u -> v with (distance(v), v) < (distance(u), u), in order of preference (shorter
    /// remaining path, then port number).
    Dag,
    /// Forwarding tables read from the file `routing.table`.
    Table,
}

impl Paths {
    pub fn is_shortest(&self) -> bool {
        *self == Paths::Shortest
    }
    pub fn name(self) -> &'static str {
        match self {
            Paths::Shortest => "shortest",
            Paths::UpDown => "up-down",
            Paths::Dag => "dag",
            Paths::Table => "table",
        }
    }
}

/// `routing.groups`: the adaptive-routing groups of the InfiniBand adaptive-routing paper
/// (Rocher-González et al.), built on top of the table `routing.paths` gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ArGroups {
    /// The table's groups as they are.
    #[default]
    Table,
    /// LAG: every port of the switch linked to the same remote switch as a port of the
    /// table's entry joins its group.
    Lag,
    /// TREE: the group is every port of the switch on a minimal path to the destination's
    /// switch.
    Tree,
}

impl ArGroups {
    pub fn is_table(&self) -> bool {
        *self == ArGroups::Table
    }
    pub fn name(self) -> &'static str {
        match self {
            ArGroups::Table => "table",
            ArGroups::Lag => "lag",
            ArGroups::Tree => "tree",
        }
    }
}

fn is_empty_str(s: &str) -> bool {
    s.is_empty()
}

fn is_zero_u32(v: &u32) -> bool {
    *v == 0
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RoutingConfig {
    /// General kernel: which routes the switches' tables hold. Written only when not
    /// "shortest".
    #[serde(skip_serializing_if = "Paths::is_shortest")]
    pub paths: Paths,
    /// With `paths = "table"`: the file of forwarding tables (arcsim's text format or an
    /// OpenSM LFT dump). Written only when set.
    #[serde(skip_serializing_if = "is_empty_str")]
    pub table: String,
    /// With `paths = "up-down"`: the root switch of the spanning tree. Written only when
    /// not 0.
    #[serde(skip_serializing_if = "is_zero_u32")]
    pub up_down_root: u32,
    /// General kernel, with `paths` other than "shortest": the table's entries widened into
    /// adaptive-routing groups (LAG, TREE). Written only when not "table".
    #[serde(skip_serializing_if = "ArGroups::is_table")]
    pub groups: ArGroups,
    /// General kernel: how a switch picks among the ports on shortest paths. Written only
    /// when not "adaptive".
    #[serde(skip_serializing_if = "Selection::is_adaptive")]
    pub selection: Selection,
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
    /// PB on the general kernel (FOGSim v5's, `crate::kernel::piggyback`): the flag
    /// threshold's margin in packets on top of `pb_factor` times the mean (FOGSim's
    /// `ugal_global_threshold`, default 5; the input-queued engine's PB reads `pb_margin`
    /// instead). Written only when not 5.
    #[serde(skip_serializing_if = "is_five")]
    pub pb_global_threshold: f64,
    /// VAL and VAL-any: how the intermediate is drawn (see [`ValiantModel`]). Written only
    /// when not "reference" (runs stored before the key keep their identity).
    #[serde(skip_serializing_if = "is_reference_valiant")]
    pub valiant_model: ValiantModel,
    /// When false, every hop may use any VC: NOT deadlock-free. Exists to study deadlock and
    /// to exercise the watchdog.
    pub ordered_vcs: bool,
    /// OFAR: misroute only to outputs with occupancy < misroute_threshold * Q_min (strict:
    /// see routing/ofar.rs).
    pub misroute_threshold: f64,
    /// OFAR: compare with `<=` instead (the OFAR paper's text and FOGSim's code): an output whose
    /// VC is empty qualifies against a minimal output with an empty VC. Written only when
    /// true (runs stored before the key keep their identity).
    #[serde(skip_serializing_if = "is_false")]
    pub misroute_inclusive: bool,
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
    /// in the OFAR paper: a 2-packet bubble in a 32-packet global buffer barely throttles them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bcm_bubble_global: Option<u32>,
    /// ECM: occupancy (0..1) above which an escape buffer counts as congested.
    pub ecm_threshold: f64,
    /// ECM: stop injection when all (the OFAR paper) or any of the router's escape buffers are above
    /// `ecm_threshold`.
    pub ecm_rule: EcmRule,
    /// ECM: the router's own escape input buffers or those its outputs feed downstream.
    /// Written only when not the default `input`.
    #[serde(skip_serializing_if = "is_input")]
    pub ecm_buffers: EcmBuffers,
    /// OFAR, MM+L: after the non-minimal local hop of a global misroute (taken from a local
    /// queue in the source group), take a global port of the next router instead of
    /// re-evaluating there against that router's own (local) minimal output (FOGSim, the
    /// simulator of the OFAR paper; false: the next router decides again, as the OFAR paper's text reads).
    pub mml_commit: bool,
    /// OFAR, MM+L: least occupancy (0..1) of the minimal output's queue for a packet in a local
    /// queue of the source group to start a global misroute (the OFAR paper, footnote 2).
    pub mml_min_occupancy: f64,
    /// OFAR-L: a packet in a local queue of the source group may start a global misroute with
    /// MM+L's non-minimal local hop (true: FOGSim's OFAR-L, the simulator of the OFAR paper).
    /// `false`: OFAR-L takes no non-minimal local hop at all and
    /// misroutes globally only from injection queues (the OFAR paper §4, "without allowing
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
    /// may enter the escape subnetwork there. 0 (the OFAR paper): as soon as every canonical output
    /// is unavailable. Left out of the written configuration when 0, so that runs stored
    /// before the key existed keep their identity.
    #[serde(skip_serializing_if = "is_zero")]
    pub escape_patience: u32,
    /// OFAR: a packet still in its injection queue may enter the escape network when every
    /// canonical output is unavailable (true: the OFAR paper §3.3 makes no exception). An injection
    /// queue is never part of a deadlock cycle, so false (such packets wait) keeps deadlock
    /// freedom. BCM always keeps them out. Written only when false, like `escape_patience`.
    #[serde(skip_serializing_if = "is_true")]
    pub escape_from_injection: bool,
    /// OFAR: entries into the escape network after which a packet stays on it to its
    /// destination (the OFAR paper §5.7's livelock counter: "after the counter exceeds a given
    /// threshold (for example, 15 for a 4-bit counter) the packet is not allowed to leave
    /// the escape subnetwork again"). 0 (default): no limit, as the paper's evaluation.
    /// Written only when set, like `escape_patience`.
    #[serde(skip_serializing_if = "is_zero")]
    pub escape_entry_limit: u32,
    /// BCM: a packet in an injection queue whose minimal output has no room for it (and no
    /// non-minimal output takes it) may enter the escape network, if the escape VC keeps
    /// BCM's bubble (FOGSim, the simulator of the OFAR paper); room for the packet but not for the
    /// bubble means waiting. false (default): BCM keeps injected packets out of the escape
    /// network. Written only when true.
    #[serde(skip_serializing_if = "is_false")]
    pub bcm_escape: bool,
    /// OFAR, MM+L: a packet that reaches a router of its source group on an escape VC may
    /// take MM+L's non-minimal local hop there (true: the OFAR paper makes no exception). false:
    /// it may not, as in FOGSim, the simulator of the OFAR paper (`misrouteTypeOFAR` offers
    /// `LOCAL_MM` only to packets on canonical VCs), so it leaves the escape network by its
    /// minimal output or stays in it.
    pub mml_from_escape: bool,
    /// OFAR: which unavailable minimal outputs start a search for a non-minimal one.
    pub misroute_trigger: MisrouteTrigger,
    /// OFAR: misroute around a minimal global output only while it is congested (FOGSim's
    /// restriction, the default; `false` in TOML: none, as in the OFAR paper's text).
    #[serde(with = "congested_global_toml")]
    pub misroute_congested_global: Option<CongestedGlobal>,
}

fn is_false(v: &bool) -> bool {
    !super::writing_every_key() && !*v
}

fn is_input(v: &EcmBuffers) -> bool {
    !super::writing_every_key() && *v == EcmBuffers::Input
}

fn is_zero(v: &u32) -> bool {
    !super::writing_every_key() && *v == 0
}

fn is_true(v: &bool) -> bool {
    !super::writing_every_key() && *v
}

fn is_zero_f64(v: &f64) -> bool {
    !super::writing_every_key() && *v == 0.0
}

fn is_five(v: &f64) -> bool {
    !super::writing_every_key() && *v == 5.0
}

fn is_reference(v: &PbModel) -> bool {
    !super::writing_every_key() && *v == PbModel::Reference
}

fn is_reference_valiant(v: &ValiantModel) -> bool {
    !super::writing_every_key() && *v == ValiantModel::Reference
}

impl Default for RoutingConfig {
    fn default() -> Self {
        RoutingConfig {
            paths: Paths::Shortest,
            table: String::new(),
            groups: ArGroups::Table,
            up_down_root: 0,
            selection: Selection::Adaptive,
            algorithm: RoutingAlgorithm::Min,
            ugal_threshold: 0.0,
            pb_factor: 2.0,
            pb_period: 10,
            pb_utilisation: true,
            pb_margin: 0.0,
            pb_model: PbModel::Reference,
            pb_global_threshold: 5.0,
            valiant_model: ValiantModel::Reference,
            ordered_vcs: true,
            misroute_threshold: 0.9,
            misroute_inclusive: false,
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
            mml_commit: true,
            mml_min_occupancy: 0.0,
            ofar_l_mml: true,
            busy_minimal: BusyMinimal::Wait,
            busy_wait_max: 1.0,
            occupancy: QueueOccupancy::Vc,
            escape_patience: 0,
            escape_from_injection: true,
            escape_entry_limit: 0,
            bcm_escape: false,
            mml_from_escape: false,
            misroute_trigger: MisrouteTrigger::Granted,
            misroute_congested_global: Some(CongestedGlobal::default()),
        }
    }
}

impl RoutingConfig {
    /// The first key of `paths`, `table` and `up_down_root` set on a configuration that
    /// does not run on the general kernel (which alone reads them).
    pub fn kernel_paths_key(&self) -> Option<&'static str> {
        if !self.paths.is_shortest() {
            Some("routing.paths")
        } else if !self.table.is_empty() {
            Some("routing.table")
        } else if self.up_down_root != 0 {
            Some("routing.up_down_root")
        } else if !self.groups.is_table() {
            Some("routing.groups")
        } else {
            None
        }
    }

    /// `paths`, `table` and `up_down_root` on the general kernel, for a topology of `kind`
    /// (the root's range and the file's contents are checked when the network is built).
    pub fn validate_paths(&self, kind: super::TopologyKind) -> Result<(), ConfigError> {
        use super::TopologyKind as K;
        if !self.paths.is_shortest() && kind == K::Dragonfly {
            return Err(field_err(
                "routing.paths",
                format!(
                    "\"{}\" needs a graph or a generated topology: the dragonfly's routes are its minimal paths; leave it out",
                    self.paths.name()
                ),
            ));
        }
        if self.paths == Paths::Table && self.table.is_empty() {
            return Err(field_err(
                "routing.table",
                "paths = \"table\" reads the forwarding tables from a file: give its path, e.g. table = \"tables.txt\"",
            ));
        }
        if self.paths != Paths::Table && !self.table.is_empty() {
            return Err(field_err(
                "routing.table",
                "is read only with routing.paths = \"table\": set that, or leave table out",
            ));
        }
        if self.paths.is_shortest() && !self.groups.is_table() {
            return Err(field_err(
                "routing.groups",
                format!(
                    "\"{}\" widens the entries of a table (routing.paths = \"table\", \"up-down\" or \"dag\"); with every shortest path the groups already hold every minimal port (TREE): leave groups out, or set routing.paths",
                    self.groups.name()
                ),
            ));
        }
        if self.paths != Paths::UpDown && self.up_down_root != 0 {
            return Err(field_err(
                "routing.up_down_root",
                "is read only with routing.paths = \"up-down\": set that, or leave it out",
            ));
        }
        Ok(())
    }

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
        check(
            self.pb_global_threshold != d.pb_global_threshold,
            "routing.pb_global_threshold",
            pb,
            &only_pb,
        );
        check(
            self.valiant_model != d.valiant_model,
            "routing.valiant_model",
            matches!(alg, RoutingAlgorithm::Val | RoutingAlgorithm::ValAny),
            &|| {
                format!(
                    "only VAL and VAL-any read it, and routing.algorithm = \"{}\"",
                    alg.name()
                )
            },
        );
        for (changed, key) in [
            (
                self.misroute_threshold != d.misroute_threshold,
                "routing.misroute_threshold",
            ),
            (
                self.misroute_inclusive != d.misroute_inclusive,
                "routing.misroute_inclusive",
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
                self.escape_entry_limit != d.escape_entry_limit,
                "routing.escape_entry_limit",
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

    pub fn validate(&self, router: &RouterConfig) -> Result<(), ConfigError> {
        // Fractions of a buffer: [0, 1], NaN rejected.
        for (field, value, hint) in [
            (
                "routing.misroute_threshold",
                self.misroute_threshold,
                " (the OFAR paper uses 0.9)",
            ),
            (
                "routing.ecm_threshold",
                self.ecm_threshold,
                " (the OFAR paper uses 0.2)",
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
        check_finite_at_least(
            "routing.pb_global_threshold",
            self.pb_global_threshold,
            0.0,
            " of packets",
        )?;
        if self.pb_period == 0 {
            return Err(field_err("routing.pb_period", "must be at least 1 cycle"));
        }
        if self.escape_entry_limit > u8::MAX as u32 {
            // A packet counts its escape entries in 8 bits (the OFAR paper's example is 4 bits: 15).
            return Err(field_err(
                "routing.escape_entry_limit",
                format!(
                    "{} is above the {} entries a packet can count: use 1 to {} (the OFAR paper's example: 15), or 0 for no limit",
                    self.escape_entry_limit,
                    u8::MAX,
                    u8::MAX
                ),
            ));
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
                        format!("{value} is not allowed: must be a finite number >= 0 (default: factor = 1.5, packets = 0; FOGSim's example configuration: packets = 5)"),
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
                self.mml_from_escape,
                "mml_from_escape",
                "gives MM+L's local hop to packets on",
            ),
            (
                self.escape_entry_limit > 0,
                "escape_entry_limit",
                "keeps packets that entered it often on",
            ),
        ] {
            if set && self.escape == EscapeKind::None {
                return Err(field_err(
                    &format!("routing.{key}"),
                    format!("{what} the escape network, and routing.escape = \"none\" has none: drop {key} or choose a ring or the tree"),
                ));
            }
        }
        if self.escape == EscapeKind::Ring {
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
            }
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
