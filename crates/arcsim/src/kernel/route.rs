//! Shortest-path routing on any wiring, from tables built once: for every switch and
//! destination switch, the output ports that lie on a shortest path (several where there
//! are equal-cost paths or parallel links). A packet may take any of them; the allocator
//! tries them in an order that starts at the destination's own choice (destination node
//! modulo the number of ports, so that destinations spread over equal paths as d-mod-k
//! does) and takes the first that can take the packet now (minimal adaptive routing), or
//! as [`Pick`] says. A packet with an intermediate switch ([`NonMinimal`]) is routed
//! towards it until it reaches it.
//!
//! VCs avoid deadlock by ordering: a packet's VC at the next buffer is the number of hops it
//! has taken (`Hops`, enough for shortest paths on any graph with as many VCs as the longest
//! path has hops), the number of global hops taken (`GlobalHops`: the dragonfly's l-g-l-g-l
//! order, 2 local and 1 global VCs for minimal paths, 3 and 2 through an intermediate
//! group), the number taken on links of the same class (`ClassHops`), or none (`UpDown`).

use crate::topology::{Network, PortClass};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VcPolicy {
    Hops,
    ClassHops,
    /// The number of global hops taken, on every link: the position of a hop in the
    /// dragonfly's l-g-l-g-l order (Dally's ordering as FOGSim uses it: local VCs 0, 1, 2
    /// in the source, intermediate and destination groups, global VCs 0 and 1), whether or
    /// not earlier local hops were skipped. Non-minimal paths through an intermediate
    /// group (VAL on the dragonfly, DFP on Dragonfly+) need 3 local and 2 global VCs.
    GlobalHops,
    /// Every hop on VC 0: for networks whose shortest paths all go up, then down (fat
    /// trees, XGFTs, multistage networks), where no channel waits on one of a lower level
    /// once it has turned down, so one VC is free of deadlock although the switches form
    /// cycles.
    UpDown,
}

/// How the first port to try is chosen among a switch's ports towards a destination.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    /// Destination node modulo the number of ports.
    Modulo,
    /// floor(destination / divisor of the switch) modulo the number of ports.
    DstDiv,
    /// The same with the source.
    SrcDiv,
    /// A pseudo-random function of (seed, source, destination, switch).
    Pair(u64),
    /// The first port of the group: groups listed in order of preference (per-destination
    /// DAGs).
    First,
}

/// How a packet picks among the ports of its group (the ports its table gives towards its
/// destination): the seam that adaptive routing groups (the InfiniBand adaptive-routing
/// paper's LAG and TREE groups) and other per-packet selections plug into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pick {
    /// From the [`Choice`] on, the first port that can take the packet now (minimal
    /// adaptive routing).
    FirstFree,
    /// Only the [`Choice`]'s port (deterministic table routing).
    Fixed,
    /// Among the ports that can take the packet now, the one with the least load: the
    /// phits in its output queue plus the phits its next buffer holds as far as the
    /// switch's credits tell; ties go to the first from a round-robin pointer per (switch,
    /// ingress port, group) on, which moves past the port taken (so that a lone flow on
    /// idle links alternates over them); over groups ordered by preference
    /// ([`Choice::First`]), to the first from the [`Choice`] on.
    LeastLoaded,
    /// From a pointer per switch and group on, the first port that can take the packet;
    /// the pointer moves past the port taken.
    RoundRobin,
    /// The port a pointer per (switch, ingress port, group) names, kept by the ingress's
    /// head packet until it leaves; the pointer moves past the port taken.
    IngressRoundRobin,
    /// The [`Choice`]'s port unless its load (as [`Pick::LeastLoaded`] counts it) exceeds
    /// the least loaded port's by more than [`RouteTable::threshold`] phits; then the least
    /// loaded (ties to the first from the [`Choice`] on). The port chosen is waited for
    /// when it cannot take the packet now: a port busy for a few cycles is not a reason to
    /// leave the preferred path, only a queue is (the reference adaptive routing of fat
    /// trees and multistage networks, preferring d-mod-k's port).
    Congestion,
}

