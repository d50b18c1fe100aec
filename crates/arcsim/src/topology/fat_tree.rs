//! Extended generalized fat trees, XGFT(h; m1..mh; w1..wh) (Öhring, Ibel, Das and Kumar
//! 1995), and the k-ary n-tree (Petrini and Vanneschi 1997) as the XGFT(n; k..k; 1, k..k).
//!
//! Level 0 holds the nodes, levels 1..h the switches. A vertex of level i is the tuple
//! (x_h .. x_(i+1), y_i .. y_1) with x_j < m_j and y_j < w_j; it links to the vertices of
//! level i+1 that drop x_(i+1) and add any y_(i+1): m_(i+1) children below, w_(i+1) parents
//! above. Here a vertex of level i is numbered `X · W_i + Y`, X the x digits (x_(i+1)
//! lowest) and Y the y digits (y_1 lowest), W_i = w_1 ·· w_i.
//!
//! Switches are numbered level by level from the leaves (level 1) up. With w_1 > 1 a node
//! has w_1 links (rails), one to each of its parents. Every link is of
//! class `Local` (the up and down directions of a link are its two ports: a switch's ports
//! are its nodes, then its links down in child order, then its links up in order of
//! y_(i+1)); its latency is `topology.local_latency`.

use super::{Generated, Network, Topology};
use crate::config::{GraphConfig, GraphLink};

#[derive(Debug, Clone)]
pub struct Xgft {
    pub m: Vec<u32>,
    pub w: Vec<u32>,
    latency: u32,
    terminal_latency: u32,
    name: String,
}

impl Xgft {
    pub fn new(m: &[u32], w: &[u32], latency: u32, terminal_latency: u32) -> Xgft {
        let list = |v: &[u32]| {
            v.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(",")
        };
        Xgft {
            m: m.to_vec(),
            w: w.to_vec(),
            latency,
            terminal_latency,
            name: format!("XGFT({}; {}; {})", m.len(), list(m), list(w)),
        }
    }

    /// The k-ary n-tree.
    pub fn kary_ntree(k: u32, n: u32, latency: u32, terminal_latency: u32) -> Xgft {
        let mut w = vec![k; n as usize];
        w[0] = 1;
        let mut t = Xgft::new(&vec![k; n as usize], &w, latency, terminal_latency);
        t.name = format!("{k}-ary {n}-tree");
        t
    }

    pub fn height(&self) -> usize {
        self.m.len()
    }

    /// Vertices of level i (0: nodes).
    pub fn level_size(&self, i: usize) -> u64 {
        let x: u64 = self.m[i..].iter().map(|&v| v as u64).product();
        let y: u64 = self.w[..i].iter().map(|&v| v as u64).product();
        x * y
    }

    /// W_i = w_1 ·· w_i.
    fn w_prod(&self, i: usize) -> u64 {
        self.w[..i].iter().map(|&v| v as u64).product()
    }

    /// The `y`-th parent (y < w_(i+1)) of vertex `v` of level i, as an index in level i+1.
    pub fn parent(&self, i: usize, v: u64, y: u32) -> u64 {
        let wi = self.w_prod(i);
        let (x, yy) = (v / wi, v % wi);
        (x / self.m[i] as u64) * (wi * self.w[i] as u64) + yy + wi * y as u64
    }

    /// Links between levels i and i+1, for i = 0..h-1 (level 0 to 1: node links).
    pub fn links_between(&self, i: usize) -> u64 {
        self.level_size(i) * self.w[i] as u64
    }

    /// Ancestors of vertex `v` of level i at level j >= i.
    pub fn ancestors(&self, i: usize, v: u64, j: usize) -> Vec<u64> {
        let mut set = vec![v];
        for l in i..j {
            let mut next: Vec<u64> = set
                .iter()
                .flat_map(|&u| (0..self.w[l]).map(move |y| (u, y)))
                .map(|(u, y)| self.parent(l, u, y))
                .collect();
            next.sort_unstable();
            next.dedup();
            set = next;
        }
        set
    }

    /// First switch number of level i (i >= 1).
    fn switch_base(&self, i: usize) -> u64 {
        (1..i).map(|l| self.level_size(l)).sum()
    }

    /// The wiring as a graph, and the divisors of d-mod-k and d-mod-m for each switch: at a
    /// switch of level i, the up port is floor(d / (w_1 ·· w_i)) mod w_(i+1) (d-mod-k) or
    /// floor(d / (m_1 ·· m_i)) mod w_(i+1) (d-mod-m). With w_1 > 1 every node has w_1
    /// links (rails), to the leaves (x_h .. x_2, y_1) for each y_1: node d's first link is
    /// `hosts[d]`, the others `rails` in order of y_1.
    pub fn generate(&self) -> Generated {
        let h = self.height();
        let switches: u64 = (1..=h).map(|l| self.level_size(l)).sum();
        let nodes = self.level_size(0);
        let hosts: Vec<u32> = (0..nodes).map(|d| self.parent(0, d, 0) as u32).collect();
        let rails = (0..nodes)
            .flat_map(|d| {
                (1..self.w[0]).map(move |y| crate::config::GraphRail {
                    node: d as u32,
                    switch: self.parent(0, d, y) as u32,
                })
            })
            .collect();
        let mut links = Vec::new();
        for i in 1..h {
            let base = self.switch_base(i);
            let up = self.switch_base(i + 1);
            for v in 0..self.level_size(i) {
                for y in 0..self.w[i] {
                    links.push(GraphLink {
                        a: (base + v) as u32,
                        b: (up + self.parent(i, v, y)) as u32,
                        class: "local".into(),
                        latency: self.latency,
                    });
                }
            }
        }
        let mut divisor_k = Vec::with_capacity(switches as usize);
        let mut divisor_m = Vec::with_capacity(switches as usize);
        let mut level = Vec::with_capacity(switches as usize);
        for i in 1..=h {
            let dk = self.w_prod(i).min(u32::MAX as u64) as u32;
            let dm: u64 = self.m[..i].iter().map(|&v| v as u64).product();
            for _ in 0..self.level_size(i) {
                divisor_k.push(dk);
                divisor_m.push(dm.min(u32::MAX as u64) as u32);
                level.push(i as u32);
            }
        }
        Generated {
            graph: GraphConfig {
                switches: switches as u32,
                hosts,
                links,
                rails,
                ..Default::default()
            },
            terminal_latency: self.terminal_latency,
            divisor_k,
            divisor_m,
            level,
            describe: format!(
                "{}: {nodes} nodes, {switches} switches in {h} levels",
                self.name
            ),
        }
    }
}

impl Topology for Xgft {
    fn describe(&self) -> String {
        self.generate().describe
    }
    fn network(&self) -> Network {
        self.generate().network()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parents_of_a_3_ary_2_tree() {
        let t = Xgft::kary_ntree(3, 2, 1, 1);
        assert_eq!(t.level_size(1), 3);
        assert_eq!(t.level_size(2), 3);
        // Every leaf links to every root.
        for v in 0..3 {
            let mut p: Vec<u64> = (0..3).map(|y| t.parent(1, v, y)).collect();
            p.sort_unstable();
            assert_eq!(p, vec![0, 1, 2]);
        }
    }
}
