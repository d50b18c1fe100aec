//! Piggyback routing (PB) on the kernel's dragonfly as FOGSim v5 has it (commit `dcdd75f`,
//! `routing/pb.cc`, `switchModule::updatePb`, `pbState.cc`): the adaptive reference of the
//! QCN-Switch paper (Benito, Vallejo, Izu and Beivide 2018), `routing.algorithm = "pb"` with
//! `switch.kind = "cioq"`. The input-queued engine's PB (`crate::routing::piggyback`, the
//! OFAR paper's reference, FOGSim's 2014 release) is another reading and is not this one.
//!
//! **Flags** (per-port congestion detection, `CongestionDetection = PER_PORT`): every cycle
//! every switch computes, from its credits, the occupancy of each of its global ports (the
//! phits its data VCs hold downstream, in its output queue or on the link, as the credits
//! tell, averaged over the VCs) and flags the port congested when that exceeds
//! ⌊`pb_factor` × the mean over its global ports + `pb_global_threshold` packets⌋ (FOGSim's
//! integer threshold). A switch sees its own flags at once and those of the other switches
//! of its group one local link's latency later (FOGSim broadcasts them every cycle).
//!
//! **Decision** at the source switch only, when the destination is on another switch: a
//! Valiant node is drawn (a random node outside the source group; inside it for traffic
//! within the group, as FOGSim's `setValNode`), and the packet takes the Valiant path when
//! q_min·H_min > q_val·H_val + `routing.ugal_threshold` (UGAL-L, q the occupancy of VC 0,
//! the VC the first hop takes, of the minimal and the Valiant output; H FOGSim's estimate of
//! each path's hops, [`fogsim_path_lengths`]) or when the minimal path's global link is
//! flagged. A Valiant packet goes minimally to the Valiant node's group, then minimally to its
//! destination, and is counted as misrouted (within its group its path stays minimal, as in
//! FOGSim). The state is a few flat tables sized at construction: nothing is allocated or
//! hashed per packet.

use super::packet::NO_VIA;
use super::Kernel;
use crate::rng::Rng;
use crate::topology::PortClass;

/// PB's flags and parameters.
#[derive(Debug, Clone)]
pub struct Piggyback {
    /// Nodes per switch, switches per group, global ports per switch.
    p: usize,
    a: usize,
    h: usize,
    /// `pb_factor`, the flag margin in phits and the UGAL-L threshold in phits.
    factor: f64,
    margin: f64,
    local_threshold: f64,
    /// Per switch, its global ports (global port indices), `h` each.
    global_ports: Vec<u32>,
    /// Per global port of the network, its index among its switch's global ports.
    global_index: Vec<u16>,
    /// Flags of every global port (switch × h), one table per cycle of the last `depth`.
    flags: Vec<bool>,
    depth: usize,
}

impl Piggyback {
    /// PB on a dragonfly of `p` nodes per switch, `a` switches per group and `h` global
    /// ports per switch: `factor` (`routing.pb_factor`), the flag margin in packets
    /// (`routing.pb_global_threshold`) and the UGAL-L threshold in phits
    /// (`routing.ugal_threshold`).
    pub fn new(
        k: &Kernel,
        (p, a, h): (usize, usize, usize),
        factor: f64,
        margin_packets: f64,
        local_threshold: f64,
        packet_length: u32,
    ) -> Piggyback {
        let switches = k.net.num_routers();
        let mut global_ports = Vec::with_capacity(switches * h);
        let mut global_index = vec![u16::MAX; k.net.ports.len()];
        let mut max_local = 0;
        for s in 0..switches {
            let (lo, hi) = (k.net.port_base[s] as usize, k.net.port_base[s + 1] as usize);
            let mut j = 0;
            for (gp, info) in k.net.ports.iter().enumerate().take(hi).skip(lo) {
                match info.class {
                    PortClass::Global => {
                        global_index[gp] = j as u16;
                        global_ports.push(gp as u32);
                        j += 1;
                    }
                    PortClass::Local => max_local = max_local.max(info.latency),
                    _ => {}
                }
            }
            // Unwired global ports (fewer groups than a·h + 1) count as empty ones.
            while j < h {
                global_ports.push(u32::MAX);
                j += 1;
            }
        }
        let depth = max_local as usize + 1;
        Piggyback {
            p,
            a,
            h,
            factor,
            margin: margin_packets * packet_length as f64,
            local_threshold,
            global_ports,
            global_index,
            flags: vec![false; depth * switches * h],
            depth,
        }
    }

