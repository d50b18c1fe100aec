//! Measurement: what happens inside the measurement window, and the result of a run.
//!
//! Packets count in the window by the cycle their tail reaches the destination (as in the
//! papers: "latency of the packets received" during the window). Accepted load is phits
//! delivered in the window per node per cycle.

pub mod sanity;
pub mod summary;

pub use summary::{CollectiveResult, Dist, Fairness, FlowResult, RunResult, Series, SeriesPoint};

use crate::engine::packet::Packet;
use hdrhistogram::Histogram;

pub const HOP_BUCKETS: usize = 64;

/// Accumulates one run's measurements. Recording a packet is O(1) and allocation-free.
pub struct Collector {
    pub window_start: u64,
    pub window_end: u64,
    pub latency: Histogram<u64>,
    /// Largest network latency (its distribution is not kept: only mean and max are reported).
    pub net_latency_max: u64,
    pub latency_sum: u128,
    pub net_latency_sum: u128,
    pub delivered_in_window: u64,
    pub phits_in_window: u64,
    pub misrouted_in_window: u64,
    pub hops_sum: u64,
    pub global_hops_sum: u64,
    pub hops: [u64; HOP_BUCKETS],
    pub generated_in_window: u64,
    /// Packets that left the injection queue in the window, per router.
    pub injected_per_router: Vec<u64>,
    /// Phits delivered in the window, per destination router.
    pub accepted_per_router: Vec<u64>,
    pub series: Option<SeriesAcc>,
    /// Escape-network use by the packets delivered in the window.
    /// Packets delivered in the window by the number of times they entered the escape
    /// network (a packet counts its entries in 8 bits): the share that entered, the mean and
    /// the most entries are read from it.
    pub escape_entries_hist: [u64; 1 << u8::BITS],
    pub escape_hops_sum: u64,
    /// Longest path of a packet that never entered the escape network (OFAR's bound: 8).
    pub max_hops_no_escape: u16,
    /// Longest path in the window (the histogram's last bucket collects everything longer).
    pub hops_max: u16,
    /// Buffer samples in the window (every [`summary::BUFFER_SAMPLE_CYCLES`] cycles), summed.
    pub buffer_samples: u64,
    pub buffer_sums: BufferSample,
}

/// Time series accumulator: windows of `width` cycles from cycle 0.
pub struct SeriesAcc {
    pub width: u64,
    /// Per window: phits delivered (by tail time), packets generated, latency sum and count of
    /// the packets generated in the window, misrouted among those.
    pub delivered_phits: Vec<u64>,
    pub generated: Vec<u64>,
    pub lat_sum: Vec<u64>,
    pub lat_count: Vec<u64>,
    pub misrouted: Vec<u64>,
    /// Per generation window: packets that entered an escape subnetwork, and hops summed.
    pub escaped: Vec<u64>,
    pub hops: Vec<u64>,
    /// Per window: the buffers when it ended (see [`BufferSample`]).
    pub samples: Vec<BufferSample>,
}

/// The packets held in the network's buffers at one moment, by class, and the packets
/// generated but not yet delivered (those in buffers plus those on links).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BufferSample {
    pub in_flight: u64,
    /// Packets in injection, canonical local, canonical global and escape VCs.
    pub packets: [u64; 4],
}

impl BufferSample {
    /// Sums of samples, for means.
    pub fn add(&mut self, other: &BufferSample) {
        self.in_flight += other.in_flight;
        for (sum, n) in self.packets.iter_mut().zip(other.packets) {
            *sum += n;
        }
    }
}

/// Index of a buffer class in [`BufferSample::packets`].
pub mod buffer_class {
    pub const INJECTION: usize = 0;
    pub const LOCAL: usize = 1;
    pub const GLOBAL: usize = 2;
    pub const ESCAPE: usize = 3;
}

impl SeriesAcc {
    fn slot(v: &mut Vec<u64>, i: usize) -> &mut u64 {
        if v.len() <= i {
            v.resize(i + 1, 0);
        }
        &mut v[i]
    }
}

impl Collector {
    pub fn new(
        window_start: u64,
        window_end: u64,
        routers: usize,
        series_window: u64,
    ) -> Collector {
        Collector {
            window_start,
            window_end,
            latency: Histogram::new(3).expect("valid sigfig"),
            net_latency_max: 0,
            latency_sum: 0,
            net_latency_sum: 0,
            delivered_in_window: 0,
            phits_in_window: 0,
            misrouted_in_window: 0,
            hops_sum: 0,
            global_hops_sum: 0,
            hops: [0; HOP_BUCKETS],
            generated_in_window: 0,
            injected_per_router: vec![0; routers],
            accepted_per_router: vec![0; routers],
            escape_entries_hist: [0; 1 << u8::BITS],
            escape_hops_sum: 0,
            max_hops_no_escape: 0,
            hops_max: 0,
            buffer_samples: 0,
            buffer_sums: BufferSample::default(),
            series: (series_window > 0).then(|| SeriesAcc {
                width: series_window,
                delivered_phits: Vec::new(),
                generated: Vec::new(),
                lat_sum: Vec::new(),
                lat_count: Vec::new(),
                misrouted: Vec::new(),
                escaped: Vec::new(),
                hops: Vec::new(),
                samples: Vec::new(),
            }),
        }
    }

