//! Packet movement: a grant sends a packet across the crossbar and onto its link, head
//! arrivals queue it at the next router, and credit returns flow back upstream, all as
//! events of the timing wheel (nothing is done per phit).

use super::events::{self, Event, Packed};
use super::packet::NO_TIME;
use super::Simulation;
use crate::routing::{self, Routing};
use crate::topology::PortClass;

impl<R: Routing> Simulation<R> {
    #[inline]
    pub(super) fn enqueue(&mut self, vc: u32, id: u32, r: usize, local: usize) {
        let v = &mut self.vcs[vc as usize];
        // A packet queued behind another leaves the head, and so the input's sleep, as it was.
        let new_head = v.fifo.len == 0;
        let ok = self.slots.push(&mut v.fifo, id);
        debug_assert!(ok, "credit protocol violated: buffer overflow");
        let p = &mut self.ports[self.net.port_base[r] as usize + local];
        p.vc_mask |= 1u16 << (vc - p.vc_base);
        self.nonempty[r] |= 1u64 << local;
        if new_head {
            self.awake[r] |= 1u64 << local;
        }
        self.active[r / 64] |= 1u64 << (r % 64);
    }

    pub(super) fn process_events(&mut self) {
        let mut bucket = std::mem::take(&mut self.scratch);
        self.wheel.take(self.now, &mut bucket);
        // One loop per kind (see `TimeWheel`). The scattered ones prefetch in two stages:
        // the records named in the event first, then the FIFO slot and port record they
        // point to.
        const AHEAD: usize = 12;
        const SLOT_AHEAD: usize = 4;
        let arrivals = &bucket[events::HEAD as usize];
        for (k, ev) in arrivals.iter().enumerate() {
            if let Some(&next) = arrivals.get(k + AHEAD) {
                self.prefetch_vc_event(next);
                // Read by the allocator later in this cycle.
                crate::prefetch::prefetch(self.pool.get(next.data()));
            }
            if let Some(&near) = arrivals.get(k + SLOT_AHEAD) {
                let vc = near.word();
                let (router, port) = self.vc_owner(vc);
                crate::prefetch::prefetch(&self.ports[self.gport(router, port)]);
                self.slots.prefetch_tail(&self.vcs[vc as usize].fifo);
            }
            let (vc, pkt) = (ev.word(), ev.data());
            let (router, port) = self.vc_owner(vc);
            self.enqueue(vc, pkt, router as usize, port);
        }
        let credits = &bucket[events::CREDIT as usize];
        for (k, ev) in credits.iter().enumerate() {
            if let Some(&next) = credits.get(k + AHEAD) {
                self.prefetch_vc_event(next);
            }
            if let Some(&near) = credits.get(k + SLOT_AHEAD) {
                let (router, port) = self.vc_owner(near.word());
                crate::prefetch::prefetch(&self.ports[self.gport(router, port)]);
            }
            let (vc, len) = (ev.word(), ev.data());
            let credit = &mut self.vcs[vc as usize].credit;
            if self.credit_per_packet {
                credit.refund(len);
            } else {
                credit.start_drain(self.now, len);
            }
            // Wake heads sleeping on this output's credits.
            let (router, port) = self.vc_owner(vc);
            let gp = self.gport(router, port);
            let p = &mut self.ports[gp];
            p.credit_epoch = p.credit_epoch.wrapping_add(1);
            let bit = 1u64 << port;
            if self.watched[router as usize] & bit != 0 {
                self.watched[router as usize] &= !bit;
                self.awake[router as usize] |= self.watchers[gp];
                self.watchers[gp] = 0;
            }
        }
        // Input-free and wake events name `router << 6 | port` and touch only the small
        // per-router masks.
        for ev in &bucket[events::FREE as usize] {
            let (router, port) = events::split_home(ev.word());
            self.free_inputs[router as usize] |= 1u64 << port;
            self.awake[router as usize] |= 1u64 << port;
        }
        for ev in &bucket[events::WAKE as usize] {
            let (router, port) = events::split_home(ev.word());
            self.awake[router as usize] |= 1u64 << port;
        }
        self.scratch = bucket;
    }

    /// Start loading the records a head arrival or credit return further down its list will
    /// touch: its VC and that VC's home entry.
    #[inline(always)]
    fn prefetch_vc_event(&self, ev: Packed) {
        crate::prefetch::prefetch(&self.vcs[ev.word() as usize]);
        crate::prefetch::prefetch(&self.vc_home[ev.word() as usize]);
    }

