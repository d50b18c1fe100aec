//! Bidirectional multistage networks (folded, fat-tree-like) of `radix`-port switches wired
//! as a perfect shuffle, as the RECN paper (Duato et al. 2005) simulates: 64, 256 and 512
//! nodes on 8-port switches in 3, 4 and 5 stages of N/4 switches.
//!
//! With h = radix / 2 and L = log2 N: node d attaches to stage-0 switch floor(d / h), port
//! d mod h. Lines between stages are labelled 0..N; the shuffle sigma rotates an L-bit label
//! left by log2 h bits. Up port h + j of stage-i switch s links to stage i+1, switch
//! floor(sigma(h·s + j) / h), down port sigma(h·s + j) mod h. The last stage's up ports are
//! not wired (the generator leaves them out, so its switches have h ports).
//!
//! Switches are numbered stage by stage. A switch's ports are its nodes or down links in
//! port order, then its up links in port order. Links are of class `Local`, of latency
//! `topology.local_latency`. d-mod-k here is the spec's destination-based turnaround
//! routing: at stage i going up, port j_i = d mod h at stage 0 and floor(d / 2^(L - i·log2 h))
//! mod h above; the top stage of 512 nodes, where two down ports reach d, takes the one
//! floor(d / 2) mod 2 gives.

use super::{Generated, Network, Topology};
use crate::config::{GraphConfig, GraphLink, MultistageConfig};

#[derive(Debug, Clone)]
pub struct Multistage {
    pub hosts: u32,
    pub radix: u32,
    latency: u32,
    terminal_latency: u32,
}

impl Multistage {
    pub fn new(cfg: &MultistageConfig, latency: u32, terminal_latency: u32) -> Multistage {
        Multistage {
            hosts: cfg.hosts,
            radix: cfg.radix,
            latency,
            terminal_latency,
        }
    }

    fn bits(&self) -> (u32, u32) {
        (
            self.hosts.trailing_zeros(),
            (self.radix / 2).trailing_zeros(),
        )
    }

    pub fn stages(&self) -> u32 {
        let (l, b) = self.bits();
        l.div_ceil(b)
    }

    pub fn per_stage(&self) -> u32 {
        self.hosts / (self.radix / 2)
    }

    /// The perfect shuffle of line `x`.
    pub fn sigma(&self, x: u32) -> u32 {
        let (l, b) = self.bits();
        ((x << b) | (x >> (l - b))) & (self.hosts - 1)
    }

    pub fn generate(&self) -> Generated {
        let half = self.radix / 2;
        let (l, b) = self.bits();
        let (n, per) = (self.stages(), self.per_stage());
        let hosts = (0..self.hosts).map(|d| d / half).collect();
        let mut links = Vec::new();
        for i in 0..n.saturating_sub(1) {
            // In order of the line they arrive on, so that the upper switch's down ports
            // come in port order; a lower switch's up ports are then in order too.
            let mut stage: Vec<(u32, GraphLink)> = (0..per)
                .flat_map(|s| (0..half).map(move |j| (s, j)))
                .map(|(s, j)| {
                    let to = self.sigma(half * s + j);
                    (
                        to,
                        GraphLink {
                            a: i * per + s,
                            b: (i + 1) * per + to / half,
                            class: "local".into(),
                            latency: self.latency,
                        },
                    )
                })
                .collect();
            stage.sort_by_key(|&(to, _)| to);
            links.extend(stage.into_iter().map(|(_, link)| link));
        }
        let mut divisor = Vec::with_capacity((n * per) as usize);
        let mut level = Vec::with_capacity((n * per) as usize);
        for i in 0..n {
            let d = if i == 0 { 1 } else { 1u32 << (l - b * i) };
            divisor.extend(std::iter::repeat_n(d, per as usize));
            level.extend(std::iter::repeat_n(i + 1, per as usize));
        }
        Generated {
            graph: GraphConfig {
                switches: n * per,
                hosts,
                links,
                ..Default::default()
            },
            terminal_latency: self.terminal_latency,
            divisor_m: divisor.clone(),
            divisor_k: divisor,
            level,
            describe: format!(
                "bidirectional multistage network (perfect shuffle): {} nodes, {} switches of {} ports in {n} stages",
                self.hosts,
                n * per,
                self.radix
            ),
        }
    }
}

impl Topology for Multistage {
    fn describe(&self) -> String {
        self.generate().describe
    }
    fn network(&self) -> Network {
        self.generate().network()
    }
}
