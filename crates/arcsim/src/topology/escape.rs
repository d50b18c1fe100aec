//! Escape subnetworks embedded in a dragonfly (the OFAR paper, section 3.3): Hamiltonian rings A, B
//! and C and a spanning tree for up/down routing. Each is a set of existing links; the engine
//! gives those links one extra VC per subnetwork.
//!
//! The constructions assume the palm-tree global arrangement with g = a*h + 1 groups (ring A's
//! global link R_{a-1}(j) -> R_0(j+1) exists only there), and rings B and C the balanced
//! a = 2h.

use super::Dragonfly;
use crate::config::GlobalArrangement;
pub use crate::config::{RingDirection, RingKind};

/// A Hamiltonian ring: `next_port[r]` is the output port of router r that leads to its
/// successor; a bidirectional ring also has `back_port[r]`, the port to its predecessor.
#[derive(Debug, Clone)]
pub struct Ring {
    pub kind: RingKind,
    pub next_port: Vec<u16>,
    /// Empty unless the ring is travelled both ways.
    pub back_port: Vec<u16>,
    /// Routers in ring order starting at router 0.
    pub order: Vec<u32>,
    /// `pos[r]`: index of router r in `order`.
    pub pos: Vec<u32>,
}

impl Ring {
    /// Whether packets travel the ring both ways.
    #[inline]
    pub fn bidirectional(&self) -> bool {
        !self.back_port.is_empty()
    }

    /// The output of router `r` that the ring uses towards router `dst` (r != dst): the
    /// successor, or on a bidirectional ring the neighbour on the shorter way round.
    #[inline]
    pub fn port_towards(&self, r: usize, dst: usize) -> usize {
        if self.back_port.is_empty() {
            return self.next_port[r] as usize;
        }
        let n = self.order.len() as u32;
        let ahead = (self.pos[dst] + n - self.pos[r]) % n;
        if ahead <= n - ahead {
            self.next_port[r] as usize
        } else {
            self.back_port[r] as usize
        }
    }
}

/// A spanning tree rooted at `root` for up/down routing.
#[derive(Debug, Clone)]
pub struct Tree {
    pub root: usize,
    /// (parent router, port towards the parent) of every router; None for the root.
    pub parent: Vec<Option<(u32, u16)>>,
    pub depth: Vec<u8>,
}

fn check_palm(df: &Dragonfly, what: &str) -> Result<(), String> {
    if df.arrangement != GlobalArrangement::PalmTree || df.g != df.a * df.h + 1 {
        return Err(format!(
            "{what} needs the palm-tree global arrangement with a*h+1 groups (topology.arrangement = \"palm-tree\", topology.groups = 0)"
        ));
    }
    Ok(())
}

/// Global port of router index `ri` that leads to group `target` from group `group`, if it is
/// on that router.
fn global_port_to(df: &Dragonfly, group: usize, ri: usize, target: usize) -> Option<usize> {
    let (r, port) = df.global_link_port(df.global_link_to(group, target));
    (r == ri).then_some(port)
}

