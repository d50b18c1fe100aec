//! Buffer occupancy over time: at the end of every time-series window the engine counts the
//! packets in each class of buffer (injection, canonical local, canonical global, escape)
//! and the packets in flight. Queues that fill are how congestion shows before throughput
//! drops (OFAR-L's jams in Fig. 8's mixes, the escape ring of a saturated network), and the
//! papers' simulators report none of it.
//!
//! A sample walks every VC once, so it costs one pass over the VC table per window (a
//! window is hundreds of cycles or more), nothing per packet or per cycle.

use super::Simulation;
use crate::router::state::{PortState, VcState};
use crate::routing::Routing;
use crate::stats::buffer_class::{ESCAPE, GLOBAL, INJECTION, LOCAL};
use crate::stats::summary::Occupancy;
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

    /// At the start of each series window but the first: the previous window's end.
    #[cold]
    #[inline(never)]
    pub(super) fn sample_buffers(&mut self) {
        let sample = self.buffer_sample();
        if let Some(s) = &mut self.collector.series {
            let window = (self.now / s.width) as usize - 1;
            if s.samples.len() <= window {
                s.samples.resize(window + 1, BufferSample::default());
            }
            s.samples[window] = sample;
            self.next_sample = self.now + s.width;
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
