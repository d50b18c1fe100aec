//! Piggyback (PB) source-adaptive routing (Jiang, Kim, Dally, ISCA 2009; the reference
//! adaptive routing of seed 001).
//!
//! Every router flags each of its global channels as saturated when the channel's occupancy
//! (seen through credits) exceeds `pb_factor` times the mean occupancy of the router's global
//! channels (and at least one packet). Routers share these flags with the rest of their group
//! piggybacked on local traffic, which this model represents as a sample taken every
//! `pb_period` cycles and published one period later: the source router sees flags between one
//! and two periods old. At injection the source router sends the packet along a Valiant path
//! when the global channel of its minimal path is flagged (trying a few random intermediate
//! groups for one whose channel is not flagged), and otherwise applies UGAL-L's comparison of
//! local queue occupancy times hop count. 3/2 VCs, as VAL.

use super::min::{minimal_distance, minimal_hop};
use super::valiant::{random_other_group, valiant_first_hop, ValRouting, DECIDED};
use super::vc::VcMap;
use super::{Candidates, RouteCtx, Routing};
use crate::engine::packet::Packet;
use crate::router::state::{PortState, VcState};
use crate::topology::Dragonfly;
use std::cell::RefCell;

/// Intermediate groups tried for a Valiant path whose channel is not flagged.
const TRIES: usize = 4;

pub struct PiggybackRouting {
    pub df: Dragonfly,
    pub vcs: VcMap,
    pub threshold: f64,
    pub factor: f64,
    pub period: u64,
    /// A channel holding less than one packet is never flagged.
    pub packet_length: u32,
    /// Flags as the group sees them (`[group * a*h + link]`) and the newest sample, which
    /// becomes visible at the next period.
    seen: RefCell<Vec<bool>>,
    sampled: RefCell<Vec<bool>>,
}

impl PiggybackRouting {
    pub fn new(
        df: Dragonfly,
        vcs: VcMap,
        threshold: f64,
        factor: f64,
        period: u64,
        packet_length: u32,
    ) -> PiggybackRouting {
        let n = df.g * df.a * df.h;
        PiggybackRouting {
            df,
            vcs,
            threshold,
            factor,
            period,
            packet_length,
            seen: RefCell::new(vec![false; n]),
            sampled: RefCell::new(vec![false; n]),
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
        let mut sampled = self.sampled.borrow_mut();
        // Last period's sample reaches the rest of the group now.
        std::mem::swap(&mut *seen, &mut *sampled);
        let occ = |gp: usize| -> u32 {
            let p = &ports[gp];
            let b = p.vc_base as usize;
            vcs[b..b + p.vc_count as usize]
                .iter()
                .map(|v| v.credit.occupancy(now))
                .sum()
        };
        for (r, &pb) in port_base.iter().take(df.num_routers()).enumerate() {
            let base = pb as usize + df.first_global_port();
            let (g, i) = (df.group_of(r), df.index_in_group(r));
            let q: Vec<u32> = (0..df.h).map(|k| occ(base + k)).collect();
            let mean = q.iter().sum::<u32>() as f64 / df.h as f64;
            let one_packet = self.packet_length as f64;
            for (k, &qk) in q.iter().enumerate() {
                sampled[g * df.a * df.h + i * df.h + k] =
                    qk as f64 > self.factor * mean && qk as f64 >= one_packet;
            }
        }
    }

    fn route(&self, ctx: &mut RouteCtx, pkt: &mut Packet, out: &mut Candidates) {
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
                    let nonmin = if self.saturated(sg, min_link) {
                        !self.saturated(sg, val_link)
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
