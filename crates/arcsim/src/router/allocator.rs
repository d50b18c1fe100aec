//! Separable input-first allocator with iterations (the OFAR paper, section 4: "an iterative
//! allocator similar to Gupta and McKeown").
//!
//! Each iteration: every unmatched input port whose crossbar input is free picks one of its
//! VCs whose head packet can go somewhere (an output that is idle, not yet matched this cycle,
//! with a VC holding credits for the whole packet); every output picks one requesting input.
//! Losers retry in the next iteration against the outputs still free (every unmatched input,
//! for a routing whose paths open when another input is granted its output). The routing is
//! asked again at each iteration, so in-transit adaptive routing sees the current credits.

use super::arbiter::{pick_lrs, pick_min_key, pick_round_robin};
use crate::config::{ArbiterKind, VcSelection};
use crate::engine::events::Event;
use crate::engine::Simulation;
use crate::rng::Rng;
use crate::router::buffers::{NO_PORT, PAIR_PORT, SLEEP_FOREVER};
use crate::router::state::VcState;
use crate::routing::{Candidate, RouteCtx, Routing};
use crate::topology::PortClass;

/// An input's request in the current iteration.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Request {
    vc: u8,
    out_vc: u8,
    cand: Candidate,
    /// Generation cycle of the head packet (the age arbiter's key).
    age: u32,
    /// The input has this one head and the routing offered it this one output, which
    /// cannot change within the cycle (state-independent routing): if the request loses,
    /// the head can only wait for that output, and is put to sleep without asking again.
    only: bool,
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
            reserve: 0,
        },
        age: 0,
        only: false,
    };
}