    /// The phits the data VCs of global port `gp` hold downstream, as its credits tell
    /// (FOGSim's `getCreditsOccupancy` summed over the port's VCs).
    fn port_occupancy(k: &Kernel, gp: u32, vcs: u16) -> u64 {
        if gp == u32::MAX {
            return 0;
        }
        (0..vcs)
            .map(|vc| occupancy(k, k.downstream_vc(gp as usize, vc)))
            .sum()
    }

    /// This cycle's flags of every switch (FOGSim's `updatePb`, per port).
    pub fn update(&mut self, k: &Kernel) {
        let switches = k.net.num_routers();
        // Every global link is of class `global`, so their inputs have as many VCs.
        let vcs = self
            .global_ports
            .iter()
            .find(|&&gp| gp != u32::MAX)
            .map_or(1, |&gp| k.data_vcs(k.peer[gp as usize] as usize))
            .max(1);
        let base = (k.now as usize % self.depth) * switches * self.h;
        for s in 0..switches {
            let ports = &self.global_ports[s * self.h..(s + 1) * self.h];
            let mut total = 0u64;
            for &gp in ports {
                total += Self::port_occupancy(k, gp, vcs);
            }
            let mean = total as f64 / (self.h as f64 * vcs as f64);
            let threshold = flag_threshold(self.factor, mean, self.margin);
            for (j, &gp) in ports.iter().enumerate() {
                let cur = Self::port_occupancy(k, gp, vcs) as f64 / vcs as f64;
                self.flags[base + s * self.h + j] = cur > threshold;
            }
        }
    }

    /// Whether switch `viewer` sees global port `j` of switch `owner` flagged now: its own
    /// flags as of this cycle, another switch's as of `delay` cycles ago (none before).
    fn flagged(&self, k: &Kernel, owner: usize, j: usize, delay: u64) -> bool {
        if k.now < delay {
            return false;
        }
        let switches = k.net.num_routers();
        let slot = ((k.now - delay) as usize) % self.depth;
        self.flags[slot * switches * self.h + owner * self.h + j]
    }

    /// Whether the global link on the minimal path of `pkt` from switch `s` is flagged
    /// (FOGSim's `isGlobalLinkCongested`): `s`'s own global port, or the global port of
    /// the switch its minimal local hop leads to, seen one local link's latency late.
    fn minimal_link_flagged(
        &self,
        k: &Kernel,
        s: usize,
        min_gp: usize,
        dst_switch: usize,
        dst: u32,
    ) -> bool {
        let info = k.net.ports[min_gp];
        match info.class {
            PortClass::Global => self.flagged(k, s, self.global_index[min_gp] as usize, 0),
            PortClass::Local => {
                let u = k.port_switch[k.peer[min_gp] as usize] as usize;
                if u == dst_switch {
                    return false;
                }
                let Some(&o) = k.route.group(u, dst_switch, dst).first() else {
                    return false;
                };
                let gp = k.net.port_base[u] as usize + o as usize;
                if k.net.ports[gp].class != PortClass::Global {
                    return false;
                }
                self.flagged(k, u, self.global_index[gp] as usize, info.latency as u64)
            }
            _ => false,
        }
    }

    /// PB's decision for data packet `pkt` whose head reached its source switch `s`, with
    /// Valiant node `val` (drawn by [`Piggyback::valiant_node`]): the intermediate switch
    /// and whether the packet is counted as misrouted.
    pub fn decide(&self, k: &Kernel, s: usize, pkt: u32, val: u32) -> (u32, bool) {
        let p = *k.pool.get(pkt);
        let dst_switch = p.dst_switch as usize;
        if dst_switch == s {
            return (NO_VIA, false);
        }
        let base = k.net.port_base[s] as usize;
        let Some(&min_port) = k.route.group(s, dst_switch, p.dst).first() else {
            return (NO_VIA, false);
        };
        let min_gp = base + min_port as usize;
        let (val_switch, val_port) = k.net.attach[val as usize];
        let val_switch = val_switch as usize;
        // Occupancy of VC 0 of each first hop (the VC a packet's first hop takes); FOGSim
        // reads a node's injection buffer when the Valiant node is on this switch.
        let q_min = occupancy(k, k.downstream_vc(min_gp, 0));
        let q_val = if val_switch == s {
            occupancy(k, k.vc_base[base + val_port as usize])
        } else {
            match k.route.ports_towards(s, val_switch).first() {
                Some(&o) => occupancy(k, k.downstream_vc(base + o as usize, 0)),
                None => 0,
            }
        };
        let (h_min, h_val) = fogsim_path_lengths((self.p, self.a, self.h), p.src, val, p.dst);
        let ugal =
            (q_min * h_min as u64) as f64 > (q_val * h_val as u64) as f64 + self.local_threshold;
        if ugal || self.minimal_link_flagged(k, s, min_gp, dst_switch, p.dst) {
            (val_switch as u32, true)
        } else {
            (NO_VIA, false)
        }
    }

