//! Topologies. A [`Topology`] describes its wiring once, as a [`Network`]: flat tables of
//! routers, ports and links that the engine simulates without knowing the topology. Routing
//! algorithms that need the structure (groups, levels) keep a reference to the concrete
//! topology type instead. Generated topologies (fat trees, XGFTs, real-life fat trees,
//! multistage networks) are built as graphs ([`Generated`]).

pub mod dragonfly;
pub mod dragonfly_plus;
pub mod escape;
pub mod fat_tree;
pub mod graph;
pub mod multistage;
pub mod rlft;

pub use dragonfly::Dragonfly;
pub use dragonfly_plus::DragonflyPlus;
pub use fat_tree::Xgft;
pub use graph::Graph;
pub use multistage::Multistage;
pub use rlft::Rlft;

/// A topology a generator builds (fat trees, XGFTs, real-life fat trees, multistage
/// networks): its switches, nodes and links as a [`crate::config::GraphConfig`], and what
/// table routing needs to know of its structure.
#[derive(Debug, Clone)]
pub struct Generated {
    pub graph: crate::config::GraphConfig,
    pub terminal_latency: u32,
    /// Per switch, the divisor of destination-based table routing: the switch takes the
    /// port `floor(d / divisor) mod n` of the `n` ports on shortest paths to node `d`
    /// (d-mod-k; s-mod-k with the source), and with `divisor_m` (d-mod-m, s-mod-m).
    pub divisor_k: Vec<u32>,
    pub divisor_m: Vec<u32>,
    /// Per switch, its level (leaves, or the first stage, 1).
    pub level: Vec<u32>,
    pub describe: String,
}

impl Generated {
    pub fn network(&self) -> Network {
        Graph::new(&self.graph, self.terminal_latency).network()
    }
}

/// The generated topology a configuration names, or None for the dragonfly and the graph.
/// The configuration must have been validated.
pub fn generated(cfg: &crate::config::TopologyConfig) -> Option<Generated> {
    use crate::config::TopologyKind as K;
    let (lat, term) = (cfg.local_latency, cfg.terminal_latency);
    Some(match cfg.kind {
        K::Dragonfly | K::Graph => return None,
        K::Tree => Xgft::kary_ntree(cfg.tree.k, cfg.tree.n, lat, term).generate(),
        K::Xgft => Xgft::new(&cfg.xgft.m, &cfg.xgft.w, lat, term).generate(),
        K::Rlft => Rlft::new(&cfg.rlft, lat, term).generate(),
        K::Multistage => Multistage::new(&cfg.multistage, lat, term).generate(),
        K::DragonflyPlus => {
            DragonflyPlus::new(&cfg.dragonfly_plus, lat, cfg.global_latency, term).generate()
        }
    })
}

/// What a port connects to; decides buffer size, VC count and latency class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PortClass {
    /// Attached to a terminal: input = injection queue, output = ejection.
    Terminal,
    /// Link between routers of the same group.
    Local,
    /// Link between groups.
    Global,
    /// Not wired (e.g. spare global ports when there are fewer than a*h+1 groups).
    Unused,
}

/// One port of one router. For `Terminal` ports, `peer` is the terminal (node) id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PortInfo {
    pub class: PortClass,
    pub peer: u32,
    pub peer_port: u16,
    /// Cycles from the first phit leaving this output to its arrival at the peer.
    pub latency: u32,
}

/// The wiring of a whole network as the engine sees it.
#[derive(Debug, Clone)]
pub struct Network {
    /// `port_base[r]..port_base[r+1]` are router r's ports in `ports`.
    pub port_base: Vec<u32>,
    pub ports: Vec<PortInfo>,
    /// For every terminal, the router and port it attaches to (its first link, where it
    /// has several).
    pub attach: Vec<(u32, u16)>,
    /// Nodes with several links to the network ("rails": an XGFT with w1 > 1, a graph's
    /// `rails`): node n's links are `rails[rail_base[n]..rail_base[n + 1]]`, the first
    /// being `attach[n]`. Both empty when every node has one link, so that single-link
    /// networks keep their one lookup.
    pub rail_base: Vec<u32>,
    pub rails: Vec<(u32, u16)>,
}

impl Network {
    pub fn num_routers(&self) -> usize {
        self.port_base.len() - 1
    }
    pub fn num_terminals(&self) -> usize {
        self.attach.len()
    }

