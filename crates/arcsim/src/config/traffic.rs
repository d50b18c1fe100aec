//! `[traffic]`: destination patterns, mixtures, bursts and the transient change.

use super::{check_finite_at_least, field_err, TopologyConfig};
use crate::error::ConfigError;
use serde::{Deserialize, Serialize};

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
    /// Node n sends to node (n + offset) mod N: one step of an all-to-all held still.
    Shift,
    /// `hot_fraction` of the traffic to `hot_nodes` nodes, the rest uniform.
    HotSpot,
    /// MPI_Alltoall-style schedule: node n's i-th packet goes to (n + 1 + i mod (N-1)) mod N,
    /// so a burst of N - 1 packets per node sends exactly one packet to every other node.
    AllToAll,
    /// Node n sends to the node whose number has every bit of n inverted (N a power of
    /// two; general kernel, graphs and generated topologies).
    BitComplement,
    /// To the node whose number is n's bits in reverse order (a palindrome sends to itself).
    BitReverse,
    /// To the node whose number swaps the high and low halves of n's bits (N a power of 4;
    /// a node whose halves are equal sends to itself).
    Transpose,
    /// Perfect shuffle: to n's bits rotated left by one (nodes 0 and N - 1 send to
    /// themselves).
    Shuffle,
}

impl PatternKind {
    /// The permutations of node-number bits (N a power of two, flat topologies only).
    pub fn is_bit_permutation(self) -> bool {
        matches!(
            self,
            PatternKind::BitComplement
                | PatternKind::BitReverse
                | PatternKind::Transpose
                | PatternKind::Shuffle
        )
    }
}

/// The order in which an all-to-all visits the other nodes (`traffic.all_to_all_order`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AllToAllOrder {
    /// MPI_Alltoall's: at step k every node n sends to (n + k) mod N, so each node is the
    /// destination of exactly one other node per step.
    #[default]
    Staggered,
    /// Every node sends to nodes 0, 1, 2, ... (skipping itself) in the same order, the naive
    /// loop: a hot spot that moves through the network.
    Ascending,
}

/// How a burst's packets are generated (`traffic.burst_generation`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BurstGeneration {
    /// Every node keeps its injection queue full: a new packet as soon as there is room.
    #[default]
    Fill,
    /// Every node generates its packets as a Bernoulli process at `traffic.load` (one per
    /// cycle with probability load / packet_length), each waiting for room in its injection
    /// queue: FOGSim's bursts, whose injection probability of 100% is load 1.0.
    Load,
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
    /// Offered load in phits/(node·cycle), in (0, 1].
    pub load: f64,
    /// When non-empty, replaces `pattern`/`offset` with a weighted mixture.
    pub mix: Vec<MixEntry>,
    pub hot_nodes: usize,
    pub hot_fraction: f64,
    /// The order of the `all-to-all` pattern's destinations.
    pub all_to_all_order: AllToAllOrder,
    /// Burst mode: when > 0 every node sends this many packets and the run ends when all are
    /// delivered; the measurement window is then ignored, and `load` too unless
    /// `burst_generation = "load"`.
    pub burst_packets: u64,
    /// How a burst's packets are generated.
    pub burst_generation: BurstGeneration,
    /// A change of pattern and/or load at a given cycle (transient experiments).
    pub change: Option<TrafficChange>,
    /// Uniform traffic may pick the source itself as destination (every node with the same
    /// probability, as in the classic head-of-line blocking analysis); general kernel only.
    #[serde(skip_serializing_if = "skip_allow_self")]
    pub allow_self: bool,
}

