//! Routing algorithms.
//!
//! A [`Routing`] is asked, for the packet at the head of an input VC, which outputs it may
//! take, in order of preference ([`Candidates`]). It sees the local router state through
//! [`RouteCtx`] (credits and busy outputs), so in-transit adaptive algorithms (OFAR) decide
//! from local credit counts at every hop, and source-adaptive ones (UGAL) decide at the
//! injection router. The allocator takes the first candidate that has a free output and a VC
//! with room for the whole packet; [`Routing::commit`] then tells the algorithm which one won.

pub mod min;
pub mod ofar;
pub mod piggyback;
pub mod ugal;
pub mod valiant;
pub mod vc;

use crate::config::{Config, RoutingAlgorithm};
use crate::engine::packet::Packet;
use crate::error::ConfigError;
use crate::rng::Rng;
use crate::router::state::{PortState, VcState};
use crate::topology::PortClass;

pub use min::MinRouting;
pub use ofar::OfarRouting;
pub use piggyback::PiggybackRouting;
pub use ugal::UgalLRouting;
pub use valiant::{ValAnyRouting, ValRouting};
pub use vc::VcNeeds;

/// What kind of hop a candidate is, for statistics and for algorithms that care.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HopKind {
    Minimal,
    NonMinimal,
    Escape,
}

/// One output the packet may take, with the VCs (inclusive range) it may use there.
#[derive(Debug, Clone, Copy)]
pub struct Candidate {
    pub port: u16,
    pub vc_lo: u8,
    pub vc_hi: u8,
    pub kind: HopKind,
    /// Algorithm-defined tag, handed back in [`Routing::commit`].
    pub tag: u8,
    /// Free phits the chosen VC must keep beyond the packet itself (bubble flow control on
    /// an escape ring, BCM's injection bubble). 0 for plain virtual cut-through.
    pub reserve: u16,
}

pub const MAX_CANDIDATES: usize = 64;

/// A short list of candidates kept on the stack.
#[derive(Debug, Clone, Copy)]
pub struct Candidates {
    items: [Candidate; MAX_CANDIDATES],
    len: usize,
}

impl Default for Candidates {
    fn default() -> Self {
        Candidates {
            items: [Candidate {
                port: 0,
                vc_lo: 0,
                vc_hi: 0,
                kind: HopKind::Minimal,
                tag: 0,
                reserve: 0,
            }; MAX_CANDIDATES],
            len: 0,
        }
    }
}

impl Candidates {
    #[inline]
    pub fn clear(&mut self) {
        self.len = 0;
    }
    #[inline]
    pub fn push(&mut self, c: Candidate) {
        if self.len < MAX_CANDIDATES {
            self.items[self.len] = c;
            self.len += 1;
        }
    }
    #[inline]
    pub fn as_slice(&self) -> &[Candidate] {
        &self.items[..self.len]
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// Read-only view of one router's outputs at the current cycle, plus the shared RNG.
pub struct RouteCtx<'a> {
    pub now: u64,
    pub router: usize,
    pub in_port: usize,
    pub in_class: PortClass,
    /// VC of the input port the packet sits in.
    pub in_vc: usize,
    /// Outputs already granted to other inputs this cycle (bit per local port).
    pub taken: u64,
    /// Cycles since this head packet first asked for an output at this router (0 unless
    /// [`Routing::reads_head_wait`]).
    pub head_wait: u32,
    /// Set by a routing with [`Routing::grants_open_paths`]: the outputs (bit per local port)
    /// whose grant to another input later in this allocation could give this packet a
    /// candidate it has not got now. A packet left without a request is asked again in the
    /// next iteration only when one of them was granted (the allocator starts it at 0).
    pub reopen: u64,
    /// Set by a [`Routing::state_dependent`] routing when its answer for this head (the
    /// candidates, no random number drawn, the packet unchanged) stays the same until one of
    /// those candidates can take the packet: until the output is done sending, or a credit
    /// returns to it. The allocator then lets the head sleep as it would for a
    /// state-independent routing, instead of asking again every cycle. The allocator starts
    /// it at false.
    pub steady: bool,
    /// This router's ports, indexed by local port number.
    pub(crate) ports: &'a [PortState],
    /// Every VC of the network (indexed through `PortState::vc_base`).
    pub(crate) vcs: &'a [VcState],
    pub rng: &'a mut Rng,
}

impl<'a> RouteCtx<'a> {
    /// The view for the head of VC `in_vc` of input `in_port` (of class `in_class`) of
    /// `router`: no output taken yet, no wait, no `reopen`.
    pub(crate) fn new(
        now: u64,
        router: usize,
        (in_port, in_class, in_vc): (usize, PortClass, usize),
        ports: &'a [PortState],
        vcs: &'a [VcState],
        rng: &'a mut Rng,
    ) -> Self {
        RouteCtx {
            now,
            router,
            in_port,
            in_class,
            in_vc,
            taken: 0,
            head_wait: 0,
            reopen: 0,
            steady: false,
            ports,
            vcs,
            rng,
        }
    }