#[derive(Debug)]
pub struct RouteTable {
    switches: usize,
    /// Columns of the table: destination switches, or destination nodes when `by_node`
    /// (tables read from files, which give every node its own entry, as InfiniBand LFTs).
    dests: usize,
    pub by_node: bool,
    /// `offsets[s * dests + d] .. offsets[.. + 1]` index `ports`.
    offsets: Vec<u32>,
    ports: Vec<u16>,
    /// When every pair has at most one port (the dragonfly's minimal routing), the port of
    /// each pair directly (`u16::MAX`: none), and `offsets`/`ports` empty: one memory access
    /// per lookup instead of two, in a table a third the size.
    single: Vec<u16>,
    pub policy: VcPolicy,
    /// Longest shortest path in switch-to-switch hops, and the longest in local and global
    /// hops (ClassHops), over all pairs of switches with nodes.
    pub diameter: u32,
    pub max_class_hops: [u32; 2],
    /// Highest VC of local and global links (set once the VC counts are known): a policy
    /// never asks for more, so that a network whose switches form no cycle runs on one VC.
    pub last_vc: [u8; 2],
    /// The first port to try, and whether the others may be tried when it cannot take the
    /// packet (false: deterministic table routing).
    pub choice: Choice,
    pub pick: Pick,
    /// Phits by which the preferred port's load must exceed the least loaded's for
    /// [`Pick::Congestion`] to leave it (the kernel sets two packets).
    pub threshold: u32,
    /// Per switch, the divisor of `DstDiv` and `SrcDiv`.
    divisor: Vec<u32>,
    /// VCs (local, global) that the routing needs, when a check of its channel
    /// dependencies decided it (tables read from files, up*/down*, DAGs).
    pub need: Option<(u32, u32)>,
}

impl RouteTable {
    /// Whether some switch has more than one port towards some destination (a choice to
    /// make).
    pub fn has_choices(&self) -> bool {
        self.single.is_empty() && self.offsets.windows(2).any(|w| w[1] - w[0] > 1)
    }

    /// Every shortest path of the wiring.
    pub fn new(net: &Network, policy: VcPolicy) -> RouteTable {
        RouteTable::build(net, policy, None)
    }

    /// The paths a topology's own minimal routing gives: `next(s, d)` is the one output
    /// port of switch `s` towards switch `d` (the dragonfly's local-global-local paths,
    /// which are not always the shortest: two global hops can be shorter).
    pub fn with_next_hop(
        net: &Network,
        policy: VcPolicy,
        next: &dyn Fn(usize, usize) -> usize,
    ) -> RouteTable {
        RouteTable::build(net, policy, Some(next))
    }

    fn build(
        net: &Network,
        policy: VcPolicy,
        next: Option<&dyn Fn(usize, usize) -> usize>,
    ) -> RouteTable {
        let n = net.num_routers();
        let mut offsets = Vec::with_capacity(n * n + 1);
        let mut ports = Vec::new();
        // Distances between switches (symmetric: `all_dist[d * n + s]` is s's distance to d).
        let all_dist = if next.is_none() {
            net.hop_distances()
        } else {
            Vec::new()
        };
        let with_nodes: Vec<bool> = {
            let mut v = vec![false; n];
            for &(s, _) in net.all_node_links() {
                v[s as usize] = true;
            }
            v
        };
        for s in 0..n {
            for d in 0..n {
                offsets.push(ports.len() as u32);
                if let Some(next) = next {
                    if s != d {
                        ports.push(next(s, d) as u16);
                    }
                    continue;
                }
                let here = all_dist[d * n + s];
                if s == d || here == u32::MAX {
                    continue;
                }
                for p in 0..net.radix(s) {
                    let info = net.port(s, p);
                    if matches!(info.class, PortClass::Local | PortClass::Global)
                        && all_dist[d * n + info.peer as usize] == here - 1
                    {
                        ports.push(p as u16);
                    }
                }
            }
        }
        offsets.push(ports.len() as u32);
        let single = if offsets.windows(2).all(|w| w[1] - w[0] <= 1) {
            let single = offsets
                .windows(2)
                .map(|w| {
                    if w[1] > w[0] {
                        ports[w[0] as usize]
                    } else {
                        u16::MAX
                    }
                })
                .collect();
            offsets = Vec::new();
            ports = Vec::new();
            single
        } else {
            Vec::new()
        };
        let mut table = RouteTable {
            switches: n,
            dests: n,
            by_node: false,
            offsets,
            ports,
            single,
            policy,
            diameter: 0,
            max_class_hops: [0; 2],
            last_vc: [u8::MAX; 2],
            choice: Choice::Modulo,
            pick: Pick::FirstFree,
            threshold: 0,
            divisor: Vec::new(),
            need: None,
        };
        // The longest path and its class counts, following the first port at each switch
        // (every shortest path has the same length; class counts are the dragonfly's
        // unique minimal paths).
        for s in (0..n).filter(|&s| with_nodes[s]) {
            for d in (0..n).filter(|&d| with_nodes[d] && d != s) {
                if table.ports_towards(s, d).is_empty() {
                    // Not reachable: another plane of nodes with several links.
                    continue;
                }
                let (mut at, mut hops, mut class) = (s, 0u32, [0u32; 2]);
                while at != d {
                    let p = table.ports_towards(at, d)[0] as usize;
                    let info = net.port(at, p);
                    class[(info.class == PortClass::Global) as usize] += 1;
                    hops += 1;
                    at = info.peer as usize;
                }
                table.diameter = table.diameter.max(hops);
                for (most, c) in table.max_class_hops.iter_mut().zip(class) {
                    *most = (*most).max(c);
                }
            }
        }
        table
    }