    /// Switch-to-switch distances in hops over the switch links, `[a * switches + b]`
    /// (links are symmetric, so the matrix is too), by breadth-first search from every
    /// switch; `u32::MAX`: not reachable (another plane).
    pub fn hop_distances(&self) -> Vec<u32> {
        let n = self.num_routers();
        let mut dist = vec![u32::MAX; n * n];
        let mut queue = std::collections::VecDeque::with_capacity(n);
        for from in 0..n {
            let row = &mut dist[from * n..(from + 1) * n];
            row[from] = 0;
            queue.clear();
            queue.push_back(from);
            while let Some(s) = queue.pop_front() {
                for p in 0..self.radix(s) {
                    let info = self.port(s, p);
                    if matches!(info.class, PortClass::Local | PortClass::Global)
                        && row[info.peer as usize] == u32::MAX
                    {
                        row[info.peer as usize] = row[s] + 1;
                        queue.push_back(info.peer as usize);
                    }
                }
            }
        }
        dist
    }
    pub fn radix(&self, router: usize) -> usize {
        (self.port_base[router + 1] - self.port_base[router]) as usize
    }
    pub fn port(&self, router: usize, port: usize) -> &PortInfo {
        &self.ports[self.port_base[router] as usize + port]
    }

    /// Whether some node has several links to the network.
    #[inline]
    pub fn multi_rail(&self) -> bool {
        !self.rail_base.is_empty()
    }

    /// Node `n`'s links (rails), each its switch and port there: rail 0 is `attach[n]`.
    #[inline]
    pub fn node_links(&self, n: usize) -> &[(u32, u16)] {
        if self.rail_base.is_empty() {
            std::slice::from_ref(&self.attach[n])
        } else {
            &self.rails[self.rail_base[n] as usize..self.rail_base[n + 1] as usize]
        }
    }

    /// Every node link of the network (every node's rails, node by node).
    pub fn all_node_links(&self) -> &[(u32, u16)] {
        if self.rail_base.is_empty() {
            &self.attach
        } else {
            &self.rails
        }
    }

    /// The port of switch `s` that leads to node `n`, if `n` has a link there (a node has
    /// at most one link to each switch).
    #[inline]
    pub fn port_to_node(&self, s: usize, n: usize) -> Option<u16> {
        let (sw, port) = self.attach[n];
        if sw as usize == s {
            return Some(port);
        }
        self.other_port_to_node(s, n)
    }

    #[inline(never)]
    fn other_port_to_node(&self, s: usize, n: usize) -> Option<u16> {
        self.node_links(n)
            .iter()
            .find(|&&(sw, _)| sw as usize == s)
            .map(|&(_, p)| p)
    }

    /// Give the nodes the links `links[n]` (each node's first link is `attach[n]`): fills
    /// `rail_base` and `rails` when some node has more than one.
    pub fn set_node_links(&mut self, links: Vec<Vec<(u32, u16)>>) {
        self.attach = links.iter().map(|l| l[0]).collect();
        if links.iter().all(|l| l.len() == 1) {
            self.rail_base = Vec::new();
            self.rails = Vec::new();
            return;
        }
        self.rail_base = Vec::with_capacity(links.len() + 1);
        self.rails = Vec::new();
        for l in &links {
            self.rail_base.push(self.rails.len() as u32);
            self.rails.extend_from_slice(l);
        }
        self.rail_base.push(self.rails.len() as u32);
    }

    /// Check that every link is symmetric and every terminal attaches where it says. A
    /// topology that fails this is a bug in the topology, not a user error.
    pub fn check_wiring(&self) -> Result<(), String> {
        for r in 0..self.num_routers() {
            for p in 0..self.radix(r) {
                let info = self.port(r, p);
                match info.class {
                    PortClass::Local | PortClass::Global => {
                        let peer = self.port(info.peer as usize, info.peer_port as usize);
                        if peer.peer as usize != r
                            || peer.peer_port as usize != p
                            || peer.class != info.class
                        {
                            return Err(format!(
                                "router {r} port {p} -> router {} port {} is not symmetric",
                                info.peer, info.peer_port
                            ));
                        }
                    }
                    PortClass::Terminal => {
                        if !self
                            .node_links(info.peer as usize)
                            .contains(&(r as u32, p as u16))
                        {
                            return Err(format!(
                                "terminal {} attach mismatch at router {r} port {p}",
                                info.peer
                            ));
                        }
                    }
                    PortClass::Unused => {}
                }
            }
        }
        Ok(())
    }
}

/// The topology a configuration describes, as a run's summary names it.
pub fn describe(cfg: &crate::config::TopologyConfig) -> String {
    match cfg.kind {
        crate::config::TopologyKind::Dragonfly => Dragonfly::new(cfg).describe(),
        crate::config::TopologyKind::Graph => match cfg.graph() {
            Ok(g) => Graph::new(&g, cfg.terminal_latency).describe(),
            Err(_) => "graph".into(),
        },
        _ => generated(cfg).map(|g| g.describe).unwrap_or_default(),
    }
}

/// A network topology.
pub trait Topology {
    /// Short human-readable description, e.g. "dragonfly p=6 a=12 h=6 g=73".
    fn describe(&self) -> String;
    /// Build the wiring tables.
    fn network(&self) -> Network;
}