/// Choose the VC in `[lo, hi]` of an output (its VCs are `vcs`) with room for `len` phits,
/// by policy.
#[allow(clippy::too_many_arguments)] // a hot leaf: a parameter struct would only add copies
#[inline]
pub(crate) fn select_vc(
    vcs: &[VcState],
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
        let c = vcs[v as usize].credit.credits(now);
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
    #[inline]
    pub(crate) fn allocate(&mut self, r: usize) {
        let now = self.now;
        let base = self.net.port_base[r] as usize;
        let radix = self.net.port_base[r + 1] as usize - base;
        // Inputs holding packets whose crossbar input is free.
        let mut inputs = self.nonempty[r] & self.free_inputs[r] & self.awake[r];
        let mut out_done = 0u64;
        // Inputs that made a request and outputs granted in the previous iteration.
        let mut requested_before = 0u64;
        let mut granted_before = 0u64;
        let reopen_shortcut = self.routing.grants_open_paths() && !self.exhaustive;
        // A steady head of a routing whose paths open when another input is granted its
        // minimal output watches that output: a grant of it wakes the head (below).
        let wake_on_grant = self.routing.state_dependent() && self.routing.grants_open_paths();
        // Inputs granted in this allocation.
        let mut matched = 0u64;
        for iteration in 0..self.iterations {
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
                if iteration > 0
                    && requested_before & (1u64 << i) != 0
                    && self.req_scratch[i].only
                    && !self.exhaustive
                {
                    // A loser of the last iteration (`req_scratch` holds its lost request;
                    // the entries of inputs that did not request belong to other routers or
                    // cycles, and a routing whose grants open paths asks those inputs again
                    // too) whose one output was granted to another input sleeps, as asking
                    // again would conclude, without asking.
                    self.sleep_on_taken_output(r, base, i);
                    continue;
                }
                if reopen_shortcut
                    && iteration > 0
                    && requested_before & (1u64 << i) == 0
                    && self.reopen_scratch[i] & granted_before == 0
                {
                    // No request last time and none of the outputs whose grant could give
                    // one of its heads a path was granted since: asking again would find
                    // nothing (and draw no random number).
                    continue;
                }
                if let Some(req) = self.input_request(r, base, radix, i, out_done) {
                    self.req_scratch[i] = req;
                    if self.lrs_on_request {
                        // FOGSim moves a VC to the back of its input's order when it
                        // requests; the iteration in the low bits keeps that order strict
                        // within a cycle (validated to fit: LRS_REQUEST_MAX_CYCLES).
                        let vci = self.ports[base + i].vc_base as usize + req.vc as usize;
                        self.vcs[vci].last_served = ((now + 1) << 4 | iteration as u64) as u32;
                    }
                    let o = req.cand.port as usize;
                    if any_out & (1u64 << o) == 0 {
                        self.out_req_scratch[o] = 0;
                        // The output arbiter reads and stamps this row after the requests.
                        crate::prefetch::prefetch(&self.out_lrs[self.lrs_row(r, o, radix)]);
                    }
                    self.out_req_scratch[o] |= 1u64 << i;
                    any_out |= 1u64 << o;
                    requested |= 1u64 << i;
                }
            }
            // An input without a request cannot get one later in this cycle: outputs only
            // become taken. Only the losers try again, unless a taken output can open a
            // path (a misroute triggered by another input's grant, or FOGSim's PB choice
            // turned by the credits a grant consumed, as FOGSim re-asks every unserved input
            // at each iteration).
            debug_assert!(
                !self.routing.grants_open_paths()
                    || self.routing.state_dependent()
                    || self.routing.injection_state_dependent(),
                "grants_open_paths needs a state-dependent routing"
            );
            if !self.routing.grants_open_paths() {
                inputs = requested;
            }
            requested_before = requested;
            let granted_earlier = out_done;
            while any_out != 0 {
                let o = any_out.trailing_zeros() as usize;
                any_out &= any_out - 1;
                let mut mask = self.out_req_scratch[o];
                if self.transit_first {
                    // Packets already in the network win over new injections.
                    let transit = mask & !self.terminal_inputs[r];
                    if transit != 0 {
                        mask = transit;
                    }
                }
                let lb = self.lrs_row(r, o, radix);
                let winner = match self.arbiter {
                    ArbiterKind::Lrs => pick_lrs(&mut self.out_lrs[lb..lb + radix + 1], mask),
                    ArbiterKind::Age => {
                        let reqs = &self.req_scratch;
                        pick_min_key(mask, |i| reqs[i].age as u64)
                    }
                    ArbiterKind::RoundRobin => {
                        pick_round_robin(mask, self.ports[base + o].rr_out as usize)
                    }
                };
                let req = self.req_scratch[winner];
                let pi = &mut self.ports[base + winner];
                let vci = pi.vc_base as usize + req.vc as usize;
                if self.arbiter == ArbiterKind::RoundRobin {
                    // Only the round-robin arbiters read their pointers.
                    pi.rr_in = if req.vc + 1 == pi.vc_count {
                        0
                    } else {
                        req.vc + 1
                    };
                    self.ports[base + o].rr_out = if winner + 1 == radix {
                        0
                    } else {
                        winner as u8 + 1
                    };
                }
                if !self.lrs_on_request {
                    self.vcs[vci].last_served = (now + 1) as u32;
                }
                self.grant(r, winner, req.vc as usize, &req.cand, req.out_vc as usize);
                inputs &= !(1u64 << winner);
                matched |= 1u64 << winner;
                out_done |= 1u64 << o;
                if wake_on_grant && self.watched[r] & (1u64 << o) != 0 {
                    inputs |= self.wake_watchers_of_granted(r, base, o, inputs, matched);
                }
            }
            granted_before = out_done & !granted_earlier;
        }
    }

    /// Output `o` of router `r` was just granted: wake the heads watching it (steady heads of
    /// a state-dependent routing, whose answer a grant of their minimal output may change,
    /// [`RouteCtx::steady`](crate::routing::RouteCtx)), as a credit return would. Returns
    /// the inputs to ask again in the next iteration of this allocation that are not in
    /// `inputs` yet; every input to ask again gets `o` in its reopen outputs, so that the
    /// reopen shortcut does not pass it over.
    #[inline(never)]
    fn wake_watchers_of_granted(
        &mut self,
        r: usize,
        base: usize,
        o: usize,
        inputs: u64,
        matched: u64,
    ) -> u64 {
        let gw = base + o;
        let bit = 1u64 << o;
        self.watched[r] &= !bit;
        let woken = std::mem::take(&mut self.watchers[gw]);
        let p = &mut self.ports[gw];
        p.credit_epoch = p.credit_epoch.wrapping_add(1);
        self.awake[r] |= woken;
        let ask = woken & self.nonempty[r] & self.free_inputs[r] & !matched;
        let mut m = ask;
        while m != 0 {
            let i = m.trailing_zeros() as usize;
            m &= m - 1;
            if inputs & (1u64 << i) != 0 {
                self.reopen_scratch[i] |= bit;
            } else {
                // Not asked in this allocation yet: its scratch entries belong to another
                // router.
                self.req_scratch[i] = Request::EMPTY;
                self.reopen_scratch[i] = bit;
            }
        }
        ask & !inputs
    }

    /// Put the single head of input `i` to sleep until the output it lost this cycle (its
    /// only candidate, `req_scratch[i]`) finishes sending: the state `input_request` leaves
    /// for a head whose candidates are all taken, with no credit watch.
    #[inline]
    fn sleep_on_taken_output(&mut self, r: usize, base: usize, i: usize) {
        let req = self.req_scratch[i];
        let wake = (self.ports[base + req.cand.port as usize].out_busy as u64).max(self.now + 1);
        let vc = self.ports[base + i].vc_base as usize + req.vc as usize;
        self.sleep_head(r, i, vc, wake, NO_PORT, 0);
        self.awake[r] &= !(1u64 << i);
    }

    /// Put the head of VC `vc` (global index) of input `i` to sleep until cycle `wake`
    /// (u64::MAX: no cycle), or until a credit returns to output `watch` (NO_PORT: none)
    /// moves its epoch away from `epoch`.
    #[inline(always)]
    fn sleep_head(&mut self, r: usize, i: usize, vc: usize, wake: u64, watch: u8, epoch: u8) {
        if wake != u64::MAX {
            self.wheel.schedule(
                self.now,
                wake,
                Event::Wake {
                    router: r as u32,
                    port: i as u8,
                },
            );
        }
        let fv = &mut self.vcs[vc].fifo;
        // Times fit in u32 (validated); u64::MAX (no cycle) maps to SLEEP_FOREVER.
        fv.sleep_until = wake.min(SLEEP_FOREVER as u64) as u32;
        fv.sleep_port = watch;
        fv.sleep_epoch = epoch;
    }

    /// Put the head of VC `vc` (global index) of input `i` to sleep until cycle `wake`, or
    /// until a credit returns to one of the (at most two) outputs in `watch` (`NO_PORT`:
    /// none).
    #[inline(always)]
    fn sleep_watching(
        &mut self,
        r: usize,
        base: usize,
        i: usize,
        vc: usize,
        wake: u64,
        watch: [u8; 2],
    ) {
        let mut epoch = 0u8;
        for &p in watch.iter().filter(|&&p| p != NO_PORT) {
            epoch = epoch.wrapping_add(self.watch_output(r, base, i, p));
        }
        let port = if watch[1] != NO_PORT {
            self.sleep_pair[vc] = watch;
            PAIR_PORT
        } else {
            watch[0]
        };
        self.sleep_head(r, i, vc, wake, port, epoch);
    }

    /// Register input `i` of router `r` to be woken by the next credit return to its output
    /// `port`; returns that output's credit epoch now (what a sleeper compares later).
    #[inline(always)]
    fn watch_output(&mut self, r: usize, base: usize, i: usize, port: u8) -> u8 {
        let gw = base + port as usize;
        self.watchers[gw] |= 1u64 << i;
        self.watched[r] |= 1u64 << port;
        self.ports[gw].credit_epoch
    }

    /// Whether the outputs a sleeping head (FIFO record `f` of VC `vc`, global index) watches
    /// have had no credit return since it fell asleep.
    #[inline(always)]
    fn watch_unchanged(&self, base: usize, vc: usize, f: &crate::router::buffers::InVc) -> bool {
        match f.sleep_port {
            NO_PORT => true,
            PAIR_PORT => {
                let [a, b] = self.sleep_pair[vc];
                let ea = self.ports[base + a as usize].credit_epoch;
                ea.wrapping_add(self.ports[base + b as usize].credit_epoch) == f.sleep_epoch
            }
            p => self.ports[base + p as usize].credit_epoch == f.sleep_epoch,
        }
    }

    /// For a head at an injection input whose routing takes its choice again at every
    /// attempt ([`Routing::injection_state_dependent`]) and that found no output: put it to
    /// sleep if none of the outputs any choice could name
    /// ([`Routing::injection_alternatives`]) can take it now, until one is done sending or
    /// a credit returns to one of them (at most two watched). Exact: while it sleeps no
    /// attempt could succeed, whichever output the choice named, and the routing draws no
    /// random number for it. Returns whether it sleeps.
    #[allow(clippy::too_many_arguments)] // the allocator's locals, passed once per blocked head
    #[inline(never)]
    fn sleep_on_alternatives(
        &mut self,
        r: usize,
        base: usize,
        radix: usize,
        i: usize,
        in_class: PortClass,
        v: usize,
        head: u32,
        len: u32,
        out_done: u64,
    ) -> bool {
        let now = self.now;
        self.alts.clear();
        let ctx = RouteCtx {
            taken: out_done,
            ..RouteCtx::new(
                now,
                r,
                (i, in_class, v),
                &self.ports[base..base + radix],
                &self.vcs,
                &mut self.rng,
            )
        };
        self.routing
            .injection_alternatives(&ctx, self.pool.get_mut(head), &mut self.alts);
        if self.alts.as_slice().is_empty() {
            return false;
        }
        let mut wake = u64::MAX;
        let mut watch = [NO_PORT; 2];
        for c in self.alts.as_slice() {
            let o = c.port as usize;
            let po = &self.ports[base + o];
            if out_done & (1u64 << o) != 0 || po.out_busy as u64 > now {
                wake = wake.min((po.out_busy as u64).max(now + 1));
                continue;
            }
            if po.class == PortClass::Terminal {
                return false; // an idle ejection port takes any packet
            }
            let need = len + c.reserve as u32;
            let hi = c.vc_hi.min(po.vc_count.saturating_sub(1));
            for vv in c.vc_lo..=hi {
                let credit = &self.vcs[po.vc_base as usize + vv as usize].credit;
                if credit.credits(now) >= need {
                    return false;
                }
                wake = wake.min(credit.ready_at(need).max(now + 1));
            }
            let p = c.port as u8;
            if watch[0] == NO_PORT || watch[0] == p {
                watch[0] = p;
            } else if watch[1] == NO_PORT || watch[1] == p {
                watch[1] = p;
            } else {
                return false; // more outputs than a sleeping head can watch
            }
        }
        let vc = self.ports[base + i].vc_base as usize + v;
        self.sleep_watching(r, base, i, vc, wake, watch);
        true
    }

    /// Where the LRS row of router `r`'s output `out` starts in `out_lrs`: `radix` input
    /// stamps and the grant counter ([`pick_lrs`]).
    #[inline(always)]
    fn lrs_row(&self, r: usize, out: usize, radix: usize) -> usize {
        self.lrs_base[r] as usize + out * (radix + 1)
    }

    /// The request of input port `i` this iteration: among its VCs whose head can go
    /// somewhere, the one the input arbiter prefers. A head that cannot go anywhere is put to
    /// sleep until its outcome can change (see [`InVc`](crate::router::buffers::InVc)).
    // Always inlined: it is the allocator's inner loop, and LLVM's size heuristics would
    // otherwise leave it out of line (6% more instructions, measured with callgrind).
    #[inline(always)]
    fn input_request(
        &mut self,
        r: usize,
        base: usize,
        radix: usize,
        i: usize,
        out_done: u64,
    ) -> Option<Request> {
        let now = self.now;
        let (vb, nv, in_class, rr_in, vc_mask) = {
            let p = &self.ports[base + i];
            (
                p.vc_base as usize,
                p.vc_count as usize,
                p.class,
                p.rr_in as usize,
                p.vc_mask,
            )
        };
        // Whether this input's heads may get other candidates as the router's state changes.
        let dependent = self.routing.state_dependent()
            || (in_class == PortClass::Terminal && self.routing.injection_state_dependent());
        let mut best: Option<(u64, Request)> = None;
        // Whether some head of this input may succeed later without a wake-up.
        let mut awake = false;
        // Outputs whose grant could give one of the heads without a candidate a path.
        let mut reopen = 0u64;
        let mut vmask = vc_mask;
        while vmask != 0 {
            let v = vmask.trailing_zeros() as usize;
            vmask &= vmask - 1;
            let f = self.vcs[vb + v].fifo;
            debug_assert!(f.len > 0);
            if now < f.sleep_until as u64 && self.watch_unchanged(base, vb + v, &f) {
                continue;
            }
            let head = self.slots.front(&f).expect("non-empty FIFO");
            let pkt = self.pool.get_mut(head);
            let len = pkt.len as u32;
            let age = pkt.gen_time;
            self.cands.clear();
            // Monomorphised away for routings that never read it.
            let head_wait = if self.routing.reads_head_wait() {
                let t = &mut self.head_since[vb + v];
                if *t == crate::engine::packet::NO_TIME {
                    *t = now as u32;
                }
                now as u32 - *t
            } else {
                0
            };
            let ports = &self.ports[base..base + radix];
            let mut ctx = RouteCtx {
                taken: out_done,
                head_wait,
                ..RouteCtx::new(now, r, (i, in_class, v), ports, &self.vcs, &mut self.rng)
            };
            self.routing.route(&mut ctx, pkt, &mut self.cands);
            let head_reopen = ctx.reopen;
            let head_steady = ctx.steady;
            let mut found = None;
            // Earliest cycle any candidate could succeed without new credit returns, and the
            // (at most two) ports whose credit returns could make it sooner.
            let mut wake = u64::MAX;
            let mut watch = [NO_PORT; 2];
            let mut watch_many = false;
            for c in self.cands.as_slice() {
                let o = c.port as usize;
                let po = &ports[o];
                if out_done & (1u64 << o) != 0 || po.out_busy as u64 > now {
                    wake = wake.min((po.out_busy as u64).max(now + 1));
                    continue;
                }
                let hi = c.vc_hi.min(po.vc_count.saturating_sub(1));
                let vbase = po.vc_base as usize;
                let w = if po.class == PortClass::Terminal {
                    Some(0)
                } else {
                    select_vc(
                        &self.vcs[vbase..vbase + po.vc_count as usize],
                        c.vc_lo,
                        hi,
                        len + c.reserve as u32,
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
                        only: vc_mask.count_ones() == 1
                            && self.cands.as_slice().len() == 1
                            && !dependent,
                    });
                    break;
                }
                for vv in c.vc_lo..=hi {
                    wake = wake.min(
                        self.vcs[vbase + vv as usize]
                            .credit
                            .ready_at(len + c.reserve as u32)
                            .max(now + 1),
                    );
                }
                let p = c.port as u8;
                if watch[0] == NO_PORT || watch[0] == p {
                    watch[0] = p;
                } else if watch[1] == NO_PORT || watch[1] == p {
                    watch[1] = p;
                } else {
                    watch_many = true;
                }
            }
            let Some(req) = found else {
                reopen |= head_reopen;
                if dependent
                    && !self.routing.state_dependent()
                    && !self.exhaustive
                    && self
                        .sleep_on_alternatives(r, base, radix, i, in_class, v, head, len, out_done)
                {
                    // Asleep: none of the outputs its choice could name can take it.
                } else if (dependent && (!head_steady || self.exhaustive)) || watch_many {
                    self.vcs[vb + v].fifo.wake();
                    awake = true;
                } else {
                    self.sleep_watching(r, base, i, vb + v, wake, watch);
                }
                continue;
            };
            awake = true;
            let key = match self.arbiter {
                ArbiterKind::Lrs => self.vcs[vb + v].last_served as u64,
                ArbiterKind::Age => age as u64,
                ArbiterKind::RoundRobin => ((v + nv - rr_in) % nv) as u64,
            };
            if best.is_none_or(|(k, _)| key < k) {
                best = Some((key, req));
            }
        }
        if !awake {
            // Every head sleeps: skip this input until an event wakes it.
            self.awake[r] &= !(1u64 << i);
        }
        self.reopen_scratch[i] = reopen;
        best.map(|(_, q)| q)
    }
}