fn skip_allow_self(v: &bool) -> bool {
    !super::writing_every_key() && !*v
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
            all_to_all_order: AllToAllOrder::Staggered,
            burst_packets: 0,
            burst_generation: BurstGeneration::Fill,
            change: None,
            allow_self: false,
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

/// What a change switches the destinations to, as a run reads it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ChangedTraffic<'a> {
    /// The change's mixture (it wins over the change's pattern).
    Mix(&'a [MixEntry]),
    /// The change's pattern and offset, each the run's where the change leaves it out.
    Single(PatternKind, usize),
    /// A change of load only: the traffic before it stays.
    Unchanged,
}

impl TrafficChange {
    /// The destinations after this change of a run whose traffic is `base`.
    pub fn traffic(&self, base: &TrafficConfig) -> ChangedTraffic<'_> {
        if !self.mix.is_empty() {
            ChangedTraffic::Mix(&self.mix)
        } else if self.pattern.is_some() || self.offset.is_some() {
            ChangedTraffic::Single(
                self.pattern.unwrap_or(base.pattern),
                self.offset.unwrap_or(base.offset),
            )
        } else {
            ChangedTraffic::Unchanged
        }
    }
}

impl TrafficConfig {
    pub fn validate(&self, topo: &TopologyConfig) -> Result<(), ConfigError> {
        check_load("traffic.load", self.load)?;
        if let Some(k) = PatternKind::ALL
            .into_iter()
            .find(|&k| k.is_bit_permutation() && self.uses_pattern(k))
        {
            return Err(field_err(
                "traffic.pattern",
                format!(
                    "\"{}\" permutes the bits of node numbers: it runs on the general kernel's graphs and generated topologies (fat trees, multistage networks, Dragonfly+), not on the dragonfly",
                    k.name()
                ),
            ));
        }
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
        if self.burst_generation != BurstGeneration::Fill && self.burst_packets == 0 {
            return Err(field_err(
                "traffic.burst_generation",
                "applies only to bursts: set traffic.burst_packets > 0, or leave it out (without a burst every run generates at traffic.load)",
            ));
        }
        if self.all_to_all_order != AllToAllOrder::Staggered
            && !self.uses_pattern(PatternKind::AllToAll)
        {
            return Err(field_err(
                "traffic.all_to_all_order",
                "applies only to the all-to-all pattern: set traffic.pattern = \"all-to-all\" (or traffic.change.pattern), or leave the order out",
            ));
        }
        Ok(())
    }

    /// Validation on a network without groups (the graph topology): the patterns that name
    /// groups or routers of a dragonfly are refused, the others checked over `nodes` nodes.
    pub fn validate_flat(&self, nodes: usize) -> Result<(), ConfigError> {
        check_load("traffic.load", self.load)?;
        // A flat network is one group of one router holding every node.
        let flat = TopologyConfig {
            p: nodes,
            a: 1,
            h: 1,
            groups: 1,
            ..TopologyConfig::default()
        };
        check_flat("traffic", self.pattern, &self.mix)?;
        check_pattern("traffic", self.pattern, self.offset, &self.mix, self, &flat)?;
        if let Some(ch) = &self.change {
            if let Some(load) = ch.load {
                check_load("traffic.change.load", load)?;
            }
            let pattern = ch.pattern.unwrap_or(self.pattern);
            let offset = ch.offset.unwrap_or(self.offset);
            // A change of load only keeps the traffic before it, checked above.
            if ch.pattern.is_some() || !ch.mix.is_empty() {
                check_flat("traffic.change", pattern, &ch.mix)?;
            }
            check_pattern("traffic.change", pattern, offset, &ch.mix, self, &flat)?;
        }
        if self.burst_generation != BurstGeneration::Fill && self.burst_packets == 0 {
            return Err(field_err(
                "traffic.burst_generation",
                "applies only to bursts: set traffic.burst_packets > 0, or leave it out",
            ));
        }
        Ok(())
    }

    /// Whether any phase of the run uses `kind`, alone or as an entry of a mixture (the
    /// all-to-all schedule never is one: validation rejects it there).
    fn uses_pattern(&self, kind: PatternKind) -> bool {
        let in_mix = |mix: &[MixEntry]| mix.iter().any(|e| e.pattern == kind);
        let before = if self.mix.is_empty() {
            self.pattern == kind
        } else {
            in_mix(&self.mix)
        };
        let after = self
            .change
            .as_ref()
            .is_some_and(|ch| match ch.traffic(self) {
                ChangedTraffic::Mix(mix) => in_mix(mix),
                ChangedTraffic::Single(k, _) => k == kind,
                ChangedTraffic::Unchanged => before,
            });
        before || after
    }
}

