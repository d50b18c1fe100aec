//! The result of a run (`result.json`), and the aggregation of repetitions.

use serde::{Deserialize, Serialize};

/// Mean and percentiles of a latency distribution, in cycles; `None` (null in JSON) when no
/// packet was delivered in the window, so that there is nothing to measure.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Dist {
    pub mean: Option<f64>,
    pub p50: Option<f64>,
    pub p99: Option<f64>,
    pub max: Option<f64>,
}

/// Mean and maximum, in cycles (for distributions whose percentiles are not tracked); `None`
/// when no packet was delivered in the window.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MeanMax {
    pub mean: Option<f64>,
    pub max: Option<f64>,
}

/// Spread of a per-entity quantity (routers, groups): min, max, mean and Jain's index. The
/// index is `None` (null in JSON) when every value is 0: nothing was shared, so there is no
/// fairness to measure (it is not 1.0, "perfectly fair").
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Fairness {
    pub min: f64,
    pub max: f64,
    pub mean: f64,
    pub jain: Option<f64>,
}

impl Fairness {
    pub fn of(values: &[f64]) -> Fairness {
        if values.is_empty() {
            return Fairness::default();
        }
        let n = values.len() as f64;
        let sum: f64 = values.iter().sum();
        let sq: f64 = values.iter().map(|v| v * v).sum();
        Fairness {
            min: values.iter().cloned().fold(f64::INFINITY, f64::min),
            max: values.iter().cloned().fold(f64::NEG_INFINITY, f64::max),
            mean: sum / n,
            jain: (sq > 0.0).then(|| sum * sum / (n * sq)),
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Packets {
    /// Packets created by the sources over the whole run.
    pub generated: u64,
    /// Packets whose tail reached the destination over the whole run.
    pub delivered: u64,
    /// Generated and not yet delivered at the end (queues, buffers, links).
    pub in_flight: u64,
    /// Generation attempts refused because the injection queue was full (not counted as
    /// generated).
    pub refused_at_source: u64,
}

impl Packets {
    /// The counts of a run: in flight is what was generated and not delivered.
    pub fn counted(generated: u64, delivered: u64, refused_at_source: u64) -> Packets {
        Packets {
            generated,
            delivered,
            in_flight: generated - delivered,
            refused_at_source,
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Hops {
    /// Mean router-to-router hops per packet delivered in the window (`None` when none was).
    pub mean: Option<f64>,
    /// Mean global hops per packet, escape hops included (the rest of `mean` is local hops).
    /// `None` when no packet was delivered in the window, or in results written before the
    /// field existed.
    #[serde(default)]
    pub global_mean: Option<f64>,
    pub max: u64,
    /// `histogram[k]` = packets delivered in the window after k router-to-router hops (the
    /// last bucket collects longer paths).
    pub histogram: Vec<u64>,
}

/// Escape-subnetwork use (OFAR) by the packets delivered in the window (the shares and means
/// are `None` when no packet was delivered in the window).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EscapeStats {
    /// Share of packets that entered an escape network at least once.
    pub entered_fraction: Option<f64>,
    /// Mean number of entries into the escape network per packet.
    pub entries_mean: Option<f64>,
    pub entries_max: u64,
    /// `entries_histogram[k]` = packets delivered in the window that entered the escape
    /// network k times (index 0: never), up to `entries_max`; it adds up to the packets
    /// delivered in the window.
    #[serde(default)]
    pub entries_histogram: Vec<u64>,
    /// Mean hops taken on escape VCs per packet.
    pub hops_mean: Option<f64>,
    /// Longest path (hops) of a packet that never entered the escape network.
    pub max_hops_without_escape: u64,
}

/// Utilisation of the router-to-router links of one class over the window: phits sent per
/// cycle by each link's sending end (1.0: busy every cycle).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LinkUse {
    /// Links of the class, each direction counted once.
    pub links: u64,
    pub mean: f64,
    pub min: f64,
    pub max: f64,
    /// Links per tenth of utilisation: `histogram[k]` counts those in [k/10, (k+1)/10), the
    /// last one also those at 1.0 or (by a packet counted whole at the window's edge) above.
    #[serde(default)]
    pub histogram: Vec<u64>,
}

/// Utilisation and buffer occupancy of the links of one class named by the topology
/// (general kernel): `up`/`down` on fat trees and multistage networks (and `global` between
/// Dragonfly+ groups), `local`/`global` on the dragonfly and on graphs; per level of the
/// sending switch too where the topology has levels.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ClassUse {
    pub class: String,
    /// Level of the switches the links leave (1: leaves or the first stage); None: every
    /// level of the class.
    pub level: Option<u32>,
    /// Utilisation (phits per cycle) of the class's links over the window.
    pub utilisation: LinkUse,
    /// Mean phits held over the window by the input buffers these links feed, per link.
    pub occupancy_phits: f64,
    /// The same over their capacity (None with unbounded buffers, `flow_control.kind =
    /// "none"`).
    pub occupancy: Option<f64>,
}

/// One output port over the window (general kernel): what it sent, and how long it had
/// data waiting with and without credits (the InfiniBand adaptive-routing paper's §IV-B:
/// the root of a congestion tree has data queued and credits, its branches data queued and
/// none). Written to `ports.csv`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PortUse {
    pub switch: u32,
    pub port: u32,
    /// The link's class (`node` for a port to a node).
    pub class: String,
    pub level: Option<u32>,
    /// The switch (or node, for `node` ports) at the other end.
    pub peer: u32,
    pub packets: u64,
    pub phits: u64,
    /// Cycles with a packet committed to it (crossing the crossbar to it, in its output
    /// queue or on its link) and none waiting for it for want of credits.
    pub queued_with_credits: u64,
    /// Cycles with a packet waiting for it for want of credits (or a pause).
    pub queued_without_credits: u64,
    /// The same per window of `simulation.port_series_window` cycles from cycle 0 (not
    /// clipped to the measurement window), the last ending at the run's end; empty unless
    /// the key is set. Written to `ports_series.csv`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub series: Vec<PortWindow>,
}

/// One output port over one window of `simulation.port_series_window` cycles: the time
/// course of a congestion tree (roots and branches as they form and move).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PortWindow {
    /// The window's cycles, [start, end).
    pub start: u64,
    pub end: u64,
    /// Phits sent in the window.
    pub phits: u64,
    /// Cycles of the window with a packet committed to the port and none waiting for
    /// credits (root), and with a packet waiting for credits (branch).
    pub queued_with_credits: u64,
    pub queued_without_credits: u64,
}

/// Bins of [`LinkUse::histogram`].
pub const LINK_USE_BINS: usize = 10;

impl LinkUse {
    pub fn of(utilisation: &[f64]) -> LinkUse {
        let spread = Fairness::of(utilisation);
        let mut histogram = vec![0; LINK_USE_BINS];
        for &u in utilisation {
            let bin = (u * LINK_USE_BINS as f64) as usize;
            histogram[bin.min(LINK_USE_BINS - 1)] += 1;
        }
        LinkUse {
            links: utilisation.len() as u64,
            mean: spread.mean,
            min: spread.min,
            max: spread.max,
            histogram,
        }
    }
}

/// Link utilisation by class: where the network's capacity goes (under ADVG+1 with MIN, the
/// one global link from each group to the next carries everything: its `max` reaches 1.0
/// while the `mean` stays at 1/(a*h) of it).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LinkStats {
    pub local: LinkUse,
    pub global: LinkUse,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PerEntity {
    /// Packets injected (left the injection queue) in the window.
    pub injected: Fairness,
    /// Phits accepted in the window.
    pub accepted: Fairness,
}

impl PerEntity {
    /// Fairness of the packets injected and the phits accepted per entity.
    pub fn of(injected: &[f64], accepted: &[f64]) -> PerEntity {
        PerEntity {
            injected: Fairness::of(injected),
            accepted: Fairness::of(accepted),
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SeriesPoint {
    /// First cycle of the window.
    pub cycle: u64,
    /// Phits delivered in the window per node per cycle.
    pub accepted_load: f64,
    /// Packets generated in the window per node per cycle, times packet length (phits).
    pub generated_load: f64,
    /// Mean latency of the packets generated in the window (`None`, null in JSON, when none
    /// of them was delivered: `latency_samples` is 0).
    pub latency_mean: Option<f64>,
    pub latency_samples: u64,
    /// Share of the window's packets (those of `latency_samples`) that were misrouted
    /// (`None` when there are none).
    pub misrouted_fraction: Option<f64>,
    /// Share of the window's packets that entered an escape subnetwork at least once.
    #[serde(default)]
    pub escaped_fraction: Option<f64>,
    /// Mean hops of the window's packets.
    #[serde(default)]
    pub hops_mean: Option<f64>,
    /// Packets generated and not yet granted their ejection port when the window ended (in
    /// buffers or on links).
    #[serde(default)]
    pub in_flight: u64,
    /// Packets in buffers (every class) when the window ended; `in_flight − buffered` are on
    /// links.
    #[serde(default)]
    pub buffered: u64,
    /// How full each class of buffer was when the window ended.
    #[serde(default)]
    pub occupancy: Occupancy,
}

/// Cycles between the buffer samples behind [`BufferStats`].
pub const BUFFER_SAMPLE_CYCLES: u64 = 100;

/// The buffers over the measurement window: the means of samples taken every
/// [`BUFFER_SAMPLE_CYCLES`] cycles whose cycle lies in the window (the state after cycles
/// 99, 199, ...).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BufferStats {
    pub samples: u64,
    /// Packets generated and not yet granted their ejection port.
    pub in_flight_mean: f64,
    /// Packets in buffers of every class.
    pub buffered_mean: f64,
    pub occupancy: Occupancy,
}

/// Packets held over packet slots, by buffer class, at one moment (0 for a class the network
/// does not have). Injection buffers are the routers' terminal inputs (the source queues);
/// local and global count the canonical VCs of those ports, escape the VCs of the escape
/// subnetworks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Occupancy {
    pub injection: f64,
    pub local: f64,
    pub global: f64,
    pub escape: f64,
}

impl Occupancy {
    /// The classes in the order of [`crate::stats::buffer_class`].
    pub fn to_array(&self) -> [f64; 4] {
        [self.injection, self.local, self.global, self.escape]
    }

