//! Minimal hierarchical routing on the dragonfly (l-g-l), and the minimal next hop shared by
//! every dragonfly routing.

use super::vc::VcMap;
use super::{Candidate, Candidates, HopKind, RouteCtx, Routing};
use crate::engine::packet::Packet;
use crate::topology::Dragonfly;

/// The minimal next hop from `router` towards router `target`, or None when already there.
/// Returns (port, is_global).
#[inline]
pub fn minimal_hop(df: &Dragonfly, router: usize, target: usize) -> Option<(usize, bool)> {
    if router == target {
        return None;
    }
    let (cg, tg) = (df.group_of(router), df.group_of(target));
    if cg == tg {
        let ci = df.index_in_group(router);
        return Some((df.local_port(ci, df.index_in_group(target)), false));
    }
    let port = df.exit_port(router, tg);
    Some((port, port >= df.first_global_port()))
}

/// Router-to-router hops of the minimal path.
pub fn minimal_distance(df: &Dragonfly, from: usize, to: usize) -> usize {
    let mut r = from;
    let mut n = 0;
    while let Some((port, _)) = minimal_hop(df, r, to) {
        let ci = df.index_in_group(r);
        r = if port >= df.first_global_port() {
            let link = ci * df.h + (port - df.first_global_port());
            let (tg, mate) = df
                .global_link_target(df.group_of(r), link)
                .expect("minimal path uses wired links");
            tg * df.a + df.global_link_port(mate).0
        } else {
            df.group_of(r) * df.a + df.local_peer(ci, port)
        };
        n += 1;
    }
    n
}

/// Candidate for the ejection port when `pkt` is at its destination router.
#[inline]
pub fn ejection(pkt: &Packet) -> Candidate {
    Candidate {
        port: pkt.dst_port as u16,
        vc_lo: 0,
        vc_hi: 0,
        kind: HopKind::Minimal,
        tag: 0,
        reserve: 0,
    }
}

/// Minimal hop towards `target` with the VC slice of the given positions.
#[inline]
pub fn hop_candidate(
    df: &Dragonfly,
    vcs: &VcMap,
    router: usize,
    target: usize,
    local_pos: usize,
    global_pos: usize,
    kind: HopKind,
) -> Option<Candidate> {
    minimal_hop(df, router, target).map(|hop| candidate_on(vcs, hop, local_pos, global_pos, kind))
}

/// The candidate for a hop already found by [`minimal_hop`] (port, is_global), with the VC
/// slice of the given positions: for routings that price the hop before they take it.
#[inline]
pub fn candidate_on(
    vcs: &VcMap,
    (port, global): (usize, bool),
    local_pos: usize,
    global_pos: usize,
    kind: HopKind,
) -> Candidate {
    let (vc_lo, vc_hi) = if global {
        vcs.global(global_pos)
    } else {
        vcs.local(local_pos)
    };
    Candidate {
        port: port as u16,
        vc_lo,
        vc_hi,
        kind,
        tag: 0,
        reserve: 0,
    }
}

pub struct MinRouting {
    pub df: Dragonfly,
    pub vcs: VcMap,
}

impl Routing for MinRouting {
    fn name(&self) -> &'static str {
        "min"
    }

    fn route(&self, ctx: &mut RouteCtx, pkt: &mut Packet, out: &mut Candidates) {
        let dst_router = pkt.dst_router as usize;
        if ctx.router == dst_router {
            out.push(ejection(pkt));
            return;
        }
        // Positions: l1 = 0, g1 = 0, l2 = 1 (local position = global hops taken).
        let pos = pkt.global_hops as usize;
        if let Some(c) = hop_candidate(
            &self.df,
            &self.vcs,
            ctx.router,
            dst_router,
            pos,
            0,
            HopKind::Minimal,
        ) {
            out.push(c);
        }
    }
}
