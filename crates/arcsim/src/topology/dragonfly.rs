//! Canonical dragonfly (Kim et al., ISCA 2008; the OFAR paper section 1): groups of `a` routers
//! with `p` terminals and `h` global links each; complete graphs inside a group and between
//! groups.
//!
//! Port layout of every router: `[0, p)` terminals, `[p, p+a-1)` local ports (port `p+j` goes
//! to the j-th other router of the group in index order), `[p+a-1, p+a-1+h)` global ports.
//! Global link `l` of a group (0..a*h) sits on router `l / h`, global port `l % h`.

use super::{Network, PortClass, PortInfo, Topology};
use crate::config::{GlobalArrangement, TopologyConfig};

#[derive(Debug, Clone)]
pub struct Dragonfly {
    pub p: usize,
    pub a: usize,
    pub h: usize,
    pub g: usize,
    pub arrangement: GlobalArrangement,
    pub local_latency: u32,
    pub global_latency: u32,
    pub terminal_latency: u32,
    /// `exit_port[i * a*h + l]`: the port router index i of any group takes towards global
    /// link `l` of its group (a global port of its own, or the local port to the router that
    /// holds it). Routing asks for it at every hop; indexed by link rather than by (router,
    /// target group) it is a*a*h bytes (864 at h = 6) instead of routers*g (64 KiB), and
    /// stays in the L1 cache.
    exit_port: std::sync::Arc<[u8]>,
    /// Group and index of every router (avoids a division per routing decision).
    router_group: std::sync::Arc<[u32]>,
}

impl Dragonfly {
    /// Build from a validated configuration.
    pub fn new(cfg: &TopologyConfig) -> Dragonfly {
        let mut d = Dragonfly {
            p: cfg.p,
            a: cfg.a,
            h: cfg.h,
            g: cfg.num_groups(),
            arrangement: cfg.arrangement,
            local_latency: cfg.local_latency,
            global_latency: cfg.global_latency,
            terminal_latency: cfg.terminal_latency,
            exit_port: std::sync::Arc::from(Vec::new()),
            router_group: std::sync::Arc::from(Vec::new()),
        };
        d.router_group = (0..d.num_routers()).map(|r| (r / d.a) as u32).collect();
        let links = d.a * d.h;
        let mut table = vec![u8::MAX; d.a * links];
        for ci in 0..d.a {
            for l in 0..links {
                let (ri, port) = d.global_link_port(l);
                table[ci * links + l] = if ri == ci { port } else { d.local_port(ci, ri) } as u8;
            }
        }
        d.exit_port = std::sync::Arc::from(table);
        d
    }

    /// Port of router `router` on the minimal path towards group `target` (≠ its group).
    #[inline]
    pub fn exit_port(&self, router: usize, target: usize) -> usize {
        let (cg, ci) = (self.group_of(router), self.index_in_group(router));
        self.exit_port[ci * self.a * self.h + self.global_link_to(cg, target)] as usize
    }

    pub fn num_routers(&self) -> usize {
        self.a * self.g
    }
    pub fn num_nodes(&self) -> usize {
        self.p * self.a * self.g
    }
    pub fn radix(&self) -> usize {
        self.p + self.a - 1 + self.h
    }
    #[inline]
    pub fn group_of(&self, router: usize) -> usize {
        if self.router_group.is_empty() {
            router / self.a
        } else {
            self.router_group[router] as usize
        }
    }
    #[inline]
    pub fn index_in_group(&self, router: usize) -> usize {
        router - self.group_of(router) * self.a
    }
    #[inline]
    pub fn router_of_node(&self, node: usize) -> usize {
        node / self.p
    }
    #[inline]
    pub fn first_local_port(&self) -> usize {
        self.p
    }
    #[inline]
    pub fn first_global_port(&self) -> usize {
        self.p + self.a - 1
    }
    /// Local port of router index `from` that leads to router index `to` (same group).
    #[inline]
    pub fn local_port(&self, from: usize, to: usize) -> usize {
        debug_assert_ne!(from, to);
        self.p + if to < from { to } else { to - 1 }
    }
    /// Router index reached through local port `port` of router index `from`.
    #[inline]
    pub fn local_peer(&self, from: usize, port: usize) -> usize {
        let j = port - self.p;
        if j < from {
            j
        } else {
            j + 1
        }
    }
    /// Usable global links per group: a*h when g = a*h+1, otherwise a whole number of rounds
    /// over the g-1 other groups (the remaining ports stay unwired).
    pub fn usable_global_links(&self) -> usize {
        let others = self.g - 1;
        (self.a * self.h / others) * others
    }

    /// Group reached by global link `link` of `group`, and the link index at the far end.
    pub fn global_link_target(&self, group: usize, link: usize) -> Option<(usize, usize)> {
        if link >= self.usable_global_links() {
            return None;
        }
        let others = self.g - 1;
        let (round, off) = (link / others, link % others);
        match self.arrangement {
            GlobalArrangement::PalmTree => {
                let target = (group + self.g - off - 1) % self.g;
                let mate = round * others + (others - 1 - off);
                Some((target, mate))
            }
            GlobalArrangement::Consecutive => {
                let target = if off < group { off } else { off + 1 };
                let back = if group < target { group } else { group - 1 };
                Some((target, round * others + back))
            }
        }
    }

