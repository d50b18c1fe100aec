//! OFAR: On-the-Fly Adaptive Routing (García et al., the OFAR paper, section 3).
//!
//! Every router decides from its own credit counts. Precedence: the minimal output if it is
//! available (idle, not granted to another input this cycle, room for the packet); otherwise a
//! random non-minimal output that is available and whose occupancy is below
//! `threshold * Q_min` (Q_min: occupancy of the least occupied VC of the minimal output, as a
//! shortest-queue VC selection would use, or with `routing.occupancy = "port"` of all its
//! canonical VCs together); then, only when the minimal output has no room,
//! the escape subnetwork. Packets leave the escape network as soon as a canonical output is
//! available, since the same precedence applies wherever the packet is; with
//! `routing.escape_entry_limit` (the OFAR paper §5.7's livelock counter) a packet that has entered
//! it that many times stays on it to its destination.
//!
//! The comparison is strict (`routing.misroute_inclusive = true` makes it `<=`, as the OFAR paper
//! writes and FOGSim codes it), so a minimal output with an empty VC (Q_min = 0) is waited for
//! rather than avoided: this is what keeps OFAR's latency close to MIN's under uniform load
//! (the OFAR paper, Fig. 6) while it misroutes as soon as the minimal queue builds up under
//! adversarial load. The paper writes `Q_non-min <= Th`; with `<=`, every packet whose
//! minimal output is momentarily busy would misroute to any empty port.
//!
//! Misrouting rules (section 3.1): at most one global misroute per packet and one local
//! misroute per group (header flags). In the source group only global misrouting is allowed,
//! with the MM+L policy: from the injection queue directly through a global port of this
//! router; from a local queue through a non-minimal local hop first, then a global port of
//! the next router. Elsewhere (and for traffic inside a group) only local misrouting, and only
//! when the minimal output is a local port. OFAR-L never misroutes locally but for MM+L's hop
//! (FOGSim's OFAR-L, the default); with `routing.ofar_l_mml = false` not even that (the OFAR paper
//! §4: OFAR-L is OFAR "without allowing misrouting in local links", and MM+L's first hop is "a
//! nonminimal local hop"), so it misroutes globally only from injection queues.
//!
//! The defaults are the rules of FOGSim, the simulator of the OFAR paper, where the paper's text is
//! silent or reads otherwise (docs/configuration.md, "The paper's text and FOGSim"); each has
//! the literal reading as an option. `routing.misroute_trigger`: by default a packet looks for
//! a non-minimal output only when its minimal one was granted to another input in this
//! allocation (a full one sends it to the escape network); `"unavailable"` also misroutes
//! around full outputs. `routing.busy_minimal`: by default a packet waits for a minimal output
//! that has room but is still sending an earlier packet; with `"misroute"` such an output is
//! unavailable and the packet may misroute on every transmission in progress (far more
//! misroutes under uniform traffic; notes/ofar-history.md, Fig. 6 difference 6).
//!
//! `routing.mml_commit` (the default) makes the global hop after an MM+L local hop mandatory.
//! Without it the next router re-evaluates against its own minimal output, usually the idle
//! local link back to the gateway: under light adversarial traffic the packet returns there
//! and, its local misroute in the group spent, waits for the saturated minimal global link.
//! `routing.mml_min_occupancy` (footnote 2 of section 3.2) keeps momentarily busy but empty
//! global outputs from starting MM+L misroutes under UN.
//!
//! `routing.misroute_congested_global` is FOGSim's restriction (not in the OFAR paper's text; on by
//! default, `false` turns it off): a
//! packet whose minimal output is a global link misroutes only while that link is congested,
//! its VC 0 holding more than `factor` times the mean of the router's global links plus
//! `packets` packets. Otherwise the packet waits for its minimal link (or, if that is full,
//! takes the escape network).
//!
//! Canonical VCs carry no ordering (any VC, chosen by the VC selection policy); deadlock
//! freedom comes from the escape subnetwork: Hamiltonian rings with bubble flow control
//! (entering a ring needs room for two packets) or a tree with up/down routing.

use super::min::{ejection, minimal_hop};
use super::{Candidate, Candidates, HopKind, RouteCtx, Routing};
use crate::config::{
    BusyMinimal, CongestedGlobal, CongestionKind, EcmBuffers, EcmRule, EscapeKind, MisrouteTrigger,
    QueueOccupancy, RoutingConfig,
};
use crate::engine::packet::Packet;
use crate::topology::escape::{self, Ring, Tree};
use crate::topology::{Dragonfly, PortClass, Topology};

