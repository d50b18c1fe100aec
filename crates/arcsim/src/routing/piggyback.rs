//! Piggyback (PB) source-adaptive routing (Jiang, Kim, Dally, ISCA 2009; the reference
//! adaptive routing of seed 001).
//!
//! Every router flags each of its global channels as saturated when the link was busy at least
//! 90% of the time (smoothed over about four periods; `routing.pb_utilisation = false` drops
//! this test, as FOGSim, the simulator of seed 001, has it), or its occupancy (seen through
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

use super::min::{minimal_distance, minimal_hop};
use super::valiant::{random_other_group, valiant_first_hop, ValRouting, DECIDED};
use super::vc::VcMap;
use super::{Candidates, RouteCtx, Routing};
use crate::engine::packet::Packet;
use crate::router::state::{PortState, VcState};
use crate::topology::Dragonfly;
use std::cell::RefCell;

/// A global channel busy at least this share of the last period is flagged saturated.
const BUSY: f64 = 0.9;

/// Intermediate groups tried for a Valiant path whose channel is not flagged.
const TRIES: usize = 4;

pub struct PiggybackRouting {
    pub df: Dragonfly,
    pub vcs: VcMap,
    pub threshold: f64,
    pub factor: f64,
    pub period: u64,
    /// Flag a channel busy at least `BUSY` of the time (`routing.pb_utilisation`).
    pub utilisation: bool,
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
        threshold: f64,
        factor: f64,
        period: u64,
        utilisation: bool,
        packet_length: u32,
    ) -> PiggybackRouting {
        let n = df.g * df.a * df.h;
        PiggybackRouting {
            df,
            vcs,
            threshold,
            factor,
            period,
            utilisation,
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
                    || (qk as f64 > self.factor * mean && qk as f64 >= one_packet);
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