    /// The Valiant node of a packet from switch `s` to switch `dst_switch`, as FOGSim v5's
    /// `setValNode` draws it (with its default `GlobalMisroutingPolicy`): a random node of
    /// the source group for traffic within the group, else a random node outside it.
    /// `nodes` is the network's node count and `rng` the routing's random stream.
    pub fn valiant_node(&self, rng: &mut Rng, nodes: usize, s: usize, dst_switch: usize) -> u32 {
        let per = (self.p * self.a) as u64;
        let sg = (s / self.a) as u64;
        let groups = nodes as u64 / per;
        if sg == (dst_switch / self.a) as u64 || groups < 2 {
            return (sg * per + rng.below(per)) as u32;
        }
        let mut node = rng.below((groups - 1) * per);
        if node >= sg * per {
            node += per;
        }
        node as u32
    }
}

/// The phits input VC `vc` holds or is owed, as its sender's credits tell.
#[inline]
fn occupancy(k: &Kernel, vc: u32) -> u64 {
    k.fc.held_by_credits(vc) as u64
}

/// FOGSim's flag threshold: `factor` × `mean` + `margin` phits, truncated to whole phits
/// (FOGSim keeps it in an `int`).
#[inline]
pub fn flag_threshold(factor: f64, mean: f64, margin: f64) -> f64 {
    (factor * mean + margin).floor()
}