    /// Credits of VC `vc` of output `port` now.
    #[inline]
    pub fn credits(&self, port: usize, vc: usize) -> u32 {
        self.vcs[self.ports[port].vc_base as usize + vc]
            .credit
            .credits(self.now)
    }
    /// Phits occupied (as seen through credits) in VC `vc` of output `port`.
    #[inline]
    pub fn vc_occupancy(&self, port: usize, vc: usize) -> u32 {
        self.vcs[self.ports[port].vc_base as usize + vc]
            .credit
            .occupancy(self.now)
    }
    /// Phits occupied (as seen through credits) summed over the VCs of output `port`.
    pub fn port_occupancy(&self, port: usize) -> u32 {
        let p = &self.ports[port];
        let b = p.vc_base as usize;
        self.vcs[b..b + p.vc_count as usize]
            .iter()
            .map(|v| v.credit.occupancy(self.now))
            .sum()
    }
    /// Capacity in phits summed over the VCs of output `port`.
    pub fn port_capacity(&self, port: usize) -> u32 {
        let p = &self.ports[port];
        let b = p.vc_base as usize;
        self.vcs[b..b + p.vc_count as usize]
            .iter()
            .map(|v| v.credit.capacity as u32)
            .sum()
    }
    /// VCs of output `port`.
    pub fn vc_count(&self, port: usize) -> usize {
        self.ports[port].vc_count as usize
    }
    /// Whether output `port` was granted to another input earlier in this allocation.
    #[inline]
    pub fn granted(&self, port: usize) -> bool {
        self.taken & (1u64 << port) != 0
    }
    /// Whether the output link is idle this cycle and not granted to another input.
    #[inline]
    pub fn output_idle(&self, port: usize) -> bool {
        self.ports[port].out_busy as u64 <= self.now && !self.granted(port)
    }
    /// Whether output `port` can take a packet of `need` phits now on some VC in `lo..=hi`.
    #[inline]
    pub fn can_take(&self, port: usize, lo: usize, hi: usize, need: u32) -> bool {
        self.output_idle(port) && self.has_room(port, lo, hi, need)
    }
    /// Whether some VC in `lo..=hi` of output `port` has credits for `need` phits now (busy or
    /// not).
    #[inline(always)]
    pub fn has_room(&self, port: usize, lo: usize, hi: usize, need: u32) -> bool {
        self.ports[port].class == PortClass::Terminal
            || self
                .credit_views(port, lo, hi)
                .any(|c| c.credits(self.now) >= need)
    }
    /// This router's credit views of VCs `lo..=hi` of output `port` (clamped to its VCs).
    #[inline]
    fn credit_views(
        &self,
        port: usize,
        lo: usize,
        hi: usize,
    ) -> impl Iterator<Item = &crate::router::buffers::OutVc> {
        let p = &self.ports[port];
        let b = p.vc_base as usize;
        // A half-open range: cheaper to step than an inclusive one on this hot path.
        (lo..hi.min(p.vc_count as usize - 1) + 1).map(move |v| &self.vcs[b + v].credit)
    }
    /// Occupancy (0..=1) of the least occupied VC in `lo..=hi` of output `port`, as seen
    /// through credits: the queue a shortest-queue VC selection would use.
    #[inline]
    pub fn occupancy_fraction(&self, port: usize, lo: usize, hi: usize) -> f64 {
        least_fraction(
            self.credit_views(port, lo, hi)
                .map(|c| (c.occupancy(self.now), c.capacity)),
        )
    }
    /// [`RouteCtx::has_room`] and [`RouteCtx::occupancy_fraction`] of a local or global
    /// output in one pass over its VCs (each VC's credits computed once).
    #[inline(always)]
    pub fn room_and_occupancy(&self, port: usize, lo: usize, hi: usize, need: u32) -> (bool, f64) {
        debug_assert_ne!(self.ports[port].class, PortClass::Terminal);
        let mut room = false;
        let q = least_fraction(self.credit_views(port, lo, hi).map(|c| {
            let credits = c.credits(self.now);
            room |= credits >= need;
            (c.capacity as u32 - credits, c.capacity)
        }));
        (room, q)
    }
    /// Occupancy (0..=1) of VCs `lo..=hi` of output `port` taken together: phits held (credit
    /// view) over their total capacity.
    pub fn port_occupancy_fraction(&self, port: usize, lo: usize, hi: usize) -> f64 {
        let (held, cap) = self
            .credit_views(port, lo, hi)
            .fold((0u32, 0u32), |(h, c), v| {
                (h + v.occupancy(self.now), c + v.capacity as u32)
            });
        held as f64 / cap.max(1) as f64
    }
    /// Fill (0..=1) of this router's input buffer `vc` of input `port`, in packets held.
    pub fn input_fill(&self, port: usize, vc: usize) -> f64 {
        let f = &self.vcs[self.ports[port].vc_base as usize + vc].fifo;
        f.len as f64 / f.cap.max(1) as f64
    }
    pub fn class(&self, port: usize) -> PortClass {
        self.ports[port].class
    }
}

/// The least of `occupied / capacity` over `views` (1 when there are none, or when none is
/// below 1), found by exact integer comparison (o_i * c_j < o_j * c_i) and then one division:
/// the value the minimum of the per-VC quotients would have (rounding is monotone), without a
/// division per VC on OFAR's hottest path.
#[inline(always)]
fn least_fraction(views: impl Iterator<Item = (u32, u16)>) -> f64 {
    let (mut bo, mut bk) = (1u64, 1u64);
    for (o, k) in views {
        let (o, k) = (o as u64, k.max(1) as u64);
        if o * bk < bo * k {
            (bo, bk) = (o, k);
        }
    }
    bo as f64 / bk as f64
}

/// A routing algorithm. Implementations are plain data shared by the whole network.
pub trait Routing {
    fn name(&self) -> &'static str;
    /// Fill `out` with the outputs `pkt` may take from this router, best first.
    fn route(&self, ctx: &mut RouteCtx, pkt: &mut Packet, out: &mut Candidates);
    /// The allocator granted `cand` to `pkt` (called once per hop, before the hop counters
    /// are updated).
    fn commit(&self, _pkt: &mut Packet, _router: usize, _cand: &Candidate) {}
    /// Cycles between calls of [`Routing::on_period`] (0: never). For algorithms that keep
    /// network state of their own, such as Piggyback's shared saturation flags.
    fn period(&self) -> u64 {
        0
    }
    /// Called every `period()` cycles, before allocation, with read access to every port.
    fn on_period(&self, _now: u64, _port_base: &[u32], _ports: &[PortState], _vcs: &[VcState]) {}
    /// VCs this routing adds to the link behind `port` of `router` (escape subnetworks). Must
    /// be the same at both ends of a link; the engine checks it.
    fn extra_vcs(&self, _router: usize, _port: usize) -> usize {
        0
    }
    /// Whether the candidates of an already-routed packet depend on router state (credits,
    /// busy outputs). Such algorithms are re-asked every cycle; others let a blocked packet
    /// sleep until one of its candidates can become available.
    fn state_dependent(&self) -> bool {
        false
    }
    /// Whether the candidates of a packet at an injection input depend on router state when
    /// those of packets in transit do not (a source-adaptive choice taken again at every
    /// attempt, as FOGSim's PB). The allocator re-asks such heads every cycle and lets
    /// transit heads sleep. Read only when [`Routing::state_dependent`] is false.
    fn injection_state_dependent(&self) -> bool {
        false
    }
    /// For an [`Routing::injection_state_dependent`] routing: every candidate `route` could
    /// give this head at its injection input, whatever the router's state (for FOGSim's PB,
    /// the first hops of both the minimal and the Valiant path). The allocator lets a head
    /// none of whose alternatives can take it sleep until one can, instead of asking it
    /// again every cycle. Must neither draw random numbers nor leave `pkt` changed; pushing
    /// nothing (the default) keeps the head asked every cycle.
    fn injection_alternatives(&self, _ctx: &RouteCtx, _pkt: &mut Packet, _out: &mut Candidates) {}
    /// Whether an output granted to another input can give a packet a candidate it did not
    /// have earlier in the same allocation (OFAR with `misroute_trigger = "granted"` misroutes
    /// only around a minimal output granted to another input). The allocator then asks
    /// every unmatched input again at each iteration, not only those that lost a request,
    /// except an input left without a request none of whose heads' [`RouteCtx::reopen`]
    /// outputs was granted since: such a routing must set `reopen` for every packet it
    /// gives no usable candidate (within an allocation, grants only consume credits and
    /// occupy outputs, so only the outputs it names may change its answer).
    /// Only for a [`Routing::state_dependent`] or [`Routing::injection_state_dependent`]
    /// routing: the allocator's sleep shortcuts for the others assume a blocked head's
    /// candidates never change within a cycle.
    #[inline]
    fn grants_open_paths(&self) -> bool {
        false
    }
    /// Whether `route` reads [`RouteCtx::head_wait`]. The engine keeps the per-VC time it
    /// needs only for algorithms that do. Must not change during a run. Inlined, so that
    /// the bookkeeping disappears from the engines of algorithms that return a constant false.
    #[inline]
    fn reads_head_wait(&self) -> bool {
        false
    }
}

/// VCs per link class the configured routing needs.
pub fn vc_needs(alg: RoutingAlgorithm) -> VcNeeds {
    let (local, global) = match alg {
        RoutingAlgorithm::Min => (2, 1),
        RoutingAlgorithm::Val
        | RoutingAlgorithm::UgalL
        | RoutingAlgorithm::Pb
        | RoutingAlgorithm::Dfp => (3, 2),
        RoutingAlgorithm::ValAny => (4, 2),
        // Canonical VCs carry no ordering; the escape VCs come on top.
        RoutingAlgorithm::Ofar | RoutingAlgorithm::OfarL => (1, 1),
    };
    VcNeeds { local, global }
}

/// VCs used when `router.vcs_local`/`vcs_global` are 0: what the routing needs, and for OFAR
/// the 3/2 of the OFAR paper Table 1.
pub fn default_vcs(alg: RoutingAlgorithm) -> VcNeeds {
    match alg {
        RoutingAlgorithm::Ofar | RoutingAlgorithm::OfarL => VcNeeds {
            local: 3,
            global: 2,
        },
        other => vc_needs(other),
    }
}

/// Reject configurations with fewer VCs than the routing needs for deadlock freedom.
pub fn check_vcs(cfg: &Config) -> Result<(), ConfigError> {
    let need = vc_needs(cfg.routing.algorithm);
    let alg = cfg.routing.algorithm.name();
    for (field, have, want, class) in [
        (
            "router.vcs_local",
            cfg.router.vcs_local,
            need.local,
            "local",
        ),
        (
            "router.vcs_global",
            cfg.router.vcs_global,
            need.global,
            "global",
        ),
    ] {
        if have != 0 && have < want && cfg.routing.ordered_vcs {
            return Err(ConfigError::Field {
                field: field.into(),
                message: format!(
                    "routing.algorithm = \"{alg}\" needs {want} {class} VCs for deadlock avoidance (ordered VCs {}/{}), but {have} are configured: set {field} >= {want}, or 0 to use exactly what the routing needs",
                    need.local, need.global
                ),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::router::buffers::{OutVc, Slots};

    /// The credit views OFAR compares (one division per port, and room and occupancy read in
    /// one pass) give exactly what the per-VC definitions give, on random credit states with
    /// ramps, packet refunds and unequal capacities.
    #[test]
    fn fused_credit_views_equal_the_per_vc_definitions() {
        let mut rng = Rng::new(7);
        let mut slots = Slots::default();
        for _ in 0..20_000 {
            let vc_count = 1 + rng.below(4) as usize;
            let now = 50 + rng.below(100);
            let vcs: Vec<VcState> = (0..vc_count)
                .map(|_| {
                    let cap = [8, 16, 24, 32, 256][rng.below(5) as usize];
                    let mut credit = OutVc::new(cap);
                    let used = 8 * rng.below(cap as u64 / 8 + 1) as u32;
                    credit.consume(used);
                    if used > 0 && rng.below(2) == 0 {
                        // A ramp returning the last packet's credits, started before or after now.
                        credit.start_drain(now - 8 + rng.below(16), 8);
                    }
                    VcState {
                        fifo: slots.add(1),
                        credit,
                        last_served: 0,
                    }
                })
                .collect();
            let ports = [PortState {
                out_busy: 0,
                vc_base: 0,
                peer_router: 0,
                peer_vc_base: 0,
                sent: 0,
                latency: 1,
                vc_mask: 0,
                vc_count: vc_count as u8,
                class: PortClass::Local,
                rr_in: 0,
                rr_out: 0,
                peer_local: 0,
                credit_epoch: 0,
            }];
            let mut ctx_rng = Rng::new(1);
            let ctx = RouteCtx::new(now, 0, (0, PortClass::Local, 0), &ports, &vcs, &mut ctx_rng);
            let lo = rng.below(vc_count as u64) as usize;
            let hi = lo + rng.below(vc_count as u64) as usize; // may pass the last VC: clamped
            let need = 8 * (1 + rng.below(4) as u32);
            for v in &vcs {
                // The ramp by its definition: nothing before it starts, then one credit a
                // cycle up to its length.
                let c = &v.credit;
                let now32 = now as u32;
                let ramp = if now32 >= c.drain_start {
                    (now32 - c.drain_start + 1).min(c.drain_len as u32)
                } else {
                    0
                };
                assert_eq!(c.credits(now), (c.settled + ramp as i32) as u32);
            }
            let reference = vcs[lo..=hi.min(vc_count - 1)]
                .iter()
                .map(|v| v.credit.occupancy(now) as f64 / v.credit.capacity as f64)
                .fold(1.0, f64::min);
            let room = vcs[lo..=hi.min(vc_count - 1)]
                .iter()
                .any(|v| v.credit.credits(now) >= need);
            assert_eq!(
                ctx.occupancy_fraction(0, lo, hi).to_bits(),
                reference.to_bits()
            );
            assert_eq!(ctx.has_room(0, lo, hi, need), room);
            let (fused_room, fused_q) = ctx.room_and_occupancy(0, lo, hi, need);
            assert_eq!((fused_room, fused_q.to_bits()), (room, reference.to_bits()));
        }
    }
}