pub(crate) const DECIDED: u8 = 1;
const GLOBAL_DONE: u8 = 2;
/// An MM+L local hop was taken: misroute globally at the next router.
pub(crate) const PENDING_GLOBAL: u8 = 4;
pub(crate) const IN_ESCAPE: u8 = 8;
/// `route.inter` value meaning "no local misroute yet".
const NO_GROUP: u32 = u32::MAX;

// Candidate tags (what the hop means for the header flags).
const TAG_MIN: u8 = 0;
const TAG_LOCAL_MIS: u8 = 1;
const TAG_GLOBAL_MIS: u8 = 2;
const TAG_MML_LOCAL: u8 = 3;
const TAG_ESCAPE: u8 = 4;

enum Escape {
    None,
    Rings(Vec<Ring>),
    Tree(Tree),
}

pub struct OfarRouting {
    df: Dragonfly,
    allow_local: bool,
    threshold: f64,
    /// `routing.misroute_inclusive`: a candidate qualifies at occupancy <= threshold * Q_min.
    inclusive: bool,
    /// Canonical VCs per class: any of 0..n.
    local_vcs: u8,
    global_vcs: u8,
    escape: Escape,
    /// `escape_vc[s][r * radix + port]`: the VC of subnetwork s on that port (u8::MAX: none).
    escape_vc: Vec<Vec<u8>>,
    /// Extra VCs per `r * radix + port`.
    extra: Vec<u8>,
    /// Per router: (port, VC) of the escape buffers ECM watches: those it receives on, or
    /// with `ecm_buffers = "downstream"` those its outputs feed (read from its credits).
    ecm_watch: Vec<Vec<(u16, u8)>>,
    ecm_downstream: bool,
    congestion: CongestionKind,
    bcm_bubble: u32,
    bcm_bubble_global: u32,
    ecm_threshold: f64,
    /// ECM stops injection when any (not every) escape buffer is above threshold.
    ecm_any: bool,
    mml_committed: bool,
    mml_min_occupancy: f64,
    /// A busy (but not newly granted) minimal output with room is waited for.
    wait_busy_minimal: bool,
    /// ... but only while its occupancy is at most this (`routing.busy_wait_max`).
    busy_wait_max: f64,
    /// Q is the occupancy of the whole output (all canonical VCs), not of its emptiest VC.
    port_occupancy: bool,
    /// Packets in local queues of the source group may take MM+L's non-minimal local hop:
    /// always for OFAR, for OFAR-L only with `routing.ofar_l_mml` (otherwise such packets
    /// never misroute).
    mml_local_hop: bool,
    /// Cycles a head must have asked at this router before it may enter the escape network
    /// (`routing.escape_patience`; 0: at once, as the OFAR paper describes).
    escape_patience: u32,
    /// Packets in injection queues may enter the escape network (`routing.escape_from_injection`).
    escape_from_injection: bool,
    /// Entries into the escape network after which a packet stays on it
    /// (`routing.escape_entry_limit`; 0: no limit).
    escape_entry_limit: u8,
    /// Under BCM, packets in injection queues may enter it with BCM's bubble (`routing.bcm_escape`).
    bcm_escape: bool,
    /// Packets on an escape VC may take MM+L's local hop (`routing.mml_from_escape`).
    mml_from_escape: bool,
    /// Only a minimal output granted to another input this cycle starts a misroute
    /// (`routing.misroute_trigger = "granted"`).
    misroute_only_when_granted: bool,
    /// FOGSim's restriction on misrouting around a minimal global output that is not
    /// congested (`routing.misroute_congested_global`).
    congested_global: Option<CongestedGlobal>,
    name: &'static str,
}