/// FOGSim v5's estimate (`generatorModule::determinePaths`) of the hops of the minimal path
/// from node `src` to node `dst` and of the Valiant path through node `val`, on a dragonfly
/// of shape (p, a, h): one global hop per change of group, and a local hop wherever the
/// switch on the way lacks the global link the path needs, or the switch reached is not the
/// one sought. FOGSim decides "lacks" for the consecutive arrangement of global links (switch
/// r of group g holds the links to groups r·h + 1 … r·h + h counted from g, skipping g)
/// whatever the wiring, so under the palm tree the estimate differs from the true hop count
/// for some paths, as it does in FOGSim.
pub fn fogsim_path_lengths(
    (p, a, h): (usize, usize, usize),
    src: u32,
    val: u32,
    dst: u32,
) -> (u32, u32) {
    let coords = |n: u32| {
        let n = n as usize;
        (n / (p * a), (n / p) % a)
    };
    let (sg, sa) = coords(src);
    let (vg, va) = coords(val);
    let (dg, da) = coords(dst);
    // Whether switch `i` of group `g` lacks the global link to group `x` (x ≠ g).
    let lacks = |g: usize, i: usize, x: usize| -> u32 {
        let link = if x < g { x } else { x - 1 };
        (link / h != i) as u32
    };
    let min = if sg == dg {
        (sa != da) as u32
    } else {
        1 + lacks(sg, sa, dg) + lacks(dg, da, sg)
    };
    let first = if sg == vg {
        (sa != va) as u32
    } else {
        1 + lacks(sg, sa, vg)
    };
    let second = if vg == dg {
        (va != da) as u32
    } else {
        1 + lacks(vg, va, dg) + lacks(dg, da, vg)
    };
    (min, first + second)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// FOGSim's integer threshold: ⌊factor × mean + margin⌋.
    #[test]
    fn the_flag_threshold_is_truncated() {
        // Per-VC occupancies 0, 10 and 120 phits over three ports of 2 VCs: mean 260 / 6.
        assert_eq!(flag_threshold(2.0, 260.0 / 6.0, 50.0), 136.0);
        assert_eq!(flag_threshold(2.0, 0.0, 50.0), 50.0);
        assert_eq!(flag_threshold(1.25, 1.0, 0.0), 1.0);
    }

    /// The flags of a built kernel follow FOGSim's rule on the credits of a switch's global
    /// ports, and the other switches of the group see them one local link's latency later.
    #[test]
    fn flags_follow_the_rule_and_reach_the_group_a_local_latency_late() {
        let text = "[topology]\np = 3\na = 6\nh = 3\nlocal_latency = 2\n\
                    [switch]\nkind = \"cioq\"\n[router]\npacket_length = 10\n\
                    buffer_global = 1000\n[routing]\nalgorithm = \"pb\"\n";
        let cfg = crate::config::Config::from_toml_str(text).unwrap();
        let mut sim = super::super::build_with(&cfg, super::super::NoMechanism).unwrap();
        let k = &mut sim.k;
        let mut pb = k.pb.take().unwrap();
        assert_eq!(k.data_vcs(k.peer[pb.global_ports[0] as usize] as usize), 2);
        let ports: Vec<usize> = pb.global_ports[..3].iter().map(|&g| g as usize).collect();
        // Hold `phits` at VC `vc` of switch 0's global port `j`, as its credits tell.
        let hold = |k: &mut Kernel, j: usize, vc: u16, phits: u32| {
            let d = k.downstream_vc(ports[j], vc) as usize;
            k.fc.set_credits(d as u32, k.fc.capacity[d] - phits);
        };
        // Port 0 holds 319 phits on VC 0 (159.5 per VC), port 1 10: the mean per VC is
        // 329 / 6 = 54.83, the threshold ⌊2 × 54.83 + 5 × 10⌋ = ⌊159.67⌋ = 159. Port 0 is
        // flagged (by FOGSim's truncation: 159.5 is not above 159.67), ports 1 and 2 are not.
        hold(k, 0, 0, 319);
        hold(k, 1, 1, 10);
        k.now = 10;
        pb.update(k);
        assert!(pb.flagged(k, 0, 0, 0));
        assert!(!pb.flagged(k, 0, 0, 2), "cycle 8 had no flags");
        assert!(!pb.flagged(k, 0, 1, 0) && !pb.flagged(k, 0, 2, 0));
        // 320 phits: 160 per VC, threshold ⌊160⌋ = 160, not above it.
        hold(k, 0, 0, 320);
        k.now = 11;
        pb.update(k);
        assert!(!pb.flagged(k, 0, 0, 0));
        assert!(!pb.flagged(k, 0, 0, 2), "cycle 9 had no flags");
        // Seen from another switch of the group (2 cycles of local link): the flag of cycle
        // 10 at cycle 12, the clear of cycle 11 at 13.
        hold(k, 0, 0, 319);
        k.now = 12;
        pb.update(k);
        assert!(pb.flagged(k, 0, 0, 0) && pb.flagged(k, 0, 0, 2));
        k.now = 13;
        pb.update(k);
        assert!(pb.flagged(k, 0, 0, 0) && !pb.flagged(k, 0, 0, 2));
    }

    /// FOGSim's path lengths on p = 3, a = 6, h = 3 (19 groups): worked by hand from
    /// `determinePaths`.
    #[test]
    fn path_lengths_follow_fogsims_estimate() {
        let shape = (3, 6, 3);
        let node = |g: u32, r: u32, i: u32| g * 18 + r * 3 + i;
        // Same switch: 0 hops; same group: 1.
        assert_eq!(
            fogsim_path_lengths(shape, node(0, 0, 0), node(0, 0, 1), node(0, 0, 2)).0,
            0
        );
        assert_eq!(
            fogsim_path_lengths(shape, node(0, 0, 0), node(0, 0, 1), node(0, 1, 2)).0,
            1
        );
        // Group 0 switch 0 holds (consecutively) the links to groups 1-3; group 1's link to
        // group 0 is link 0, on its switch 0: node (0,0) -> (1,0) is one global hop.
        assert_eq!(
            fogsim_path_lengths(shape, node(0, 0, 0), node(0, 0, 1), node(1, 0, 0)).0,
            1
        );
        // Group 0 switch 1 lacks it, and group 1 switch 2 lacks group 0's: 3 hops.
        assert_eq!(
            fogsim_path_lengths(shape, node(0, 1, 0), node(0, 0, 1), node(1, 2, 0)).0,
            3
        );
        // Valiant through group 5 switch 4 from (0,1) to (1,2): group 0's link to group 5 is
        // link 4, on switch 1 (no local hop), 1 global; group 5's link to group 1 is link 1,
        // on switch 0 (switch 4 lacks it: 1 local), 1 global; group 1's link to group 5 is
        // link 4, on switch 1 (not 2: 1 local). 1 + 1 + 1 + 1 = 4.
        let (_, val) = fogsim_path_lengths(shape, node(0, 1, 0), node(5, 4, 0), node(1, 2, 0));
        assert_eq!(val, 4);
        // Valiant node in the destination's group, on its switch: 1 global + the source
        // group's local hop if needed (switch 0 of group 0 holds the link to group 1).
        let (_, val) = fogsim_path_lengths(shape, node(0, 0, 0), node(1, 2, 1), node(1, 2, 0));
        assert_eq!(val, 1);
        // Within the group: up to one local hop to the Valiant node's switch, one from it.
        let (min, val) = fogsim_path_lengths(shape, node(0, 0, 0), node(0, 3, 0), node(0, 1, 0));
        assert_eq!((min, val), (1, 2));
    }
}