    /// A mean over the packets delivered in the window of the quantity summed in `sum`;
    /// missing (not 0) when none was delivered.
    pub fn per_packet(&self, sum: f64) -> Option<f64> {
        (self.delivered_in_window > 0).then(|| sum / self.delivered_in_window as f64)
    }

    /// The window's packet latency: mean, median, 99th percentile and maximum.
    pub fn latency_dist(&self) -> Dist {
        let any = self.delivered_in_window > 0;
        Dist {
            mean: self.per_packet(self.latency_sum as f64),
            p50: any.then(|| self.latency.value_at_quantile(0.5) as f64),
            p99: any.then(|| self.latency.value_at_quantile(0.99) as f64),
            max: any.then(|| self.latency.max() as f64),
        }
    }

    /// The window's network latency (from leaving the injection queue): mean and maximum.
    pub fn network_latency(&self) -> summary::MeanMax {
        summary::MeanMax {
            mean: self.per_packet(self.net_latency_sum as f64),
            max: (self.delivered_in_window > 0).then_some(self.net_latency_max as f64),
        }
    }

    /// The window's path lengths: means, longest, histogram up to the longest bucket used.
    pub fn hops_stats(&self) -> summary::Hops {
        let last = self.hops.iter().rposition(|&x| x > 0).unwrap_or(0);
        summary::Hops {
            mean: self.per_packet(self.hops_sum as f64),
            global_mean: self.per_packet(self.global_hops_sum as f64),
            max: self.hops_max as u64,
            histogram: self.hops[..=last].to_vec(),
        }
    }

    #[inline]
    pub fn in_window(&self, t: u64) -> bool {
        t >= self.window_start && t < self.window_end
    }

    #[inline]
    pub fn on_generate(&mut self, t: u64) {
        if self.in_window(t) {
            self.generated_in_window += 1;
        }
        if let Some(s) = &mut self.series {
            *SeriesAcc::slot(&mut s.generated, (t / s.width) as usize) += 1;
        }
    }

    #[inline]
    pub fn on_inject(&mut self, t: u64, router: usize) {
        if self.in_window(t) {
            self.injected_per_router[router] += 1;
        }
    }

    /// Packet `p` has its tail delivered at `tail` at router `dst_router`.
    #[inline]
    pub fn on_deliver(&mut self, tail: u64, p: &Packet, dst_router: usize) {
        let (gen, inject, len, hops, misrouted) = (
            p.gen_time as u64,
            p.inject_time as u64,
            p.len as u64,
            p.hops as usize,
            p.misrouted,
        );
        if let Some(s) = &mut self.series {
            *SeriesAcc::slot(&mut s.delivered_phits, (tail / s.width) as usize) += len;
            let gw = (gen / s.width) as usize;
            *SeriesAcc::slot(&mut s.lat_sum, gw) += tail - gen;
            *SeriesAcc::slot(&mut s.lat_count, gw) += 1;
            *SeriesAcc::slot(&mut s.misrouted, gw) += misrouted as u64;
            *SeriesAcc::slot(&mut s.escaped, gw) += (p.escape_entries > 0) as u64;
            *SeriesAcc::slot(&mut s.hops, gw) += hops as u64;
        }
        if !self.in_window(tail) {
            return;
        }
        let lat = tail - gen;
        let net = tail - inject;
        // `record` grows the auto-resizing histogram; `saturating_record` would clamp.
        self.latency
            .record(lat)
            .expect("auto-resizing histogram accepts any u64");
        self.net_latency_max = self.net_latency_max.max(net);
        self.latency_sum += lat as u128;
        self.net_latency_sum += net as u128;
        self.delivered_in_window += 1;
        self.phits_in_window += len;
        self.misrouted_in_window += misrouted as u64;
        self.hops_sum += hops as u64;
        self.global_hops_sum += p.global_hops as u64;
        self.hops[hops.min(HOP_BUCKETS - 1)] += 1;
        self.hops_max = self.hops_max.max(p.hops);
        self.accepted_per_router[dst_router] += len;
        self.escape_entries_hist[p.escape_entries as usize] += 1;
        if p.escape_entries > 0 {
            self.escape_hops_sum += p.escape_hops as u64;
        } else {
            self.max_hops_no_escape = self.max_hops_no_escape.max(p.hops);
        }
    }
}
