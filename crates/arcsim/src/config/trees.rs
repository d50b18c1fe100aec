//! `[topology.tree]`, `[topology.xgft]`, `[topology.rlft]` and `[topology.multistage]`: the
//! parameters of the generated topologies (general kernel only). Each is turned into a
//! [`super::GraphConfig`] by its generator in [`crate::topology`], so that everything the
//! graph topology checks (connectivity, port counts) holds for them too.

use super::field_err;
use crate::error::ConfigError;
use serde::{Deserialize, Serialize};

/// Largest number of nodes or switches a generated topology may have.
pub const MAX_GENERATED: u128 = 1 << 20;

/// `[topology.tree]`: a k-ary n-tree (Petrini and Vanneschi), the XGFT(n; k..k; 1, k..k).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TreeConfig {
    /// Arity: nodes per leaf switch, and up links of every switch below the top.
    pub k: u32,
    /// Levels of switches.
    pub n: u32,
}

/// `[topology.xgft]`: an extended generalized fat tree XGFT(h; m1..mh; w1..wh) (Öhring et
/// al.): level i switches have m_i children and w_(i+1) parents; h = the number of entries.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct XgftConfig {
    pub m: Vec<u32>,
    pub w: Vec<u32>,
}

/// `[topology.rlft]`: a two-level real-life fat tree: `leaves` leaf switches of `hosts`
/// nodes each, `roots` root switches, `parallel` links from every leaf to every root. With
/// `roots = 0` the two leaves are linked directly by `parallel` links (the InfiniBand
/// paper's C1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RlftConfig {
    pub leaves: u32,
    pub hosts: u32,
    pub roots: u32,
    pub parallel: u32,
}

impl Default for RlftConfig {
    fn default() -> Self {
        RlftConfig {
            leaves: 0,
            hosts: 0,
            roots: 0,
            parallel: 1,
        }
    }
}

/// `[topology.multistage]`: a bidirectional multistage network of `radix`-port switches
/// (half down, half up) wired as a perfect shuffle (the RECN paper, Duato et al. 2005).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MultistageConfig {
    pub hosts: u32,
    pub radix: u32,
}

impl Default for MultistageConfig {
    fn default() -> Self {
        MultistageConfig { hosts: 0, radix: 8 }
    }
}

impl TreeConfig {
    pub fn is_default(&self) -> bool {
        *self == TreeConfig::default()
    }
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.k < 2 {
            return Err(field_err(
                "topology.tree.k",
                format!("{} is not an arity: use at least 2", self.k),
            ));
        }
        if self.n < 1 {
            return Err(field_err(
                "topology.tree.n",
                "a tree needs at least 1 level of switches",
            ));
        }
        if 2 * self.k > u16::MAX as u32 {
            return Err(field_err(
                "topology.tree.k",
                format!("{} gives switches of more than 65535 ports", self.k),
            ));
        }
        let nodes = (self.k as u128).checked_pow(self.n).unwrap_or(u128::MAX);
        if nodes.saturating_mul(self.n as u128) > MAX_GENERATED {
            return Err(field_err(
                "topology.tree",
                format!(
                    "k = {}, n = {} gives k^n = {nodes} nodes and n·k^(n-1) switches: at most {MAX_GENERATED} are supported",
                    self.k, self.n
                ),
            ));
        }
        Ok(())
    }
}

impl XgftConfig {
    pub fn is_default(&self) -> bool {
        *self == XgftConfig::default()
    }
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.m.is_empty() {
            return Err(field_err(
                "topology.xgft.m",
                "give the children of each level, e.g. m = [3, 2, 2] (its length is h)",
            ));
        }
        if self.w.len() != self.m.len() {
            return Err(field_err(
                "topology.xgft.w",
                format!(
                    "has {} entries and m has {}: both list one value per level (h)",
                    self.w.len(),
                    self.m.len()
                ),
            ));
        }
        for (key, v) in [("m", &self.m), ("w", &self.w)] {
            if let Some(i) = v.iter().position(|&x| x == 0) {
                return Err(field_err(
                    &format!("topology.xgft.{key}[{i}]"),
                    "0 is not allowed: every level has at least 1",
                ));
            }
        }
        let mut total: u128 = 1;
        for &m in &self.m {
            total = total.saturating_mul(m as u128);
        }
        for &w in &self.w {
            total = total.saturating_mul(w as u128);
        }
        if total > MAX_GENERATED {
            return Err(field_err(
                "topology.xgft",
                format!(
                    "too large: at most {MAX_GENERATED} nodes or switches per level are supported"
                ),
            ));
        }
        if self
            .m
            .iter()
            .chain(&self.w)
            .any(|&x| 2 * x > u16::MAX as u32)
        {
            return Err(field_err(
                "topology.xgft",
                "a switch would have more than 65535 ports",
            ));
        }
        Ok(())
    }
}

