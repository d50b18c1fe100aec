//! The simulation engine: cycle loop, packet movement, credits, generation, measurement.
//!
//! Time advances one cycle at a time, but work is done only where something happens: events
//! (head arrivals, credit returns, input ports freeing) come from a timing wheel, generation
//! times from a calendar of per-node geometric gaps, only routers holding packets are
//! allocated, and a blocked packet sleeps until one of its outputs can take it. A packet
//! granted an output occupies the link for `len` cycles and its head reaches the next buffer
//! after the link latency; credits come back phit by phit as it drains, all without work per
//! phit.
//!
//! The loop is bound by memory latency, not arithmetic: a cycle of the 5,256-node network
//! touches several megabytes of port, VC, FIFO and packet records in an order set by the
//! traffic. Port, VC and packet records are half a cache line each, and the loop
//! prefetches what it will need a few steps ahead (event targets down the current bucket, the
//! records of the next routers to be allocated, the injection ports of the next nodes to
//! generate), so that many misses are in flight at once ([`crate::prefetch`]).
//!
//! This file builds a simulation and runs its cycle loop; the parts of a cycle live beside it:
//! `movement` (grants, head arrivals, credit returns), `generation` (when nodes create
//! packets, bursts, the traffic change), `pipeline` (the allocation pass and its prefetching;
//! the allocator itself is [`crate::router::allocator`]), [`events`] (the timing wheel),
//! [`packet`] (packet records), `result` (the measurements) and `watchdog` (deadlock reports).

pub mod events;
mod generation;
mod movement;
mod occupancy;
pub mod packet;
mod pipeline;
mod result;
mod trace;
mod watchdog;

pub use trace::{TraceEvent, TraceRecord, TraceSpec};

pub use watchdog::DeadlockReport;

use crate::config::{Config, RoutingAlgorithm, ValiantModel};
use crate::error::{ConfigError, SimError};
use crate::rng::Rng;
use crate::router::buffers::{OutVc, Slots};
use crate::router::state::{PortState, VcState};
use crate::routing::{self, vc::VcMap, Candidates, Routing};
use crate::stats::summary::BUFFER_SAMPLE_CYCLES;
use crate::stats::{Collector, RunResult};
use crate::topology::{Dragonfly, Network, PortClass, Topology};
use crate::traffic::calendar::Calendar;
use crate::traffic::{Injection, Pattern, Workload};
use events::TimeWheel;
use packet::{PacketPool, NO_TIME};
use std::time::Instant;

/// No burst packet waiting for its injection VC (`Simulation::pending_dst`).
const NO_DST: u32 = u32::MAX;

/// A running simulation, whatever its routing.
pub trait Simulator {
    /// Run to the end (measurement window or burst completion) and report.
    fn run(&mut self) -> Result<RunResult, SimError> {
        self.run_with(&mut |_| true)
    }
    /// [`run`](Simulator::run), calling `tick` every [`TICK_CYCLES`] cycles with how far the
    /// run is (for a progress display); a `tick` that returns false stops the run with
    /// [`SimError::Interrupted`]. Watching a run does not change it.
    fn run_with(&mut self, tick: &mut dyn FnMut(Tick) -> bool) -> Result<RunResult, SimError>;
    /// Advance one cycle.
    fn step(&mut self) -> Result<(), SimError>;
    fn now(&self) -> u64;
    /// Count every packet where it physically is and check it against the counters.
    fn audit(&self) -> Audit;
    /// Testing: switch off the allocator's exact shortcuts: ask every unmatched input again
    /// at every iteration (no [`RouteCtx::reopen`](crate::routing::RouteCtx) shortcut), and
    /// every blocked head of an injection-state-dependent routing every cycle (no sleep on
    /// [`Routing::injection_alternatives`](crate::routing::Routing)), and every blocked head
    /// of a state-dependent routing every cycle, steady or not
    /// ([`RouteCtx::steady`](crate::routing::RouteCtx)), and every loser of an iteration
    /// again in the next (no sleep on the one output it asked for).
    #[doc(hidden)]
    fn set_exhaustive_allocation(&mut self, on: bool);
    /// Trace the packets `spec` picks (before the run starts); an empty spec traces none.
    fn set_trace(&mut self, spec: TraceSpec);
    /// The trace so far, in the order the events happened (delivery records at their
    /// grant), emptied.
    fn take_trace(&mut self) -> Vec<TraceRecord>;
}

/// Cycles between two calls of [`Simulator::run_with`]'s `tick`: rare enough to cost
/// nothing next to the cycles themselves.
pub const TICK_CYCLES: u64 = 4096;

/// How far a running simulation is, for [`Simulator::run_with`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tick {
    /// Cycles simulated so far.
    pub now: u64,
    /// Share of the run done, 0 to 1: cycles of the warm-up and measurement windows, or in
    /// burst mode packets of the burst delivered.
    pub done: f64,
}

/// Conservation check: where every live packet is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Audit {
    pub generated: u64,
    pub delivered: u64,
    /// Packets found in input buffers (including injection queues).
    pub in_buffers: u64,
    /// Packets on links (head not yet arrived).
    pub on_links: u64,
    /// Packet ids found more than once.
    pub duplicates: u64,
    /// Live packets in the pool.
    pub live: u64,
}

impl Audit {
    pub fn balanced(&self) -> bool {
        self.duplicates == 0
            && self.generated == self.delivered + self.in_buffers + self.on_links
            && self.live == self.in_buffers + self.on_links
    }
}

