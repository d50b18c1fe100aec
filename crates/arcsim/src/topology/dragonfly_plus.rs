//! Dragonfly+ (Shpiner, Haramaty, Eliad, Zdornov, Gafni and Zahavi 2017): `groups` groups,
//! each a two-level fat tree of `leaves` leaf switches with `hosts` nodes each and `spines`
//! spine switches (every leaf linked to every spine); every spine has `global` links to
//! spines of other groups. With the most groups, spines · global + 1, every pair of groups
//! is joined by one global link; with fewer, by floor(spines · global / (groups − 1)) and
//! the remaining global ports are not wired.
//!
//! Global link l of group G (on spine floor(l / global)) goes to the (l mod (groups − 1))-th
//! other group in increasing order, to its link of the same round floor(l / (groups − 1))
//! that points back to G. Switches are numbered group by group, leaves first; a leaf's ports
//! are its nodes, then its spines in order; a spine's ports its leaves, then its global
//! links. Leaf-spine links are of class `Local` (`topology.local_latency`),
//! spine-spine links of class `Global` (`topology.global_latency`).
//!
//! Shortest paths go leaf, spine, (global link, spine,) leaf: up, across, down, which cannot
//! wait on each other in a cycle, so one VC is enough.

use super::{Generated, Network, Topology};
use crate::config::{DragonflyPlusConfig, GraphConfig, GraphLink};

#[derive(Debug, Clone)]
pub struct DragonflyPlus {
    pub cfg: DragonflyPlusConfig,
    local_latency: u32,
    global_latency: u32,
    terminal_latency: u32,
}

impl DragonflyPlus {
    pub fn new(
        cfg: &DragonflyPlusConfig,
        local_latency: u32,
        global_latency: u32,
        terminal_latency: u32,
    ) -> DragonflyPlus {
        DragonflyPlus {
            cfg: cfg.clone(),
            local_latency,
            global_latency,
            terminal_latency,
        }
    }

    pub fn groups(&self) -> u32 {
        self.cfg.num_groups()
    }

    pub fn generate(&self) -> Generated {
        let c = &self.cfg;
        let g = self.groups();
        let per = c.leaves + c.spines;
        let hosts = (0..g * c.leaves * c.hosts)
            .map(|d| {
                let leaf = d / c.hosts;
                (leaf / c.leaves) * per + leaf % c.leaves
            })
            .collect();
        let mut links = Vec::new();
        for grp in 0..g {
            for l in 0..c.leaves {
                for s in 0..c.spines {
                    links.push(GraphLink {
                        a: grp * per + l,
                        b: grp * per + c.leaves + s,
                        class: "local".into(),
                        latency: self.local_latency,
                    });
                }
            }
        }
        // Global links, each once (listed from its lower group).
        let rounds = c.spines * c.global / (g - 1);
        let mut global = Vec::new();
        for grp in 0..g {
            for l in 0..rounds * (g - 1) {
                let (k, r) = (l % (g - 1), l / (g - 1));
                let t = if k < grp { k } else { k + 1 };
                if t < grp {
                    continue;
                }
                let back = if grp < t { grp } else { grp - 1 };
                let lt = r * (g - 1) + back;
                global.push(((grp, l), (t, lt)));
            }
        }
        for ((a, la), (b, lb)) in global {
            links.push(GraphLink {
                a: a * per + c.leaves + la / c.global,
                b: b * per + c.leaves + lb / c.global,
                class: "global".into(),
                latency: self.global_latency,
            });
        }
        let switches = g * per;
        let level = (0..switches)
            .map(|s| if s % per < c.leaves { 1 } else { 2 })
            .collect();
        Generated {
            graph: GraphConfig {
                switches,
                hosts,
                links,
                ..Default::default()
            },
            terminal_latency: self.terminal_latency,
            divisor_k: vec![1; switches as usize],
            divisor_m: vec![1; switches as usize],
            level,
            describe: format!(
                "Dragonfly+: {g} groups of {} leaves ({} nodes each) and {} spines ({} global links each), {} nodes",
                c.leaves,
                c.hosts,
                c.spines,
                c.global,
                g * c.leaves * c.hosts
            ),
        }
    }
}

impl Topology for DragonflyPlus {
    fn describe(&self) -> String {
        self.generate().describe
    }
    fn network(&self) -> Network {
        self.generate().network()
    }
}
