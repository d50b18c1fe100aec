//! Piggyback (PB) source-adaptive routing (Jiang, Kim, Dally, ISCA 2009; the reference
//! adaptive routing of the OFAR paper).
//!
//! Every router flags each of its global channels as saturated when the link was busy at least
//! 90% of the time (smoothed over about four periods; `routing.pb_utilisation = false` drops
//! this test, as FOGSim, the simulator of the OFAR paper, has it), or its occupancy (seen through
//! credits) exceeds `pb_factor` times the mean occupancy of the router's global channels (and
//! at least one packet). The utilisation test matters for input-queued routers: a saturated
//! link drains its downstream buffer at line rate, so its credits look healthy while packets
//! queue at the gateway's inputs. Routers share these flags with the rest of their group
//! piggybacked on local traffic, which this model represents as a sample taken every
//! `pb_period` cycles and published one period later: the source router sees flags between one
//! and two periods old. At injection the source router sends the packet along a Valiant path
//! when the global channel of its minimal path is flagged (trying a few random intermediate
//! groups for one whose channel is not flagged), and otherwise applies UGAL-L's comparison of
//! local queue occupancy times hop count. 3/2 VCs, as VAL.
//!
//! `routing.pb_model = "fogsim"` models FOGSim's PB instead (the 2014 source of the simulator
//! of the OFAR paper; see [`PbModel::Fogsim`] and docs/configuration.md): the flags and UGAL-L read
//! the VC each first hop would use (VC 0), minimal paths take the lowest VCs, the hop counts
//! are FOGSim's estimate of each path's *local* hops, the Valiant node is drawn once anywhere
//! outside the source group, and the choice is taken again at every allocation attempt while
//! the packet waits at injection (so a head waiting there is asked again every cycle while
//! one of its two first hops could take it).

use super::min::{minimal_distance, minimal_hop};
use super::valiant::{
    random_other_group, valiant_first_hop, valiant_first_port, ValRouting, DECIDED,
};
use super::vc::VcMap;
use super::{Candidates, RouteCtx, Routing};
use crate::config::{PbModel, RoutingConfig};
use crate::engine::packet::Packet;
use crate::router::state::{PortState, VcState};
use crate::topology::{Dragonfly, PortClass};
use std::cell::RefCell;

/// A global channel busy at least this share of the last period is flagged saturated.
const BUSY: f64 = 0.9;

/// Intermediate groups tried for a Valiant path whose channel is not flagged.
const TRIES: usize = 4;

/// FOGSim model: `route.flags` bit of a packet currently choosing its minimal path.
const MINIMAL: u8 = 2;
/// FOGSim model: `route.inter` holds the Valiant group in its low bits and, from this bit
/// up, the index in that group of the Valiant node's router (FOGSim prices the path through
/// it). Groups and routers per group stay far below 2^20 and 2^12.
const VAL_ROUTER_SHIFT: u32 = 20;
const GROUP_MASK: u32 = (1 << VAL_ROUTER_SHIFT) - 1;

pub struct PiggybackRouting {
    pub df: Dragonfly,
    pub vcs: VcMap,
    pub threshold: f64,
    pub factor: f64,
    pub period: u64,
    /// Flag a channel busy at least `BUSY` of the time (`routing.pb_utilisation`).
    pub utilisation: bool,
    /// Added to the flag threshold, in phits (`routing.pb_margin` packets).
    pub margin: f64,
    pub model: PbModel,
    /// A channel holding less than one packet is never flagged.
    pub packet_length: u32,
    /// Flags as the group sees them (`[group * a*h + link]`) and the newest sample, which
    /// becomes visible at the next period.
    seen: RefCell<Vec<bool>>,
    sampled: RefCell<Vec<bool>>,
    /// Phits each port had sent at the previous sample (utilisation over the period).
    last_sent: RefCell<Vec<u32>>,
    /// Smoothed utilisation of each port's link.
    util: RefCell<Vec<f64>>,
}