/// Build the simulator for a validated configuration.
pub fn build(cfg: &Config) -> Result<Box<dyn Simulator>, ConfigError> {
    if cfg.uses_kernel() {
        return crate::kernel::build(cfg);
    }
    crate::validate(cfg)?;
    let df = Dragonfly::new(&cfg.topology);
    let needs = routing::vc_needs(cfg.routing.algorithm);
    let auto = routing::default_vcs(cfg.routing.algorithm);
    let vcs = VcMap::new(
        cfg.routing.ordered_vcs,
        effective_vcs(cfg.router.vcs_local, auto.local) as u8,
        effective_vcs(cfg.router.vcs_global, auto.global) as u8,
        needs,
    );
    Ok(match cfg.routing.algorithm {
        RoutingAlgorithm::Min => Box::new(Simulation::new(
            cfg,
            &df,
            routing::MinRouting {
                df: df.clone(),
                vcs,
            },
        )),
        RoutingAlgorithm::Val => Box::new(Simulation::new(
            cfg,
            &df,
            routing::ValRouting {
                df: df.clone(),
                vcs,
                fogsim: cfg.routing.valiant_model == ValiantModel::Fogsim,
            },
        )),
        RoutingAlgorithm::ValAny => Box::new(Simulation::new(
            cfg,
            &df,
            routing::ValAnyRouting {
                df: df.clone(),
                vcs,
                fogsim: cfg.routing.valiant_model == ValiantModel::Fogsim,
            },
        )),
        RoutingAlgorithm::Pb => Box::new(Simulation::new(
            cfg,
            &df,
            routing::PiggybackRouting::new(df.clone(), vcs, &cfg.routing, cfg.router.packet_length),
        )),
        RoutingAlgorithm::Ofar | RoutingAlgorithm::OfarL => {
            let r = routing::OfarRouting::new(
                df.clone(),
                &cfg.routing,
                effective_vcs(cfg.router.vcs_local, auto.local) as u8,
                effective_vcs(cfg.router.vcs_global, auto.global) as u8,
                cfg.routing.algorithm == RoutingAlgorithm::Ofar,
            )
            .map_err(|m| ConfigError::Field {
                field: "routing".into(),
                message: m,
            })?;
            Box::new(Simulation::new(cfg, &df, r))
        }
        RoutingAlgorithm::UgalL => Box::new(Simulation::new(
            cfg,
            &df,
            routing::UgalLRouting {
                df: df.clone(),
                vcs,
                threshold: cfg.routing.ugal_threshold,
            },
        )),
        RoutingAlgorithm::Dfp => unreachable!("validation keeps dfp on the general kernel"),
    })
}

/// Configured VC count, where 0 means "what the routing needs".
pub fn effective_vcs(configured: usize, needed: usize) -> usize {
    if configured == 0 {
        needed
    } else {
        configured
    }
}

/// Run one simulation with `cfg.simulation.seed`.
pub fn run(cfg: &Config) -> Result<RunResult, SimError> {
    run_with(cfg, &mut |_| true)
}

/// [`run`], watched by `tick` as [`Simulator::run_with`] says (progress, interruption).
pub fn run_with(cfg: &Config, tick: &mut dyn FnMut(Tick) -> bool) -> Result<RunResult, SimError> {
    let mut r = build(cfg)?.run_with(tick)?;
    r.units = cfg.units.resolve()?;
    Ok(r)
}

/// [`run`], tracing the packets `spec` picks: every event of their life
/// ([`TraceRecord`]). The result is the one [`run`] gives.
pub fn run_traced(
    cfg: &Config,
    spec: &TraceSpec,
) -> Result<(RunResult, Vec<TraceRecord>), SimError> {
    run_traced_with(cfg, spec, &mut |_| true)
}

/// [`run_traced`], watched by `tick` as [`Simulator::run_with`] says.
pub fn run_traced_with(
    cfg: &Config,
    spec: &TraceSpec,
    tick: &mut dyn FnMut(Tick) -> bool,
) -> Result<(RunResult, Vec<TraceRecord>), SimError> {
    let mut sim = build(cfg)?;
    sim.set_trace(spec.clone());
    let mut result = sim.run_with(tick)?;
    result.units = cfg.units.resolve()?;
    Ok((result, sim.take_trace()))
}

pub struct Simulation<R: Routing> {
    pub(crate) net: Network,
    pub(crate) routing: R,
    pub(crate) now: u64,
    pub(crate) rng: Rng,
    pub(crate) pkt_len: u16,
    pub(crate) iterations: usize,
    pub(crate) arbiter: crate::config::ArbiterKind,
    pub(crate) vc_selection: crate::config::VcSelection,
    /// Per global port (`port_base[r] + port`).
    pub(crate) ports: Vec<PortState>,
    /// Per VC (`ports[gp].vc_base + v`): input FIFO, credit view, LRS stamp.
    pub(crate) vcs: Vec<VcState>,
    /// Per global port: input ports of the same router with a head sleeping on this output's
    /// credits (woken, and cleared, at the next credit return). Rarely touched, so kept out
    /// of the port records.
    pub(crate) watchers: Vec<u64>,
    /// Per router: its output ports with a nonzero `watchers` entry, so that a credit return
    /// touches the watcher array only when someone sleeps on that output.
    pub(crate) watched: Vec<u64>,
    /// Per VC: the two outputs a head sleeping on
    /// [`PAIR_PORT`](crate::router::buffers::PAIR_PORT) watches (FOGSim's PB at injection:
    /// the minimal and the Valiant first hop; OFAR: the escape and the minimal output).
    pub(crate) sleep_pair: Vec<[u8; 2]>,
    /// Scratch for [`Routing::injection_alternatives`](crate::routing::Routing).
    pub(crate) alts: Candidates,
    pub(crate) slots: Slots,
    // Per router.
    pub(crate) nonempty: Vec<u64>,
    /// Per router: input ports whose crossbar input is free (not reading a packet).
    pub(crate) free_inputs: Vec<u64>,
    /// Per router: input ports that may have a head worth evaluating (not all asleep).
    pub(crate) awake: Vec<u64>,
    pub(crate) active: Vec<u64>,
    /// Scratch: the routers allocated this cycle.
    active_list: Vec<u32>,
    /// LRS state of every output: a byte stamp per input and a grant counter, `radix + 1`
    /// bytes per output from `lrs_base[r]` (`lrs_row` in the allocator;
    /// [`pick_lrs`](crate::router::arbiter::pick_lrs)).
    pub(crate) lrs_base: Vec<u32>,
    pub(crate) out_lrs: Vec<u8>,
    /// Per router (and one past the last): its first VC. A router's VCs are contiguous, so
    /// the prefetch finds them without first loading its port records.
    router_vcs: Vec<u32>,
    /// Output arbitration serves transit packets before injections (router.injection_priority).
    pub(crate) transit_first: bool,
    /// Each input VC is its own crossbar input (router.crossbar_input = "vc"): a grant
    /// keeps the input port free and makes only the granted VC wait for its packet to leave.
    vc_inputs: bool,
    /// A packet's credits come back all at once (router.credit_return = "packet").
    credit_per_packet: bool,
    /// The input arbiter counts a VC as served when it requests (router.lrs_update =
    /// "request"), not when it is granted.
    pub(crate) lrs_on_request: bool,
    /// Per router: its terminal (injection) input ports.
    pub(crate) terminal_inputs: Vec<u64>,
    pub(crate) wheel: TimeWheel,
    pub(crate) scratch: events::Bucket,
    /// Per VC: `router << 6 | local port` of its port, to unpack events.
    pub(crate) vc_home: Vec<u32>,
    pub(crate) calendar: Calendar,
    due: Vec<u32>,
    pub(crate) pool: PacketPool,
    pattern: Pattern,
    injection: Injection,
    change: Option<(u64, Pattern, Injection)>,
    burst_left: Vec<u64>,
    burst_total: u64,
    /// Burst mode: per router, one past the last tail of a packet its nodes sent.
    burst_done: Vec<u64>,
    /// router.injection_vc = "destination" (empty otherwise): a packet's injection VC
    /// follows from its destination, and a burst packet whose VC is full waits here (per
    /// node, `NO_DST` if none) so that the pattern's order of destinations is kept.
    pending_dst: Vec<u32>,
    last_tail: u64,
    pub(crate) collector: Collector,
    /// Packet tracing, None (one test per generation and grant) unless asked for.
    trace: Option<Box<trace::Tracer>>,
    generated: u64,
    delivered: u64,
    refused: u64,
    packet_hops: u64,
    last_move: u64,
    watchdog: u64,
    max_cycles: u64,
    end: u64,
    seed: u64,
    offered: f64,
    describe: String,
    pattern_name: String,
    group_size: usize,
    pub(crate) cands: Candidates,
    routing_period: u64,
    pub(crate) req_scratch: [crate::router::allocator::Request; crate::router::MAX_RADIX],
    pub(crate) out_req_scratch: [u64; crate::router::MAX_RADIX],
    /// Per input of the router being allocated: the union of its blocked heads'
    /// [`RouteCtx::reopen`](crate::routing::RouteCtx) outputs at its last request.
    pub(crate) reopen_scratch: [u64; crate::router::MAX_RADIX],
    /// No allocator shortcuts: re-ask every unmatched input at every iteration, ignoring
    /// `reopen`, and never put an injection head to sleep on its alternatives (tests compare
    /// the two: the shortcuts must not change a single result).
    pub(crate) exhaustive: bool,
    /// Per VC: the cycle its head packet first asked for an output ([`NO_TIME`]: not yet).
    /// Empty unless the routing reads [`RouteCtx::head_wait`](crate::routing::RouteCtx).
    pub(crate) head_since: Vec<u32>,
    /// Every output's phits sent (`PortState::sent`) when the window began (empty before):
    /// link utilisation is what they sent from there to the end.
    sent_at_window_start: Vec<u32>,
    /// Buffer occupancy: the buffer class of every VC ([`crate::stats::buffer_class`]), the
    /// packet slots of each class, and the cycles at which the buffers are next sampled for
    /// the run's summary, for the time series (`u64::MAX`: never) and for either.
    vc_class: Vec<u8>,
    class_slots: [u64; 4],
    next_summary_sample: u64,
    next_series_sample: u64,
    next_sample: u64,
}