/// Path parameters of one ring inside every group: entry router, local step, and the global
/// hop from the exit router (which is entry - step mod a).
fn ring_params(df: &Dragonfly, kind: RingKind) -> Result<(usize, usize), String> {
    let (a, h) = (df.a, df.h);
    match kind {
        RingKind::A => Ok((0, 1)),
        RingKind::B | RingKind::C => {
            if a != 2 * h {
                return Err(format!(
                    "ring {kind:?} needs a balanced dragonfly with a = 2h (a = {a}, h = {h})"
                ));
            }
            match (kind, h % 2 == 0) {
                (RingKind::B, true) if h > 2 => Ok((h / 2, h + 1)),
                (RingKind::B, false) if h > 3 => Ok((h.div_ceil(2), h + 2)),
                (RingKind::C, false) if h > 3 => Ok(((h - 3) / 2, h - 2)),
                (RingKind::B, _) => Err(format!(
                    "ring B exists for even h > 2 and odd h > 3 (h = {h})"
                )),
                _ => Err(format!("ring C exists for odd h > 3 (h = {h})")),
            }
        }
    }
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// Build ring `kind`.
///
/// Inside every group the ring walks the a routers from R_in by a fixed step (1 for A, h+1 or
/// h±2 for B and C, coprime with a) and ends at R_out = R_in - step. R_out then takes a global
/// link to R_in of another group: for A the group j+1 (the link R_{a-1}(j) - R_0(j+1)); for B
/// and C the link of R_out whose far end is R_in (the paper's group j + h^2/2 + 2 for even
/// h), chosen so that the group step is coprime with g and the ring is Hamiltonian.
///
/// `Descending` travels the same ring backwards: every channel is the reverse of an
/// ascending one, so rings that are channel-disjoint in one direction are in the other.
/// `Both` keeps the ascending successors and adds the predecessors (`back_port`).
pub fn ring(df: &Dragonfly, kind: RingKind, direction: RingDirection) -> Result<Ring, String> {
    check_palm(df, &format!("escape ring {kind:?}"))?;
    let (r_in, step) = ring_params(df, kind)?;
    let a = df.a;
    if gcd(step, a) != 1 {
        return Err(format!(
            "ring {kind:?}: step {step} is not coprime with a = {a}"
        ));
    }
    let r_out = (r_in + a * step - step) % a;
    // Global hop from R_out of group 0 to R_in of group d: the same offset for every group.
    let group_step = (1..df.g)
        .filter(|&d| gcd(d, df.g) == 1)
        .filter(|&d| {
            let port = global_port_to(df, 0, r_out, d);
            let back = global_port_to(df, d, r_in, 0);
            port.is_some() && back.is_some()
        })
        // Prefer the paper's choices: A uses j+1; B/C the lowest other port of R_out.
        .min_by_key(|&d| if kind == RingKind::A { (d != 1) as usize } else { d })
        .ok_or_else(|| format!("ring {kind:?}: no global link from R_out={r_out} to R_in={r_in} with a group step coprime with g"))?;
    let group_step = if kind == RingKind::B && df.h % 2 == 0 {
        (df.h * df.h / 2 + 2) % df.g
    } else {
        group_step
    };
    let mut next_port = vec![u16::MAX; df.num_routers()];
    let mut order = Vec::with_capacity(df.num_routers());
    for j in 0..df.g {
        let mut idx = r_in;
        for _ in 0..a - 1 {
            let nxt = (idx + step) % a;
            next_port[j * a + idx] = df.local_port(idx, nxt) as u16;
            idx = nxt;
        }
        debug_assert_eq!(idx, r_out);
        let target = (j + group_step) % df.g;
        let port = global_port_to(df, j, r_out, target).ok_or_else(|| {
            format!("ring {kind:?}: router {r_out} of group {j} has no link to group {target}")
        })?;
        next_port[j * a + r_out] = port as u16;
    }
    let net = super::Topology::network(df);
    // Each router's port to its predecessor: the far end of the link that leads to it.
    let predecessors = |next_port: &[u16]| {
        let mut back = vec![u16::MAX; next_port.len()];
        for (r, &port) in next_port.iter().enumerate() {
            let info = net.port(r, port as usize);
            back[info.peer as usize] = info.peer_port;
        }
        back
    };
    let mut back_port = Vec::new();
    match direction {
        RingDirection::Ascending => {}
        RingDirection::Descending => next_port = predecessors(&next_port),
        RingDirection::Both => back_port = predecessors(&next_port),
    }
    // Ring order from router 0.
    let mut r = 0usize;
    let mut pos = vec![u32::MAX; df.num_routers()];
    for i in 0..df.num_routers() {
        order.push(r as u32);
        pos[r] = i as u32;
        let info = net.port(r, next_port[r] as usize);
        r = info.peer as usize;
    }
    Ok(Ring {
        kind,
        next_port,
        back_port,
        order,
        pos,
    })
}

/// The spanning tree of the OFAR paper section 3.3.1: the root joins every router of its group by
/// local links, each of those routers (and the root) joins one router in every group its
/// global links reach, and each of those joins the rest of its group by local links.
pub fn tree(df: &Dragonfly, root: usize) -> Result<Tree, String> {
    check_palm(df, "the escape tree")?;
    if root >= df.num_routers() {
        return Err(format!(
            "escape tree root {root} is not a router (0..{})",
            df.num_routers()
        ));
    }
    let n = df.num_routers();
    let net = super::Topology::network(df);
    let mut parent: Vec<Option<(u32, u16)>> = vec![None; n];
    let mut depth = vec![u8::MAX; n];
    depth[root] = 0;
    let (rg, ri) = (df.group_of(root), df.index_in_group(root));
    // Level 1: the root's group.
    let mut gateways = vec![root];
    for i in (0..df.a).filter(|&i| i != ri) {
        let r = rg * df.a + i;
        parent[r] = Some((root as u32, df.local_port(i, ri) as u16));
        depth[r] = 1;
        gateways.push(r);
    }
    // Level 2: the far end of every global link of the root's group.
    let mut remote = Vec::new();
    for &gw in &gateways {
        for k in 0..df.h {
            let port = df.first_global_port() + k;
            let info = net.port(gw, port);
            if info.class != super::PortClass::Global {
                continue;
            }
            let far = info.peer as usize;
            if depth[far] == u8::MAX {
                parent[far] = Some((gw as u32, info.peer_port));
                depth[far] = depth[gw] + 1;
                remote.push(far);
            }
        }
    }
    // Level 3: the rest of every remote group.
    for &rm in &remote {
        let (g, i0) = (df.group_of(rm), df.index_in_group(rm));
        for i in (0..df.a).filter(|&i| i != i0) {
            let r = g * df.a + i;
            if depth[r] == u8::MAX {
                parent[r] = Some((rm as u32, df.local_port(i, i0) as u16));
                depth[r] = depth[rm] + 1;
            }
        }
    }
    if let Some(r) = depth.iter().position(|&d| d == u8::MAX) {
        return Err(format!(
            "escape tree rooted at {root} does not reach router {r}"
        ));
    }
    Ok(Tree {
        root,
        parent,
        depth,
    })
}

impl Tree {
    /// Next port on the up/down path from `from` to `to` (None when already there): up to the
    /// nearest common ancestor, then down.
    pub fn next_port(&self, df: &Dragonfly, from: usize, to: usize) -> Option<usize> {
        if from == to {
            return None;
        }
        // Walk `to` up until it is a child of `from` (then go down to it), or above `from`.
        let mut child = to;
        while let Some((p, _)) = self.parent[child] {
            if p as usize == from {
                return Some(self.down_port(df, from, child));
            }
            if self.depth[p as usize] < self.depth[from] {
                break;
            }
            child = p as usize;
        }
        // `from` is not an ancestor of `to`: go up.
        self.parent[from].map(|(_, port)| port as usize)
    }

    /// Port of `parent` towards its child `child`.
    fn down_port(&self, df: &Dragonfly, parent: usize, child: usize) -> usize {
        if df.group_of(parent) == df.group_of(child) {
            df.local_port(df.index_in_group(parent), df.index_in_group(child))
        } else {
            df.global_link_port(df.global_link_to(df.group_of(parent), df.group_of(child)))
                .1
        }
    }

    /// Whether the link leaving `router` by `port` belongs to the tree (either direction).
    pub fn uses(&self, df: &Dragonfly, router: usize, port: usize) -> bool {
        let net_peer = |r: usize, p: usize| -> Option<usize> {
            let (g, i) = (df.group_of(r), df.index_in_group(r));
            if p >= df.first_global_port() {
                let link = i * df.h + (p - df.first_global_port());
                df.global_link_target(g, link)
                    .map(|(tg, mate)| tg * df.a + df.global_link_port(mate).0)
            } else if p >= df.first_local_port() {
                Some(g * df.a + df.local_peer(i, p))
            } else {
                None
            }
        };
        match net_peer(router, port) {
            Some(peer) => {
                self.parent[router].is_some_and(|(p, _)| p as usize == peer)
                    || self.parent[peer].is_some_and(|(p, _)| p as usize == router)
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::TopologyConfig;
    use crate::topology::Topology;
    use std::collections::HashSet;

    fn balanced(h: usize) -> Dragonfly {
        Dragonfly::new(&TopologyConfig {
            p: h,
            a: 2 * h,
            h,
            groups: 0,
            ..TopologyConfig::default()
        })
    }

    /// Directed channels (router, output port) of a ring, checking it is one Hamiltonian
    /// cycle, and the undirected links they belong to.
    type Links = (
        HashSet<(usize, usize)>,
        HashSet<(usize, usize, usize, usize)>,
    );
    fn ring_links(df: &Dragonfly, ring: &Ring) -> Links {
        let net = df.network();
        let n = df.num_routers();
        let mut seen = vec![false; n];
        let mut links = HashSet::new();
        let mut channels = HashSet::new();
        let mut r = 0;
        for _ in 0..n {
            assert!(
                !seen[r],
                "ring {:?} visits router {r} twice (h={})",
                ring.kind, df.h
            );
            seen[r] = true;
            let port = ring.next_port[r] as usize;
            let info = net.port(r, port);
            assert!(matches!(
                info.class,
                crate::topology::PortClass::Local | crate::topology::PortClass::Global
            ));
            let peer = (info.peer as usize, info.peer_port as usize);
            let key = if (r, port) < peer {
                (r, port, peer.0, peer.1)
            } else {
                (peer.0, peer.1, r, port)
            };
            assert!(links.insert(key), "link used twice");
            channels.insert((r, port));
            r = info.peer as usize;
        }
        assert_eq!(r, 0, "ring {:?} does not close (h={})", ring.kind, df.h);
        assert!(seen.iter().all(|&s| s));
        (channels, links)
    }

    #[test]
    fn rings_are_hamiltonian_and_pairwise_edge_disjoint() {
        for (h, dir) in (2..=8)
            .flat_map(|h| [RingDirection::Ascending, RingDirection::Descending].map(|d| (h, d)))
        {
            let df = balanced(h);
            let mut sets = Vec::new();
            for kind in [RingKind::A, RingKind::B, RingKind::C] {
                let exists = match kind {
                    RingKind::A => true,
                    RingKind::B => (h % 2 == 0 && h > 2) || (h % 2 == 1 && h > 3),
                    RingKind::C => h % 2 == 1 && h > 3,
                };
                match ring(&df, kind, dir) {
                    Ok(r) => {
                        assert!(exists, "ring {kind:?} should not exist for h={h}");
                        sets.push((kind, ring_links(&df, &r)));
                    }
                    Err(e) => assert!(!exists, "ring {kind:?} for h={h}: {e}"),
                }
            }
            for i in 0..sets.len() {
                for j in i + 1..sets.len() {
                    let ((ka, (ca, la)), (kb, (cb, lb))) = (&sets[i], &sets[j]);
                    // Every pair is channel-disjoint (an escape VC per ring per channel).
                    assert!(
                        ca.is_disjoint(cb),
                        "rings {ka:?} and {kb:?} share a channel (h={h})"
                    );
                    // Ring A shares no physical link with B or C. B and C (odd h) use local
                    // steps h+2 and h-2 = -(h+2) mod 2h: the same links in opposite directions,
                    // as the paper's construction implies.
                    if *ka == RingKind::A {
                        assert!(la.is_disjoint(lb), "ring A and {kb:?} share a link (h={h})");
                    }
                }
            }
        }
    }

    #[test]
    fn a_descending_ring_is_the_ascending_one_reversed() {
        for h in [3, 4, 6] {
            let df = balanced(h);
            let net = df.network();
            let up = ring(&df, RingKind::A, RingDirection::Ascending).unwrap();
            let down = ring(&df, RingKind::A, RingDirection::Descending).unwrap();
            for r in 0..df.num_routers() {
                let next = net.port(r, up.next_port[r] as usize);
                let back = net.port(
                    next.peer as usize,
                    down.next_port[next.peer as usize] as usize,
                );
                assert_eq!(back.peer as usize, r, "h={h}: router {r}");
                assert_eq!(back.peer_port, up.next_port[r], "h={h}: same link back");
            }
            // Ring A descending walks R_{a-1} -> ... -> R_0 inside a group.
            assert_eq!(
                down.next_port[df.a - 1] as usize,
                df.local_port(df.a - 1, df.a - 2)
            );
        }
    }

    #[test]
    fn a_bidirectional_ring_takes_the_shorter_way_and_never_turns() {
        for (h, kind) in [(3, RingKind::A), (4, RingKind::A), (4, RingKind::B)] {
            let df = balanced(h);
            let net = df.network();
            let up = ring(&df, kind, RingDirection::Ascending).unwrap();
            let both = ring(&df, kind, RingDirection::Both).unwrap();
            assert!(both.bidirectional() && !up.bidirectional());
            assert_eq!(both.next_port, up.next_port);
            let n = df.num_routers();
            for from in 0..n {
                // back_port leads to the predecessor over the same link.
                let back = net.port(from, both.back_port[from] as usize);
                let fwd = net.port(
                    back.peer as usize,
                    up.next_port[back.peer as usize] as usize,
                );
                assert_eq!(fwd.peer as usize, from, "h={h} {kind:?}: router {from}");
                for to in (0..n).step_by(5).filter(|&t| t != from) {
                    let (mut r, mut hops, mut dirs) = (from, 0, Vec::new());
                    while r != to {
                        let p = both.port_towards(r, to);
                        dirs.push(p == both.next_port[r] as usize);
                        r = net.port(r, p).peer as usize;
                        hops += 1;
                        assert!(hops <= n / 2, "h={h} {kind:?}: {from}->{to} too long");
                    }
                    let ahead = (both.pos[to] as usize + n - both.pos[from] as usize) % n;
                    assert_eq!(
                        hops,
                        ahead.min(n - ahead),
                        "{from}->{to}: not the shorter way"
                    );
                    assert!(dirs.iter().all(|&d| d == dirs[0]), "{from}->{to} turned");
                }
            }
        }
    }

    #[test]
    fn ring_b_matches_the_paper_for_h6() {
        // The OFAR paper 5.8: R_in = 3, R_out = 8, step 7, group j -> j + 20 (G = 73).
        let df = balanced(6);
        let r = ring(&df, RingKind::B, RingDirection::Ascending).unwrap();
        assert_eq!(r.next_port[3] as usize, df.local_port(3, 10));
        let net = df.network();
        let out = net.port(8, r.next_port[8] as usize);
        assert_eq!(out.peer as usize, 20 * 12 + 3);
    }

    #[test]
    fn tree_spans_and_routes_up_down() {
        for h in 2..=5 {
            let df = balanced(h);
            for root in [0, df.num_routers() / 2 + 1] {
                let t = tree(&df, root).unwrap();
                assert!(t.depth.iter().all(|&d| d <= 3));
                // Every pair is connected by a path of tree links of length <= 6.
                for from in (0..df.num_routers()).step_by(7) {
                    for to in (0..df.num_routers()).step_by(5) {
                        let mut r = from;
                        let mut hops = 0;
                        let net = df.network();
                        while let Some(port) = t.next_port(&df, r, to) {
                            assert!(t.uses(&df, r, port), "non-tree link");
                            r = net.port(r, port).peer as usize;
                            hops += 1;
                            assert!(hops <= 6, "path too long {from}->{to}");
                        }
                        assert_eq!(r, to);
                    }
                }
            }
        }
    }
}