    pub fn from_array(v: [f64; 4]) -> Occupancy {
        Occupancy {
            injection: v[0],
            local: v[1],
            global: v[2],
            escape: v[3],
        }
    }
}

impl SeriesPoint {
    /// Packets generated in the window, over every node.
    pub fn generated_packets(&self, nodes: u64, window_cycles: u64, packet_length: u32) -> f64 {
        self.generated_load * nodes as f64 * window_cycles as f64 / packet_length.max(1) as f64
    }

    /// Whether the window generated packets and at least 99% of them were delivered before
    /// the run ended. The mean latency of the last windows of a run counts only the packets
    /// that happened to be fast; plots of latency by generation window keep only these.
    pub fn mostly_delivered(&self, nodes: u64, window_cycles: u64, packet_length: u32) -> bool {
        let generated = self.generated_packets(nodes, window_cycles, packet_length);
        generated >= 0.5 && self.latency_samples as f64 >= 0.99 * generated
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Series {
    pub window_cycles: u64,
    pub points: Vec<SeriesPoint>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Burst {
    pub packets_per_node: u64,
    /// Cycles from the start until the last packet's tail was received.
    pub consumption_cycles: u64,
    /// For every router, the cycles until the last packet its nodes sent was received: a
    /// burst ends with its slowest router, and this shows which routers lag and by how much.
    #[serde(default)]
    pub finished_per_router: Vec<u64>,
}

fn is_zero(x: &u64) -> bool {
    *x == 0
}

/// Control packets over the whole run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ControlStats {
    pub sent: u64,
    /// Consumed by the mechanism at the switch they were sent to.
    pub consumed: u64,
    /// Dropped for want of room in a switch's control queue.
    pub dropped: u64,
    /// Phits of control packets that crossed links, and their share of all phits sent.
    pub link_phits: u64,
    pub link_share: f64,
}

/// What one collective operation (`[[collectives]]`) did over the run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CollectiveResult {
    /// The operation and its algorithm: "allreduce (rabenseifner)".
    pub name: String,
    pub ranks: u64,
    /// Message size in phits.
    pub size: u64,
    pub steps: u64,
    /// Its flows: `flows[first_flow..first_flow + flow_count]`.
    pub first_flow: u64,
    pub flow_count: u64,
    /// Cycle its first flow started (missing when none started).
    pub started: Option<u64>,
    /// Cycle the last phit of its last flow arrived (missing until every flow completed).
    pub completed: Option<u64>,
    /// Completion time: `completed - started` cycles, from the creation of its first
    /// message to the arrival of its last phit, as a message's latency is counted (missing
    /// when it did not complete).
    pub completion_cycles: Option<u64>,
}

/// What QCN's congestion points and QCN-Switch's reaction did over the whole run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct QcnStats {
    /// The paper's name of the variant, and where the congestion points sample.
    pub variant: String,
    pub sampling: String,
    /// Q_eq in phits at each kind of port sampled (output queue, or local and global input
    /// buffer), and the sampling interval in cycles.
    pub q_eq_phits: Vec<u32>,
    pub sampling_interval: u64,
    /// Samples taken (a culprit found), and those with Fb > 0.
    pub samples: u64,
    pub congested_samples: u64,
    /// CNMs put on the network (the kernel's `control.sent`; `control.dropped` of them were
    /// dropped for want of room in a control queue), and those sent inside the
    /// measurement window.
    pub cnms_sent: u64,
    pub cnms_sent_in_window: u64,
    /// CNMs whose culprit entered the network at the sampling switch: applied there, not
    /// sent.
    pub local_reactions: u64,
    /// Source processing: CNMs the sampling switch applied to itself as well.
    pub source_processing: u64,
    /// CNMs that reached the culprit's switch and were applied to their arrival port.
    pub cnms_received: u64,
    /// Per switch, the CNMs it received in the measurement window through its local ports
    /// and through its global ports (the QCN-Switch paper's claim that, with input sampling
    /// under ADV+1, S_out receives few CNMs from its global link). Empty in results of
    /// builds before these counts.
    #[serde(default)]
    pub cnms_received_local: Vec<u64>,
    #[serde(default)]
    pub cnms_received_global: Vec<u64>,
    /// Probability changes: cuts, additive increases by the PC_l timer, increases by
    /// feedback comparison, and feedback comparisons that changed nothing.
    pub decreases: u64,
    pub timer_increases: u64,
    pub feedback_increases: u64,
    pub feedback_unchanged: u64,
    /// Transit ports of the whole network below 100% at the end, and the lowest
    /// probability then.
    pub ports_below_100: u64,
    pub min_probability: f64,
    /// The minimal probability (percent) of every transit port of the traced switches (the
    /// dragonfly's group 0; every switch elsewhere) at the end of each series window.
    pub probabilities: Option<ProbabilitySeries>,
}

/// Per series window, the probability of each traced port.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ProbabilitySeries {
    pub window_cycles: u64,
    /// The ports, as (switch, local port).
    pub ports: Vec<(u32, u32)>,
    /// The cycle each window ends (exclusive) and the ports' probabilities then, in the
    /// order of `ports`.
    pub points: Vec<ProbabilityPoint>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ProbabilityPoint {
    pub cycle: u64,
    pub values: Vec<f64>,
}

/// What one explicit flow did over the run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FlowResult {
    pub src: u64,
    pub dst: u64,
    /// Offered rate, phits per cycle.
    pub rate: f64,
    /// Phits its messages held, and phits delivered (whole run).
    pub created_phits: u64,
    pub delivered_phits: u64,
    /// Phits delivered in the measurement window per cycle of the window.
    pub throughput: f64,
    pub messages_delivered: u64,
    /// Packets that arrived before an earlier packet of their message (reassembled all the
    /// same).
    pub reordered_packets: u64,
    /// Mean time from a message's creation to its last phit's arrival (None: no message
    /// delivered).
    pub message_latency_mean: Option<f64>,
    /// Cycle of its first message, and cycle its last phit arrived (flows with a size).
    pub started: Option<u64>,
    pub completed: Option<u64>,
    /// Phits delivered per cycle in each series window (`simulation.series_window`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub series: Vec<f64>,
}

/// Everything a run reports. `wall_seconds`, `cycles_per_second` and `packet_hops_per_second`
/// are the only fields that depend on the machine; the rest is a pure function of the
/// configuration.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunResult {
    pub topology: String,
    pub routing: String,
    pub pattern: String,
    pub seed: u64,
    pub nodes: u64,
    pub offered_load: f64,
    /// Load actually generated in the window (lower than offered when queues refuse).
    pub generated_load: f64,
    pub accepted_load: f64,
    /// Generation to tail received, over the packets delivered in the window.
    pub latency: Dist,
    /// Injection (leaving the injection queue) to tail received.
    pub network_latency: MeanMax,
    pub hops: Hops,
    /// Share of the packets delivered in the window that were misrouted (`None` when none
    /// was delivered).
    pub misrouted_fraction: Option<f64>,
    pub escape: EscapeStats,
    pub packets: Packets,
    pub per_router: PerEntity,
    pub per_group: PerEntity,
    /// Link utilisation by class over the window (the whole run for bursts).
    #[serde(default)]
    pub links: LinkStats,
    /// How full the buffers were over the window (the whole run for bursts).
    #[serde(default)]
    pub buffers: BufferStats,
    /// Packets injected in the window by each router (for fairness plots).
    pub injected_per_router: Vec<u64>,
    pub burst: Option<Burst>,
    pub series: Option<Series>,
    /// The explicit flows of `[[flows]]`, in order (general kernel).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flows: Vec<FlowResult>,
    /// The collectives of `[[collectives]]`, in order (general kernel).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub collectives: Vec<CollectiveResult>,
    /// PAUSE frames sent by priority flow control over the run (general kernel).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub pauses: u64,
    /// Of those, the ones that reached a node (the pause spread back to a source).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub pauses_at_nodes: u64,
    /// Control packets of a congestion mechanism (general kernel), when it sent any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub control: Option<ControlStats>,
    /// QCN congestion points and QCN-Switch's probabilities (general kernel, with `[qcn]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qcn: Option<QcnStats>,
    /// What a cycle and a phit are, when the configuration has `[units]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub units: Option<crate::config::Units>,
    /// Utilisation and occupancy per link class and per level (general kernel; empty on the
    /// dragonfly engine).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub link_classes: Vec<ClassUse>,
    /// Per output port (general kernel): written to `ports.csv`, not to `result.json`.
    #[serde(skip)]
    pub ports: Vec<PortUse>,
    pub cycles: u64,
    pub packet_hops: u64,
    pub wall_seconds: f64,
    pub cycles_per_second: f64,
    pub packet_hops_per_second: f64,
}