impl<R: Routing> Simulation<R> {
    pub fn new(cfg: &Config, topo: &dyn TopologyShape, routing: R) -> Simulation<R> {
        let net = topo.network();
        let (p, a, g) = topo.shape();
        let rc = &cfg.router;
        let needs = routing::default_vcs(cfg.routing.algorithm);
        let len = rc.packet_length;
        let n_ports = net.ports.len();
        let mut ports = Vec::with_capacity(n_ports);
        let mut peers: Vec<u32> = Vec::with_capacity(n_ports);
        let mut vcs = Vec::new();
        let mut slots = Slots::default();
        for r in 0..net.num_routers() {
            for pt in 0..net.radix(r) {
                let gp = net.port_base[r] as usize + pt;
                let info = net.ports[gp];
                let (n, buf) = match info.class {
                    PortClass::Terminal => (rc.vcs_injection, rc.buffer_injection),
                    PortClass::Local => (
                        effective_vcs(rc.vcs_local, needs.local) + routing.extra_vcs(r, pt),
                        rc.buffer_local,
                    ),
                    PortClass::Global => (
                        effective_vcs(rc.vcs_global, needs.global) + routing.extra_vcs(r, pt),
                        rc.buffer_global,
                    ),
                    PortClass::Unused => (0, 0),
                };
                if matches!(info.class, PortClass::Local | PortClass::Global) {
                    // Both ends of a link index the same VCs.
                    assert_eq!(
                        routing.extra_vcs(r, pt),
                        routing.extra_vcs(info.peer as usize, info.peer_port as usize),
                        "routing gives the two ends of a link different VC counts"
                    );
                }
                let peer = match info.class {
                    PortClass::Local | PortClass::Global => {
                        net.port_base[info.peer as usize] + info.peer_port as u32
                    }
                    _ => info.peer,
                };
                peers.push(peer);
                ports.push(PortState {
                    out_busy: 0,
                    vc_base: vcs.len() as u32,
                    // Terminal ports keep their node id here.
                    peer_router: if info.class == PortClass::Terminal {
                        info.peer
                    } else {
                        0
                    },
                    peer_vc_base: 0,
                    sent: 0,
                    latency: info.latency as u16,
                    vc_mask: 0,
                    vc_count: n as u8,
                    class: info.class,
                    rr_in: 0,
                    rr_out: 0,
                    peer_local: 0,
                    credit_epoch: 0,
                });
                for _ in 0..n {
                    vcs.push(VcState {
                        fifo: slots.add((buf / len) as u16),
                        // Terminal outputs (ejection) need no credits; the slot keeps indexing uniform.
                        credit: OutVc::new((buf / len) * len),
                        last_served: 0,
                    });
                }
            }
        }
        let mut vc_home = vec![0u32; vcs.len()];
        for r in 0..net.num_routers() {
            for pt in 0..net.radix(r) {
                let p = &ports[net.port_base[r] as usize + pt];
                for v in p.vc_base..p.vc_base + p.vc_count as u32 {
                    vc_home[v as usize] = (r as u32) << 6 | pt as u32;
                }
            }
        }
        assert!(
            net.num_routers() < events::MAX_ROUTERS && vcs.len() < events::MAX_VCS,
            "network too large for the event encoding"
        );
        // Copy each link's far-end identity into the near end.
        for gp in 0..ports.len() {
            if matches!(ports[gp].class, PortClass::Local | PortClass::Global) {
                let pr = net.ports[gp].peer;
                let peer = ports[peers[gp] as usize];
                ports[gp].peer_router = pr;
                ports[gp].peer_vc_base = peer.vc_base;
                ports[gp].peer_local = (peers[gp] - net.port_base[pr as usize]) as u8;
            }
        }
        let terminal_inputs: Vec<u64> = (0..net.num_routers())
            .map(|r| {
                (0..net.radix(r))
                    .filter(|&p| net.port(r, p).class == PortClass::Terminal)
                    .fold(0u64, |m, p| m | 1u64 << p)
            })
            .collect();
        let mut lrs_base = Vec::with_capacity(net.num_routers());
        let mut out_lrs = Vec::new();
        for r in 0..net.num_routers() {
            lrs_base.push(out_lrs.len() as u32);
            let radix = net.radix(r);
            out_lrs.resize(out_lrs.len() + radix * (radix + 1), 0);
        }
        let mut router_vcs: Vec<u32> = (0..net.num_routers())
            .map(|r| ports[net.port_base[r] as usize].vc_base)
            .collect();
        router_vcs.push(vcs.len() as u32);
        let max_lat = net.ports.iter().map(|p| p.latency).max().unwrap_or(1) as u64;
        let mut rng = Rng::new(cfg.simulation.seed);
        let wl = Workload::new(cfg, p, a, g, &mut rng);
        let routers = net.num_routers();
        let nodes = net.num_terminals();
        let sim = &cfg.simulation;
        let burst = matches!(wl.injection, Injection::Burst { .. });
        let (ws, we) = if burst {
            (0, u64::MAX)
        } else {
            (sim.warmup_cycles, sim.warmup_cycles + sim.measure_cycles)
        };
        let pattern_name = result::describe_pattern(cfg);
        let (vc_class, class_slots) = occupancy::classify_vcs(&net, &ports, &vcs, &routing);
        let next_series_sample = if sim.series_window > 0 {
            sim.series_window
        } else {
            u64::MAX
        };
        let routing_period = routing.period();
        let head_since = if routing.reads_head_wait() {
            vec![NO_TIME; vcs.len()]
        } else {
            Vec::new()
        };
        Simulation {
            routing,
            now: 0,
            rng,
            pkt_len: len as u16,
            iterations: rc.allocator_iterations,
            arbiter: rc.arbiter,
            vc_selection: rc.vc_selection,
            watchers: vec![0; ports.len()],
            watched: vec![0; net.num_routers()],
            sleep_pair: vec![[0u8; 2]; vcs.len()],
            alts: Candidates::default(),
            ports,
            vcs,
            slots,
            nonempty: vec![0; routers],
            free_inputs: vec![u64::MAX; routers],
            awake: vec![0; routers],
            active: vec![0; routers.div_ceil(64)],
            active_list: Vec::with_capacity(routers),
            lrs_base,
            out_lrs,
            router_vcs,
            transit_first: rc.injection_priority == crate::config::InjectionPriority::TransitFirst,
            vc_inputs: rc.crossbar_input == crate::config::CrossbarInput::Vc,
            credit_per_packet: rc.credit_return == crate::config::CreditReturn::Packet,
            lrs_on_request: rc.lrs_update == crate::config::LrsUpdate::Request,
            terminal_inputs,
            wheel: TimeWheel::new(max_lat + len as u64 + 2),
            scratch: Default::default(),
            vc_home,
            calendar: Calendar::new(12),
            due: Vec::new(),
            pool: PacketPool::default(),
            pattern: wl.pattern,
            injection: wl.injection,
            change: wl.change,
            burst_left: vec![0; nodes],
            pending_dst: if rc.injection_vc == crate::config::InjectionVc::Destination {
                vec![NO_DST; nodes]
            } else {
                Vec::new()
            },
            burst_total: 0,
            burst_done: Vec::new(),
            last_tail: 0,
            collector: Collector::new(ws, we, routers, sim.series_window),
            trace: None,
            generated: 0,
            delivered: 0,
            refused: 0,
            packet_hops: 0,
            last_move: 0,
            watchdog: sim.watchdog_cycles,
            max_cycles: sim.max_cycles,
            end: we,
            seed: sim.seed,
            offered: cfg.traffic.load,
            describe: topo.describe(),
            pattern_name,
            group_size: a,
            cands: Candidates::default(),
            routing_period,
            req_scratch: [crate::router::allocator::Request::EMPTY; crate::router::MAX_RADIX],
            out_req_scratch: [0; crate::router::MAX_RADIX],
            reopen_scratch: [0; crate::router::MAX_RADIX],
            exhaustive: false,
            head_since,
            sent_at_window_start: Vec::new(),
            vc_class,
            class_slots,
            next_summary_sample: BUFFER_SAMPLE_CYCLES,
            next_series_sample,
            next_sample: next_series_sample.min(BUFFER_SAMPLE_CYCLES),
            net,
        }
    }

