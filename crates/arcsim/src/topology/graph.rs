//! A network given switch by switch and link by link ([`crate::config::GraphConfig`]): any
//! number of switches, nodes on any switch, parallel links. Each switch's ports are its
//! nodes first (in node order), then its links in the order the configuration lists them.

use super::{Network, PortClass, PortInfo, Topology};
use crate::config::GraphConfig;

#[derive(Debug, Clone)]
pub struct Graph {
    cfg: GraphConfig,
    /// Latency of the node links (both directions).
    terminal_latency: u32,
}

impl Graph {
    pub fn new(cfg: &GraphConfig, terminal_latency: u32) -> Graph {
        Graph {
            cfg: cfg.clone(),
            terminal_latency,
        }
    }

    pub fn num_switches(&self) -> usize {
        self.cfg.switches as usize
    }

    pub fn num_nodes(&self) -> usize {
        self.cfg.hosts.len()
    }
}

impl Topology for Graph {
    fn describe(&self) -> String {
        let rails = if self.cfg.rails.is_empty() {
            String::new()
        } else {
            format!(" ({} further node links)", self.cfg.rails.len())
        };
        format!(
            "graph of {} switches, {} nodes{rails}, {} links",
            self.cfg.switches,
            self.cfg.hosts.len(),
            self.cfg.links.len()
        )
    }

    fn network(&self) -> Network {
        let radix = self.cfg.radix();
        let mut port_base = Vec::with_capacity(radix.len() + 1);
        let mut total = 0u32;
        for &r in &radix {
            port_base.push(total);
            total += r as u32;
        }
        port_base.push(total);
        let unused = PortInfo {
            class: PortClass::Unused,
            peer: 0,
            peer_port: 0,
            latency: 1,
        };
        let mut ports = vec![unused; total as usize];
        let mut next: Vec<u32> = vec![0; radix.len()];
        // Node links in node order, each node's rails in rail order: `hosts[n]`, then its
        // `rails` entries as listed.
        let mut links: Vec<Vec<(u32, u16)>> =
            self.cfg.hosts.iter().map(|&s| vec![(s, 0u16)]).collect();
        for r in &self.cfg.rails {
            links[r.node as usize].push((r.switch, 0));
        }
        for (node, l) in links.iter_mut().enumerate() {
            for (s, port) in l.iter_mut() {
                let p = next[*s as usize];
                next[*s as usize] += 1;
                ports[(port_base[*s as usize] + p) as usize] = PortInfo {
                    class: PortClass::Terminal,
                    peer: node as u32,
                    peer_port: 0,
                    latency: self.terminal_latency,
                };
                *port = p as u16;
            }
        }
        for l in &self.cfg.links {
            let (pa, pb) = (next[l.a as usize], next[l.b as usize]);
            next[l.a as usize] += 1;
            next[l.b as usize] += 1;
            let class = if l.class == "global" {
                PortClass::Global
            } else {
                PortClass::Local
            };
            ports[(port_base[l.a as usize] + pa) as usize] = PortInfo {
                class,
                peer: l.b,
                peer_port: pb as u16,
                latency: l.latency,
            };
            ports[(port_base[l.b as usize] + pb) as usize] = PortInfo {
                class,
                peer: l.a,
                peer_port: pa as u16,
                latency: l.latency,
            };
        }
        let mut net = Network {
            port_base,
            ports,
            attach: Vec::new(),
            rail_base: Vec::new(),
            rails: Vec::new(),
        };
        net.set_node_links(links);
        net
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::GraphLink;

    fn link(a: u32, b: u32) -> GraphLink {
        GraphLink {
            a,
            b,
            class: "local".into(),
            latency: 3,
        }
    }

    #[test]
    fn wiring_is_symmetric_with_parallel_links() {
        let cfg = GraphConfig {
            switches: 3,
            hosts: vec![0, 0, 1, 2, 2],
            links: vec![link(0, 1), link(0, 1), link(1, 2)],
            ..Default::default()
        };
        cfg.validate().unwrap();
        let net = Graph::new(&cfg, 1).network();
        net.check_wiring().unwrap();
        assert_eq!(net.num_routers(), 3);
        assert_eq!(net.num_terminals(), 5);
        assert_eq!(net.radix(0), 4);
        assert_eq!(net.radix(1), 4);
        assert_eq!(net.radix(2), 3);
        // Node 2 is the first port of switch 1; its two links to switch 0 follow it.
        assert_eq!(net.attach[2], (1, 0));
        assert_eq!(net.port(1, 1).peer, 0);
        assert_eq!(net.port(1, 2).peer, 0);
        assert_eq!(net.port(1, 3).peer, 2);
        assert_eq!(net.port(0, 2).latency, 3);
    }

    #[test]
    fn rails_take_ports_in_node_order_and_every_two_nodes_must_share_a_part() {
        use crate::config::GraphRail;
        let rail = |node, switch| GraphRail { node, switch };
        // Three switches, no links: node 0 on 0 and 1, node 1 on 1 and 2, node 2 on 2 and 0.
        // No switch has every node, but every two nodes share one.
        let mut cfg = GraphConfig {
            switches: 3,
            hosts: vec![0, 1, 2],
            rails: vec![rail(0, 1), rail(1, 2), rail(2, 0)],
            ..Default::default()
        };
        cfg.validate().unwrap();
        let net = Graph::new(&cfg, 1).network();
        net.check_wiring().unwrap();
        assert!(net.multi_rail());
        assert_eq!(net.attach, vec![(0, 0), (1, 1), (2, 1)]);
        // Switch 0's ports: node 0, then node 2 (node order); switch 1's: node 0, node 1.
        assert_eq!(net.node_links(0), &[(0, 0), (1, 0)]);
        assert_eq!(net.node_links(2), &[(2, 1), (0, 1)]);
        assert_eq!(net.port_to_node(1, 1), Some(1));
        assert_eq!(net.port_to_node(1, 2), None);
        // A fourth node on switch 0 alone shares nothing with node 1 (switches 1 and 2).
        cfg.hosts.push(0);
        let e = cfg.validate().unwrap_err().to_string();
        assert!(e.contains("node 3") && e.contains("node 1"), "{e}");
        // Without rails the network keeps one lookup per node.
        let plain = Graph::new(
            &GraphConfig {
                switches: 1,
                hosts: vec![0, 0],
                ..Default::default()
            },
            1,
        )
        .network();
        assert!(!plain.multi_rail());
        assert_eq!(plain.node_links(1), &[(0, 1)]);
    }

    #[test]
    fn a_disconnected_graph_is_refused() {
        let cfg = GraphConfig {
            switches: 3,
            hosts: vec![0, 2],
            links: vec![link(0, 1)],
            ..Default::default()
        };
        let e = cfg.validate().unwrap_err().to_string();
        assert!(e.contains("cannot be reached"), "{e}");
    }
}
