//! Valiant routing on the dragonfly.
//!
//! * VAL: minimally to a random intermediate group, then minimally to the destination
//!   (l-g-l-g-l, 3/2 VCs), as in Kim et al. and the OFAR paper.
//! * VAL-any: minimally to a random intermediate router anywhere, then minimally to the
//!   destination (Valiant's original definition; l-g-l-l-g-l, 4/2 VCs).
//!
//! With `routing.valiant_model = "fogsim"` both draw the intermediate as FOGSim does: a
//! random node outside the source group, whose group is VAL's intermediate (possibly the
//! destination's: the path is then minimal) and whose router is VAL-any's.

use super::min::{ejection, hop_candidate};
use super::vc::VcMap;
use super::{Candidates, HopKind, RouteCtx, Routing};
use crate::engine::packet::Packet;
use crate::rng::Rng;
use crate::topology::Dragonfly;

pub(crate) const DECIDED: u8 = 1;

/// A random group other than `a` and `b` (None when there is none).
pub(crate) fn random_other_group(
    df: &Dragonfly,
    rng: &mut Rng,
    a: usize,
    b: usize,
) -> Option<usize> {
    let excluded = if a == b { 1 } else { 2 };
    if df.g <= excluded {
        return None;
    }
    let mut k = rng.below((df.g - excluded) as u64) as usize;
    // Skip the excluded groups in increasing order.
    let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
    if k >= lo {
        k += 1;
    }
    if a != b && k >= hi {
        k += 1;
    }
    Some(k)
}

/// A random router outside group `sg` (FOGSim's Valiant node), uniformly.
fn random_router_outside(df: &Dragonfly, rng: &mut Rng, sg: usize) -> usize {
    let mut r = rng.below(((df.g - 1) * df.a) as u64) as usize;
    if r >= sg * df.a {
        r += df.a;
    }
    r
}

/// First output port of the Valiant path from router `r` (group `sg`) through intermediate
/// group `ig`: towards the router of `sg` holding the link to `ig`, or that link itself.
pub(crate) fn valiant_first_port(df: &Dragonfly, r: usize, sg: usize, ig: usize) -> usize {
    let (ri, gport) = df.global_link_port(df.global_link_to(sg, ig));
    let gate = sg * df.a + ri;
    if gate == r {
        gport
    } else {
        super::min::minimal_hop(df, r, gate)
            .expect("gate differs")
            .0
    }
}

/// First output port, router-to-router hop count and global link of the Valiant path from
/// router `r` (group `sg`) through intermediate group `ig` to router `dst`: minimally to the
/// router of `sg` holding the link to `ig`, across it, then minimally to `dst`. Used by the
/// source-adaptive routings (UGAL-L, PB) to price the non-minimal alternative.
pub(crate) fn valiant_first_hop(
    df: &Dragonfly,
    r: usize,
    sg: usize,
    ig: usize,
    dst: usize,
) -> (usize, usize, usize) {
    let link = df.global_link_to(sg, ig);
    let gate = sg * df.a + df.global_link_port(link).0;
    let port = valiant_first_port(df, r, sg, ig);
    let (tg, mate) = df.global_link_target(sg, link).expect("wired");
    let landing = tg * df.a + df.global_link_port(mate).0;
    let hops = super::min::minimal_distance(df, r, gate)
        + 1
        + super::min::minimal_distance(df, landing, dst);
    (port, hops, link)
}

pub struct ValRouting {
    pub df: Dragonfly,
    pub vcs: VcMap,
    /// `routing.valiant_model = "fogsim"`: the intermediate group is that of a random router
    /// outside the source group.
    pub fogsim: bool,
}