impl PatternKind {
    /// Every pattern, in the order of the enum.
    pub const ALL: [PatternKind; 12] = [
        PatternKind::Uniform,
        PatternKind::AdvGlobal,
        PatternKind::AdvLocal,
        PatternKind::HotRegion,
        PatternKind::Permutation,
        PatternKind::Shift,
        PatternKind::HotSpot,
        PatternKind::AllToAll,
        PatternKind::BitComplement,
        PatternKind::BitReverse,
        PatternKind::Transpose,
        PatternKind::Shuffle,
    ];

    /// Whether the pattern reads an offset (ADVG+N, ADVL+N, SHIFT+N).
    pub fn reads_offset(self) -> bool {
        matches!(
            self,
            PatternKind::AdvGlobal | PatternKind::AdvLocal | PatternKind::Shift
        )
    }

    /// The name the configuration uses (`adv-global`).
    pub fn name(self) -> &'static str {
        match self {
            PatternKind::Uniform => "uniform",
            PatternKind::AdvGlobal => "adv-global",
            PatternKind::AdvLocal => "adv-local",
            PatternKind::HotRegion => "hot-region",
            PatternKind::Permutation => "permutation",
            PatternKind::Shift => "shift",
            PatternKind::HotSpot => "hot-spot",
            PatternKind::AllToAll => "all-to-all",
            PatternKind::BitComplement => "bit-complement",
            PatternKind::BitReverse => "bit-reverse",
            PatternKind::Transpose => "transpose",
            PatternKind::Shuffle => "shuffle",
        }
    }
}

const OFFSET_READERS: &str = "only adv-global, adv-local and shift read an offset";

impl TrafficConfig {
    /// Keys set to something other than their default that no phase of the run reads, each
    /// with the reason: `traffic.offset` with a uniform pattern, `traffic.pattern` beside a
    /// mixture, `traffic.hot_nodes` without the hot-spot pattern, `traffic.load` in a burst
    /// that fills the queues. Not an error, for the reason [`super::RoutingConfig::unused_keys`]
    /// gives (a figure's panels share a base and vary the pattern).
    pub fn unused_keys(&self) -> Vec<(&'static str, String)> {
        let d = TrafficConfig::default();
        let mut out = Vec::new();
        // The phases of the run: the base traffic, then the change's if there is one. A
        // change of load only keeps the base traffic, so it adds no phase.
        let base_single = self.mix.is_empty();
        let after = self.change.as_ref().map(|ch| (ch, ch.traffic(self)));
        let change_inherits_pattern = matches!(
            after,
            Some((ch, ChangedTraffic::Single(..))) if ch.pattern.is_none()
        );
        let change_inherits_offset = matches!(
            after,
            Some((ch, ChangedTraffic::Single(kind, _))) if ch.offset.is_none() && kind.reads_offset()
        );
        if self.pattern != d.pattern && !base_single && !change_inherits_pattern {
            out.push(("traffic.pattern", "traffic.mix replaces it".to_string()));
        }
        if self.offset != d.offset {
            let read = (base_single && self.pattern.reads_offset()) || change_inherits_offset;
            if !read {
                let why = if base_single {
                    format!(
                        "{OFFSET_READERS}, and traffic.pattern = \"{}\"",
                        self.pattern.name()
                    )
                } else {
                    "traffic.mix replaces traffic.pattern and traffic.offset (each entry has an offset of its own)".to_string()
                };
                out.push(("traffic.offset", why));
            }
        }
        if let Some((ch, traffic)) = after {
            if ch.pattern.is_some() && !ch.mix.is_empty() {
                out.push((
                    "traffic.change.pattern",
                    "traffic.change.mix replaces it".to_string(),
                ));
            }
            if let Some(offset) = ch.offset {
                let why = match traffic {
                    ChangedTraffic::Mix(_) => Some(
                        "traffic.change.mix replaces it (each entry has an offset of its own)"
                            .to_string(),
                    ),
                    ChangedTraffic::Single(kind, _) if !kind.reads_offset() => Some(format!(
                        "{OFFSET_READERS}, and the change's pattern is \"{}\" (offset {offset})",
                        kind.name()
                    )),
                    _ => None,
                };
                if let Some(why) = why {
                    out.push(("traffic.change.offset", why));
                }
            }
        }
        for (key, mix) in [
            ("traffic.mix", self.mix.as_slice()),
            (
                "traffic.change.mix",
                self.change.as_ref().map_or(&[][..], |ch| ch.mix.as_slice()),
            ),
        ] {
            let ignored: Vec<String> = mix
                .iter()
                .enumerate()
                .filter(|(_, e)| e.offset != default_offset() && !e.pattern.reads_offset())
                .map(|(i, e)| {
                    format!(
                        "entry {i} ({}) sets offset = {}",
                        e.pattern.name(),
                        e.offset
                    )
                })
                .collect();
            if !ignored.is_empty() {
                out.push((
                    key,
                    format!("{}, which {OFFSET_READERS}", ignored.join(", ")),
                ));
            }
        }
        let hot_spot = self.uses_pattern(PatternKind::HotSpot);
        for (changed, key) in [
            (self.hot_nodes != d.hot_nodes, "traffic.hot_nodes"),
            (self.hot_fraction != d.hot_fraction, "traffic.hot_fraction"),
        ] {
            if changed && !hot_spot {
                out.push((key, "only the hot-spot pattern reads it".to_string()));
            }
        }
        if self.load != d.load
            && self.burst_packets > 0
            && self.burst_generation == BurstGeneration::Fill
        {
            out.push((
                "traffic.load",
                "a burst with traffic.burst_generation = \"fill\" keeps every injection queue full; set burst_generation = \"load\" to generate it at traffic.load".to_string(),
            ));
        }
        out
    }
}