impl OfarRouting {
    pub fn new(
        df: Dragonfly,
        cfg: &RoutingConfig,
        local_vcs: u8,
        global_vcs: u8,
        local_misrouting: bool,
    ) -> Result<OfarRouting, String> {
        let radix = df.radix();
        let net = df.network();
        let escape = match cfg.escape {
            EscapeKind::Ring => Escape::Rings(
                cfg.rings
                    .iter()
                    .map(|&k| escape::ring(&df, k, cfg.ring_direction))
                    .collect::<Result<_, _>>()?,
            ),
            EscapeKind::Tree => Escape::Tree(escape::tree(&df, cfg.tree_root)?),
            EscapeKind::None => Escape::None,
        };
        // Subnetworks travelled both ways (the tree, bidirectional rings) have one VC per link
        // serving both directions, and receive on both ends of each link.
        let both_ways = match &escape {
            Escape::Rings(rings) => rings.iter().any(Ring::bidirectional),
            Escape::Tree(_) => true,
            Escape::None => false,
        };
        // Channels of each subnetwork: (router, output port) in its direction of travel.
        let channels: Vec<Vec<(usize, usize)>> = match &escape {
            Escape::None => Vec::new(),
            Escape::Rings(rings) => rings
                .iter()
                .map(|ring| {
                    (0..df.num_routers())
                        .map(|r| (r, ring.next_port[r] as usize))
                        .collect()
                })
                .collect(),
            Escape::Tree(tree) => vec![(0..df.num_routers())
                .filter_map(|r| tree.parent[r].map(|(_, port)| (r, port as usize)))
                .flat_map(|(r, port)| {
                    let info = net.port(r, port);
                    [(r, port), (info.peer as usize, info.peer_port as usize)]
                })
                .collect()],
        };
        let n_ports = df.num_routers() * radix;
        let mut extra = vec![0u8; n_ports];
        let mut escape_vc = Vec::new();
        let ecm_downstream = cfg.ecm_buffers == EcmBuffers::Downstream;
        let mut ecm_watch = vec![Vec::new(); df.num_routers()];
        for chans in &channels {
            let mut vc = vec![u8::MAX; n_ports];
            for &(r, port) in chans {
                let info = net.port(r, port);
                let (s, sp) = (info.peer as usize, info.peer_port as usize);
                let (a, b) = (r * radix + port, s * radix + sp);
                if vc[a] != u8::MAX {
                    continue; // the other direction of a tree link: one VC serves both.
                }
                // The same index at both ends of the link: next free extra VC of the link.
                let base = if port >= df.first_global_port() {
                    global_vcs
                } else {
                    local_vcs
                };
                let idx = base + extra[a];
                vc[a] = idx;
                vc[b] = idx;
                extra[a] += 1;
                extra[b] += 1;
                // The channel r -> s feeds s's input sp; travelled both ways, s -> r feeds r's.
                let (fwd, back) = if ecm_downstream {
                    ((r, port), (s, sp))
                } else {
                    ((s, sp), (r, port))
                };
                ecm_watch[fwd.0].push((fwd.1 as u16, idx));
                if both_ways {
                    ecm_watch[back.0].push((back.1 as u16, idx));
                }
            }
            escape_vc.push(vc);
        }
        Ok(OfarRouting {
            df,
            allow_local: local_misrouting,
            threshold: cfg.misroute_threshold,
            inclusive: cfg.misroute_inclusive,
            local_vcs,
            global_vcs,
            escape,
            escape_vc,
            extra,
            ecm_watch,
            ecm_downstream,
            congestion: cfg.congestion,
            bcm_bubble: cfg.bcm_bubble,
            bcm_bubble_global: cfg.bcm_bubble_global.unwrap_or(cfg.bcm_bubble),
            ecm_threshold: cfg.ecm_threshold,
            ecm_any: cfg.ecm_rule == EcmRule::Any,
            mml_committed: cfg.mml_commit,
            mml_min_occupancy: cfg.mml_min_occupancy,
            wait_busy_minimal: cfg.busy_minimal == BusyMinimal::Wait,
            busy_wait_max: cfg.busy_wait_max,
            port_occupancy: cfg.occupancy == QueueOccupancy::Port,
            mml_local_hop: local_misrouting || cfg.ofar_l_mml,
            escape_patience: cfg.escape_patience,
            escape_from_injection: cfg.escape_from_injection,
            // Validated to fit the packet's 8-bit count.
            escape_entry_limit: cfg.escape_entry_limit.min(u8::MAX as u32) as u8,
            bcm_escape: cfg.bcm_escape,
            mml_from_escape: cfg.mml_from_escape,
            misroute_only_when_granted: cfg.misroute_trigger == MisrouteTrigger::Granted,
            congested_global: cfg.misroute_congested_global,
            name: if local_misrouting { "ofar" } else { "ofar-l" },
        })
    }