    /// Global index of local port `port` of `router`.
    #[inline(always)]
    pub(crate) fn gport(&self, router: u32, port: usize) -> usize {
        self.net.port_base[router as usize] as usize + port
    }

    /// Router and local port of the port that owns global VC `vc`.
    #[inline(always)]
    pub(crate) fn vc_owner(&self, vc: u32) -> (u32, usize) {
        events::split_home(self.vc_home[vc as usize])
    }

    fn cycle(&mut self) -> Result<(), SimError> {
        if self.now == self.collector.window_start {
            self.snapshot_links();
        }
        if self.now == self.next_sample {
            self.sample_buffers();
        }
        self.apply_change();
        self.process_events();
        if self.routing_period > 0 && self.now % self.routing_period == 0 {
            self.routing
                .on_period(self.now, &self.net.port_base, &self.ports, &self.vcs);
        }
        self.generate();
        self.allocate_all();
        if self.pool.live() > 0 && self.now - self.last_move > self.watchdog {
            return Err(SimError::Deadlock(Box::new(self.deadlock_report())));
        }
        if self.pool.live() == 0 {
            self.last_move = self.now;
        }
        self.now += 1;
        Ok(())
    }

    /// Once per run, when the window begins: link utilisation counts from here. Kept out of
    /// line so that the cycle's hot code stays as it was.
    #[cold]
    #[inline(never)]
    fn snapshot_links(&mut self) {
        self.sent_at_window_start = self.ports.iter().map(|p| p.sent).collect();
    }

    fn finished(&self) -> bool {
        match self.injection {
            Injection::Burst { .. } => self.delivered >= self.burst_total,
            Injection::Bernoulli { .. } => self.now >= self.end,
        }
    }

    fn shape_a(&self) -> usize {
        self.group_size
    }

    /// How far the run is ([`Tick`]).
    fn progress(&self) -> Tick {
        let done = match self.injection {
            Injection::Burst { .. } => self.delivered as f64 / self.burst_total.max(1) as f64,
            Injection::Bernoulli { .. } => self.now as f64 / self.end.max(1) as f64,
        };
        Tick {
            now: self.now,
            done: done.min(1.0),
        }
    }
}

/// What the engine needs from a topology beyond its wiring: the group structure used for
/// patterns and per-group statistics.
pub trait TopologyShape: Topology {
    /// (terminals per router, routers per group, groups).
    fn shape(&self) -> (usize, usize, usize);
}