    /// The port selection `routing.selection` names (`seed`, the run's `simulation.seed`, for random paths).
    /// `topo`: the generated topology's divisors, without which only "adaptive" and
    /// "random" are possible (an error says so).
    pub fn with_selection(
        mut self,
        cfg: &crate::config::RoutingConfig,
        seed: u64,
        topo: Option<&crate::topology::Generated>,
    ) -> Result<RouteTable, String> {
        use crate::config::Selection as S;
        let sel = cfg.selection;
        let (choice, divisor) = match (sel, topo) {
            // The reference adaptive routing of fat trees and multistage networks: d-mod-k's
            // port unless it is clearly more loaded than another.
            (S::Adaptive, Some(g)) => {
                self.choice = Choice::DstDiv;
                self.divisor = g.divisor_k.clone();
                self.pick = Pick::Congestion;
                return Ok(self);
            }
            (S::FirstFree, _) => return Ok(self),
            (S::Adaptive, _) => return Ok(self),
            (S::LeastLoaded, _) => {
                self.pick = Pick::LeastLoaded;
                return Ok(self);
            }
            (S::RoundRobin, _) => {
                self.pick = Pick::RoundRobin;
                return Ok(self);
            }
            (S::IngressRoundRobin, _) => {
                self.pick = Pick::IngressRoundRobin;
                return Ok(self);
            }
            (S::Random, _) => (Choice::Pair(seed), Vec::new()),
            (S::DModK, Some(g)) => (Choice::DstDiv, g.divisor_k.clone()),
            (S::SModK, Some(g)) => (Choice::SrcDiv, g.divisor_k.clone()),
            (S::DModM, Some(g)) => (Choice::DstDiv, g.divisor_m.clone()),
            (S::SModM, Some(g)) => (Choice::SrcDiv, g.divisor_m.clone()),
            (_, None) => {
                return Err(format!(
                    "\"{}\" needs a fat tree or multistage network",
                    sel.name()
                ))
            }
        };
        self.choice = choice;
        self.divisor = divisor;
        self.pick = Pick::Fixed;
        Ok(self)
    }

    /// A table given entry by entry: `offsets[s * dests + d] .. offsets[.. + 1]` index
    /// `ports`, the group of output ports of switch `s` towards destination `d` (a switch,
    /// or a node when `by_node`), in order of preference. The caller checks it
    /// ([`crate::kernel::tables::route_table`]) and sets `diameter`.
    pub fn from_groups(
        switches: usize,
        by_node: bool,
        offsets: Vec<u32>,
        ports: Vec<u16>,
        policy: VcPolicy,
        choice: Choice,
    ) -> RouteTable {
        let dests = (offsets.len() - 1) / switches.max(1);
        RouteTable {
            switches,
            dests,
            by_node,
            offsets,
            ports,
            single: Vec::new(),
            policy,
            diameter: 0,
            max_class_hops: [0; 2],
            last_vc: [u8::MAX; 2],
            choice,
            pick: Pick::FirstFree,
            threshold: 0,
            divisor: Vec::new(),
            need: None,
        }
    }

    /// Columns of the table (destination switches, or nodes when `by_node`).
    pub fn dests(&self) -> usize {
        self.dests
    }