    /// Called by the allocator for every grant.
    #[inline]
    pub(crate) fn grant(
        &mut self,
        r: usize,
        in_port: usize,
        in_vc: usize,
        cand: &routing::Candidate,
        out_vc: usize,
    ) {
        let now = self.now;
        let base = self.net.port_base[r] as usize;
        let (gi, go) = (base + in_port, base + cand.port as usize);
        let pin = &mut self.ports[gi];
        let vci = pin.vc_base as usize + in_vc;
        let v = &mut self.vcs[vci];
        let id = self.slots.pop(&mut v.fifo);
        let len = self.pool.get(id).len as u64;
        v.fifo.wake();
        if self.vc_inputs {
            // Only this VC is busy reading the packet; the InputFree event below wakes the
            // input when it is done.
            v.fifo.sleep_until = (now + len) as u32;
        }
        if self.routing.reads_head_wait() {
            self.head_since[vci] = NO_TIME; // the next packet of this VC has not asked yet
        }
        if v.fifo.len == 0 {
            pin.vc_mask &= !(1u16 << in_vc);
            if pin.vc_mask == 0 {
                self.nonempty[r] &= !(1u64 << in_port);
            }
        }
        let pin = *pin;
        if !self.vc_inputs {
            self.free_inputs[r] &= !(1u64 << in_port);
        }
        self.wheel.schedule(
            now,
            now + len,
            Event::InputFree {
                router: r as u32,
                port: in_port as u8,
            },
        );
        let po = &mut self.ports[go];
        po.out_busy = (now + len) as u32;
        po.sent = po.sent.wrapping_add(len as u32);
        self.last_move = now;
        if pin.class == PortClass::Terminal {
            self.pool.get_mut(id).inject_time = now as u32;
            self.collector.on_inject(now, r);
            let node = pin.peer_router as usize;
            // Only bursts refill the injection queue here (Bernoulli runs skip the lookup).
            if self.burst_total > 0 && !self.paced_burst() {
                while self.burst_left[node] > 0 && self.try_generate(node) {
                    self.burst_left[node] -= 1;
                    // One packet left, one refills its slot; with VCs by destination the slot
                    // freed may not be the one the next packet needs, so the refill goes on
                    // until a packet finds its VC full.
                    if !self.inj_by_dst() {
                        break;
                    }
                }
            }
        } else {
            // Credits for this buffer start flowing back to the upstream output.
            self.wheel.schedule(
                now,
                now + pin.latency as u64,
                Event::CreditDrain {
                    vc: pin.peer_vc_base + in_vc as u32,
                    len: len as u16,
                    router: pin.peer_router,
                    port: pin.peer_local,
                },
            );
        }
        self.routing.commit(self.pool.get_mut(id), r, cand);
        if self.trace.is_some() {
            self.trace_grant(id, r, (in_port, in_vc), cand, out_vc);
        }
        let pout = self.ports[go];
        match pout.class {
            PortClass::Terminal => {
                let p = *self.pool.get(id);
                let tail = now + len - 1 + pout.latency as u64;
                self.collector.on_deliver(tail, &p, r);
                self.last_tail = self.last_tail.max(tail);
                if !self.burst_done.is_empty() {
                    // Burst mode only: no lookup of the source's router otherwise.
                    let d = &mut self.burst_done[self.net.attach[p.src as usize].0 as usize];
                    *d = (*d).max(tail + 1);
                }
                self.delivered += 1;
                self.pool.release(id);
            }
            class => {
                self.vcs[pout.vc_base as usize + out_vc]
                    .credit
                    .consume(len as u32);
                let p = self.pool.get_mut(id);
                p.hops += 1;
                if cand.kind == routing::HopKind::Escape {
                    p.escape_hops += 1;
                }
                if class == PortClass::Global {
                    p.global_hops += 1;
                }
                self.packet_hops += 1;
                self.wheel.schedule(
                    now,
                    now + pout.latency as u64,
                    Event::HeadArrival {
                        pkt: id,
                        vc: pout.peer_vc_base + out_vc as u32,
                        router: pout.peer_router,
                        port: pout.peer_local,
                    },
                );
            }
        }
    }
}