impl TopologyShape for Dragonfly {
    fn shape(&self) -> (usize, usize, usize) {
        (self.p, self.a, self.g)
    }
}

impl<R: Routing> Simulator for Simulation<R> {
    fn run_with(&mut self, tick: &mut dyn FnMut(Tick) -> bool) -> Result<RunResult, SimError> {
        let t0 = Instant::now();
        if self.now == 0 {
            self.start();
        }
        while !self.finished() {
            if self.now >= self.max_cycles && matches!(self.injection, Injection::Burst { .. }) {
                return Err(SimError::BurstTimeout {
                    max_cycles: self.max_cycles,
                    delivered: self.delivered,
                    total: self.burst_total,
                });
            }
            if self.now % TICK_CYCLES == 0 && self.now > 0 && !tick(self.progress()) {
                return Err(SimError::Interrupted { cycles: self.now });
            }
            self.cycle()?;
        }
        Ok(self.result(t0.elapsed().as_secs_f64()))
    }

    fn step(&mut self) -> Result<(), SimError> {
        if self.now == 0 && self.generated == 0 {
            self.start();
        }
        self.cycle()
    }

    fn now(&self) -> u64 {
        self.now
    }

    fn set_exhaustive_allocation(&mut self, on: bool) {
        self.exhaustive = on;
    }

    fn set_trace(&mut self, spec: TraceSpec) {
        self.trace = (!spec.is_empty()).then(|| Box::new(trace::Tracer::new(spec)));
    }

    fn take_trace(&mut self) -> Vec<TraceRecord> {
        self.trace
            .as_deref_mut()
            .map(|t| std::mem::take(&mut t.records))
            .unwrap_or_default()
    }