    /// Number of entries (switches times columns), for state kept per entry.
    pub fn entries(&self) -> usize {
        self.switches * self.dests
    }

    /// The entry of switch `s` for a packet to node `dst` on switch `dst_switch`.
    #[inline]
    pub fn entry(&self, s: usize, dst_switch: usize, dst: u32) -> usize {
        s * self.dests
            + if self.by_node {
                dst as usize
            } else {
                dst_switch
            }
    }

    /// The group of output ports of switch `s` for a packet to node `dst` on switch
    /// `dst_switch` (`s` != `dst_switch`).
    #[inline(always)]
    pub fn group(&self, s: usize, dst_switch: usize, dst: u32) -> &[u16] {
        if self.by_node {
            return self.group_of_node(s, dst);
        }
        self.ports_towards(s, dst_switch)
    }

    /// [`RouteTable::group`] of a table by node, out of line so that the usual lookup by
    /// switch stays small enough to inline.
    #[inline(never)]
    fn group_of_node(&self, s: usize, dst: u32) -> &[u16] {
        let i = s * self.dests + dst as usize;
        &self.ports[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }

    /// The group of entry `i` (as [`RouteTable::entry`] numbers them).
    #[inline]
    pub fn group_at(&self, i: usize) -> &[u16] {
        if !self.single.is_empty() {
            let p = &self.single[i];
            return if *p == u16::MAX {
                &[]
            } else {
                std::slice::from_ref(p)
            };
        }
        &self.ports[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }

    /// Index, among the `n` ports of switch `s` towards the destination, of the port a
    /// packet from node `src` to node `dst` tries first (the only one it may take when the
    /// routing is not adaptive).
    #[inline]
    pub fn first_choice(&self, s: usize, src: u32, dst: u32, n: usize) -> usize {
        match self.choice {
            Choice::Modulo => dst as usize % n,
            Choice::DstDiv => (dst / self.divisor[s]) as usize % n,
            Choice::SrcDiv => (src / self.divisor[s]) as usize % n,
            Choice::Pair(seed) => {
                // SplitMix64's finaliser over the pair and the switch: no table, no state.
                let mut z = seed
                    ^ (u64::from(src) << 40)
                    ^ (u64::from(dst) << 16)
                    ^ (s as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
                z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
                z ^= z >> 31;
                (z % n as u64) as usize
            }
            Choice::First => 0,
        }
    }

    /// Output ports of switch `s` on a shortest path to switch `d` (empty when s = d).
    #[inline(always)]
    pub fn ports_towards(&self, s: usize, d: usize) -> &[u16] {
        let i = s * self.switches + d;
        if !self.single.is_empty() {
            let p = &self.single[i];
            return if *p == u16::MAX {
                &[]
            } else {
                std::slice::from_ref(p)
            };
        }
        &self.ports[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }

    /// The VC a packet with `hops` hops so far, `global_hops` of them global, takes on a
    /// link of class `class`.
    #[inline]
    pub fn next_vc(&self, hops: u8, global_hops: u8, class: PortClass) -> u8 {
        let global = class == PortClass::Global;
        let vc = match self.policy {
            VcPolicy::Hops => hops,
            VcPolicy::ClassHops if global => global_hops,
            VcPolicy::ClassHops => hops - global_hops,
            VcPolicy::GlobalHops => global_hops,
            VcPolicy::UpDown => 0,
        };
        vc.min(self.last_vc[global as usize])
    }

    /// VCs each link class needs for deadlock freedom under this policy: (local, global).
    /// With `Hops` on a network whose switches form no cycle, one VC is enough.
    pub fn vcs_needed(&self, acyclic: bool) -> (u32, u32) {
        if let Some(need) = self.need {
            return need;
        }
        match self.policy {
            VcPolicy::Hops if acyclic => (1, 1),
            VcPolicy::UpDown => (1, 1),
            VcPolicy::Hops => (self.diameter.max(1), self.diameter.max(1)),
            VcPolicy::ClassHops => (self.max_class_hops[0].max(1), self.max_class_hops[1].max(1)),
            // Minimal paths: l-g-l.
            VcPolicy::GlobalHops => (2, 1),
        }
    }
}

/// Non-minimal routing on the general kernel (`routing.algorithm`): what is decided for a
/// packet when its head reaches its source switch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NonMinimal {
    /// Minimal paths only (`"min"`).
    None,
    /// Valiant routing as FOGSim v5 has it (`"val"`, dragonfly): every packet to a random
    /// node outside its source group (inside it for traffic within the group, a minimal
    /// path), minimally to that node's group, then minimally to its destination; every
    /// packet counted as misrouted.
    Valiant,
    /// Dragonfly+'s DFP (`"dfp"`): minimal, or through a leaf of a random intermediate
    /// group, chosen at the source leaf by the occupancy of its up links.
    Dfp,
    /// Piggyback as FOGSim v5 has it (`"pb"`, dragonfly): UGAL-L on the credits of the
    /// first hops, or the minimal global link flagged congested in the group
    /// ([`crate::kernel::piggyback`]).
    Pb,
}

/// Whether the switches, links merged where parallel, form no cycle (a forest): then
/// shortest paths cannot wait on each other in a cycle, whatever the VCs.
pub fn acyclic(net: &Network) -> bool {
    let n = net.num_routers();
    let mut edges = std::collections::BTreeSet::new();
    for s in 0..n {
        for p in 0..net.radix(s) {
            let info = net.port(s, p);
            if matches!(info.class, PortClass::Local | PortClass::Global) {
                let t = info.peer as usize;
                edges.insert((s.min(t), s.max(t)));
            }
        }
    }
    // A forest has n - components edges.
    let mut parent: Vec<usize> = (0..n).collect();
    fn find(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    for &(a, b) in &edges {
        let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
        if ra == rb {
            return false;
        }
        parent[ra] = rb;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{GraphConfig, GraphLink};
    use crate::topology::{Graph, Topology};

    fn graph(switches: u32, links: &[(u32, u32)]) -> Network {
        let cfg = GraphConfig {
            switches,
            hosts: (0..switches).collect(),
            links: links
                .iter()
                .map(|&(a, b)| GraphLink {
                    a,
                    b,
                    class: "local".into(),
                    latency: 1,
                })
                .collect(),
            ..Default::default()
        };
        Graph::new(&cfg, 1).network()
    }

    #[test]
    fn a_ring_has_two_shortest_ways_to_its_far_side() {
        let net = graph(4, &[(0, 1), (1, 2), (2, 3), (3, 0)]);
        let t = RouteTable::new(&net, VcPolicy::Hops);
        assert_eq!(t.diameter, 2);
        // Switch 0: port 0 its node, then links to 1 and 3.
        assert_eq!(t.ports_towards(0, 2), &[1, 2]);
        assert_eq!(t.ports_towards(0, 1), &[1]);
        assert!(!acyclic(&net));
        assert_eq!(t.vcs_needed(false), (2, 2));
    }

    #[test]
    fn parallel_links_are_equal_paths_and_no_cycle() {
        let net = graph(3, &[(0, 1), (0, 1), (1, 2)]);
        let t = RouteTable::new(&net, VcPolicy::Hops);
        assert_eq!(t.ports_towards(0, 2), &[1, 2]);
        assert!(acyclic(&net));
        assert_eq!(t.vcs_needed(true), (1, 1));
    }

    #[test]
    fn dragonfly_minimal_paths_are_local_global_local() {
        let cfg = crate::config::TopologyConfig {
            p: 2,
            a: 4,
            h: 2,
            ..Default::default()
        };
        let df = crate::topology::Dragonfly::new(&cfg);
        let net = df.network();
        // Shortest paths may take two global hops where the dragonfly's minimal path takes
        // local, global, local.
        let shortest = RouteTable::new(&net, VcPolicy::ClassHops);
        assert_eq!(shortest.max_class_hops[1], 2);
        let t = RouteTable::with_next_hop(&net, VcPolicy::ClassHops, &|s, d| {
            crate::routing::min::minimal_hop(&df, s, d).unwrap().0
        });
        assert_eq!(t.diameter, 3);
        assert_eq!(t.max_class_hops, [2, 1]);
        // The table agrees with the dragonfly's own minimal routing at every pair.
        for s in 0..net.num_routers() {
            for d in 0..net.num_routers() {
                if s == d {
                    continue;
                }
                let (port, _) = crate::routing::min::minimal_hop(&df, s, d).unwrap();
                assert_eq!(t.ports_towards(s, d), &[port as u16], "{s} -> {d}");
            }
        }
    }
}
