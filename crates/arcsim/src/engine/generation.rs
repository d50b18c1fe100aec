//! Traffic generation: when each node creates a packet (a calendar of geometric gaps, or a
//! burst), which injection VC takes it, and the traffic change of transient runs.

use super::{Simulation, NO_DST};
use crate::engine::packet::Packet;
use crate::routing::Routing;
use crate::traffic::Injection;

impl<R: Routing> Simulation<R> {
    pub(super) fn start(&mut self) {
        match self.injection {
            Injection::Bernoulli { load } => self.schedule_all_generation(load),
            Injection::Burst { packets, paced } => {
                self.burst_total = packets * self.net.num_terminals() as u64;
                self.burst_done = vec![0; self.net.num_routers()];
                self.burst_left.fill(packets);
                match paced {
                    Some(load) => self.schedule_all_generation(load),
                    None => {
                        for n in 0..self.net.num_terminals() {
                            while self.burst_left[n] > 0 && self.try_generate(n) {
                                self.burst_left[n] -= 1;
                            }
                        }
                    }
                }
            }
        }
    }

    /// (Re)draw every node's next generation time from `now` (the process is memoryless, so
    /// redrawing at a load change is exact).
    fn schedule_all_generation(&mut self, load: f64) {
        self.calendar.clear();
        let prob = load / self.pkt_len as f64;
        for n in 0..self.net.num_terminals() {
            let t = self.now + self.rng.geometric(prob) - 1;
            self.calendar.schedule(self.now, t, n as u32);
        }
    }

    /// Whether the burst's packets are generated at a load (traffic.burst_generation).
    #[inline]
    pub(super) fn paced_burst(&self) -> bool {
        matches!(self.injection, Injection::Burst { paced: Some(_), .. })
    }

    /// Whether a packet's injection VC is fixed by its destination (router.injection_vc).
    #[inline]
    pub(super) fn inj_by_dst(&self) -> bool {
        !self.pending_dst.is_empty()
    }

    /// Create a packet at node `n` if its injection queue has room.
    pub(super) fn try_generate(&mut self, n: usize) -> bool {
        let (r, pt) = self.net.attach[n];
        let p = self.ports[self.gport(r, pt as usize)];
        let (vc, dst) = if self.inj_by_dst() {
            let dst = match self.pending_dst[n] {
                NO_DST => self.pattern.destination(n, &mut self.rng),
                d => d as usize,
            };
            let nodes = self.net.num_terminals();
            let vc = p.vc_base + (dst * p.vc_count as usize / nodes) as u32;
            let f = &self.vcs[vc as usize].fifo;
            if f.len == f.cap {
                self.refused += 1;
                // A Bernoulli packet is dropped (FOGSim does not generate one); a burst's
                // waits for its VC.
                self.pending_dst[n] = if self.burst_total > 0 {
                    dst as u32
                } else {
                    NO_DST
                };
                return false;
            }
            self.pending_dst[n] = NO_DST;
            (vc, dst)
        } else {
            // The injection VC with the most free slots.
            let mut best = None;
            let mut best_free = 0;
            for v in p.vc_base..p.vc_base + p.vc_count as u32 {
                let f = &self.vcs[v as usize].fifo;
                let free = f.cap - f.len;
                if free > best_free {
                    best_free = free;
                    best = Some(v);
                }
            }
            let Some(vc) = best else {
                self.refused += 1;
                return false;
            };
            (vc, self.pattern.destination(n, &mut self.rng))
        };
        let (dst_router, dst_port) = self.net.attach[dst];
        // Times fit in u32 (simulation.max_cycles and the windows are validated).
        let id = self.pool.alloc(Packet::new(
            n as u32,
            dst_router,
            dst_port as u8,
            self.now as u32,
            self.pkt_len,
        ));
        self.enqueue(vc, id, r as usize, pt as usize);
        if self.trace.is_some() {
            self.trace_generated(id, self.generated, (n, dst), (r, pt as usize, vc));
        }
        self.generated += 1;
        self.collector.on_generate(self.now);
        true
    }

    /// One stage of the prefetch for an injection at node `n`: 0 its port, 1 the port's VCs,
    /// 2 their tail slots.
    #[inline(always)]
    fn prefetch_injection(&self, n: usize, stage: usize) {
        let (r, pt) = self.net.attach[n];
        let p = &self.ports[self.gport(r, pt as usize)];
        if stage == 0 {
            crate::prefetch::prefetch(p);
            return;
        }
        let vcs = &self.vcs[p.vc_base as usize..p.vc_base as usize + p.vc_count as usize];
        for v in vcs {
            if stage == 1 {
                crate::prefetch::prefetch(v);
            } else {
                self.slots.prefetch_tail(&v.fifo);
            }
        }
    }

    #[inline(never)]
    pub(super) fn generate(&mut self) {
        let (load, burst) = match self.injection {
            Injection::Bernoulli { load } => (load, false),
            Injection::Burst {
                paced: Some(load), ..
            } => (load, true),
            Injection::Burst { paced: None, .. } => return,
        };
        let gaps = crate::rng::Geometric::new(load / self.pkt_len as f64);
        let mut due = std::mem::take(&mut self.due);
        self.calendar.take(self.now, &mut due);
        for (k, &n) in due.iter().enumerate() {
            // Three-stage prefetch: the injection port, its VCs, their tail slots.
            for (stage, d) in [12, 6, 3].into_iter().enumerate() {
                if let Some(&m) = due.get(k + d) {
                    self.prefetch_injection(m as usize, stage);
                }
            }
            if burst {
                // A paced burst: a refused packet keeps its destination and waits for the
                // next draw (memoryless, so as if drawn once its VC has room); a node that
                // has generated its whole burst leaves the calendar.
                let node = n as usize;
                if self.try_generate(node) {
                    self.burst_left[node] -= 1;
                    if self.burst_left[node] == 0 {
                        continue;
                    }
                }
            } else {
                self.try_generate(n as usize);
            }
            let next = self.now + gaps.sample(&mut self.rng);
            self.calendar.schedule(self.now, next, n);
        }
        self.due = due;
    }

    pub(super) fn apply_change(&mut self) {
        if let Some((at, _, _)) = &self.change {
            if *at == self.now {
                let (_, pattern, injection) = self.change.take().expect("checked");
                self.pattern = pattern;
                self.injection = injection;
                if let Injection::Bernoulli { load } = self.injection {
                    self.schedule_all_generation(load);
                }
            }
        }
    }
}
