//! The end of a kernel run: the collector's counters, the links' and the flows' turned into
//! a [`RunResult`].

use super::{Mechanism, Sim, Switch};
use crate::config::Config;
use crate::stats::summary::{
    ClassUse, CollectiveResult, ControlStats, EscapeStats, FlowResult, LinkStats, LinkUse, Packets,
    PerEntity, PortUse, PortWindow, Series, SeriesPoint,
};
use crate::stats::RunResult;
use crate::topology::PortClass;
use std::cell::Cell;

/// The traffic as the result names it: the pattern at its load, and the flows.
pub(super) fn describe_traffic(cfg: &Config) -> String {
    let mut flows = match cfg.flows.len() {
        0 => String::new(),
        1 => "1 flow".into(),
        n => format!("{n} flows"),
    };
    if !cfg.collectives.is_empty() {
        let names: Vec<String> = cfg.collectives.iter().map(|c| c.describe()).collect();
        if !flows.is_empty() {
            flows.push_str(" + ");
        }
        flows.push_str(&names.join(" + "));
    }
    if cfg.traffic.load == 0.0 && cfg.has_flows() {
        return flows;
    }
    let base = match cfg.traffic.pattern {
        crate::config::PatternKind::Uniform => "UN".to_string(),
        p => p.name().to_string(),
    };
    if flows.is_empty() {
        base
    } else {
        format!("{base} + {flows}")
    }
}

impl<S: Switch, M: Mechanism> Sim<S, M> {
    fn link_stats(&self) -> LinkStats {
        let k = &self.k;
        let start = k.collector.window_start;
        if k.sent_at_window_start.len() != k.sent.len() || k.now <= start {
            return LinkStats::default();
        }
        let cycles = (k.now - start) as f64;
        let of_class = |class: PortClass| {
            let use_: Vec<f64> = k
                .net
                .ports
                .iter()
                .zip(k.sent.iter().zip(&k.sent_at_window_start))
                .zip(&k.phit_cycles)
                .filter(|((p, _), _)| p.class == class)
                .map(|((_, (&now, &then)), &phit)| (now - then) as f64 * phit as f64 / cycles)
                .collect();
            LinkUse::of(&use_)
        };
        LinkStats {
            local: of_class(PortClass::Local),
            global: of_class(PortClass::Global),
        }
    }

