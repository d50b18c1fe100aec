//! Separable input-first allocator with iterations (seed 001, section 4: "an iterative
//! allocator similar to Gupta and McKeown").
//!
//! Each iteration: every unmatched input port whose crossbar input is free picks one of its
//! VCs whose head packet can go somewhere (an output that is idle, not yet matched this cycle,
//! with a VC holding credits for the whole packet); every output picks one requesting input.
//! Losers retry in the next iteration against the outputs still free. The routing is asked
//! again at each iteration, so in-transit adaptive routing sees the current credits.

use super::arbiter::{pick_min_key, pick_round_robin};
use crate::config::{ArbiterKind, VcSelection};
use crate::engine::Simulation;
use crate::rng::Rng;
use crate::router::buffers::{OutVc, NO_PORT};
use crate::routing::{Candidate, RouteCtx, Routing};
use crate::topology::PortClass;

/// An input's request in the current iteration.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Request {
    vc: u8,
    out_vc: u8,
    cand: Candidate,
    age: u64,
}

impl Request {
    pub(crate) const EMPTY: Request = Request {
        vc: 0,
        out_vc: 0,
        cand: Candidate {
            port: 0,
            vc_lo: 0,
            vc_hi: 0,
            kind: crate::routing::HopKind::Minimal,
            tag: 0,
        },
        age: 0,
    };
}

/// Choose the output VC in `[lo, hi]` with room for `len` phits, by policy.
#[inline]
pub(crate) fn select_vc(
    out_vcs: &[OutVc],
    base: usize,
    lo: u8,
    hi: u8,
    len: u32,
    now: u64,
    policy: VcSelection,
    rng: &mut Rng,
) -> Option<u8> {
    let mut best: Option<(u8, u32)> = None;
    let mut eligible = 0u32;
    for v in lo..=hi {
        let c = out_vcs[base + v as usize].credits(now);
        if c < len {
            continue;
        }
        eligible += 1;
        match policy {
            VcSelection::First => return Some(v),
            VcSelection::ShortestQueue => {
                if best.is_none_or(|(_, bc)| c > bc) {
                    best = Some((v, c));
                }
            }
            VcSelection::Random => {
                // Reservoir sampling keeps one uniformly random eligible VC.
                if rng.below(eligible as u64) == 0 {
                    best = Some((v, c));
                }
            }
        }
    }
    best.map(|(v, _)| v)
}

impl<R: Routing> Simulation<R> {
    #[inline(never)]
    pub(crate) fn allocate(&mut self, r: usize) {
        let now = self.now;
        let base = self.net.port_base[r] as usize;
        let radix = self.net.radix(r);
        let mut inputs = self.nonempty[r];
        let mut m = inputs;
        while m != 0 {
            let i = m.trailing_zeros() as usize;
            m &= m - 1;
            if self.in_busy[base + i] > now {
                inputs &= !(1u64 << i);
            }
        }
        let mut out_done = 0u64;
        for _ in 0..self.iterations {
            if inputs == 0 {
                break;
            }
            // Scratch arrays live in the simulation: only the entries of this iteration's
            // requesters are written and read, so nothing is cleared per router.
            let mut any_out = 0u64;
            let mut requested = 0u64;
            let mut m = inputs;
            while m != 0 {
                let i = m.trailing_zeros() as usize;
                m &= m - 1;
                if let Some(req) = self.input_request(r, base, i, out_done) {
                    self.req_scratch[i] = req;
                    let o = req.cand.port as usize;
                    if any_out & (1u64 << o) == 0 {
                        self.out_req_scratch[o] = 0;
                    }
                    self.out_req_scratch[o] |= 1u64 << i;
                    any_out |= 1u64 << o;
                    requested |= 1u64 << i;
                }
            }
            // An input without a request cannot get one later in this cycle: outputs only
            // become taken. Only the losers try again.
            inputs = requested;
            if any_out == 0 {
                break;
            }
            while any_out != 0 {
                let o = any_out.trailing_zeros() as usize;
                any_out &= any_out - 1;
                let mask = self.out_req_scratch[o];
                let go = base + o;
                let winner = match self.arbiter {
                    ArbiterKind::Lrs => {
                        let lb = self.lrs_base[r] as usize + o * radix;
                        let stamps = &self.out_lrs;
                        pick_min_key(mask, |i| stamps[lb + i])
                    }
                    ArbiterKind::Age => {
                        let reqs = &self.req_scratch;
                        pick_min_key(mask, |i| reqs[i].age)
                    }
                    ArbiterKind::RoundRobin => pick_round_robin(mask, self.rr_out[go] as usize),
                };
                let req = self.req_scratch[winner];
                let lb = self.lrs_base[r] as usize + o * radix;
                self.out_lrs[lb + winner] = now + 1;
                self.rr_out[go] = if winner + 1 == radix {
                    0
                } else {
                    winner as u8 + 1
                };
                let gi = base + winner;
                self.in_last[self.vc_base[gi] as usize + req.vc as usize] = now + 1;
                self.rr_in[gi] = if req.vc + 1 == self.vc_count[gi] {
                    0
                } else {
                    req.vc + 1
                };
                self.grant(r, winner, req.vc as usize, &req.cand, req.out_vc as usize);
                inputs &= !(1u64 << winner);
                out_done |= 1u64 << o;
            }
        }
    }