/// Mean and 95% confidence half-width (Student t) of one metric over repetitions.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    pub mean: f64,
    pub ci95: f64,
}

impl Estimate {
    pub fn of(values: &[f64]) -> Estimate {
        let n = values.len();
        if n == 0 {
            return Estimate::default();
        }
        let mean = values.iter().sum::<f64>() / n as f64;
        if n < 2 {
            return Estimate { mean, ci95: 0.0 };
        }
        let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        Estimate {
            mean,
            ci95: t95(n - 1) * (var / n as f64).sqrt(),
        }
    }
}

impl Estimate {
    /// The estimate of a metric that may be missing from some runs (no packet delivered in
    /// the window): `None` when it is missing from any, as a mean over the others would
    /// not estimate the same thing.
    pub fn of_present(values: &[Option<f64>]) -> Option<Estimate> {
        let present: Option<Vec<f64>> = values.iter().copied().collect();
        present.filter(|v| !v.is_empty()).map(|v| Estimate::of(&v))
    }
}

/// Two-sided 95% Student t quantile for `df` degrees of freedom.
fn t95(df: usize) -> f64 {
    const T: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    if df == 0 {
        f64::NAN
    } else if df <= 30 {
        T[df - 1]
    } else {
        1.96 + 2.4 / df as f64
    }
}

