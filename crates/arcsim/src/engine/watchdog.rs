//! Deadlock report: what the watchdog prints instead of hanging.

use super::Simulation;
use crate::routing::{RouteCtx, Routing};
use crate::topology::PortClass;
use std::fmt;

/// One blocked input VC.
#[derive(Debug, Clone)]
pub struct BlockedVc {
    pub router: usize,
    pub port: usize,
    pub class: PortClass,
    pub vc: usize,
    pub packets: usize,
    pub head_dst: u32,
    /// (output port, class, VC range, credits per VC in range) the head wants.
    pub wants: Vec<(usize, PortClass, u8, u8, Vec<u32>)>,
}

#[derive(Debug, Clone)]
pub struct DeadlockReport {
    pub cycle: u64,
    pub last_move: u64,
    pub in_flight: usize,
    pub occupied_buffers: usize,
    pub examples: Vec<BlockedVc>,
}

impl fmt::Display for DeadlockReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "deadlock: no packet has moved for {} cycles (last movement at cycle {}, now {}); {} packets in flight in {} occupied input buffers",
            self.cycle - self.last_move,
            self.last_move,
            self.cycle,
            self.in_flight,
            self.occupied_buffers
        )?;
        writeln!(f, "blocked buffers (first {}):", self.examples.len())?;
        for b in &self.examples {
            write!(
                f,
                "  router {} input port {} ({:?}) VC {}: {} packets, head to node {} waits for",
                b.router, b.port, b.class, b.vc, b.packets, b.head_dst
            )?;
            for (port, class, lo, hi, credits) in &b.wants {
                write!(
                    f,
                    " output {port} ({class:?}) VCs {lo}..={hi} credits {credits:?};"
                )?;
            }
            writeln!(f)?;
        }
        write!(
            f,
            "hint: the routing's VC ordering (routing.ordered_vcs) or escape network does not break this cycle of buffers"
        )
    }
}

impl<R: Routing> Simulation<R> {
    pub(crate) fn deadlock_report(&mut self) -> DeadlockReport {
        let mut examples = Vec::new();
        let mut occupied = 0;
        for vc in 0..self.vcs.len() {
            let v = self.vcs[vc];
            if v.fifo.len == 0 {
                continue;
            }
            occupied += 1;
            if examples.len() >= 12 {
                continue;
            }
            let gp = v.port as usize;
            let pin = self.ports[gp];
            let r = pin.router as usize;
            let base = self.net.port_base[r] as usize;
            let radix = self.net.port_base[r + 1] as usize - base;
            let port = gp - base;
            let head = self.slots.front(&v.fifo).expect("non-empty");
            let mut cands = crate::routing::Candidates::default();
            let ports = &self.ports[base..base + radix];
            let mut ctx = RouteCtx {
                now: self.now,
                router: r,
                in_port: port,
                in_class: pin.class,
                in_vc: vc - pin.vc_base as usize,
                taken: 0,
                ports,
                vcs: &self.vcs,
                rng: &mut self.rng,
            };
            let pkt = self.pool.get_mut(head);
            let dst = pkt.dst;
            self.routing.route(&mut ctx, pkt, &mut cands);
            let wants = cands
                .as_slice()
                .iter()
                .map(|c| {
                    let po = ports[c.port as usize];
                    let vb = po.vc_base as usize;
                    let credits = (c.vc_lo..=c.vc_hi.min(po.vc_count.saturating_sub(1)))
                        .map(|vv| self.vcs[vb + vv as usize].credit.credits(self.now))
                        .collect();
                    (c.port as usize, po.class, c.vc_lo, c.vc_hi, credits)
                })
                .collect();
            examples.push(BlockedVc {
                router: r,
                port,
                class: pin.class,
                vc: vc - pin.vc_base as usize,
                packets: v.fifo.len as usize,
                head_dst: dst,
                wants,
            });
        }
        DeadlockReport {
            cycle: self.now,
            last_move: self.last_move,
            in_flight: self.pool.live(),
            occupied_buffers: occupied,
            examples,
        }
    }
}