impl ValRouting {
    /// Route a packet whose intermediate group is fixed (shared with UGAL-L).
    pub(crate) fn route_valiant(
        df: &Dragonfly,
        vcs: &VcMap,
        ctx: &RouteCtx,
        pkt: &mut Packet,
        out: &mut Candidates,
    ) {
        let dst_router = pkt.dst_router as usize;
        let group = df.group_of(ctx.router);
        if pkt.route.phase == 0 && group == pkt.route.inter as usize {
            pkt.route.phase = 1;
        }
        if pkt.route.phase == 0 {
            // Towards the intermediate group: its router on our link is the target.
            let link = df.global_link_to(group, pkt.route.inter as usize);
            let (ri, _) = df.global_link_port(link);
            let gate = group * df.a + ri;
            let c = if gate == ctx.router {
                let (_, port) = df.global_link_port(link);
                let (vc_lo, vc_hi) = vcs.global(0);
                super::Candidate {
                    port: port as u16,
                    vc_lo,
                    vc_hi,
                    kind: HopKind::NonMinimal,
                    tag: 0,
                    reserve: 0,
                }
            } else {
                hop_candidate(df, vcs, ctx.router, gate, 0, 0, HopKind::NonMinimal)
                    .expect("not at gate")
            };
            out.push(c);
            return;
        }
        if ctx.router == dst_router {
            out.push(ejection(pkt));
            return;
        }
        // Phase 1 positions: local 1 before the second global hop, 2 after; global 1.
        let in_dst_group = group == df.group_of(dst_router);
        let local_pos = 1 + in_dst_group as usize;
        if let Some(c) = hop_candidate(
            df,
            vcs,
            ctx.router,
            dst_router,
            local_pos,
            1,
            HopKind::Minimal,
        ) {
            out.push(c);
        }
    }
}

impl Routing for ValRouting {
    fn name(&self) -> &'static str {
        "val"
    }

    fn route(&self, ctx: &mut RouteCtx, pkt: &mut Packet, out: &mut Candidates) {
        if pkt.route.flags & DECIDED == 0 {
            pkt.route.flags |= DECIDED;
            let sg = self.df.group_of(ctx.router);
            let dg = self.df.group_of(pkt.dst_router as usize);
            let inter = if !self.fogsim {
                random_other_group(&self.df, ctx.rng, sg, dg)
            } else {
                (self.df.g > 1).then(|| {
                    self.df
                        .group_of(random_router_outside(&self.df, ctx.rng, sg))
                })
            };
            match inter {
                Some(g) => {
                    pkt.route.inter = g as u32;
                    // FOGSim's draw may land in the destination group: a minimal path.
                    pkt.misrouted = g != dg;
                }
                None => {
                    // Two groups: no Valiant path exists; go minimally (phase 1).
                    pkt.route.inter = sg as u32;
                }
            }
        }
        Self::route_valiant(&self.df, &self.vcs, ctx, pkt, out);
    }
}

pub struct ValAnyRouting {
    pub df: Dragonfly,
    pub vcs: VcMap,
    /// `routing.valiant_model = "fogsim"`: the intermediate is a random router outside the
    /// source group.
    pub fogsim: bool,
}

impl Routing for ValAnyRouting {
    fn name(&self) -> &'static str {
        "val-any"
    }

    fn route(&self, ctx: &mut RouteCtx, pkt: &mut Packet, out: &mut Candidates) {
        let df = &self.df;
        let dst_router = pkt.dst_router as usize;
        if pkt.route.flags & DECIDED == 0 {
            pkt.route.flags |= DECIDED;
            let r = if self.fogsim && df.g > 1 {
                random_router_outside(df, ctx.rng, df.group_of(ctx.router))
            } else {
                ctx.rng.below(df.num_routers() as u64) as usize
            };
            pkt.route.inter = r as u32;
            pkt.misrouted = r != ctx.router && r != dst_router;
        }
        if pkt.route.phase == 0 && ctx.router == pkt.route.inter as usize {
            pkt.route.phase = 1;
        }
        // Positions per phase k: local 2k before the phase's global hop, 2k+1 in the phase's
        // target group; global k. Order: l0 < g0 < l1 < l2 < g1 < l3.
        let (target, kind) = if pkt.route.phase == 0 {
            (pkt.route.inter as usize, HopKind::NonMinimal)
        } else {
            if ctx.router == dst_router {
                out.push(ejection(pkt));
                return;
            }
            (dst_router, HopKind::Minimal)
        };
        let k = pkt.route.phase as usize;
        let in_target_group = df.group_of(ctx.router) == df.group_of(target);
        let local_pos = 2 * k + in_target_group as usize;
        if let Some(c) = hop_candidate(df, &self.vcs, ctx.router, target, local_pos, k, kind) {
            out.push(c);
        }
    }
}