    /// The request of input port `i` this iteration: among its VCs whose head can go
    /// somewhere, the one the input arbiter prefers. A head that cannot go anywhere is put to
    /// sleep until its outcome can change (see [`InVc`](crate::router::buffers::InVc)).
    fn input_request(&mut self, r: usize, base: usize, i: usize, out_done: u64) -> Option<Request> {
        let now = self.now;
        let gi = base + i;
        let vb = self.vc_base[gi] as usize;
        let nv = self.vc_count[gi] as usize;
        let in_class = self.net.ports[gi].class;
        let mut best: Option<(u64, Request)> = None;
        for v in 0..nv {
            let f = self.fifos.vcs[vb + v];
            if f.len == 0 {
                continue;
            }
            if now < f.sleep_until
                && (f.sleep_port == NO_PORT
                    || self.credit_epoch[base + f.sleep_port as usize] == f.sleep_epoch)
            {
                continue;
            }
            let head = self.fifos.slots[(f.base + f.head as u32) as usize];
            let pkt = self.pool.get_mut(head);
            debug_assert!(
                pkt.arrival <= now,
                "packets enter a FIFO when their head arrives"
            );
            let len = pkt.len as u32;
            let age = pkt.gen_time;
            self.cands.clear();
            let mut ctx = RouteCtx {
                now,
                router: r,
                in_port: i,
                in_class,
                net: &self.net,
                out_vcs: &self.out_vcs,
                vc_base: &self.vc_base,
                vc_count: &self.vc_count,
                out_busy: &self.out_busy,
                rng: &mut self.rng,
            };
            self.routing.route(&mut ctx, pkt, &mut self.cands);
            let mut found = None;
            // Earliest cycle any candidate could succeed without new credit returns, and the
            // single port whose credit returns could make it sooner.
            let mut wake = u64::MAX;
            let mut watch = NO_PORT;
            let mut watch_many = false;
            for c in self.cands.as_slice() {
                let o = c.port as usize;
                let go = base + o;
                if out_done & (1u64 << o) != 0 || self.out_busy[go] > now {
                    wake = wake.min(self.out_busy[go].max(now + 1));
                    continue;
                }
                let terminal = self.net.ports[go].class == PortClass::Terminal;
                let hi = c.vc_hi.min(self.vc_count[go].saturating_sub(1));
                let vbase = self.vc_base[go] as usize;
                let w = if terminal {
                    Some(0)
                } else {
                    select_vc(
                        &self.out_vcs,
                        vbase,
                        c.vc_lo,
                        hi,
                        len,
                        now,
                        self.vc_selection,
                        &mut self.rng,
                    )
                };
                if let Some(w) = w {
                    found = Some(Request {
                        vc: v as u8,
                        out_vc: w,
                        cand: *c,
                        age,
                    });
                    break;
                }
                for vv in c.vc_lo..=hi {
                    wake = wake.min(self.out_vcs[vbase + vv as usize].ready_at(len).max(now + 1));
                }
                if watch == NO_PORT || watch == c.port {
                    watch = c.port;
                } else {
                    watch_many = true;
                }
            }
            let Some(req) = found else {
                let fv = &mut self.fifos.vcs[vb + v];
                if self.routing.state_dependent() || watch_many {
                    fv.wake();
                } else {
                    fv.sleep_until = wake;
                    fv.sleep_port = watch;
                    if watch != NO_PORT {
                        fv.sleep_epoch = self.credit_epoch[base + watch as usize];
                    }
                }
                continue;
            };
            let key = match self.arbiter {
                ArbiterKind::Lrs => self.in_last[vb + v],
                ArbiterKind::Age => age,
                ArbiterKind::RoundRobin => ((v + nv - self.rr_in[gi] as usize) % nv) as u64,
            };
            if best.is_none_or(|(k, _)| key < k) {
                best = Some((key, req));
            }
        }
        best.map(|(_, q)| q)
    }
}