    pub(super) fn result(&self, wall: f64) -> RunResult {
        let k = &self.k;
        let c = &k.collector;
        let nodes = k.net.num_terminals() as f64;
        let span = (c.window_end - c.window_start) as f64;
        // Every per-packet quantity is missing (not 0) when no packet was delivered in the
        // window.
        let any = c.delivered_in_window > 0;
        // Fairness among the switches that have nodes (all of them on the dragonfly; the
        // upper levels of a fat tree have none and would count as starved).
        let mut with_nodes = vec![false; k.net.num_routers()];
        for &(s, _) in k.net.all_node_links() {
            with_nodes[s as usize] = true;
        }
        let of_switches_with_nodes = |v: &[u64]| -> Vec<f64> {
            v.iter()
                .zip(&with_nodes)
                .filter(|(_, &w)| w)
                .map(|(&x, _)| x as f64)
                .collect()
        };
        let inj = of_switches_with_nodes(&c.injected_per_router);
        let acc = of_switches_with_nodes(&c.accepted_per_router);
        let per_group = |v: &[f64]| -> Vec<f64> {
            v.chunks(self.group_size.max(1))
                .map(|ch| ch.iter().sum())
                .collect()
        };
        let series = c.series.as_ref().map(|s| {
            let windows = s
                .delivered_phits
                .len()
                .max(s.generated.len())
                .max(s.lat_count.len())
                .min(k.now.div_ceil(s.width) as usize);
            let get = |v: &Vec<u64>, i: usize| v.get(i).copied().unwrap_or(0);
            let share =
                |v: &Vec<u64>, i: usize, cnt: u64| (cnt > 0).then(|| get(v, i) as f64 / cnt as f64);
            Series {
                window_cycles: s.width,
                points: (0..windows)
                    .map(|i| {
                        let cnt = get(&s.lat_count, i);
                        SeriesPoint {
                            cycle: i as u64 * s.width,
                            accepted_load: get(&s.delivered_phits, i) as f64
                                / (nodes * s.width as f64),
                            generated_load: get(&s.generated, i) as f64 * k.packet_length as f64
                                / (nodes * s.width as f64),
                            latency_mean: share(&s.lat_sum, i, cnt),
                            latency_samples: cnt,
                            misrouted_fraction: share(&s.misrouted, i, cnt),
                            escaped_fraction: (cnt > 0).then_some(0.0),
                            hops_mean: share(&s.hops, i, cnt),
                            in_flight: 0,
                            buffered: 0,
                            occupancy: Default::default(),
                        }
                    })
                    .collect(),
            }
        });
        let flows = k
            .flows
            .iter()
            .map(|f| FlowResult {
                src: f.spec.src,
                dst: f.spec.dst,
                rate: f.spec.rate,
                created_phits: f.created,
                delivered_phits: f.delivered,
                throughput: f.delivered_in_window as f64 / span,
                messages_delivered: f.messages_delivered,
                reordered_packets: f.reordered,
                message_latency_mean: (f.messages_delivered > 0)
                    .then(|| f.message_latency_sum as f64 / f.messages_delivered as f64),
                started: f.started,
                completed: f.completed,
                series: if self.k.series_window > 0 {
                    let w = self.k.series_window as f64;
                    let windows = k.now.div_ceil(self.k.series_window) as usize;
                    (0..windows)
                        .map(|i| f.series.get(i).copied().unwrap_or(0) as f64 / w)
                        .collect()
                } else {
                    Vec::new()
                },
            })
            .collect();
        let collectives = k
            .collectives
            .iter()
            .map(|c| {
                let of = &k.flows[c.first..c.first + c.count];
                let started = of.iter().filter_map(|f| f.started).min();
                let completed = of
                    .iter()
                    .map(|f| f.completed)
                    .collect::<Option<Vec<u64>>>()
                    .and_then(|v| v.into_iter().max());
                CollectiveResult {
                    name: c.name.clone(),
                    ranks: c.ranks as u64,
                    size: c.size,
                    steps: c.steps as u64,
                    first_flow: c.first as u64,
                    flow_count: c.count as u64,
                    started,
                    completed,
                    completion_cycles: started.zip(completed).map(|(s, e)| e - s),
                }
            })
            .collect();
        let (link_classes, ports) = self.port_stats();
        let mut result = RunResult {
            link_classes,
            ports,
            topology: self.describe.clone(),
            routing: self.routing_name.clone(),
            pattern: self.pattern_name.clone(),
            seed: self.seed,
            nodes: nodes as u64,
            offered_load: self.offered,
            generated_load: c.generated_in_window as f64 * k.packet_length as f64 / (nodes * span),
            accepted_load: c.phits_in_window as f64 / (nodes * span),
            latency: c.latency_dist(),
            network_latency: c.network_latency(),
            hops: c.hops_stats(),
            // Non-minimal paths (VAL, DFP, a mechanism's) count as misrouted; the kernel has
            // no escape network.
            misrouted_fraction: c.per_packet(c.misrouted_in_window as f64),
            escape: EscapeStats {
                entered_fraction: any.then_some(0.0),
                entries_mean: any.then_some(0.0),
                entries_max: 0,
                entries_histogram: vec![c.delivered_in_window],
                hops_mean: any.then_some(0.0),
                max_hops_without_escape: c.hops_max as u64,
            },
            packets: Packets::counted(k.generated, k.delivered, k.refused),
            per_router: PerEntity::of(&inj, &acc),
            per_group: PerEntity::of(&per_group(&inj), &per_group(&acc)),
            links: self.link_stats(),
            buffers: Default::default(),
            injected_per_router: c.injected_per_router.clone(),
            burst: None,
            series,
            flows,
            collectives,
            pauses: k.fc.pauses_sent,
            pauses_at_nodes: k.pauses_at_nodes,
            units: None,
            control: (k.control.sent > 0).then(|| {
                let all: u64 = k.sent.iter().sum();
                ControlStats {
                    sent: k.control.sent,
                    consumed: k.control.consumed,
                    dropped: k.control.dropped,
                    link_phits: k.control.link_phits,
                    link_share: k.control.link_phits as f64 / all.max(1) as f64,
                }
            }),
            cycles: k.now,
            packet_hops: k.packet_hops,
            wall_seconds: wall,
            cycles_per_second: k.now as f64 / wall.max(1e-9),
            packet_hops_per_second: k.packet_hops as f64 / wall.max(1e-9),
            qcn: None,
        };
        self.mech.report(k, &mut result);
        result
    }
}

