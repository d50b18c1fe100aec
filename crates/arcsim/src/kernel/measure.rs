//! The end of a kernel run: the collector's counters, the links' and the flows' turned into
//! a [`RunResult`].

use super::{Mechanism, Sim, Switch};
use crate::config::Config;
use crate::stats::summary::{
    ControlStats, EscapeStats, FlowResult, LinkStats, LinkUse, Packets, PerEntity, Series,
    SeriesPoint,
};
use crate::stats::{Fairness, RunResult};
use crate::topology::PortClass;

/// The traffic as the result names it: the pattern at its load, and the flows.
pub(super) fn describe_traffic(cfg: &Config) -> String {
    let flows = match cfg.flows.len() {
        0 => String::new(),
        1 => "1 flow".into(),
        n => format!("{n} flows"),
    };
    if cfg.traffic.load == 0.0 && !cfg.flows.is_empty() {
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
                .filter(|(p, _)| p.class == class)
                .map(|(_, (&now, &then))| (now - then) as f64 / cycles)
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
        for &(s, _) in &k.net.attach {
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
                            misrouted_fraction: (cnt > 0).then_some(0.0),
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
        RunResult {
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
            // The kernel's routing is minimal and it has no escape network.
            misrouted_fraction: any.then_some(0.0),
            escape: EscapeStats {
                entered_fraction: any.then_some(0.0),
                entries_mean: any.then_some(0.0),
                entries_max: 0,
                entries_histogram: vec![c.delivered_in_window],
                hops_mean: any.then_some(0.0),
                max_hops_without_escape: c.hops_max as u64,
            },
            packets: Packets {
                generated: k.generated,
                delivered: k.delivered,
                in_flight: k.generated - k.delivered,
                refused_at_source: k.refused,
            },
            per_router: PerEntity {
                injected: Fairness::of(&inj),
                accepted: Fairness::of(&acc),
            },
            per_group: PerEntity {
                injected: Fairness::of(&per_group(&inj)),
                accepted: Fairness::of(&per_group(&acc)),
            },
            links: self.link_stats(),
            buffers: Default::default(),
            injected_per_router: c.injected_per_router.clone(),
            burst: None,
            series,
            flows,
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
        }
    }
}