    /// The (first) global link of `group` that leads to `target` (≠ group).
    #[inline]
    pub fn global_link_to(&self, group: usize, target: usize) -> usize {
        debug_assert_ne!(group, target);
        match self.arrangement {
            GlobalArrangement::PalmTree => {
                // (group - target - 1) mod g without a division: both are below g.
                let l = group + self.g - target - 1;
                if l >= self.g {
                    l - self.g
                } else {
                    l
                }
            }
            GlobalArrangement::Consecutive => {
                if target < group {
                    target
                } else {
                    target - 1
                }
            }
        }
    }

    /// (router index in group, port) that holds global link `link`.
    #[inline]
    pub fn global_link_port(&self, link: usize) -> (usize, usize) {
        (link / self.h, self.first_global_port() + link % self.h)
    }
}

impl Topology for Dragonfly {
    fn describe(&self) -> String {
        format!(
            "dragonfly p={} a={} h={} g={} ({} routers, {} nodes, {:?} global arrangement)",
            self.p,
            self.a,
            self.h,
            self.g,
            self.num_routers(),
            self.num_nodes(),
            self.arrangement
        )
    }

    fn network(&self) -> Network {
        let radix = self.radix();
        let routers = self.num_routers();
        let mut ports = Vec::with_capacity(routers * radix);
        let mut port_base = Vec::with_capacity(routers + 1);
        let mut attach = vec![(0u32, 0u16); self.num_nodes()];
        for r in 0..routers {
            port_base.push(ports.len() as u32);
            let (grp, idx) = (self.group_of(r), self.index_in_group(r));
            for t in 0..self.p {
                let node = r * self.p + t;
                attach[node] = (r as u32, t as u16);
                ports.push(PortInfo {
                    class: PortClass::Terminal,
                    peer: node as u32,
                    peer_port: 0,
                    latency: self.terminal_latency,
                });
            }
            for j in 0..self.a - 1 {
                let peer_idx = self.local_peer(idx, self.p + j);
                ports.push(PortInfo {
                    class: PortClass::Local,
                    peer: (grp * self.a + peer_idx) as u32,
                    peer_port: self.local_port(peer_idx, idx) as u16,
                    latency: self.local_latency,
                });
            }
            for k in 0..self.h {
                let link = idx * self.h + k;
                ports.push(match self.global_link_target(grp, link) {
                    Some((tg, mate)) => {
                        let (mr, mp) = self.global_link_port(mate);
                        PortInfo {
                            class: PortClass::Global,
                            peer: (tg * self.a + mr) as u32,
                            peer_port: mp as u16,
                            latency: self.global_latency,
                        }
                    }
                    None => PortInfo {
                        class: PortClass::Unused,
                        peer: u32::MAX,
                        peer_port: 0,
                        latency: 1,
                    },
                });
            }
        }
        port_base.push(ports.len() as u32);
        Network {
            port_base,
            ports,
            attach,
            rail_base: Vec::new(),
            rails: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn df(p: usize, a: usize, h: usize, g: usize, arr: GlobalArrangement) -> Dragonfly {
        let cfg = TopologyConfig {
            p,
            a,
            h,
            groups: g,
            arrangement: arr,
            ..TopologyConfig::default()
        };
        Dragonfly::new(&cfg)
    }

    #[test]
    fn wiring_is_symmetric_and_complete() {
        for arr in [GlobalArrangement::PalmTree, GlobalArrangement::Consecutive] {
            for (p, a, h, g) in [
                (2, 4, 2, 0),
                (6, 12, 6, 0),
                (3, 6, 3, 10),
                (1, 3, 2, 4),
                (2, 4, 2, 5),
            ] {
                let d = df(p, a, h, g, arr);
                let net = d.network();
                net.check_wiring().unwrap();
                // every pair of distinct groups is joined by at least one global link
                for s in 0..d.g {
                    for t in 0..d.g {
                        if s == t {
                            continue;
                        }
                        let l = d.global_link_to(s, t);
                        assert_eq!(
                            d.global_link_target(s, l).map(|x| x.0),
                            Some(t),
                            "{arr:?} g={} {s}->{t}",
                            d.g
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn exit_port_leads_to_the_target_group_in_at_most_two_hops() {
        // Every router reaches every other group by its exit port: a global port straight
        // there, or a local port to the router of its group that has one.
        for arr in [GlobalArrangement::PalmTree, GlobalArrangement::Consecutive] {
            for (p, a, h, g) in [(2, 4, 2, 0), (3, 6, 3, 0), (3, 6, 3, 10), (2, 4, 2, 5)] {
                let d = df(p, a, h, g, arr);
                let net = d.network();
                for r in 0..d.num_routers() {
                    for t in (0..d.g).filter(|&t| t != d.group_of(r)) {
                        let mut at = r;
                        for _ in 0..2 {
                            if d.group_of(at) == t {
                                break;
                            }
                            at = net.port(at, d.exit_port(at, t)).peer as usize;
                        }
                        assert_eq!(
                            d.group_of(at),
                            t,
                            "{arr:?} g={} router {r} -> group {t}",
                            d.g
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn palm_tree_matches_ring_a_assumption() {
        // The OFAR paper 3.3.2: R_0 of group j is linked to R_{a-1} of group j-1.
        let d = df(6, 12, 6, 0, GlobalArrangement::PalmTree);
        let net = d.network();
        for j in 0..d.g {
            let r0 = j * d.a;
            let info = net.port(r0, d.first_global_port());
            let prev = (j + d.g - 1) % d.g;
            assert_eq!(info.peer as usize, prev * d.a + d.a - 1);
        }
    }
}