fn check_load(name: &str, load: f64) -> Result<(), ConfigError> {
    if !(load > 0.0 && load <= 1.0) {
        return Err(field_err(
            name,
            format!("{load} is outside (0, 1]: the offered load is in phits/(node·cycle) and a link carries at most 1"),
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
            PatternKind::Shift if e.offset % nodes == 0 => {
                return Err(field_err(
                    &name,
                    format!("SHIFT+{} sends every node to itself with {nodes} nodes: use an offset that is not a multiple of {nodes}", e.offset),
                ))
            }
            k if k.is_bit_permutation() => {
                let bits = nodes.trailing_zeros();
                if !nodes.is_power_of_two() || (k == PatternKind::Transpose && bits % 2 == 1) {
                    let key = if mix.is_empty() {
                        format!("{prefix}.pattern")
                    } else {
                        format!("{prefix}.mix[{i}].pattern")
                    };
                    return Err(field_err(
                        &key,
                        format!(
                            "\"{}\" needs a number of nodes that is a power of {}, and the network has {nodes}",
                            k.name(),
                            if k == PatternKind::Transpose { 4 } else { 2 }
                        ),
                    ));
                }
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

/// The patterns of `prefix` (`pattern`, or each entry of `mix`) on a network without groups:
/// those that name dragonfly groups or routers are refused.
fn check_flat(prefix: &str, pattern: PatternKind, mix: &[MixEntry]) -> Result<(), ConfigError> {
    let single = [MixEntry {
        pattern,
        offset: 0,
        weight: 1.0,
    }];
    let entries: &[MixEntry] = if mix.is_empty() { &single } else { mix };
    for (i, e) in entries.iter().enumerate() {
        if matches!(
            e.pattern,
            PatternKind::AdvGlobal | PatternKind::AdvLocal | PatternKind::HotRegion
        ) {
            let key = if mix.is_empty() {
                format!("{prefix}.pattern")
            } else {
                format!("{prefix}.mix[{i}].pattern")
            };
            return Err(field_err(
                &key,
                format!(
                    "\"{}\" names dragonfly groups or routers, which a graph does not have: use uniform, permutation, shift, hot-spot or all-to-all",
                    e.pattern.name()
                ),
            ));
        }
    }
    Ok(())
}