/// Repetitions of one configuration over seeds.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Repeated {
    pub repetitions: usize,
    pub offered_load: f64,
    pub accepted_load: Estimate,
    /// `None` (null) where a run delivered no packet in its window (see
    /// [`Estimate::of_present`]); likewise the other latency and per-packet metrics.
    pub latency_mean: Option<Estimate>,
    pub latency_p99: Option<Estimate>,
    pub network_latency_mean: Option<Estimate>,
    pub hops_mean: Option<Estimate>,
    pub misrouted_fraction: Option<Estimate>,
    pub burst_consumption_cycles: Option<Estimate>,
    pub runs: Vec<RunResult>,
}

impl Repeated {
    pub fn of(runs: Vec<RunResult>) -> Repeated {
        let pick =
            |f: &dyn Fn(&RunResult) -> f64| Estimate::of(&runs.iter().map(f).collect::<Vec<_>>());
        let present = |f: &dyn Fn(&RunResult) -> Option<f64>| {
            Estimate::of_present(&runs.iter().map(f).collect::<Vec<_>>())
        };
        Repeated {
            repetitions: runs.len(),
            offered_load: runs.first().map(|r| r.offered_load).unwrap_or_default(),
            accepted_load: pick(&|r| r.accepted_load),
            latency_mean: present(&|r| r.latency.mean),
            latency_p99: present(&|r| r.latency.p99),
            network_latency_mean: present(&|r| r.network_latency.mean),
            hops_mean: present(&|r| r.hops.mean),
            misrouted_fraction: present(&|r| r.misrouted_fraction),
            burst_consumption_cycles: runs.iter().all(|r| r.burst.is_some()).then(|| {
                pick(&|r| {
                    r.burst
                        .as_ref()
                        .map(|b| b.consumption_cycles as f64)
                        .unwrap_or(0.0)
                })
            }),
            runs,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_use_bins_by_tenths_and_keeps_full_links_in_the_last() {
        let u = LinkUse::of(&[0.0, 0.05, 0.1, 0.25, 0.95, 1.0, 1.002]);
        assert_eq!(u.links, 7);
        assert_eq!(u.histogram, [2, 1, 1, 0, 0, 0, 0, 0, 0, 3]);
        assert_eq!((u.min, u.max), (0.0, 1.002));
        assert!((u.mean - 3.352 / 7.0).abs() < 1e-12);
        assert_eq!(LinkUse::of(&[]).histogram, [0; LINK_USE_BINS]);
    }

    #[test]
    fn jain_index_bounds() {
        assert!((Fairness::of(&[1.0, 1.0, 1.0]).jain.unwrap() - 1.0).abs() < 1e-12);
        assert!((Fairness::of(&[1.0, 0.0, 0.0, 0.0]).jain.unwrap() - 0.25).abs() < 1e-12);
    }

    #[test]
    fn jain_index_of_nothing_is_missing_not_perfect() {
        assert_eq!(Fairness::of(&[0.0, 0.0, 0.0]).jain, None);
        assert_eq!(Fairness::of(&[]).jain, None);
    }

    #[test]
    fn estimate_of_a_metric_missing_from_one_run_is_missing() {
        assert_eq!(Estimate::of_present(&[Some(1.0), None]), None);
        assert_eq!(Estimate::of_present(&[]), None);
        assert_eq!(
            Estimate::of_present(&[Some(1.0), Some(3.0)]).map(|e| e.mean),
            Some(2.0)
        );
    }

    #[test]
    fn confidence_interval_matches_hand_computation() {
        let e = Estimate::of(&[1.0, 2.0, 3.0]);
        assert!((e.mean - 2.0).abs() < 1e-12);
        // s = 1, n = 3, t = 4.303 -> 4.303 / sqrt(3)
        assert!((e.ci95 - 4.303 / 3f64.sqrt()).abs() < 1e-9);
    }
}