impl PiggybackRouting {
    pub fn new(
        df: Dragonfly,
        vcs: VcMap,
        cfg: &RoutingConfig,
        packet_length: u32,
    ) -> PiggybackRouting {
        let n = df.g * df.a * df.h;
        PiggybackRouting {
            df,
            vcs,
            threshold: cfg.ugal_threshold,
            factor: cfg.pb_factor,
            period: cfg.pb_period,
            utilisation: cfg.pb_utilisation,
            margin: cfg.pb_margin * packet_length as f64,
            model: cfg.pb_model,
            packet_length,
            seen: RefCell::new(vec![false; n]),
            sampled: RefCell::new(vec![false; n]),
            last_sent: RefCell::new(Vec::new()),
            util: RefCell::new(Vec::new()),
        }
    }

    /// Whether global link `link` of `group` is flagged saturated, as its group sees it.
    pub fn saturated(&self, group: usize, link: usize) -> bool {
        self.seen.borrow()[group * self.df.a * self.df.h + link]
    }
}

impl Routing for PiggybackRouting {
    fn name(&self) -> &'static str {
        "pb"
    }

    fn period(&self) -> u64 {
        self.period
    }

    fn on_period(&self, now: u64, port_base: &[u32], ports: &[PortState], vcs: &[VcState]) {
        let df = &self.df;
        let mut seen = self.seen.borrow_mut();
        let mut last_sent = self.last_sent.borrow_mut();
        let mut util = self.util.borrow_mut();
        if last_sent.len() < ports.len() {
            last_sent.resize(ports.len(), 0);
            util.resize(ports.len(), 0.0);
        }
        let mut sampled = self.sampled.borrow_mut();
        // Last period's sample reaches the rest of the group now.
        std::mem::swap(&mut *seen, &mut *sampled);
        // FOGSim flags a channel on its VC 0, the VC of every first global hop.
        let vc0_only = self.model == PbModel::Fogsim;
        let occ = |gp: usize| -> u32 {
            let p = &ports[gp];
            let b = p.vc_base as usize;
            let n = if vc0_only { 1 } else { p.vc_count as usize };
            vcs[b..b + n].iter().map(|v| v.credit.occupancy(now)).sum()
        };
        for (r, &pb) in port_base.iter().take(df.num_routers()).enumerate() {
            let base = pb as usize + df.first_global_port();
            let (g, i) = (df.group_of(r), df.index_in_group(r));
            // A stack array: this runs for every router every period.
            let mut occs = [0u32; crate::router::MAX_RADIX];
            let q = &mut occs[..df.h];
            for (k, slot) in q.iter_mut().enumerate() {
                *slot = occ(base + k);
            }
            let mean = q.iter().sum::<u32>() as f64 / df.h as f64;
            let one_packet = self.packet_length as f64;
            for (k, &qk) in q.iter().enumerate() {
                let gp = base + k;
                let sent = ports[gp].sent.wrapping_sub(last_sent[gp]);
                last_sent[gp] = ports[gp].sent;
                // Packets are counted whole when granted, so one period's share is coarse:
                // smooth it over about four periods.
                let busy = sent as f64 / self.period as f64;
                let u = &mut util[gp];
                *u += 0.25 * (busy - *u);
                sampled[g * df.a * df.h + i * df.h + k] = (self.utilisation && *u >= BUSY)
                    || (qk as f64 > self.factor * mean + self.margin && qk as f64 >= one_packet);
            }
        }
    }

    /// FOGSim's choice changes with the credits while the packet waits at injection; in
    /// transit its path is fixed.
    fn injection_state_dependent(&self) -> bool {
        self.model == PbModel::Fogsim
    }

    /// FOGSim asks every unserved input again at each iteration of an allocation: a grant
    /// consumes credits of an output, and so may turn a head's choice towards its other
    /// first hop (`route` names both in `reopen`).
    fn grants_open_paths(&self) -> bool {
        self.model == PbModel::Fogsim
    }

    /// The first hops of both paths while FOGSim's choice is still open; the one path's hop
    /// otherwise. Only after `route` has drawn the Valiant node.
    fn injection_alternatives(&self, ctx: &RouteCtx, pkt: &mut Packet, out: &mut Candidates) {
        if self.model != PbModel::Fogsim || pkt.route.flags & DECIDED == 0 {
            return;
        }
        if !Self::fogsim_chooses(ctx, pkt) {
            return self.fogsim_path(ctx, pkt, None, out);
        }
        let flags = pkt.route.flags;
        pkt.route.flags = flags | MINIMAL;
        self.fogsim_path(ctx, pkt, None, out);
        pkt.route.flags = flags & !MINIMAL;
        self.fogsim_path(ctx, pkt, None, out);
        pkt.route.flags = flags;
    }

    fn route(&self, ctx: &mut RouteCtx, pkt: &mut Packet, out: &mut Candidates) {
        if self.model == PbModel::Fogsim {
            return self.route_fogsim(ctx, pkt, out);
        }
        let df = &self.df;
        if pkt.route.flags & DECIDED == 0 {
            pkt.route.flags |= DECIDED;
            let dst = pkt.dst_router as usize;
            let sg = df.group_of(ctx.router);
            let dg = df.group_of(dst);
            pkt.route.inter = sg as u32; // minimal unless decided otherwise
            if sg != dg {
                let min_link = df.global_link_to(sg, dg);
                let min_port = minimal_hop(df, ctx.router, dst)
                    .expect("not at destination")
                    .0;
                // A Valiant candidate whose global channel is not flagged, if one is found.
                let mut val = None;
                for _ in 0..TRIES {
                    if let Some(ig) = random_other_group(df, ctx.rng, sg, dg) {
                        let v = valiant_first_hop(df, ctx.router, sg, ig, dst);
                        let ok = !self.saturated(sg, v.2);
                        val = Some((ig, v));
                        if ok {
                            break;
                        }
                    }
                }
                if let Some((ig, (val_port, h_val, val_link))) = val {
                    // A flagged minimal channel sends the packet non-minimally (through an
                    // unflagged channel when one of the tries found one); otherwise UGAL-L.
                    let _ = val_link;
                    let nonmin = if self.saturated(sg, min_link) {
                        true
                    } else {
                        let h_min = minimal_distance(df, ctx.router, dst) as f64;
                        let q_min = ctx.port_occupancy(min_port) as f64;
                        let q_val = ctx.port_occupancy(val_port) as f64;
                        q_min * h_min > q_val * h_val as f64 + self.threshold
                    };
                    if nonmin {
                        pkt.route.inter = ig as u32;
                        pkt.misrouted = true;
                    }
                }
            }
        }
        ValRouting::route_valiant(df, &self.vcs, ctx, pkt, out);
    }
}

