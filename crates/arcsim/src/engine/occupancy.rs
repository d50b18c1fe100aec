//! Buffer occupancy: every [`BUFFER_SAMPLE_CYCLES`] cycles (for the run's summary) and at the
//! end of every time-series window the engine counts the packets in each class of buffer
//! (injection, canonical local, canonical global, escape) and the packets in flight. Queues
//! that fill are how congestion shows before throughput drops (OFAR-L's jams in Fig. 8's
//! mixes, the escape ring of a saturated network), and the papers' simulators report none
//! of it.
//!
//! A sample walks every VC once, so it costs one pass over the VC table per sample (about a
//! fifth of a simulated cycle on the OFAR paper's network: 0.2% at one sample per 100 cycles),
//! nothing per packet or per cycle.

use super::Simulation;
use crate::router::state::{PortState, VcState};
use crate::routing::Routing;
use crate::stats::buffer_class::{ESCAPE, GLOBAL, INJECTION, LOCAL};
use crate::stats::summary::{BufferStats, Occupancy, BUFFER_SAMPLE_CYCLES};
use crate::stats::BufferSample;
use crate::topology::{Network, PortClass};

/// Marks a VC that belongs to no class (ejection outputs, unused ports).
const NO_CLASS: u8 = u8::MAX;

/// The buffer class of every VC, and the packet slots of each class. A link port's VCs past
/// its canonical ones are the escape subnetworks' ([`Routing::extra_vcs`]).
pub(super) fn classify_vcs<R: Routing>(
    net: &Network,
    ports: &[PortState],
    vcs: &[VcState],
    routing: &R,
) -> (Vec<u8>, [u64; 4]) {
    let mut class = vec![NO_CLASS; vcs.len()];
    let mut slots = [0u64; 4];
    for r in 0..net.num_routers() {
        for pt in 0..net.radix(r) {
            let p = &ports[net.port_base[r] as usize + pt];
            let canonical = match p.class {
                PortClass::Terminal => p.vc_count as usize,
                PortClass::Local | PortClass::Global => {
                    p.vc_count as usize - routing.extra_vcs(r, pt)
                }
                PortClass::Unused => continue,
            };
            for k in 0..p.vc_count as usize {
                let c = match p.class {
                    PortClass::Terminal => INJECTION,
                    _ if k >= canonical => ESCAPE,
                    PortClass::Local => LOCAL,
                    _ => GLOBAL,
                };
                let v = p.vc_base as usize + k;
                class[v] = c as u8;
                slots[c] += vcs[v].fifo.cap as u64;
            }
        }
    }
    (class, slots)
}

impl<R: Routing> Simulation<R> {
    /// The buffers now.
    pub(super) fn buffer_sample(&self) -> BufferSample {
        let mut packets = [0u64; 4];
        for (v, &c) in self.vcs.iter().zip(&self.vc_class) {
            if c != NO_CLASS {
                packets[c as usize] += v.fifo.len as u64;
            }
        }
        BufferSample {
            in_flight: self.generated - self.delivered,
            packets,
        }
    }

    /// At the start of a cycle that ends a summary sampling period (the state after the
    /// previous cycle counts if that cycle is in the measurement window) or a series window.
    #[cold]
    #[inline(never)]
    pub(super) fn sample_buffers(&mut self) {
        let now = self.now;
        let for_summary = now == self.next_summary_sample && self.collector.in_window(now - 1);
        let for_series = now == self.next_series_sample;
        // No pass over the VCs for a summary sample outside the window (the warm-up).
        let sample = if for_summary || for_series {
            self.buffer_sample()
        } else {
            BufferSample::default()
        };
        let c = &mut self.collector;
        if now == self.next_summary_sample {
            if for_summary {
                c.buffer_samples += 1;
                c.buffer_sums.add(&sample);
            }
            self.next_summary_sample += BUFFER_SAMPLE_CYCLES;
        }
        if for_series {
            if let Some(s) = &mut c.series {
                let window = (now / s.width) as usize - 1;
                if s.samples.len() <= window {
                    s.samples.resize(window + 1, BufferSample::default());
                }
                s.samples[window] = sample;
                self.next_series_sample += s.width;
            }
        }
        self.next_sample = self.next_summary_sample.min(self.next_series_sample);
    }

    /// The means of the summary's samples.
    pub(super) fn buffer_stats(&self) -> BufferStats {
        let c = &self.collector;
        let (mut n, mut sums) = (c.buffer_samples, c.buffer_sums);
        // A run that ends where a sampling period does: its last sample is the state now.
        if self.now == self.next_summary_sample && c.in_window(self.now - 1) {
            n += 1;
            sums.add(&self.buffer_sample());
        }
        if n == 0 {
            return BufferStats::default();
        }
        // Each class's mean occupancy: its packets summed over the samples, over its slots,
        // over the samples.
        let occupancy = self.occupancy_of(&sums).to_array().map(|x| x / n as f64);
        BufferStats {
            samples: n,
            in_flight_mean: sums.in_flight as f64 / n as f64,
            buffered_mean: sums.packets.iter().sum::<u64>() as f64 / n as f64,
            occupancy: Occupancy::from_array(occupancy),
        }
    }

    /// A sample as fractions of each class's slots.
    pub(super) fn occupancy_of(&self, s: &BufferSample) -> Occupancy {
        Occupancy::from_array(std::array::from_fn(|c| {
            if self.class_slots[c] == 0 {
                0.0
            } else {
                s.packets[c] as f64 / self.class_slots[c] as f64
            }
        }))
    }
}
