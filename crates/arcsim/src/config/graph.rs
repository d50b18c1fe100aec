//! `[topology.graph]`: a network given switch by switch and link by link (parallel links
//! allowed), for small test networks and the topologies a generator does not cover.

use super::field_err;
use crate::error::ConfigError;
use serde::{Deserialize, Serialize};

/// One bidirectional link between two switches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GraphLink {
    pub a: u32,
    pub b: u32,
    /// Link class: its buffers, VCs and statistics follow `router.buffer_local`/`vcs_local`
    /// ("local") or `router.buffer_global`/`vcs_global` ("global").
    #[serde(default = "local")]
    pub class: String,
    /// Cycles from a packet's first phit leaving one end until it reaches the other.
    #[serde(default = "one")]
    pub latency: u32,
}

/// A further link of a node to a switch (`topology.graph.rails`): a node with several
/// links to the network sends on any of them and receives on any of them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GraphRail {
    pub node: u32,
    pub switch: u32,
}

fn local() -> String {
    "local".into()
}
fn one() -> u32 {
    1
}

/// `topology.graph.format`: what kind of file `topology.graph.file` is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GraphFormat {
    /// From its contents: `ibnetdiscover` output has `Switch` and `Ca` blocks; anything
    /// else is read as an anynet file.
    #[default]
    Auto,
    /// BookSim's anynet network file.
    Anynet,
    /// InfiniBand `ibnetdiscover` output.
    Ibnetdiscover,
}

impl GraphFormat {
    fn is_auto(&self) -> bool {
        *self == GraphFormat::Auto
    }
}