impl PiggybackRouting {
    /// `routing.pb_model = "fogsim"`: FOGSim's `switchModule::tryPetition` with
    /// `piggybacking = 1` (which turns on its UGAL) and Dally's VCs.
    fn route_fogsim(&self, ctx: &mut RouteCtx, pkt: &mut Packet, out: &mut Candidates) {
        let df = &self.df;
        if pkt.route.flags & DECIDED == 0 {
            // FOGSim draws the Valiant node when the packet is generated, uniformly among the
            // nodes outside the source group (the destination's group included).
            pkt.route.flags |= DECIDED | MINIMAL;
            pkt.route.inter = GROUP_MASK;
            let sg = df.group_of(ctx.router);
            if df.g > 1 {
                let mut ig = ctx.rng.below((df.g - 1) as u64) as u32;
                if ig >= sg as u32 {
                    ig += 1;
                }
                let va = ctx.rng.below(df.a as u64) as u32;
                pkt.route.inter = ig | va << VAL_ROUTER_SHIFT;
            }
        }
        // The choice is taken again at every attempt while the packet is at injection; the
        // minimal hop it prices is the one the path then takes.
        let mut min_hop = None;
        if Self::fogsim_chooses(ctx, pkt) {
            let hop = minimal_hop(df, ctx.router, pkt.dst_router as usize)
                .expect("fogsim_chooses: not at the destination");
            let valiant = self.fogsim_prefers_valiant(ctx, pkt, hop.0);
            if valiant {
                pkt.route.flags &= !MINIMAL;
            } else {
                pkt.route.flags |= MINIMAL;
            }
            pkt.misrouted = valiant;
            min_hop = Some(hop);
        }
        self.fogsim_path(ctx, pkt, min_hop, out);
    }

