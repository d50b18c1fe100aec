//! UGAL-L (Kim et al., ISCA 2008): at the injection router, compare the minimal path with one
//! random Valiant path using local output-queue occupancy times hop count:
//! minimal if `q_min * H_min <= q_val * H_val + threshold`. Deadlock-free with 3/2 VCs: a
//! minimal packet takes the positions of the second half of a Valiant path (l1-g1-l2), which
//! keeps every path increasing in the order l0 < g0 < l1 < g1 < l2.

use super::min::{minimal_distance, minimal_hop};
use super::valiant::{random_other_group, valiant_first_hop, ValRouting, DECIDED};
use super::vc::VcMap;
use super::{Candidates, RouteCtx, Routing};
use crate::engine::packet::Packet;
use crate::topology::Dragonfly;

pub struct UgalLRouting {
    pub df: Dragonfly,
    pub vcs: VcMap,
    pub threshold: f64,
}

impl Routing for UgalLRouting {
    fn name(&self) -> &'static str {
        "ugal-l"
    }

    fn route(&self, ctx: &mut RouteCtx, pkt: &mut Packet, out: &mut Candidates) {
        let df = &self.df;
        if pkt.route.flags & DECIDED == 0 {
            pkt.route.flags |= DECIDED;
            let dst_router = pkt.dst_router as usize;
            let sg = df.group_of(ctx.router);
            let dg = df.group_of(dst_router);
            // Minimal unless a Valiant path through another group looks less loaded.
            pkt.route.inter = sg as u32; // phase 1 at once = minimal
            if let (Some(ig), Some((min_port, _))) = (
                random_other_group(df, ctx.rng, sg, dg),
                minimal_hop(df, ctx.router, dst_router),
            ) {
                let (val_port, h_val, _) = valiant_first_hop(df, ctx.router, sg, ig, dst_router);
                let h_val = h_val as f64;
                let h_min = minimal_distance(df, ctx.router, dst_router) as f64;
                let q_min = ctx.port_occupancy(min_port) as f64;
                let q_val = ctx.port_occupancy(val_port) as f64;
                if q_min * h_min > q_val * h_val + self.threshold {
                    pkt.route.inter = ig as u32;
                    pkt.misrouted = true;
                }
            }
        }
        ValRouting::route_valiant(df, &self.vcs, ctx, pkt, out);
    }
}