impl RlftConfig {
    pub fn is_default(&self) -> bool {
        *self == RlftConfig::default()
    }
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.hosts == 0 {
            return Err(field_err(
                "topology.rlft.hosts",
                "every leaf needs at least 1 node",
            ));
        }
        if self.parallel == 0 {
            return Err(field_err(
                "topology.rlft.parallel",
                "0 links: use at least 1 link between a leaf and a root",
            ));
        }
        if self.roots == 0 && self.leaves != 2 {
            return Err(field_err(
                "topology.rlft.roots",
                format!(
                    "0 roots links two leaves directly (the InfiniBand paper's C1), and there are {} leaves: use roots >= 1, or leaves = 2",
                    self.leaves
                ),
            ));
        }
        if self.leaves < 2 {
            return Err(field_err(
                "topology.rlft.leaves",
                format!("{} leaves: a fat tree needs at least 2", self.leaves),
            ));
        }
        let big = |x: u32| x as u128 > MAX_GENERATED;
        if big(self.leaves) || big(self.hosts) || big(self.roots) || big(self.parallel) {
            return Err(field_err(
                "topology.rlft",
                format!("too large: at most {MAX_GENERATED} of anything"),
            ));
        }
        let leaf = self.hosts as u128 + self.roots.max(1) as u128 * self.parallel as u128;
        let root = self.leaves as u128 * self.parallel as u128;
        if leaf.max(root) > u16::MAX as u128
            || self.leaves as u128 * self.hosts as u128 > MAX_GENERATED
        {
            return Err(field_err(
                "topology.rlft",
                "a switch would have more than 65535 ports, or the network too many nodes",
            ));
        }
        Ok(())
    }
}

impl MultistageConfig {
    pub fn is_default(&self) -> bool {
        *self == MultistageConfig::default()
    }
    pub fn validate(&self) -> Result<(), ConfigError> {
        let half = self.radix / 2;
        if self.radix < 4 || self.radix % 2 != 0 || !half.is_power_of_two() {
            return Err(field_err(
                "topology.multistage.radix",
                format!(
                    "{}: the ports are half down and half up, and half must be a power of two: use 4, 8, 16, ...",
                    self.radix
                ),
            ));
        }
        if !self.hosts.is_power_of_two() || self.hosts < half * half || self.hosts > 1 << 20 {
            return Err(field_err(
                "topology.multistage.hosts",
                format!(
                    "{}: the perfect shuffle needs a power of two of at least (radix/2)^2 = {} and at most 2^20",
                    self.hosts,
                    half * half
                ),
            ));
        }
        Ok(())
    }
}

/// `[topology.dragonfly_plus]`: Dragonfly+ groups of leaf and spine switches.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DragonflyPlusConfig {
    /// Leaf switches per group.
    pub leaves: u32,
    /// Spine switches per group.
    pub spines: u32,
    /// Nodes per leaf.
    pub hosts: u32,
    /// Global links per spine.
    pub global: u32,
    /// Groups; 0: the most, spines · global + 1.
    pub groups: u32,
}

impl DragonflyPlusConfig {
    pub fn is_default(&self) -> bool {
        *self == DragonflyPlusConfig::default()
    }
    pub fn num_groups(&self) -> u32 {
        if self.groups == 0 {
            self.spines.saturating_mul(self.global).saturating_add(1)
        } else {
            self.groups
        }
    }
    pub fn validate(&self) -> Result<(), ConfigError> {
        for (key, v) in [
            ("leaves", self.leaves),
            ("spines", self.spines),
            ("hosts", self.hosts),
            ("global", self.global),
        ] {
            if v == 0 {
                return Err(field_err(
                    &format!("topology.dragonfly_plus.{key}"),
                    "must be at least 1",
                ));
            }
            if v as u128 > MAX_GENERATED {
                return Err(field_err(
                    &format!("topology.dragonfly_plus.{key}"),
                    format!("{v} is too large: at most {MAX_GENERATED}"),
                ));
            }
        }
        let most = self.spines as u128 * self.global as u128 + 1;
        if self.groups != 0 && (self.groups < 2 || self.groups as u128 > most) {
            return Err(field_err(
                "topology.dragonfly_plus.groups",
                format!(
                    "{} groups is impossible with {} spines of {} global links: allowed 2..={most} (spines · global + 1), or 0 for the most",
                    self.groups, self.spines, self.global
                ),
            ));
        }
        let g = self.num_groups() as u128;
        let per = self.leaves as u128 + self.spines as u128;
        if g * per > MAX_GENERATED || g * self.leaves as u128 * self.hosts as u128 > MAX_GENERATED {
            return Err(field_err(
                "topology.dragonfly_plus",
                format!("too large: at most {MAX_GENERATED} switches and nodes are supported"),
            ));
        }
        if self.hosts as u128 + self.spines as u128 > u16::MAX as u128
            || self.leaves as u128 + self.global as u128 > u16::MAX as u128
        {
            return Err(field_err(
                "topology.dragonfly_plus",
                "a switch would have more than 65535 ports",
            ));
        }
        Ok(())
    }
}