/// Cycles of [from, to) inside `window`.
#[inline]
fn inside(window: (u64, u64), from: u64, to: u64) -> u64 {
    let (a, b) = window;
    to.min(b).saturating_sub(from.max(a))
}

/// Per (class, level): the links' utilisations, the phit-cycles held by the buffers they
/// feed, and those buffers' capacity.
type ClassTotals = std::collections::BTreeMap<(&'static str, Option<u32>), (Vec<f64>, u64, u64)>;

/// Per-port measurement of the kernel, updated per event (a packet sent, a buffer entered or
/// left, an output queue becoming empty or not, a packet refused an output for want of
/// credits, a flow-control frame arriving), never per idle cycle: each quantity is kept as
/// its current state and the cycle it entered it, and the time spent in the state is added
/// (the part inside the measurement window) when it changes and when the run ends.
///
/// Cells let the switch mark a port blocked where it only reads the kernel (choosing an
/// output); they cost nothing over plain fields.
pub struct PortMeasure {
    window: (u64, u64),
    /// Per global port, output side: packets sent in the window.
    pub packets: Vec<u64>,
    out: Vec<OutState>,
    held: Vec<Held>,
    /// `simulation.port_series_window` (0: no per-window counts), and at each multiple of
    /// it, every output's (root, branch, phits sent) since cycle 0, port after port.
    series_window: u64,
    snapshots: Vec<[u64; 3]>,
}

/// The whole run: the window of the per-window counts, which start at cycle 0.
const WHOLE_RUN: (u64, u64) = (0, u64::MAX);

/// An output's state: a packet committed to it (crossing the crossbar, queued); a packet
/// waiting for it for want of credits; since when; its link busy with its last packet until
/// then; and the cycles spent queued with credits (root) and blocked (branch). One record,
/// so that an update touches one cache line.
#[derive(Default)]
struct OutState {
    queued: Cell<bool>,
    blocked: Cell<bool>,
    since: Cell<u64>,
    busy_until: Cell<u64>,
    root: Cell<u64>,
    branch: Cell<u64>,
    /// The same since cycle 0, not clipped to the measurement window (per-window counts).
    root_all: Cell<u64>,
    branch_all: Cell<u64>,
}

/// An input port's buffers: phits held, since when, and their integral over the window
/// (phit-cycles).
#[derive(Default, Clone, Copy)]
struct Held {
    phits: u32,
    since: u64,
    integral: u64,
}

impl PortMeasure {
    /// `series_window`: `simulation.port_series_window` (0: none).
    pub fn new(ports: usize, window: (u64, u64), series_window: u64) -> PortMeasure {
        PortMeasure {
            window,
            packets: vec![0; ports],
            out: (0..ports).map(|_| OutState::default()).collect(),
            held: vec![Held::default(); ports],
            series_window,
            snapshots: Vec::new(),
        }
    }

    /// Cycles of [from, to) inside the window.
    #[inline]
    fn inside(&self, from: u64, to: u64) -> u64 {
        inside(self.window, from, to)
    }

    /// (cycles with credits, cycles blocked) since the output's last change, up to `now`,
    /// inside `window`.
    #[inline]
    fn pending_in(o: &OutState, now: u64, window: (u64, u64)) -> (u64, u64) {
        let since = o.since.get();
        if o.blocked.get() {
            (0, inside(window, since, now))
        } else if o.queued.get() {
            (inside(window, since, now), 0)
        } else {
            (inside(window, since, now.min(o.busy_until.get())), 0)
        }
    }

    /// (cycles with credits, cycles blocked) since the output's last change, up to `now`.
    #[inline]
    fn pending(&self, o: &OutState, now: u64) -> (u64, u64) {
        Self::pending_in(o, now, self.window)
    }

    /// Add the time since the output's last change to its state's count.
    #[inline]
    fn settle(&self, o: &OutState, now: u64) {
        let (root, branch) = self.pending(o, now);
        o.root.set(o.root.get() + root);
        o.branch.set(o.branch.get() + branch);
        if self.series_window != 0 {
            let (root, branch) = Self::pending_in(o, now, WHOLE_RUN);
            o.root_all.set(o.root_all.get() + root);
            o.branch_all.set(o.branch_all.get() + branch);
        }
        o.since.set(now);
    }

    /// Whether `now` ends a window of the per-output counts (a multiple of
    /// `simulation.port_series_window`).
    #[inline]
    pub fn series_due(&self, now: u64) -> bool {
        self.series_window != 0 && now != 0 && now % self.series_window == 0
    }

    /// Record every output's counts since cycle 0 at `now`; `sent`: phits sent per port.
    pub fn snapshot(&mut self, now: u64, sent: &[u64]) {
        for (o, &phits) in self.out.iter().zip(sent) {
            let (r, b) = Self::pending_in(o, now, WHOLE_RUN);
            self.snapshots
                .push([o.root_all.get() + r, o.branch_all.get() + b, phits]);
        }
    }

    /// Output `gp`'s counts per window of `simulation.port_series_window` cycles from cycle
    /// 0, the last one ending at `now` (the run's end; `sent`: its phits sent by then).
    /// Empty without per-window counts.
    fn windows(&self, gp: usize, now: u64, sent: u64) -> Vec<PortWindow> {
        let w = self.series_window;
        let ports = self.out.len();
        if w == 0 || ports == 0 {
            return Vec::new();
        }
        let taken = self.snapshots.len() / ports;
        let mut ends: Vec<(u64, [u64; 3])> = (0..taken)
            .map(|i| ((i as u64 + 1) * w, self.snapshots[i * ports + gp]))
            .collect();
        if now > taken as u64 * w {
            let o = &self.out[gp];
            let (r, b) = Self::pending_in(o, now, WHOLE_RUN);
            ends.push((now, [o.root_all.get() + r, o.branch_all.get() + b, sent]));
        }
        let (mut start, mut before) = (0, [0u64; 3]);
        ends.into_iter()
            .map(|(end, at)| {
                let win = PortWindow {
                    start,
                    end,
                    phits: at[2] - before[2],
                    queued_with_credits: at[0] - before[0],
                    queued_without_credits: at[1] - before[1],
                };
                (start, before) = (end, at);
                win
            })
            .collect()
    }

    /// A packet was granted output `gp` (it crosses the crossbar into the output queue).
    #[inline]
    pub fn set_queued(&self, gp: usize, now: u64) {
        let o = &self.out[gp];
        if !o.queued.get() {
            self.settle(o, now);
            o.queued.set(true);
        }
    }

    /// Output `gp`'s queue became empty with no packet crossing the crossbar to it, its
    /// link busy with the last packet until `until`.
    #[inline]
    pub fn set_empty(&self, gp: usize, now: u64, until: u64) {
        let o = &self.out[gp];
        self.settle(o, now);
        o.queued.set(false);
        o.busy_until.set(until);
    }

    /// A packet waits for output `gp` for want of credits (true), or a flow-control frame
    /// reached it (false: whoever still waits marks it again when it next tries).
    #[inline]
    pub fn set_blocked(&self, gp: usize, now: u64, blocked: bool) {
        let o = &self.out[gp];
        if o.blocked.get() != blocked {
            self.settle(o, now);
            o.blocked.set(blocked);
        }
    }

    #[inline]
    pub fn sent(&mut self, gp: usize, now: u64) {
        if now >= self.window.0 && now < self.window.1 {
            self.packets[gp] += 1;
        }
    }

    /// Input port `gp`'s buffers gain (or lose) `phits`.
    #[inline]
    pub fn hold(&mut self, gp: usize, now: u64, phits: u32, enter: bool) {
        let window = self.window;
        let h = &mut self.held[gp];
        let t = now.min(window.1).saturating_sub(h.since.max(window.0));
        h.integral += t * h.phits as u64;
        h.since = now;
        if enter {
            h.phits += phits;
        } else {
            h.phits = h.phits.saturating_sub(phits);
        }
    }

    /// (cycles queued with credits, cycles blocked, phit-cycles held) of port `gp` up to
    /// `now`.
    fn totals(&self, gp: usize, now: u64) -> (u64, u64, u64) {
        let o = &self.out[gp];
        let (r, b) = self.pending(o, now);
        let (root, branch) = (o.root.get() + r, o.branch.get() + b);
        let h = self.held[gp];
        let held = h.integral + self.inside(h.since, now) * h.phits as u64;
        (root, branch, held)
    }
}

impl<S: Switch, M: Mechanism> Sim<S, M> {
    /// The class of output `gp` as the topology names it: `node` to a node; on a topology
    /// with levels `up` to a higher level, `down` to a lower one, `global` (Dragonfly+'s
    /// links between groups) or `local` at the same level; elsewhere `local` or `global`.
    fn class_of(&self, gp: usize) -> (&'static str, Option<u32>) {
        let level = self.levels.get(self.k.port_switch[gp] as usize).copied();
        (self.k.class_names[gp], level)
    }

    /// Per output port and per class and level, over the window.
    pub(super) fn port_stats(&self) -> (Vec<ClassUse>, Vec<PortUse>) {
        let k = &self.k;
        let start = k.collector.window_start;
        let end = k.now.min(k.collector.window_end);
        if k.sent_at_window_start.len() != k.sent.len() || end <= start {
            return (Vec::new(), Vec::new());
        }
        let cycles = (end - start) as f64;
        let mut ports = Vec::with_capacity(k.net.ports.len());
        // (class, level) -> (utilisations, phit-cycles held downstream, capacity).
        let mut classes: ClassTotals = Default::default();
        for gp in 0..k.net.ports.len() {
            let info = k.net.ports[gp];
            if info.class == PortClass::Unused {
                continue;
            }
            let (class, level) = self.class_of(gp);
            let s = k.port_switch[gp];
            let (root, branch, _) = k.meas.totals(gp, end);
            let phits = k.sent[gp] - k.sent_at_window_start[gp];
            ports.push(PortUse {
                switch: s,
                port: gp as u32 - k.net.port_base[s as usize],
                class: class.into(),
                level,
                peer: info.peer,
                packets: k.meas.packets[gp],
                phits,
                queued_with_credits: root,
                queued_without_credits: branch,
                series: k.meas.windows(gp, k.now, k.sent[gp]),
            });
            if info.class == PortClass::Terminal {
                continue;
            }
            // The buffers this link feeds: its peer's input port.
            let input = k.peer[gp] as usize;
            let (_, _, held) = k.meas.totals(input, end);
            let vcs =
                k.vc_base[input] as usize..(k.vc_base[input] + k.vc_count[input] as u32) as usize;
            let capacity: u64 = k.fc.capacity[vcs].iter().map(|&c| c as u64).sum();
            let mut add = |key: (&'static str, Option<u32>)| {
                let e = classes.entry(key).or_default();
                // A share of the link's own rate (a slower class's phits take longer).
                e.0.push(phits as f64 * k.phit_cycles[gp] as f64 / cycles);
                e.1 += held;
                e.2 = e.2.saturating_add(capacity);
            };
            add((class, None));
            if level.is_some() {
                add((class, level));
            }
        }
        if k.net.multi_rail() && k.rail_sent_at_window_start.len() == k.rail_sent.len() {
            // Nodes with several links: the `node` class, both directions of every node
            // link (each NIC's rails into their switches, each switch's ports to its nodes),
            // and the injection buffers the rails feed.
            let e = classes.entry(("node", None)).or_default();
            for (i, &(s, p)) in k.net.rails.iter().enumerate() {
                let gp = (k.net.port_base[s as usize] + p as u32) as usize;
                let phit = k.phit_cycles[gp] as f64;
                let injected = k.rail_sent[i] - k.rail_sent_at_window_start[i];
                let ejected = k.sent[gp] - k.sent_at_window_start[gp];
                e.0.push(injected as f64 * phit / cycles);
                e.0.push(ejected as f64 * phit / cycles);
                let (_, _, held) = k.meas.totals(gp, end);
                let vcs = k.vc_base[gp] as usize..(k.vc_base[gp] + k.vc_count[gp] as u32) as usize;
                e.1 += held;
                e.2 =
                    e.2.saturating_add(k.fc.capacity[vcs].iter().map(|&c| c as u64).sum());
            }
        }
        let bounded = k.fc.capacity.iter().all(|&c| c < u32::MAX / 2);
        let classes = classes
            .into_iter()
            .map(|((class, level), (use_, held, capacity))| {
                let per_link = held as f64 / cycles / use_.len().max(1) as f64;
                ClassUse {
                    class: class.into(),
                    level,
                    utilisation: LinkUse::of(&use_),
                    occupancy_phits: per_link,
                    occupancy: (bounded && capacity > 0)
                        .then(|| held as f64 / cycles / capacity as f64),
                }
            })
            .collect();
        (classes, ports)
    }
}