fn is_empty(s: &str) -> bool {
    s.is_empty()
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GraphConfig {
    /// Number of switches, numbered from 0.
    pub switches: u32,
    /// The switch each node (host) attaches to: node i to switch `hosts[i]`.
    pub hosts: Vec<u32>,
    pub links: Vec<GraphLink>,
    /// Further links of nodes (rails): node `rails[i].node` also attaches to switch
    /// `rails[i].switch`. Written only when set.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rails: Vec<GraphRail>,
    /// A file to import the graph from instead (`switches`, `hosts` and `links` left
    /// out). Written only when set.
    #[serde(skip_serializing_if = "is_empty")]
    pub file: String,
    /// The file's format. Written only when not "auto".
    #[serde(skip_serializing_if = "GraphFormat::is_auto")]
    pub format: GraphFormat,
}

/// What [`GraphConfig::import`] gives: the graph, and for an `ibnetdiscover` file what it
/// tells of the fabric beyond it.
pub type Imported = (GraphConfig, Option<super::import::IbFabric>);

impl GraphConfig {
    /// The graph of `file` (`terminal_latency`: what every node link takes; `latency`: of
    /// the links of files that give none, ibnetdiscover's), or None when no file is named.
    /// Errors name `topology.graph.file` and, for a malformed file, its line.
    pub fn import(
        &self,
        terminal_latency: u32,
        latency: u32,
    ) -> Result<Option<Imported>, ConfigError> {
        if self.file.is_empty() {
            if self.format != GraphFormat::Auto {
                return Err(field_err(
                    "topology.graph.format",
                    "is read only with topology.graph.file: name the file, or leave format out",
                ));
            }
            return Ok(None);
        }
        if self.switches != 0
            || !self.hosts.is_empty()
            || !self.links.is_empty()
            || !self.rails.is_empty()
        {
            return Err(field_err(
                "topology.graph.file",
                "the graph comes from the file: leave switches, hosts and links out (and rails)",
            ));
        }
        let text = std::fs::read_to_string(&self.file).map_err(|e| {
            field_err(
                "topology.graph.file",
                format!("cannot read \"{}\": {e}", self.file),
            )
        })?;
        let format = match self.format {
            GraphFormat::Auto
                if text.lines().any(|l| {
                    let w = l.split_whitespace().next().unwrap_or_default();
                    w == "Switch" || w == "Ca"
                }) =>
            {
                GraphFormat::Ibnetdiscover
            }
            GraphFormat::Auto => GraphFormat::Anynet,
            f => f,
        };
        let result = match format {
            GraphFormat::Ibnetdiscover => {
                super::import::ibnetdiscover(&text, &self.file, latency).map(|(g, f)| (g, Some(f)))
            }
            _ => super::import::anynet(&text, &self.file, terminal_latency).map(|g| (g, None)),
        };
        let (graph, fabric) = result.map_err(|m| field_err("topology.graph.file", m))?;
        graph.validate().map_err(|e| {
            field_err(
                "topology.graph.file",
                format!(
                    "{}: {}",
                    self.file,
                    e.to_string().replace("topology.graph.", "")
                ),
            )
        })?;
        Ok(Some((graph, fabric)))
    }
}

/// The link classes a graph may name, in the order of their statistics.
pub const GRAPH_CLASSES: [&str; 2] = ["local", "global"];

impl GraphConfig {
    pub fn is_default(&self) -> bool {
        *self == GraphConfig::default()
    }

    /// Number of ports of each switch: its hosts, then its links in the order given.
    pub fn radix(&self) -> Vec<usize> {
        let mut r = vec![0usize; self.switches as usize];
        for h in self
            .hosts
            .iter()
            .chain(self.rails.iter().map(|l| &l.switch))
        {
            if let Some(x) = r.get_mut(*h as usize) {
                *x += 1;
            }
        }
        for l in &self.links {
            for s in [l.a, l.b] {
                if let Some(x) = r.get_mut(s as usize) {
                    *x += 1;
                }
            }
        }
        r
    }

    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.switches == 0 {
            return Err(field_err(
                "topology.graph.switches",
                "a graph needs at least one switch",
            ));
        }
        if self.hosts.len() < 2 {
            return Err(field_err(
                "topology.graph.hosts",
                "a graph needs at least two nodes: list the switch each node attaches to, e.g. hosts = [0, 0, 1, 1]",
            ));
        }
        for (i, &h) in self.hosts.iter().enumerate() {
            if h >= self.switches {
                return Err(field_err(
                    &format!("topology.graph.hosts[{i}]"),
                    format!(
                        "switch {h} does not exist: the graph has {} switches, numbered 0..={}",
                        self.switches,
                        self.switches - 1
                    ),
                ));
            }
        }
        for (i, l) in self.links.iter().enumerate() {
            for (k, s) in [("a", l.a), ("b", l.b)] {
                if s >= self.switches {
                    return Err(field_err(
                        &format!("topology.graph.links[{i}].{k}"),
                        format!(
                            "switch {s} does not exist: the graph has {} switches, numbered 0..={}",
                            self.switches,
                            self.switches - 1
                        ),
                    ));
                }
            }
            if l.a == l.b {
                return Err(field_err(
                    &format!("topology.graph.links[{i}]"),
                    format!("a link from switch {} to itself is not allowed", l.a),
                ));
            }
            if !GRAPH_CLASSES.contains(&l.class.as_str()) {
                return Err(field_err(
                    &format!("topology.graph.links[{i}].class"),
                    format!(
                        "\"{}\" is not a link class: expected one of \"local\", \"global\"",
                        l.class
                    ),
                ));
            }
            if l.latency == 0 || l.latency > 100_000 {
                return Err(field_err(
                    &format!("topology.graph.links[{i}].latency"),
                    format!("{} cycles is out of range: allowed 1..=100000", l.latency),
                ));
            }
        }
        if let Some((s, &r)) = self.radix().iter().enumerate().max_by_key(|(_, &r)| r) {
            if r > u16::MAX as usize {
                return Err(field_err(
                    "topology.graph",
                    format!(
                        "switch {s} has {r} ports (hosts and links), more than the supported 65535"
                    ),
                ));
            }
        }
        for (i, r) in self.rails.iter().enumerate() {
            if r.node as usize >= self.hosts.len() {
                return Err(field_err(
                    &format!("topology.graph.rails[{i}].node"),
                    format!(
                        "node {} does not exist: the graph has {} nodes (hosts), numbered 0..={}",
                        r.node,
                        self.hosts.len(),
                        self.hosts.len() - 1
                    ),
                ));
            }
            if r.switch >= self.switches {
                return Err(field_err(
                    &format!("topology.graph.rails[{i}].switch"),
                    format!(
                        "switch {} does not exist: the graph has {} switches, numbered 0..={}",
                        r.switch,
                        self.switches,
                        self.switches - 1
                    ),
                ));
            }
            let twice = self.hosts[r.node as usize] == r.switch
                || self.rails[..i]
                    .iter()
                    .any(|o| o.node == r.node && o.switch == r.switch);
            if twice {
                return Err(field_err(
                    &format!("topology.graph.rails[{i}]"),
                    format!(
                        "node {} already has a link to switch {}: a node has at most one link to each switch",
                        r.node, r.switch
                    ),
                ));
            }
        }
        // Every node must reach every other: with one link per node the switches must form
        // one connected graph; with rails, every two nodes must have links into a common
        // connected part (an XGFT with w1 > 1 is w1 disjoint planes, each holding every
        // node).
        let n = self.switches as usize;
        let mut comp: Vec<usize> = (0..n).collect();
        fn find(p: &mut [usize], mut x: usize) -> usize {
            while p[x] != x {
                p[x] = p[p[x]];
                x = p[x];
            }
            x
        }
        for l in &self.links {
            let (a, b) = (find(&mut comp, l.a as usize), find(&mut comp, l.b as usize));
            comp[a] = b;
        }
        let mut parts: Vec<Vec<usize>> = self
            .hosts
            .iter()
            .map(|&h| vec![find(&mut comp, h as usize)])
            .collect();
        for r in &self.rails {
            let c = find(&mut comp, r.switch as usize);
            parts[r.node as usize].push(c);
        }
        for p in &mut parts {
            p.sort_unstable();
            p.dedup();
        }
        // A part every node has a link into settles it; otherwise every pair is checked.
        let mut count = vec![0usize; n];
        for p in &parts {
            for &c in p {
                count[c] += 1;
            }
        }
        if count.contains(&parts.len()) {
            return Ok(());
        }
        let meet = |a: &[usize], b: &[usize]| a.iter().any(|c| b.binary_search(c).is_ok());
        for i in 0..parts.len() {
            if let Some(j) = (i + 1..parts.len()).find(|&j| !meet(&parts[i], &parts[j])) {
                return Err(field_err(
                    "topology.graph.links",
                    format!(
                        "node {j} (on switch {}) cannot be reached from node {i} (on switch {}): connect the switches",
                        self.hosts[j], self.hosts[i]
                    ),
                ));
            }
        }
        Ok(())
    }
}