    fn audit(&self) -> Audit {
        let mut seen = vec![false; self.pool.capacity_used()];
        let mut dup = 0;
        let mut in_buffers = 0;
        for v in &self.vcs {
            for i in 0..v.fifo.len as usize {
                let id = self.slots.nth(&v.fifo, i) as usize;
                dup += seen[id] as u64;
                seen[id] = true;
                in_buffers += 1;
            }
        }
        let mut on_links = 0;
        for id in self.wheel.arrivals() {
            let id = id as usize;
            dup += seen[id] as u64;
            seen[id] = true;
            on_links += 1;
        }
        Audit {
            generated: self.generated,
            delivered: self.delivered,
            in_buffers,
            on_links,
            duplicates: dup,
            live: self.pool.live() as u64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::CrossbarInput;
    use crate::engine::packet::Packet;

    /// The embedded default on a 72-node dragonfly (p = 2, a = 4, h = 2).
    fn small_config() -> Config {
        let mut cfg = Config::embedded_default();
        cfg.topology.p = 2;
        cfg.topology.a = 4;
        cfg.topology.h = 2;
        cfg
    }

    /// A simulation of `cfg` (validated here) with MIN routing on 2/1 unordered VCs.
    fn min_simulation(cfg: &Config) -> Simulation<routing::MinRouting> {
        crate::validate(cfg).unwrap();
        let df = Dragonfly::new(&cfg.topology);
        let vcs = VcMap::new(false, 2, 1, routing::vc_needs(cfg.routing.algorithm));
        Simulation::new(
            cfg,
            &df,
            routing::MinRouting {
                df: df.clone(),
                vcs,
            },
        )
    }

    /// OFAR on the small network with 2/1(+1) VCs, `routing` applied to the configuration
    /// (validated here), and its dragonfly.
    fn ofar_simulation(
        routing: impl FnOnce(&mut crate::config::RoutingConfig),
    ) -> (Simulation<routing::OfarRouting>, Dragonfly) {
        let mut cfg = small_config();
        cfg.router.vcs_local = 2;
        cfg.router.vcs_global = 1;
        cfg.routing.algorithm = RoutingAlgorithm::Ofar;
        routing(&mut cfg.routing);
        crate::validate(&cfg).unwrap();
        let df = Dragonfly::new(&cfg.topology);
        let r = routing::OfarRouting::new(df.clone(), &cfg.routing, 2, 1, true).unwrap();
        (Simulation::new(&cfg, &df, r), df)
    }

    /// The candidates `sim`'s routing gives `pkt` at `router` at cycle 0, its head sitting in
    /// `in_port` (of `in_class`) and the outputs in `taken` granted to other inputs, and
    /// whether the routing called that answer steady (`RouteCtx::steady`).
    fn route_at<R: Routing>(
        sim: &mut Simulation<R>,
        router: usize,
        (in_port, in_class): (usize, PortClass),
        taken: u64,
        pkt: &mut Packet,
    ) -> (Candidates, bool) {
        let base = sim.net.port_base[router] as usize;
        let radix = sim.net.port_base[router + 1] as usize - base;
        let mut cands = Candidates::default();
        let mut ctx = crate::routing::RouteCtx {
            taken,
            ..crate::routing::RouteCtx::new(
                0,
                router,
                (in_port, in_class, 0),
                &sim.ports[base..base + radix],
                &sim.vcs,
                &mut sim.rng,
            )
        };
        sim.routing.route(&mut ctx, pkt, &mut cands);
        let steady = ctx.steady;
        (cands, steady)
    }

    /// Cycles at which two packets queued at cycle 0 in the two injection VCs of node 0 leave
    /// it, with MIN routing to two different routers of its group.
    fn injection_times(crossbar_input: CrossbarInput) -> (u32, u32) {
        let mut cfg = small_config();
        cfg.router.vcs_injection = 2;
        cfg.router.crossbar_input = crossbar_input;
        let mut sim = min_simulation(&cfg);
        let (r, pt) = sim.net.attach[0];
        let inj = sim.ports[sim.gport(r, pt as usize)];
        assert_eq!(inj.vc_count, 2);
        let mut ids = [0u32; 2];
        // Nodes 2 and 4 attach to routers 1 and 2: two different local outputs of router 0.
        for (k, dst) in [2usize, 4].into_iter().enumerate() {
            let (dst_router, dst_port) = sim.net.attach[dst];
            assert_ne!(dst_router, r);
            ids[k] = sim
                .pool
                .alloc(Packet::new(0, dst_router, dst_port as u8, 0, sim.pkt_len));
            sim.enqueue(inj.vc_base + k as u32, ids[k], r as usize, pt as usize);
        }
        // Both have left by cycle 9 and neither has arrived (local links take 10 cycles).
        for _ in 0..10 {
            sim.cycle().unwrap();
        }
        let t = |id: u32| sim.pool.get(id).inject_time;
        let (a, b) = (t(ids[0]), t(ids[1]));
        (a.min(b), a.max(b))
    }

    #[test]
    fn an_input_port_sends_one_packet_at_a_time_unless_each_vc_is_a_crossbar_input() {
        // One crossbar input per port: the second packet waits until the first has been
        // read out (8 phits, 8 cycles). One per VC: it leaves the next cycle (an input port
        // still wins at most one output per cycle).
        assert_eq!(injection_times(CrossbarInput::Port), (0, 8));
        assert_eq!(injection_times(CrossbarInput::Vc), (0, 1));
    }

    /// With `router.injection_vc = "destination"` every packet queued at a node sits in the
    /// injection VC of its destination's range (nodes split into `vcs_injection` equal
    /// ranges), and a node whose next packet's VC is full holds that packet back instead of
    /// putting it in another VC.
    #[test]
    fn injection_vc_by_destination_follows_the_destination_range() {
        let mut cfg = small_config();
        cfg.router.vcs_injection = 3;
        cfg.router.buffer_injection = 16; // two packets per VC
        cfg.router.injection_vc = crate::config::InjectionVc::Destination;
        cfg.traffic.burst_packets = 10;
        let mut sim = min_simulation(&cfg);
        sim.start();
        let nodes = sim.net.num_terminals();
        let (mut queued, mut waiting) = (0, 0);
        for n in 0..nodes {
            let (r, pt) = sim.net.attach[n];
            let port = sim.ports[sim.gport(r, pt as usize)];
            for k in 0..port.vc_count as usize {
                let fifo = &sim.vcs[port.vc_base as usize + k].fifo;
                for i in 0..fifo.len as usize {
                    let p = sim.pool.get(sim.slots.nth(fifo, i));
                    let dst = sim
                        .net
                        .port(p.dst_router as usize, p.dst_port as usize)
                        .peer as usize;
                    assert_eq!(dst * 3 / nodes, k, "node {n}: packet for {dst} in VC {k}");
                    queued += 1;
                }
            }
            // Six slots but ten packets: each node fills until a packet finds its VC full.
            if sim.pending_dst[n] != NO_DST {
                let d = sim.pending_dst[n] as usize;
                let fifo = &sim.vcs[port.vc_base as usize + d * 3 / nodes].fifo;
                assert_eq!(
                    fifo.len, fifo.cap,
                    "node {n} holds a packet whose VC has room"
                );
                waiting += 1;
            }
        }
        assert_eq!(waiting, nodes, "every node should hold a packet back");
        assert!(
            queued >= 2 * nodes && queued < 6 * nodes,
            "{queued} packets queued"
        );
    }

    /// FOGSim's PB at injection: whatever the credits, the hop `route` chooses is one of
    /// the (at most two) `injection_alternatives`, which leave the packet as it was; the
    /// allocator's sleep on the alternatives is exact only if this holds. Both paths are
    /// chosen for some states, so the check covers both.
    #[test]
    fn fogsim_pb_route_is_one_of_its_injection_alternatives() {
        let mut cfg = small_config();
        cfg.routing.algorithm = RoutingAlgorithm::Pb;
        cfg.routing.pb_model = crate::config::PbModel::Fogsim;
        crate::validate(&cfg).unwrap();
        let df = Dragonfly::new(&cfg.topology);
        let vcs = VcMap::new(false, 3, 2, routing::vc_needs(cfg.routing.algorithm));
        let pb =
            routing::PiggybackRouting::new(df.clone(), vcs, &cfg.routing, cfg.router.packet_length);
        let mut sim = Simulation::new(&cfg, &df, pb);
        let nodes = sim.net.num_terminals();
        let mut rng = crate::rng::Rng::new(11);
        let mut chose = [false; 2]; // minimal, Valiant
        let attach = sim.net.attach.clone();
        for n in 0..nodes {
            let (r, pt) = attach[n];
            let (r, base) = (r as usize, sim.net.port_base[r as usize] as usize);
            let radix = sim.net.port_base[r + 1] as usize - base;
            for dst in (0..nodes).filter(|&d| attach[d].0 as usize != r) {
                // Random occupancy of VC 0 of every network output of the router.
                for port in &sim.ports[base..base + radix] {
                    if matches!(port.class, PortClass::Local | PortClass::Global) {
                        let c = &mut sim.vcs[port.vc_base as usize].credit;
                        let free = c.credits(0);
                        c.consume(rng.below(free as u64 + 1) as u32);
                    }
                }
                let (dst_router, dst_port) = attach[dst];
                let mut pkt = Packet::new(n as u32, dst_router, dst_port as u8, 0, sim.pkt_len);
                let terminal = (pt as usize, PortClass::Terminal);
                let (cands, _) = route_at(&mut sim, r, terminal, 0, &mut pkt);
                let [c] = cands.as_slice() else {
                    panic!("{n} -> {dst}: {:?}", cands.as_slice())
                };
                let before = format!("{pkt:?}");
                let mut alts = Candidates::default();
                let ctx = crate::routing::RouteCtx::new(
                    0,
                    r,
                    (pt as usize, PortClass::Terminal, 0),
                    &sim.ports[base..base + radix],
                    &sim.vcs,
                    &mut sim.rng,
                );
                sim.routing
                    .injection_alternatives(&ctx, &mut pkt, &mut alts);
                assert_eq!(format!("{pkt:?}"), before, "{n} -> {dst}: packet changed");
                let alts = alts.as_slice();
                assert!(
                    !alts.is_empty() && alts.len() <= 2,
                    "{n} -> {dst}: {alts:?}"
                );
                assert!(
                    alts.iter()
                        .any(|a| (a.port, a.vc_lo, a.vc_hi) == (c.port, c.vc_lo, c.vc_hi)),
                    "{n} -> {dst}: {c:?} not among {alts:?}"
                );
                chose[pkt.misrouted as usize] = true;
                // Give the credits back for the next pair.
                for port in &sim.ports[base..base + radix] {
                    if matches!(port.class, PortClass::Local | PortClass::Global) {
                        let c = &mut sim.vcs[port.vc_base as usize].credit;
                        let used = c.capacity as u32 - c.credits(0);
                        c.refund(used);
                    }
                }
            }
        }
        assert_eq!(
            chose,
            [true, true],
            "both paths should be chosen for some states"
        );
    }

    /// Under BCM with `bcm_escape`, an injected packet whose canonical outputs are all full
    /// may enter the escape ring only keeping BCM's bubble of the ring port's class: the
    /// global bubble when the ring leaves its router through a global link.
    #[test]
    fn bcm_escape_keeps_the_bubble_of_the_escape_ports_class() {
        use crate::routing::HopKind;
        let (mut sim, df) = ofar_simulation(|r| {
            r.congestion = crate::config::CongestionKind::Bcm;
            r.bcm_escape = true;
            r.bcm_bubble = 1;
            r.bcm_bubble_global = Some(20);
        });
        let nodes = sim.net.num_terminals();
        let gp0 = df.first_global_port();
        let mut seen = [false; 2];
        for n in (0..nodes).step_by(2) {
            let (r, pt) = sim.net.attach[n];
            let base = sim.net.port_base[r as usize] as usize;
            let radix = sim.net.port_base[r as usize + 1] as usize - base;
            // Fill every canonical VC of every network output: only the escape ring is left.
            for port in &sim.ports[base..base + radix] {
                let canonical = match port.class {
                    PortClass::Terminal | PortClass::Unused => 0,
                    PortClass::Local => 2,
                    PortClass::Global => 1,
                };
                for v in 0..canonical {
                    let c = &mut sim.vcs[port.vc_base as usize + v].credit;
                    let free = c.credits(0);
                    c.consume(free);
                }
            }
            // To a node in the farthest group.
            let dst = (n + nodes / 2) % nodes;
            let (dst_router, dst_port) = sim.net.attach[dst];
            let mut pkt = Packet::new(n as u32, dst_router, dst_port as u8, 0, sim.pkt_len);
            let terminal = (pt as usize, PortClass::Terminal);
            let (cands, _) = route_at(&mut sim, r as usize, terminal, 0, &mut pkt);
            let c = cands.as_slice();
            // The escape ring, then the full minimal output (named for the allocator to watch).
            assert_eq!(c.len(), 2, "node {n}: {c:?}");
            assert_eq!(c[0].kind, HopKind::Escape, "node {n}: {c:?}");
            assert_eq!(c[1].kind, HopKind::Minimal, "node {n}: {c:?}");
            let global = c[0].port as usize >= gp0;
            // Beyond the packet: BCM's bubble (20 or 1 packets; 1 is also the ring's own).
            let want = if global { 20 * 8 } else { 8 };
            assert_eq!(c[0].reserve, want, "node {n}, escape port {}", c[0].port);
            seen[global as usize] = true;
        }
        assert_eq!(seen, [true, true], "ring ports of one class only");
    }
    /// FOGSim's restriction (`routing.misroute_congested_global`): an injected packet whose
    /// minimal output, a global link of its router, was granted to another input misroutes
    /// only while that link holds more than 1.5 × the mean of the router's global links plus
    /// 5 packets; otherwise it waits for it.
    #[test]
    fn misroute_around_a_minimal_global_link_only_while_it_is_congested() {
        use crate::config::CongestedGlobal;
        use crate::routing::HopKind;
        // `mml`: the packet arrives at this router (from a local input, its minimal output
        // idle) after MM+L's local hop, its global misroute committed (`mml_commit`).
        // `held1`: with Some, global links have a second VC holding that many phits.
        let decide4 = |restrict: Option<CongestedGlobal>,
                       held: u32,
                       mml: bool,
                       held1: Option<u32>|
         -> HopKind {
            let gvcs = 1 + held1.is_some() as usize;
            let mut cfg = small_config();
            cfg.router.vcs_local = 2;
            cfg.router.vcs_global = gvcs;
            cfg.routing.algorithm = RoutingAlgorithm::Ofar;
            cfg.routing.misroute_congested_global = restrict;
            cfg.routing.mml_commit = mml;
            crate::validate(&cfg).unwrap();
            let df = Dragonfly::new(&cfg.topology);
            let r =
                routing::OfarRouting::new(df.clone(), &cfg.routing, 2, gvcs as u8, true).unwrap();
            let mut sim = Simulation::new(&cfg, &df, r);
            let (src, pt) = sim.net.attach[0];
            let src = src as usize;
            let gp0 = df.first_global_port();
            // A destination behind the router's first global link: the minimal output.
            let far = sim.net.port(src, gp0).peer as usize;
            let dst = (0..sim.net.num_terminals())
                .find(|&n| sim.net.attach[n].0 as usize == far)
                .unwrap();
            let (dst_router, dst_port) = sim.net.attach[dst];
            assert_eq!(routing::min::minimal_hop(&df, src, far), Some((gp0, true)));
            let base = sim.net.port_base[src] as usize;
            let vc0 = sim.ports[base + gp0].vc_base as usize;
            sim.vcs[vc0].credit.consume(held);
            if let Some(h1) = held1 {
                sim.vcs[vc0 + 1].credit.consume(h1);
            }
            let mut pkt = Packet::new(0, dst_router, dst_port as u8, 0, sim.pkt_len);
            let input = if mml {
                use crate::routing::ofar::{DECIDED, PENDING_GLOBAL};
                pkt.route.flags = DECIDED | PENDING_GLOBAL;
                pkt.route.inter = df.group_of(src) as u32;
                (df.first_local_port(), PortClass::Local)
            } else {
                (pt as usize, PortClass::Terminal)
            };
            let taken = if mml { 0 } else { 1 << gp0 };
            let (cands, _) = route_at(&mut sim, src, input, taken, &mut pkt);
            let c = cands.as_slice();
            assert_eq!(c.len(), 1, "{c:?}");
            c[0].kind
        };
        let decide = |restrict, held, mml| decide4(restrict, held, mml, None);
        // FOGSim's example configuration: a margin of 5 packets (the default has none).
        let example = CongestedGlobal {
            packets: 5.0,
            ..CongestedGlobal::default()
        };
        let fogsim = Some(example);
        // 48 phits on the minimal link, 0 on the other (h = 2): mean 24, threshold
        // 1.5 × 24 + 5 × 8 = 76 phits. 200 phits: threshold 190.
        assert_eq!(decide(None, 48, false), HopKind::NonMinimal);
        assert_eq!(decide(fogsim, 48, false), HopKind::Minimal);
        assert_eq!(decide(fogsim, 200, false), HopKind::NonMinimal);
        // MM+L's committed global hop is cancelled too (FOGSim's GLOBAL_MANDATORY): the
        // packet takes its idle minimal global link instead.
        assert_eq!(decide(None, 48, true), HopKind::NonMinimal);
        assert_eq!(decide(fogsim, 48, true), HopKind::Minimal);
        assert_eq!(decide(fogsim, 200, true), HopKind::NonMinimal);
        // With no margin in packets, 48 phits stand out (> 36).
        let no_margin = Some(CongestedGlobal::default());
        assert_eq!(decide(no_margin, 48, false), HopKind::NonMinimal);
        // Two global VCs: FOGSim restricts only a hop on VC 0, the VC with the most credits
        // (the first on ties). VC 1 emptier: no restriction (Q_min, its emptiest VC's
        // occupancy, is 40 phits, above the other link's 0); fuller or as full: restricted.
        assert_eq!(decide4(fogsim, 48, false, Some(40)), HopKind::NonMinimal);
        assert_eq!(decide4(fogsim, 48, false, Some(48)), HopKind::Minimal);
        assert_eq!(decide4(fogsim, 48, false, Some(56)), HopKind::Minimal);
        let all_vcs = Some(CongestedGlobal {
            all_vcs: true,
            ..example
        });
        assert_eq!(decide4(all_vcs, 48, false, Some(40)), HopKind::Minimal);
        assert_eq!(decide4(None, 48, false, Some(40)), HopKind::NonMinimal);
    }

    /// OFAR calls a blocked head steady (the allocator lets it sleep) only where its answer
    /// cannot change until one of its candidates can take it: waiting for a busy minimal
    /// output with room, or (FOGSim's trigger) for the escape network past a full minimal
    /// output granted to no one. Not a packet owing MM+L's global hop, which a global port
    /// getting room would send on, nor one whose patience for the escape network grows.
    #[test]
    fn ofar_calls_steady_only_answers_that_wait_for_a_candidate() {
        use crate::config::{BusyMinimal, MisrouteTrigger};
        use crate::routing::ofar::{DECIDED, PENDING_GLOBAL};
        use crate::routing::HopKind;
        // `full_min`: the minimal (local) output has no room, else it has room but is busy
        // sending. `pending`: the packet owes MM+L's committed global hop. Every global
        // port of the router is full.
        let decide = |full_min: bool, pending: bool, patience: u32| -> (Vec<HopKind>, bool) {
            let (mut sim, df) = ofar_simulation(|r| {
                r.busy_minimal = BusyMinimal::Wait;
                r.misroute_trigger = MisrouteTrigger::Granted;
                r.mml_commit = true;
                r.escape_patience = patience;
            });
            let src = sim.net.attach[0].0 as usize;
            // A destination in another group reached through a local hop first.
            let dst = (0..sim.net.num_terminals())
                .find(|&n| {
                    let d = sim.net.attach[n].0 as usize;
                    df.group_of(d) != df.group_of(src)
                        && routing::min::minimal_hop(&df, src, d).is_some_and(|(_, g)| !g)
                })
                .unwrap();
            let (dst_router, dst_port) = sim.net.attach[dst];
            let (min_port, _) = routing::min::minimal_hop(&df, src, dst_router as usize).unwrap();
            let base = sim.net.port_base[src] as usize;
            let gp0 = df.first_global_port();
            for p in gp0..gp0 + df.h {
                let c = &mut sim.vcs[sim.ports[base + p].vc_base as usize].credit;
                let free = c.credits(0);
                c.consume(free);
            }
            let min = sim.ports[base + min_port].vc_base as usize;
            if full_min {
                for v in min..min + 2 {
                    let free = sim.vcs[v].credit.credits(0);
                    sim.vcs[v].credit.consume(free);
                }
            } else {
                sim.ports[base + min_port].out_busy = 5;
            }
            let mut pkt = Packet::new(0, dst_router, dst_port as u8, 0, sim.pkt_len);
            pkt.route.flags = DECIDED | if pending { PENDING_GLOBAL } else { 0 };
            pkt.route.inter = df.group_of(src) as u32;
            let input = (df.first_local_port(), PortClass::Local);
            let (cands, steady) = route_at(&mut sim, src, input, 0, &mut pkt);
            (cands.as_slice().iter().map(|c| c.kind).collect(), steady)
        };
        use HopKind::{Escape, Minimal};
        // Waiting for the busy minimal output.
        assert_eq!(decide(false, false, 0), (vec![Minimal], true));
        assert_eq!(decide(false, true, 0), (vec![Minimal], false));
        // Past the full minimal output, granted to no one, onto the escape ring.
        assert_eq!(decide(true, false, 0), (vec![Escape, Minimal], true));
        assert_eq!(decide(true, true, 0), (vec![Escape, Minimal], false));
        // Not yet patient enough for the escape ring: the answer changes as the wait grows.
        assert_eq!(decide(true, false, 3), (vec![Minimal], false));
    }

    /// The OFAR paper §5.7's livelock counter (`routing.escape_entry_limit`): a packet on the
    /// escape network leaves it for its idle minimal output, unless it has entered the escape
    /// network as often as the limit allows; then it stays on it, whatever the canonical
    /// outputs offer, and that answer is steady. A packet on a canonical VC is not held.
    #[test]
    fn the_escape_entry_limit_keeps_a_packet_on_the_escape_network() {
        use crate::config::EscapeKind;
        use crate::routing::ofar::{DECIDED, IN_ESCAPE};
        use crate::routing::HopKind::{Escape, Minimal};
        let decide = |escape: EscapeKind, limit: u32, entries: u8, on_escape: bool| {
            let (mut sim, df) = ofar_simulation(|r| {
                r.escape = escape;
                r.escape_entry_limit = limit;
            });
            let src = sim.net.attach[0].0 as usize;
            let dst = (0..sim.net.num_terminals())
                .find(|&n| df.group_of(sim.net.attach[n].0 as usize) != df.group_of(src))
                .unwrap();
            let (dst_router, dst_port) = sim.net.attach[dst];
            let mut pkt = Packet::new(0, dst_router, dst_port as u8, 0, sim.pkt_len);
            pkt.route.flags = DECIDED | if on_escape { IN_ESCAPE } else { 0 };
            pkt.escape_entries = entries;
            let input = (df.first_local_port(), PortClass::Local);
            let (cands, steady) = route_at(&mut sim, src, input, 0, &mut pkt);
            let kinds: Vec<_> = cands.as_slice().iter().map(|c| c.kind).collect();
            (kinds, steady)
        };
        for escape in [EscapeKind::Ring, EscapeKind::Tree] {
            // Every output idle and empty: the minimal one is taken ...
            assert_eq!(decide(escape, 0, 200, true).0, vec![Minimal], "{escape:?}");
            assert_eq!(decide(escape, 15, 14, true).0, vec![Minimal], "{escape:?}");
            assert_eq!(decide(escape, 15, 15, false).0, vec![Minimal], "{escape:?}");
            // ... but not by a packet on the escape network at its limit.
            assert_eq!(
                decide(escape, 15, 15, true),
                (vec![Escape], true),
                "{escape:?}"
            );
            assert_eq!(
                decide(escape, 1, 1, true),
                (vec![Escape], true),
                "{escape:?}"
            );
        }
    }
}
