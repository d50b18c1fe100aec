//! Two-level real-life fat trees (RLFT): `leaves` leaf switches with `hosts` nodes each,
//! `roots` root switches and `parallel` links from every leaf to every root, so that a leaf
//! may be oversubscribed (hosts > roots · parallel). The canonical K-ary RLFT of the
//! InfiniBand adaptive-routing paper (§V) has 2K leaves of K nodes and K roots; its C2
//! (Fig. 3) has 4 leaves of 3 nodes and 2 roots (3:2 oversubscription), the "4L" variant 2
//! parallel links to each root. With `roots = 0` the two leaves are linked to each other
//! directly by `parallel` links: its C1 (Fig. 2).
//!
//! Leaves are switches 0..leaves, roots follow. A leaf's ports are its nodes, then its up
//! links in root order (the parallel links of one root together); a root's ports are its
//! down links in leaf order. Every link is of class `Local`, of latency
//! `topology.local_latency`.

use super::{Generated, Network, Topology};
use crate::config::{GraphConfig, GraphLink, RlftConfig};

#[derive(Debug, Clone)]
pub struct Rlft {
    pub cfg: RlftConfig,
    latency: u32,
    terminal_latency: u32,
}

impl Rlft {
    pub fn new(cfg: &RlftConfig, latency: u32, terminal_latency: u32) -> Rlft {
        Rlft {
            cfg: cfg.clone(),
            latency,
            terminal_latency,
        }
    }

    /// The K-ary RLFT: 2K leaves of K nodes, K roots.
    pub fn k_ary(k: u32) -> RlftConfig {
        RlftConfig {
            leaves: 2 * k,
            hosts: k,
            roots: k,
            parallel: 1,
        }
    }

    /// The InfiniBand paper's C1, C2 and C2 "4L".
    pub fn c1() -> RlftConfig {
        RlftConfig {
            leaves: 2,
            hosts: 3,
            roots: 0,
            parallel: 2,
        }
    }
    pub fn c2(parallel: u32) -> RlftConfig {
        RlftConfig {
            leaves: 4,
            hosts: 3,
            roots: 2,
            parallel,
        }
    }

    /// The wiring; d-mod-k takes up port d mod (roots · parallel) at a leaf (d-mod-m:
    /// floor(d / hosts) mod (roots · parallel)), and the parallel down link
    /// floor(d / (roots · parallel)) mod parallel at a root.
    pub fn generate(&self) -> Generated {
        let c = &self.cfg;
        let switches = c.leaves + c.roots;
        let hosts = (0..c.leaves * c.hosts).map(|d| d / c.hosts).collect();
        let mut links = Vec::new();
        let link = |a: u32, b: u32| GraphLink {
            a,
            b,
            class: "local".into(),
            latency: self.latency,
        };
        if c.roots == 0 {
            for _ in 0..c.parallel {
                links.push(link(0, 1));
            }
        } else {
            for l in 0..c.leaves {
                for r in 0..c.roots {
                    for _ in 0..c.parallel {
                        links.push(link(l, c.leaves + r));
                    }
                }
            }
        }
        let up = c.roots.max(1) * c.parallel;
        let mut divisor_k = vec![1; c.leaves as usize];
        let mut divisor_m = vec![c.hosts; c.leaves as usize];
        divisor_k.extend(std::iter::repeat_n(up, c.roots as usize));
        divisor_m.extend(std::iter::repeat_n(up, c.roots as usize));
        let mut level = vec![1; c.leaves as usize];
        level.extend(std::iter::repeat_n(2, c.roots as usize));
        Generated {
            graph: GraphConfig {
                switches,
                hosts,
                links,
                ..Default::default()
            },
            terminal_latency: self.terminal_latency,
            divisor_k,
            divisor_m,
            level,
            describe: format!(
                "two-level fat tree: {} leaves of {} nodes, {} roots, {} link{} per leaf-root pair",
                c.leaves,
                c.hosts,
                c.roots,
                c.parallel,
                if c.parallel == 1 { "" } else { "s" }
            ),
        }
    }
}

impl Topology for Rlft {
    fn describe(&self) -> String {
        self.generate().describe
    }
    fn network(&self) -> Network {
        self.generate().network()
    }
}