    /// One of `ports` other than `min_port`, of the class its number implies (wired), that
    /// `ok` accepts, picked uniformly at random (no RNG draw when there is none).
    #[inline]
    fn random_other_port(
        &self,
        ctx: &mut RouteCtx,
        ports: std::ops::Range<usize>,
        min_port: usize,
        ok: impl Fn(&RouteCtx, usize) -> bool,
    ) -> Option<usize> {
        let gp0 = self.df.first_global_port();
        let mut eligible = [0u8; crate::router::MAX_RADIX];
        let mut n = 0;
        for p in ports {
            let class = if p >= gp0 {
                PortClass::Global
            } else {
                PortClass::Local
            };
            if p != min_port && ctx.class(p) == class && ok(ctx, p) {
                eligible[n] = p as u8;
                n += 1;
            }
        }
        (n > 0).then(|| eligible[ctx.rng.below(n as u64) as usize] as usize)
    }

    /// A non-minimal candidate on `port`'s canonical VCs.
    #[inline]
    fn nonminimal(&self, port: usize, tag: u8, reserve: u16) -> Candidate {
        let (vc_lo, vc_hi) = self.canonical(port);
        Candidate {
            port: port as u16,
            vc_lo,
            vc_hi,
            kind: HopKind::NonMinimal,
            tag,
            reserve,
        }
    }

    /// Q of output `port` over its canonical VCs `lo..=hi` (`routing.occupancy`).
    #[inline]
    fn occupancy(&self, ctx: &RouteCtx, port: usize, lo: u8, hi: u8) -> f64 {
        if self.port_occupancy {
            ctx.port_occupancy_fraction(port, lo as usize, hi as usize)
        } else {
            ctx.occupancy_fraction(port, lo as usize, hi as usize)
        }
    }

    #[inline]
    fn canonical(&self, port: usize) -> (u8, u8) {
        if port >= self.df.first_global_port() {
            (0, self.global_vcs - 1)
        } else {
            (0, self.local_vcs - 1)
        }
    }

    /// Whether global output `port` is congested in the sense of FOGSim's restriction: VC 0
    /// holds more than `factor` times the mean over this router's (wired) global ports plus
    /// `packets` packets of `len` phits. FOGSim reads VC 0 only, whatever the VC count.
    fn global_congested(&self, ctx: &RouteCtx, port: usize, c: CongestedGlobal, len: u32) -> bool {
        let gp0 = self.df.first_global_port();
        let (mut sum, mut n) = (0u32, 0u32);
        for p in gp0..gp0 + self.df.h {
            if ctx.class(p) == PortClass::Global {
                sum += ctx.vc_occupancy(p, 0);
                n += 1;
            }
        }
        let mean = sum as f64 / n.max(1) as f64;
        ctx.vc_occupancy(port, 0) as f64 > c.factor * mean + c.packets * len as f64
    }

    /// Whether VC 0 of `port` has at least as many credits as its canonical VCs 1..=`hi`:
    /// FOGSim puts a hop on the VC with the most credits (the first on ties), and applies the
    /// congested-global restriction only to hops on VC 0.
    fn vc0_first(&self, ctx: &RouteCtx, port: usize, hi: u8) -> bool {
        let c0 = ctx.credits(port, 0);
        (1..=hi as usize).all(|v| ctx.credits(port, v) <= c0)
    }

    /// ECM: injection is stopped while every escape buffer the router watches (or, with
    /// `ecm_rule = "any"`, at least one) is above threshold.
    fn ecm_blocks(&self, ctx: &RouteCtx) -> bool {
        let bufs = &self.ecm_watch[ctx.router];
        let above = |&(p, v): &(u16, u8)| {
            let (p, v) = (p as usize, v as usize);
            let fill = if self.ecm_downstream {
                ctx.occupancy_fraction(p, v, v)
            } else {
                ctx.input_fill(p, v)
            };
            fill > self.ecm_threshold
        };
        if self.ecm_any {
            bufs.iter().any(above)
        } else {
            !bufs.is_empty() && bufs.iter().all(above)
        }
    }

