//! `[nic]` and `[[flows]]`: the network interfaces of the general kernel and the explicit
//! flows they send (in addition to, or instead of, the synthetic traffic of `[traffic]`).

use super::field_err;
use crate::error::ConfigError;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NicConfig {
    /// Capacity of a NIC's injection queue in phits. A synthetic (Bernoulli) packet finding
    /// it full is not generated (counted as refused); a flow's message waits for room.
    pub queue: u32,
    /// One admittance queue per destination instead of one injection queue: the NIC sends
    /// the head of the first destination (round robin) that its switch can take, so that a
    /// destination whose packets cannot advance does not hold up the NIC's others (the RECN
    /// paper's NICs). `queue` bounds them all together.
    pub admittance: bool,
    /// Nodes with several links (rails): which rail a packet leaves on. Written only when
    /// not "least-loaded", so that the configurations of single-link networks read as before.
    #[serde(skip_serializing_if = "RailSelection::is_default")]
    pub rail_selection: RailSelection,
}

/// `nic.rail_selection`: how a node with several links to the network (an XGFT with
/// w1 > 1, a graph's `rails`) chooses the rail of each packet it sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RailSelection {
    /// Among the rails whose link is free and whose switch input can take the packet now,
    /// the one with the most room there (credits); ties round robin from the rail after
    /// the last one used.
    #[default]
    LeastLoaded,
    /// From the rail after the last one used, the first whose link is free and whose
    /// switch input can take the packet now.
    RoundRobin,
    /// Rail `d mod w` (d the destination node, w the node's rails), waited for: the level-0
    /// step of d-mod-k, so that on an XGFT every destination is reached through one down
    /// tree.
    DModK,
}

impl RailSelection {
    pub fn is_default(&self) -> bool {
        *self == RailSelection::default()
    }

    pub fn name(self) -> &'static str {
        match self {
            RailSelection::LeastLoaded => "least-loaded",
            RailSelection::RoundRobin => "round-robin",
            RailSelection::DModK => "d-mod-k",
        }
    }
}

impl Default for NicConfig {
    fn default() -> Self {
        NicConfig {
            queue: 1024,
            admittance: false,
            rail_selection: RailSelection::LeastLoaded,
        }
    }
}

impl NicConfig {
    pub fn is_default(&self) -> bool {
        *self == NicConfig::default()
    }

    pub fn validate(&self, packet_length: u32) -> Result<(), ConfigError> {
        if self.queue < packet_length {
            return Err(field_err(
                "nic.queue",
                format!(
                    "{} phits cannot hold one packet of {packet_length} phits: use at least {packet_length}",
                    self.queue
                ),
            ));
        }
        Ok(())
    }
}

/// One explicit flow: messages from `src` to `dst` at `rate`, from `start` until `stop`, or
/// until `size` phits have been sent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FlowSpec {
    pub src: u64,
    pub dst: u64,
    /// Offered rate in phits per cycle (a fraction of the link rate), in (0, 1]. 1 sends as
    /// fast as the NIC takes the messages (a greedy source; a node with w links, rails,
    /// takes up to w phits per cycle).
    pub rate: f64,
    /// Phits to send in all; 0: no limit (the flow runs until `stop` or the end of the run).
    pub size: u64,
    /// Cycle of the first message.
    pub start: u64,
    /// Cycle after which the flow sends no new message; 0: never stops.
    pub stop: u64,
    /// Message length in phits, cut into packets of `router.packet_length` (the last one
    /// shorter); 0: one packet per message.
    pub message: u32,
    /// Indices (in `[[flows]]`, from 0) of flows that must have completed (every phit of
    /// `size` delivered) before this one starts; its `start` then counts from the last of
    /// them.
    pub after: Vec<usize>,
}

impl Default for FlowSpec {
    fn default() -> Self {
        FlowSpec {
            src: 0,
            dst: 0,
            rate: 1.0,
            size: 0,
            start: 0,
            stop: 0,
            message: 0,
            after: Vec::new(),
        }
    }
}

/// Checks one flow against the number of nodes and the other flows.
pub fn validate_flows(flows: &[FlowSpec], nodes: u64) -> Result<(), ConfigError> {
    for (i, f) in flows.iter().enumerate() {
        let key = |k: &str| format!("flows[{i}].{k}");
        for (k, node) in [("src", f.src), ("dst", f.dst)] {
            if node >= nodes {
                return Err(field_err(
                    &key(k),
                    format!(
                        "node {node} does not exist: the network has {nodes} nodes, numbered 0..={}",
                        nodes.saturating_sub(1)
                    ),
                ));
            }
        }
        if f.src == f.dst {
            return Err(field_err(
                &key("dst"),
                format!("a flow from node {} to itself never enters the network: choose another destination", f.src),
            ));
        }
        if !(f.rate > 0.0 && f.rate <= 1.0) {
            return Err(field_err(
                &key("rate"),
                format!(
                    "{} is not allowed: a rate is a fraction of the link rate in (0, 1] phits per cycle",
                    f.rate
                ),
            ));
        }
        if f.stop != 0 && f.stop <= f.start {
            return Err(field_err(
                &key("stop"),
                format!(
                    "cycle {} is not after start = {}: the flow would send nothing (0 means never stop)",
                    f.stop, f.start
                ),
            ));
        }
        for &a in &f.after {
            if a >= flows.len() || a == i {
                return Err(field_err(
                    &key("after"),
                    format!(
                        "{a} names no other flow: flows are numbered 0..={} in the order of [[flows]]",
                        flows.len().saturating_sub(1)
                    ),
                ));
            }
            if flows[a].size == 0 {
                return Err(field_err(
                    &key("after"),
                    format!("flow {a} has no size, so it never completes: give flows[{a}].size"),
                ));
            }
        }
    }
    // A flow waiting for itself through others would never start.
    let mut state = vec![0u8; flows.len()];
    fn visit(i: usize, flows: &[FlowSpec], state: &mut [u8]) -> Option<usize> {
        if state[i] == 1 {
            return Some(i);
        }
        if state[i] == 2 {
            return None;
        }
        state[i] = 1;
        for &a in &flows[i].after {
            if let Some(c) = visit(a, flows, state) {
                return Some(c);
            }
        }
        state[i] = 2;
        None
    }
    for i in 0..flows.len() {
        if let Some(c) = visit(i, flows, &mut state) {
            return Err(field_err(
                &format!("flows[{c}].after"),
                "the flows wait for each other in a cycle, so none of them would ever start",
            ));
        }
    }
    Ok(())
}
