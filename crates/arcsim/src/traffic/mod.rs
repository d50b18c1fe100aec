//! Synthetic workloads: destination patterns ([`pattern`]) and when packets are generated
//! ([`Injection`]): Bernoulli per node at a given load, bursts of N packets per node, and a
//! transient change of pattern/load at a given cycle.

pub mod calendar;
pub mod pattern;

pub use pattern::Pattern;

use crate::config::{BurstGeneration, ChangedTraffic, Config, TrafficConfig};
use crate::rng::Rng;

/// Injection process of the run.
#[derive(Debug, Clone)]
pub enum Injection {
    /// Bernoulli: a packet per node per cycle with probability load / packet_length.
    Bernoulli { load: f64 },
    /// Each node sends `packets` packets: as fast as its injection queue allows (`paced` =
    /// None), or generated at a Bernoulli load, each waiting for room (`Some(load)`).
    Burst { packets: u64, paced: Option<f64> },
}

/// Pattern and load before and after an optional change.
pub struct Workload {
    pub pattern: Pattern,
    pub injection: Injection,
    pub change: Option<(u64, Pattern, Injection)>,
}

impl Workload {
    pub fn new(
        cfg: &Config,
        nodes_per_router: usize,
        routers_per_group: usize,
        groups: usize,
        rng: &mut Rng,
    ) -> Workload {
        let t: &TrafficConfig = &cfg.traffic;
        let shape = pattern::Shape {
            p: nodes_per_router,
            a: routers_per_group,
            g: groups,
        };
        let pattern = Pattern::new(shape, t.pattern, t.offset, &t.mix, t, rng);
        let injection = if t.burst_packets > 0 {
            Injection::Burst {
                packets: t.burst_packets,
                paced: (t.burst_generation == BurstGeneration::Load).then_some(t.load),
            }
        } else {
            Injection::Bernoulli { load: t.load }
        };
        let change = t.change.as_ref().map(|ch| {
            let pattern = match ch.traffic(t) {
                ChangedTraffic::Mix(mix) => Pattern::new(shape, t.pattern, t.offset, mix, t, rng),
                ChangedTraffic::Single(kind, off) => Pattern::new(shape, kind, off, &[], t, rng),
                ChangedTraffic::Unchanged => pattern.clone(),
            };
            (
                ch.at_cycle,
                pattern,
                Injection::Bernoulli {
                    load: ch.load.unwrap_or(t.load),
                },
            )
        });
        Workload {
            pattern,
            injection,
            change,
        }
    }
}