    /// Whether FOGSim's choice between the minimal and the Valiant path is (re)taken for this
    /// head: at injection only, when it leaves the router (FOGSim prices only those) and has
    /// a Valiant node (only with g > 1).
    fn fogsim_chooses(ctx: &RouteCtx, pkt: &Packet) -> bool {
        ctx.in_class == PortClass::Terminal
            && ctx.router != pkt.dst_router as usize
            && pkt.route.inter != GROUP_MASK
    }

    /// The next hop of the path `pkt` currently follows (the `MINIMAL` flag); `min_hop`, the
    /// minimal hop from here when the caller has already found it.
    fn fogsim_path(
        &self,
        ctx: &RouteCtx,
        pkt: &mut Packet,
        min_hop: Option<(usize, bool)>,
        out: &mut Candidates,
    ) {
        let df = &self.df;
        let dst = pkt.dst_router as usize;
        if pkt.route.flags & MINIMAL != 0 {
            if ctx.router == dst {
                out.push(super::min::ejection(pkt));
                return;
            }
            // The minimal path l-g-l on the first positions of the Valiant path's order: local
            // VC 0 before the global hop, 1 after it; global VC 0.
            let local_pos = (ctx.in_class == PortClass::Global) as usize;
            if let Some(hop) = min_hop.or_else(|| minimal_hop(df, ctx.router, dst)) {
                out.push(super::min::candidate_on(
                    &self.vcs,
                    hop,
                    local_pos,
                    0,
                    super::HopKind::Minimal,
                ));
            }
        } else {
            let packed = pkt.route.inter;
            pkt.route.inter &= GROUP_MASK;
            ValRouting::route_valiant(df, &self.vcs, ctx, pkt, out);
            pkt.route.inter = packed;
        }
    }

    /// FOGSim's UGAL-L with piggybacked flags, at the source router: Valiant when the minimal
    /// path's global channel is flagged, or when q_min * H_min > q_val * H_val + threshold,
    /// with q the occupancy of the VC each path's first hop would take (VC 0) and H FOGSim's
    /// estimate of the path's local hops ([`consecutive_local_hops`]).
    fn fogsim_prefers_valiant(&self, ctx: &mut RouteCtx, pkt: &Packet, min_port: usize) -> bool {
        let df = &self.df;
        let r = ctx.router;
        let dst = pkt.dst_router as usize;
        let (sg, dg) = (df.group_of(r), df.group_of(dst));
        let ig = (pkt.route.inter & GROUP_MASK) as usize;
        let va = (pkt.route.inter >> VAL_ROUTER_SHIFT) as usize;
        if sg != dg && self.saturated(sg, df.global_link_to(sg, dg)) {
            return true;
        }
        let first_vc = |port: usize| -> usize {
            if port >= df.first_global_port() {
                self.vcs.global(0).0 as usize
            } else {
                self.vcs.local(0).0 as usize
            }
        };
        let val_port = valiant_first_port(df, r, sg, ig);
        // A grant of either output changes the occupancies compared.
        ctx.reopen |= 1u64 << min_port | 1u64 << val_port;
        let q_min = ctx.vc_occupancy(min_port, first_vc(min_port)) as f64;
        let q_val = ctx.vc_occupancy(val_port, first_vc(val_port)) as f64;
        let (h_min, h_val) = consecutive_local_hops(df, r, dst, ig, va);
        q_min * h_min as f64 > q_val * h_val as f64 + self.threshold
    }
}

