//! `[topology]`: the network's shape and link latencies.

use super::field_err;
use crate::error::ConfigError;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TopologyKind {
    Dragonfly,
    /// Switches, nodes and links listed in `[topology.graph]` (general kernel only).
    Graph,
    /// A k-ary n-tree, `[topology.tree]` (general kernel only).
    Tree,
    /// An extended generalized fat tree, `[topology.xgft]` (general kernel only).
    Xgft,
    /// A two-level real-life fat tree, `[topology.rlft]` (general kernel only).
    Rlft,
    /// A bidirectional multistage network wired as a perfect shuffle,
    /// `[topology.multistage]` (general kernel only).
    Multistage,
    /// Dragonfly+, `[topology.dragonfly_plus]` (general kernel only).
    DragonflyPlus,
}

impl TopologyKind {
    /// A topology a generator builds as a graph.
    pub fn is_generated(self) -> bool {
        !matches!(self, TopologyKind::Dragonfly | TopologyKind::Graph)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GlobalArrangement {
    /// Global link `l` of group `G` goes to group `G - l - 1` (mod g): the arrangement that ring A
    /// of the OFAR paper (section 3.3.2) presumes.
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
    /// The network when `kind = "graph"`.
    #[serde(skip_serializing_if = "super::GraphConfig::is_default")]
    pub graph: super::GraphConfig,
    /// The k-ary n-tree when `kind = "tree"`.
    #[serde(skip_serializing_if = "super::TreeConfig::is_default")]
    pub tree: super::TreeConfig,
    /// The XGFT when `kind = "xgft"`.
    #[serde(skip_serializing_if = "super::XgftConfig::is_default")]
    pub xgft: super::XgftConfig,
    /// The real-life fat tree when `kind = "rlft"`.
    #[serde(skip_serializing_if = "super::RlftConfig::is_default")]
    pub rlft: super::RlftConfig,
    /// The multistage network when `kind = "multistage"`.
    #[serde(skip_serializing_if = "super::MultistageConfig::is_default")]
    pub multistage: super::MultistageConfig,
    /// The Dragonfly+ when `kind = "dragonfly-plus"`.
    #[serde(skip_serializing_if = "super::DragonflyPlusConfig::is_default")]
    pub dragonfly_plus: super::DragonflyPlusConfig,
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
            graph: super::GraphConfig::default(),
            tree: Default::default(),
            xgft: Default::default(),
            rlft: Default::default(),
            multistage: Default::default(),
            dragonfly_plus: Default::default(),
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

impl TopologyConfig {
    /// The graph of `kind = "graph"`: `[topology.graph]` as given, or imported from its
    /// file (ibnetdiscover links take `local_latency`).
    pub fn graph(&self) -> Result<std::borrow::Cow<'_, super::GraphConfig>, ConfigError> {
        Ok(
            match self
                .graph
                .import(self.terminal_latency, self.local_latency)?
            {
                Some((g, _)) => std::borrow::Cow::Owned(g),
                None => std::borrow::Cow::Borrowed(&self.graph),
            },
        )
    }

    /// Validation of a generated topology: its own table, the link latency it uses, then
    /// the graph it builds (connectivity, port counts).
    pub fn validate_generated(&self) -> Result<(), ConfigError> {
        match self.kind {
            TopologyKind::Tree => self.tree.validate()?,
            TopologyKind::Xgft => self.xgft.validate()?,
            TopologyKind::Rlft => self.rlft.validate()?,
            TopologyKind::Multistage => self.multistage.validate()?,
            TopologyKind::DragonflyPlus => self.dragonfly_plus.validate()?,
            TopologyKind::Dragonfly | TopologyKind::Graph => return Ok(()),
        }
        if self.local_latency == 0 || self.local_latency > 100_000 {
            return Err(field_err(
                "topology.local_latency",
                format!(
                    "{} cycles is out of range: allowed 1..=100000 (the latency of every switch-to-switch link)",
                    self.local_latency
                ),
            ));
        }
        if self.kind == TopologyKind::DragonflyPlus
            && (self.global_latency == 0 || self.global_latency > 100_000)
        {
            return Err(field_err(
                "topology.global_latency",
                format!(
                    "{} cycles is out of range: allowed 1..=100000 (the latency of every global link)",
                    self.global_latency
                ),
            ));
        }
        Ok(())
    }

    /// Nodes of a generated topology or a graph (None for the dragonfly).
    pub fn flat_nodes(&self) -> Option<usize> {
        match self.kind {
            TopologyKind::Dragonfly => None,
            TopologyKind::Graph => Some(self.graph().map_or(0, |g| g.hosts.len())),
            TopologyKind::Tree => Some((self.tree.k as usize).pow(self.tree.n)),
            TopologyKind::Xgft => Some(self.xgft.m.iter().map(|&m| m as usize).product()),
            TopologyKind::Rlft => Some((self.rlft.leaves * self.rlft.hosts) as usize),
            TopologyKind::Multistage => Some(self.multistage.hosts as usize),
            TopologyKind::DragonflyPlus => {
                let d = &self.dragonfly_plus;
                Some(d.num_groups() as usize * d.leaves as usize * d.hosts as usize)
            }
        }
    }

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
        if radix > super::limits::MAX_RADIX as u128 {
            return Err(field_err(
                "topology",
                format!(
                    "router radix p + a - 1 + h = {radix} exceeds the supported maximum of {} (p = {}, a = {}, h = {})",
                    super::limits::MAX_RADIX,
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