    /// The escape candidate of `pkt` at this router, if any.
    /// `bubble(global)`: room (phits) the escape VC must keep beyond the packet when entering
    /// it through a global (or local) port: BCM's bubble for an injection under
    /// `bcm_escape`, else 0.
    fn escape_candidate(
        &self,
        ctx: &RouteCtx,
        pkt: &Packet,
        bubble: impl Fn(bool) -> u16,
    ) -> Option<Candidate> {
        let r = ctx.router;
        let radix = self.df.radix();
        let global = |port: usize| port >= self.df.first_global_port();
        let (sub, port, reserve) = match &self.escape {
            Escape::None => return None,
            Escape::Rings(rings) => {
                let k = pkt.route.phase as usize;
                let port = rings[k].port_towards(r, pkt.dst_router as usize);
                // Bubble flow control: entering the ring needs room for a second packet.
                let reserve = if pkt.route.flags & IN_ESCAPE != 0 {
                    0
                } else {
                    pkt.len.max(bubble(global(port)))
                };
                (k, port, reserve)
            }
            Escape::Tree(tree) => {
                let port = tree.next_port(&self.df, r, pkt.dst_router as usize)?;
                (0, port, bubble(global(port)))
            }
        };
        let vc = self.escape_vc[sub][r * radix + port];
        debug_assert_ne!(vc, u8::MAX);
        Some(Candidate {
            port: port as u16,
            vc_lo: vc,
            vc_hi: vc,
            kind: HopKind::Escape,
            tag: TAG_ESCAPE,
            reserve,
        })
    }
}