/// FOGSim's estimate (`generatorModule::action`) of the local hops of the minimal path from
/// router `r` to router `dst` and of the Valiant path through router `va` of group `ig`:
/// one hop for each router on the way that does not hold the global link the path needs,
/// and one in the destination group when `va` is not the destination's router (`ig` = its
/// group). FOGSim computes "holds" for the consecutive arrangement (router i of group g holds
/// the links to the groups i·h … i·h + h − 1, counted from g + 1 … skipping g) whatever the
/// wiring: exact with `topology.arrangement = "consecutive"`, uncorrelated with the real paths
/// under the palm tree.
fn consecutive_local_hops(
    df: &Dragonfly,
    r: usize,
    dst: usize,
    ig: usize,
    va: usize,
) -> (u32, u32) {
    // Whether router `i` of group `g` holds the link to group `x` in the consecutive
    // arrangement: links are numbered by target group, skipping `g`.
    let lacks = |g: usize, i: usize, x: usize| -> u32 {
        let link = if x < g { x } else { x - 1 };
        (link / df.h != i) as u32
    };
    let (sg, sa) = (df.group_of(r), df.index_in_group(r));
    let (dg, da) = (df.group_of(dst), df.index_in_group(dst));
    let h_min = if sg == dg {
        (sa != da) as u32
    } else {
        lacks(sg, sa, dg) + lacks(dg, da, sg)
    };
    let h_val = lacks(sg, sa, ig)
        + if ig == dg {
            (va != da) as u32
        } else {
            lacks(ig, va, dg) + lacks(dg, da, ig)
        };
    (h_min, h_val)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{GlobalArrangement, TopologyConfig};
    use crate::routing::min::minimal_distance;

    fn dragonfly(arrangement: GlobalArrangement) -> Dragonfly {
        Dragonfly::new(&TopologyConfig {
            p: 2,
            a: 4,
            h: 2,
            arrangement,
            ..TopologyConfig::default()
        })
    }

    /// Under the consecutive arrangement FOGSim's estimate is the true count of local hops:
    /// of the minimal path, and of the Valiant path when the Valiant node's router is the
    /// one the path enters the intermediate group at.
    #[test]
    fn fogsim_hop_estimate_is_exact_for_the_consecutive_arrangement() {
        let df = dragonfly(GlobalArrangement::Consecutive);
        for r in 0..df.num_routers() {
            for dst in 0..df.num_routers() {
                let (sg, dg) = (df.group_of(r), df.group_of(dst));
                for ig in (0..df.g).filter(|&ig| ig != sg) {
                    let link = df.global_link_to(sg, ig);
                    let (tg, mate) = df.global_link_target(sg, link).expect("wired");
                    assert_eq!(tg, ig);
                    let va = df.global_link_port(mate).0;
                    let (h_min, h_val) = consecutive_local_hops(&df, r, dst, ig, va);
                    let min_local = minimal_distance(&df, r, dst) - (sg != dg) as usize;
                    assert_eq!(h_min as usize, min_local, "minimal {r} -> {dst}");
                    let (_, hops, _) = valiant_first_hop(&df, r, sg, ig, dst);
                    let val_local = hops - 1 - (ig != dg) as usize;
                    assert_eq!(h_val as usize, val_local, "{r} -> {dst} through group {ig}");
                }
            }
        }
    }

    /// Under the palm tree (the paper's wiring) the estimate misses the real count for some
    /// minimal paths: what FOGSim's PB weighs its queues with there.
    #[test]
    fn fogsim_hop_estimate_is_not_the_palm_tree_count() {
        let df = dragonfly(GlobalArrangement::PalmTree);
        let wrong = (0..df.num_routers())
            .flat_map(|r| (0..df.num_routers()).map(move |d| (r, d)))
            .filter(|&(r, d)| {
                let globals = (df.group_of(r) != df.group_of(d)) as usize;
                let other = (df.group_of(r) + 1) % df.g;
                let (h_min, _) = consecutive_local_hops(&df, r, d, other, 0);
                h_min as usize != minimal_distance(&df, r, d) - globals
            })
            .count();
        assert!(wrong > 0);
    }
}
