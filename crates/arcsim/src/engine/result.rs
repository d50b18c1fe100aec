//! The end of a run: the collector's counters, histograms and series turned into a
//! [`RunResult`] (what `result.json` holds), and the pattern's name for it.

use super::Simulation;
use crate::config::Config;
use crate::routing::Routing;
use crate::stats::summary::{
    Burst, EscapeStats, LinkStats, LinkUse, Packets, PerEntity, Series, SeriesPoint,
};
use crate::stats::RunResult;
use crate::topology::PortClass;
use crate::traffic::Injection;

impl<R: Routing> Simulation<R> {
    /// Utilisation of every link since the window began, by class. A packet counts whole
    /// when it starts on the link, so a link may show up to one packet more than it sent
    /// inside the window.
    fn link_stats(&self) -> LinkStats {
        let start = self.collector.window_start;
        if self.sent_at_window_start.len() != self.ports.len() || self.now <= start {
            return LinkStats::default();
        }
        let cycles = (self.now - start) as f64;
        let of_class = |class: PortClass| {
            let use_: Vec<f64> = self
                .ports
                .iter()
                .zip(&self.sent_at_window_start)
                .filter(|(p, _)| p.class == class)
                .map(|(p, &at_start)| p.sent.wrapping_sub(at_start) as f64 / cycles)
                .collect();
            LinkUse::of(&use_)
        };
        LinkStats {
            local: of_class(PortClass::Local),
            global: of_class(PortClass::Global),
        }
    }

    /// The run's result after `wall` seconds of wall-clock time.
    pub(super) fn result(&self, wall: f64) -> RunResult {
        let c = &self.collector;
        let nodes = self.net.num_terminals() as f64;
        let burst = matches!(self.injection, Injection::Burst { .. }) || (self.burst_total > 0);
        let span = if burst {
            (self.last_tail + 1) as f64
        } else {
            (c.window_end - c.window_start) as f64
        };
        // Every per-packet quantity is missing (not 0) when no packet was delivered in the
        // window ([`Collector::per_packet`](crate::stats::Collector::per_packet)).
        let per_packet = |sum: f64| c.per_packet(sum);
        let entries = &c.escape_entries_hist;
        let entries_max = entries.iter().rposition(|&k| k > 0).unwrap_or(0);
        let entries_sum: u64 = entries.iter().enumerate().map(|(k, &m)| k as u64 * m).sum();
        let inj_r: Vec<f64> = c.injected_per_router.iter().map(|&x| x as f64).collect();
        let acc_r: Vec<f64> = c.accepted_per_router.iter().map(|&x| x as f64).collect();
        let per_group = |v: &[f64]| -> Vec<f64> {
            let a = self.shape_a();
            v.chunks(a).map(|ch| ch.iter().sum()).collect()
        };
        let series = c.series.as_ref().map(|s| {
            // A delivery is stamped with its tail's arrival, which can lie past the last
            // simulated cycle; the windows stop at the end of the run (the burst's last tail).
            let end = if burst {
                (self.last_tail + 1).max(self.now)
            } else {
                self.now
            };
            let windows = s
                .delivered_phits
                .len()
                .max(s.generated.len())
                .max(s.lat_count.len())
                .min(end.div_ceil(s.width) as usize);
            let get = |v: &Vec<u64>, i: usize| v.get(i).copied().unwrap_or(0);
            // Windows that ended before the run did were sampled when they ended; the last
            // one (and, in burst mode, any past the last cycle) ends with the run.
            let last = self.buffer_sample();
            let sample = |i: usize| s.samples.get(i).copied().unwrap_or(last);
            let share =
                |v: &Vec<u64>, i: usize, cnt: u64| (cnt > 0).then(|| get(v, i) as f64 / cnt as f64);
            Series {
                window_cycles: s.width,
                points: (0..windows)
                    .map(|i| {
                        let cnt = get(&s.lat_count, i);
                        let buffers = sample(i);
                        SeriesPoint {
                            cycle: i as u64 * s.width,
                            accepted_load: get(&s.delivered_phits, i) as f64
                                / (nodes * s.width as f64),
                            generated_load: get(&s.generated, i) as f64 * self.pkt_len as f64
                                / (nodes * s.width as f64),
                            latency_mean: share(&s.lat_sum, i, cnt),
                            latency_samples: cnt,
                            misrouted_fraction: share(&s.misrouted, i, cnt),
                            escaped_fraction: share(&s.escaped, i, cnt),
                            hops_mean: share(&s.hops, i, cnt),
                            in_flight: buffers.in_flight,
                            buffered: buffers.packets.iter().sum(),
                            occupancy: self.occupancy_of(&buffers),
                        }
                    })
                    .collect(),
            }
        });
        RunResult {
            topology: self.describe.clone(),
            routing: self.routing.name().to_string(),
            pattern: self.pattern_name.clone(),
            seed: self.seed,
            nodes: nodes as u64,
            offered_load: if burst { 0.0 } else { self.offered },
            generated_load: c.generated_in_window as f64 * self.pkt_len as f64 / (nodes * span),
            accepted_load: c.phits_in_window as f64 / (nodes * span),
            latency: c.latency_dist(),
            network_latency: c.network_latency(),
            hops: c.hops_stats(),
            misrouted_fraction: per_packet(c.misrouted_in_window as f64),
            escape: EscapeStats {
                entered_fraction: per_packet((c.delivered_in_window - entries[0]) as f64),
                entries_mean: per_packet(entries_sum as f64),
                entries_max: entries_max as u64,
                entries_histogram: entries[..=entries_max].to_vec(),
                hops_mean: per_packet(c.escape_hops_sum as f64),
                max_hops_without_escape: c.max_hops_no_escape as u64,
            },
            packets: Packets::counted(self.generated, self.delivered, self.refused),
            per_router: PerEntity::of(&inj_r, &acc_r),
            per_group: PerEntity::of(&per_group(&inj_r), &per_group(&acc_r)),
            links: self.link_stats(),
            buffers: self.buffer_stats(),
            injected_per_router: c.injected_per_router.clone(),
            burst: burst.then(|| Burst {
                packets_per_node: self.burst_total / self.net.num_terminals() as u64,
                consumption_cycles: self.last_tail + 1,
                finished_per_router: self.burst_done.clone(),
            }),
            series,
            flows: Vec::new(),
            collectives: Vec::new(),
            pauses: 0,
            pauses_at_nodes: 0,
            units: None,
            control: None,
            link_classes: Vec::new(),
            ports: Vec::new(),
            cycles: self.now,
            packet_hops: self.packet_hops,
            wall_seconds: wall,
            cycles_per_second: self.now as f64 / wall.max(1e-9),
            packet_hops_per_second: self.packet_hops as f64 / wall.max(1e-9),
            qcn: None,
        }
    }
}