impl Routing for OfarRouting {
    fn name(&self) -> &'static str {
        self.name
    }

    fn extra_vcs(&self, router: usize, port: usize) -> usize {
        self.extra[router * self.df.radix() + port] as usize
    }

    fn state_dependent(&self) -> bool {
        true
    }

    #[inline]
    fn grants_open_paths(&self) -> bool {
        self.misroute_only_when_granted
    }

    #[inline]
    fn reads_head_wait(&self) -> bool {
        self.escape_patience > 0
    }

    fn route(&self, ctx: &mut RouteCtx, pkt: &mut Packet, out: &mut Candidates) {
        let df = &self.df;
        if pkt.route.flags & DECIDED == 0 {
            pkt.route.flags |= DECIDED;
            pkt.route.inter = NO_GROUP;
            if let Escape::Rings(rings) = &self.escape {
                pkt.route.phase = ctx.rng.below(rings.len() as u64) as u8;
            }
        }
        let (cur, dst) = (ctx.router, pkt.dst_router as usize);
        if cur == dst {
            out.push(ejection(pkt));
            ctx.steady = true;
            return;
        }
        if self.escape_entry_limit > 0
            && pkt.route.flags & IN_ESCAPE != 0
            && pkt.escape_entries >= self.escape_entry_limit
        {
            // The OFAR paper §5.7's livelock counter: a packet that has entered the escape network
            // this often stays on it to its destination, so its path is bounded. Nothing but
            // the escape output's credits changes this answer.
            if let Some(c) = self.escape_candidate(ctx, pkt, |_| 0) {
                out.push(c);
                ctx.steady = true;
                return;
            }
        }
        let len = pkt.len as u32;
        let injecting = ctx.in_class == PortClass::Terminal;
        if injecting && self.congestion == CongestionKind::Ecm && self.ecm_blocks(ctx) {
            // ECM on the router's own escape buffers lifts when a granted packet leaves one:
            // any grant may reopen it.
            ctx.reopen = u64::MAX;
            return;
        }
        let bcm = injecting && self.congestion == CongestionKind::Bcm;
        // A packet in an injection queue that may not take the escape network waits instead.
        let stay_out = (bcm && !self.bcm_escape) || (injecting && !self.escape_from_injection);
        // BCM's bubble, in phits, for an injection into a port of either class.
        let reserve_for = |global: bool| -> u16 {
            match (bcm, global) {
                (false, _) => 0,
                (true, false) => (self.bcm_bubble * len) as u16,
                (true, true) => (self.bcm_bubble_global * len) as u16,
            }
        };
        let (min_port, min_global) = minimal_hop(df, cur, dst).expect("not at destination");
        // Within an allocation grants only take outputs and credits: the minimal output
        // granted to another input (the trigger, Q_min, its room for BCM and the escape
        // test) is the only change that can open a path this packet lacks now.
        ctx.reopen = 1u64 << min_port;
        let reserve = reserve_for(min_global);
        let (lo, hi) = self.canonical(min_port);
        let min_cand = Candidate {
            port: min_port as u16,
            vc_lo: lo,
            vc_hi: hi,
            kind: HopKind::Minimal,
            tag: TAG_MIN,
            reserve,
        };
        let gp0 = df.first_global_port();
        // FOGSim's restriction cancels every kind of misroute (MM+L's mandatory global hop
        // included) around a minimal global output that does not stand out among the router's.
        let restricted = |ctx: &RouteCtx| {
            min_global
                && self.congested_global.is_some_and(|c| {
                    (c.all_vcs || self.vc0_first(ctx, min_port, hi))
                        && !self.global_congested(ctx, min_port, c, len)
                })
        };
        if self.mml_committed && pkt.route.flags & PENDING_GLOBAL != 0 && !restricted(ctx) {
            // MM+L: the decision to misroute globally was taken at the previous router; the
            // non-minimal local hop only served to reach another global port, so take one of
            // this router's global ports (random among the available ones) instead of
            // re-evaluating against this router's (local) minimal output.
            let globals = gp0..gp0 + df.h;
            let room = |ctx: &RouteCtx, p: usize| {
                let (plo, phi) = self.canonical(p);
                ctx.has_room(p, plo as usize, phi as usize, len)
            };
            if let Some(p) = self.random_other_port(ctx, globals.clone(), min_port, |ctx, p| {
                room(ctx, p) && ctx.output_idle(p)
            }) {
                out.push(self.nonminimal(p, TAG_GLOBAL_MIS, 0));
                return;
            }
            if globals
                .filter(|&p| p != min_port && ctx.class(p) == PortClass::Global)
                .any(|p| room(ctx, p))
            {
                return; // a global port is only busy: wait for it.
            }
        }
        // Available (section 3.2): with room, not granted to another input in this allocation,
        // and idle; with `busy_minimal = "wait"` an output still sending an earlier packet
        // counts as available too (the packet waits for it rather than misrouting).
        let min_room = ctx.has_room(min_port, lo as usize, hi as usize, len + reserve as u32);
        let min_available = if self.wait_busy_minimal {
            // Waiting keeps a saturated minimal link sending back to back; with a cap, a
            // busy output whose queue is already long counts as unavailable, so that the
            // link is not driven faster than its far end drains
            // (notes/ofar-history.md, item 9: the drift under light ADVG+2).
            !ctx.granted(min_port)
                && (self.busy_wait_max >= 1.0
                    || ctx.output_idle(min_port)
                    || self.occupancy(ctx, min_port, lo, hi) <= self.busy_wait_max)
        } else {
            ctx.output_idle(min_port)
        };
        if min_room && min_available {
            out.push(min_cand);
            // Taken by no one else and with room, the minimal output can only be busy
            // sending: nothing can be granted it until it is done, and its credits only
            // grow, so until then the answer stays this one. Not so for a packet owing
            // MM+L's global hop, which the congestion of every global port may free.
            ctx.steady = !(self.mml_committed && pkt.route.flags & PENDING_GLOBAL != 0);
            return;
        }
        // The minimal output is unavailable: look for a non-minimal one.
        let q_min = |ctx: &RouteCtx| self.occupancy(ctx, min_port, lo, hi);
        let (cg, sg, dg) = (
            df.group_of(cur),
            df.group_of(df.router_of_node(pkt.src as usize)),
            df.group_of(dst),
        );
        let flags = pkt.route.flags;
        let local_done_here = pkt.route.inter == cg as u32;
        // With `misroute_trigger = "granted"`, a minimal output that is full (or busy) but
        // not granted to another input this cycle starts no misroute: the packet waits, or
        // takes the escape network if the output is full.
        let no_trigger = self.misroute_only_when_granted && !ctx.granted(min_port);
        let (ports, tag): (std::ops::Range<usize>, u8) = if restricted(ctx) {
            (0..0, TAG_MIN)
        } else if flags & PENDING_GLOBAL != 0 {
            (gp0..gp0 + df.h, TAG_GLOBAL_MIS)
        } else if no_trigger {
            (0..0, TAG_MIN)
        } else if cg == sg && dg != sg {
            if flags & GLOBAL_DONE != 0 {
                (0..0, TAG_MIN)
            } else if injecting {
                (gp0..gp0 + df.h, TAG_GLOBAL_MIS)
            } else if self.mml_local_hop
                && !local_done_here
                && q_min(ctx) >= self.mml_min_occupancy
                && (self.mml_from_escape || flags & IN_ESCAPE == 0)
            {
                (df.first_local_port()..gp0, TAG_MML_LOCAL)
            } else {
                (0..0, TAG_MIN)
            }
        } else if self.allow_local && !min_global && !local_done_here {
            (df.first_local_port()..gp0, TAG_LOCAL_MIS)
        } else {
            (0..0, TAG_MIN)
        };
        // Eligible outputs: available, not the minimal one, and occupancy within the threshold
        // (Q_min read only when there is a port to compare: most calls look at none).
        let th = if ports.is_empty() {
            0.0
        } else {
            self.threshold * q_min(ctx)
        };
        if let Some(p) = self.random_other_port(ctx, ports, min_port, |ctx, p| {
            let (plo, phi) = self.canonical(p);
            let need = len + reserve_for(p >= gp0) as u32;
            if !ctx.output_idle(p) {
                return false;
            }
            let (room, q) = if self.port_occupancy {
                let room = ctx.has_room(p, plo as usize, phi as usize, need);
                (room, self.occupancy(ctx, p, plo, phi))
            } else {
                ctx.room_and_occupancy(p, plo as usize, phi as usize, need)
            };
            room && (q < th || (self.inclusive && q <= th))
        }) {
            out.push(self.nonminimal(p, tag, reserve_for(p >= gp0)));
            return;
        }
        // A packet already on the escape network moves on freely; entering it can be made to
        // wait `escape_patience` cycles (not in the OFAR paper: section 3.3 diverts packets as soon
        // as every canonical output is unavailable, which is the default 0).
        // Under BCM (with `bcm_escape`) an injection diverts only when the minimal output has
        // no room for the packet itself, as FOGSim: room for it without BCM's bubble means
        // waiting for the bubble, not leaving the canonical network.
        let may_escape = || {
            !stay_out
                && (flags & IN_ESCAPE != 0 || ctx.head_wait >= self.escape_patience)
                && !(bcm && ctx.has_room(min_port, lo as usize, hi as usize, len))
        };
        if min_room {
            // Lost the minimal output to another input this cycle: try it again next cycle.
            out.push(min_cand);
            return;
        }
        if let Some(c) = may_escape()
            .then(|| self.escape_candidate(ctx, pkt, reserve_for))
            .flatten()
        {
            // Every canonical path is full: the escape subnetwork avoids deadlock. Under BCM
            // (section 3.4.2: injection is forbidden while the canonical network has no
            // bubble), or with `escape_from_injection = false`, a packet still in its
            // injection queue waits instead: an injection queue is never part of a cycle, so
            // it needs no escape.
            out.push(c);
        }
        // Wait for the minimal output (with no escape, what a deadlock report shows). After
        // an escape candidate it can never be taken (it has no room), but it names the
        // output whose credits change this answer.
        out.push(min_cand);
        // With FOGSim's trigger and the minimal output granted to no one, no misroute was
        // looked for, so the answer changes only when the minimal output gets room or is
        // granted to another input (which the allocator watches), or when the escape
        // output can take the packet. Not so for a packet owing MM+L's global hop, or one
        // whose patience for the escape network grows.
        ctx.steady = no_trigger
            && flags & PENDING_GLOBAL == 0
            && (self.escape_patience == 0 || flags & IN_ESCAPE != 0);
    }

    fn commit(&self, pkt: &mut Packet, router: usize, cand: &Candidate) {
        let f = &mut pkt.route.flags;
        if cand.tag == TAG_ESCAPE {
            if *f & IN_ESCAPE == 0 {
                pkt.escape_entries = pkt.escape_entries.saturating_add(1);
            }
            *f |= IN_ESCAPE;
        } else {
            *f &= !IN_ESCAPE;
        }
        *f &= !PENDING_GLOBAL;
        match cand.tag {
            TAG_GLOBAL_MIS => {
                *f |= GLOBAL_DONE;
                pkt.misrouted = true;
            }
            TAG_MML_LOCAL => {
                *f |= PENDING_GLOBAL;
                pkt.route.inter = self.df.group_of(router) as u32;
                pkt.misrouted = true;
            }
            TAG_LOCAL_MIS => {
                pkt.route.inter = self.df.group_of(router) as u32;
                pkt.misrouted = true;
            }
            _ => {}
        }
    }
}
