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
    /// A chain of waits: each buffer's head waits for room in the next one.
    pub chain: Vec<BlockedVc>,
    /// Whether the chain closes on itself (a cycle of full buffers).
    pub cyclic: bool,
    /// Buffers in the chain (or cycle); only the first few are kept in `chain`.
    pub length: usize,
}

/// Buffers of the chain kept in the report.
const MAX_SHOWN: usize = 24;

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
        writeln!(
            f,
            "{} of {} buffers{}, each head waiting for room in the next{}:",
            if self.cyclic {
                "cycle"
            } else {
                "chain of waits"
            },
            self.length,
            if self.cyclic {
                " closing on itself"
            } else {
                ""
            },
            if self.length > self.chain.len() {
                format!(" (first {} shown)", self.chain.len())
            } else {
                String::new()
            }
        )?;
        for b in &self.chain {
            write!(
                f,
                "  router {} input port {} ({:?}) VC {}: {} packets, head to node {} wants",
                b.router, b.port, b.class, b.vc, b.packets, b.head_dst
            )?;
            for (port, class, lo, hi, credits) in &b.wants {
                write!(
                    f,
                    " output {port} ({class:?}) VCs {lo}..={hi} credits {credits:?};"
                )?;
            }
            if b.wants.is_empty() {
                write!(f, " nothing (routing offers no output)")?;
            }
            writeln!(f)?;
        }
        write!(
            f,
            "hint: {}",
            if self.cyclic {
                "the routing's VC ordering (routing.ordered_vcs) or escape network does not break this cycle of buffers"
            } else {
                "the chain ends at a buffer whose head is offered no output or waits on a non-full one"
            }
        )
    }
}

impl<R: Routing> Simulation<R> {
    /// What the head of VC `vc` waits for.
    fn blocked(&mut self, vc: usize) -> BlockedVc {
        let v = self.vcs[vc];
        let (r, port) = self.vc_owner(vc as u32);
        let r = r as usize;
        let base = self.net.port_base[r] as usize;
        let radix = self.net.port_base[r + 1] as usize - base;
        let pin = self.ports[base + port];
        let head = self.slots.front(&v.fifo).expect("non-empty");
        // The destination node: the terminal at the far end of the packet's ejection port.
        let dst = {
            let p = self.pool.get(head);
            self.net
                .port(p.dst_router as usize, p.dst_port as usize)
                .peer
        };
        let mut cands = crate::routing::Candidates::default();
        let ports = &self.ports[base..base + radix];
        let mut ctx = RouteCtx {
            // The watchdog asks what a head waits for after it has waited past any patience.
            head_wait: u32::MAX,
            ..RouteCtx::new(
                self.now,
                r,
                (port, pin.class, vc - pin.vc_base as usize),
                ports,
                &self.vcs,
                &mut self.rng,
            )
        };
        let pkt = self.pool.get_mut(head);
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
        BlockedVc {
            router: r,
            port,
            class: pin.class,
            vc: vc - pin.vc_base as usize,
            packets: v.fifo.len as usize,
            head_dst: dst,
            wants,
        }
    }

    /// The global port owning VC `vc`.
    fn port_of_vc(&self, vc: usize) -> usize {
        let (router, port) = self.vc_owner(vc as u32);
        self.gport(router, port)
    }

    pub(crate) fn deadlock_report(&mut self) -> DeadlockReport {
        let occupied = self.vcs.iter().filter(|v| v.fifo.len > 0).count();
        // Follow the waits from the first occupied router-to-router buffer: the head's first
        // candidate output, the VC there with the fewest credits, the buffer behind it, ...
        let start = (0..self.vcs.len())
            .find(|&i| {
                self.vcs[i].fifo.len > 0
                    && self.ports[self.port_of_vc(i)].class != PortClass::Terminal
            })
            .or_else(|| (0..self.vcs.len()).find(|&i| self.vcs[i].fifo.len > 0));
        let mut chain = Vec::new();
        let mut visited: Vec<usize> = Vec::new();
        let mut seen = vec![false; self.vcs.len()];
        let mut cyclic = false;
        let mut cur = start;
        while let Some(vc) = cur {
            if seen[vc] {
                // Keep only the cycle itself: drop the buffers that lead into it.
                let at = visited.iter().position(|&x| x == vc).expect("seen");
                chain.drain(..at);
                cyclic = true;
                break;
            }
            seen[vc] = true;
            visited.push(vc);
            let b = self.blocked(vc);
            cur = b.wants.first().and_then(|(port, class, lo, _, credits)| {
                if *class == PortClass::Terminal || credits.is_empty() {
                    return None;
                }
                let (k, _) = credits.iter().enumerate().min_by_key(|(_, c)| **c)?;
                let go = self.net.port_base[b.router] as usize + port;
                let next = self.ports[go].peer_vc_base as usize + *lo as usize + k;
                (self.vcs[next].fifo.len > 0).then_some(next)
            });
            chain.push(b);
        }
        let length = chain.len();
        chain.truncate(MAX_SHOWN);
        DeadlockReport {
            length,
            cycle: self.now,
            last_move: self.last_move,
            in_flight: self.pool.live(),
            occupied_buffers: occupied,
            chain,
            cyclic,
        }
    }
}