/// The traffic of `cfg` as the result names it: "UN", "ADVG+6", a mixture
/// "ADVG+2:50/UN:50", or a change "ADVG+2 -> ADVG+6 @50000".
pub(super) fn describe_pattern(cfg: &Config) -> String {
    use crate::config::{AllToAllOrder, ChangedTraffic, MixEntry, PatternKind as P};
    let t = &cfg.traffic;
    let one = |k: P, off: usize| match k {
        P::Uniform => "UN".to_string(),
        P::AdvGlobal => format!("ADVG+{off}"),
        P::AdvLocal => format!("ADVL+{off}"),
        P::HotRegion => "hot-region".into(),
        P::Permutation => "permutation".into(),
        P::Shift => format!("SHIFT+{off}"),
        P::HotSpot => "hot-spot".into(),
        P::AllToAll => match t.all_to_all_order {
            AllToAllOrder::Staggered => "all-to-all".into(),
            AllToAllOrder::Ascending => "all-to-all-ascending".into(),
        },
        P::BitComplement | P::BitReverse | P::Transpose | P::Shuffle => k.name().into(),
    };
    let mix = |m: &[MixEntry]| {
        m.iter()
            .map(|e| format!("{}:{}", one(e.pattern, e.offset), e.weight))
            .collect::<Vec<_>>()
            .join("/")
    };
    let base = if t.mix.is_empty() {
        one(t.pattern, t.offset)
    } else {
        mix(&t.mix)
    };
    match &t.change {
        Some(ch) => {
            let after = match ch.traffic(t) {
                ChangedTraffic::Mix(m) => mix(m),
                ChangedTraffic::Single(kind, off) => one(kind, off),
                ChangedTraffic::Unchanged => base.clone(),
            };
            let load = ch.load.map(|l| format!(" load {l}")).unwrap_or_default();
            format!("{base} -> {after}{load} @{}", ch.at_cycle)
        }
        None => base,
    }
}
