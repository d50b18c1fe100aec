//! Packet tracing (`arcsim run --trace`): for chosen packets, every event of their life with
//! its cycle, router, ports, VCs and routing decision. Off by default; then the only cost is
//! one test of an `Option` per generation and per grant, and nothing is allocated.

use super::Simulation;
use crate::routing::{Candidate, HopKind, Routing};
use crate::topology::PortClass;

/// Which packets to trace: a packet is traced when any rule picks it. Packets are numbered
/// in generation order from 0 (`packets.generated` counts them).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TraceSpec {
    /// Packet numbers.
    pub ids: Vec<u64>,
    /// (source node, destination node); None: any destination.
    pub flows: Vec<(u32, Option<u32>)>,
    /// Share of all packets, in [0, 1], picked by a hash of the packet number (the same
    /// packets on every run, and the simulation's random numbers untouched).
    pub rate: f64,
}

impl TraceSpec {
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty() && self.flows.is_empty() && self.rate <= 0.0
    }

    fn wants(&self, id: u64, src: u32, dst: u32) -> bool {
        self.ids.contains(&id)
            || self
                .flows
                .iter()
                .any(|&(s, d)| s == src && d.is_none_or(|d| d == dst))
            || (self.rate > 0.0 && (mix(id) >> 11) as f64 * (1.0 / (1u64 << 53) as f64) < self.rate)
    }
}

/// SplitMix64's finaliser: a well-spread hash of the packet number.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// What happened to a traced packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TraceEvent {
    /// Created at its source and put in an injection VC (`in_port`, `in_vc`).
    Generated,
    /// Granted an output: from input `in_port`/`in_vc` to output `out_port`/`out_vc`.
    Hop,
    /// Granted its ejection port; `cycle` is when its tail is received (the end of its
    /// latency).
    Delivered,
}

impl TraceEvent {
    pub fn name(self) -> &'static str {
        match self {
            TraceEvent::Generated => "generated",
            TraceEvent::Hop => "hop",
            TraceEvent::Delivered => "delivered",
        }
    }
}

/// One event of a traced packet.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceRecord {
    pub packet: u64,
    pub event: TraceEvent,
    pub cycle: u64,
    pub router: u32,
    pub in_port: u16,
    pub in_vc: u16,
    /// None for [`TraceEvent::Generated`].
    pub out_port: Option<u16>,
    pub out_vc: Option<u16>,
    /// Class of the output ("local", "global", "terminal"); None when generated.
    pub out_class: Option<&'static str>,
    /// The routing's kind of hop ("minimal", "non-minimal", "escape"); None when generated.
    pub decision: Option<&'static str>,
    pub src: u32,
    pub dst: u32,
}

/// The tracing state of a run.
#[derive(Debug, Default)]
pub(crate) struct Tracer {
    spec: TraceSpec,
    /// Per packet-pool slot: the traced packet's number and destination node, if the
    /// packet in the slot is traced.
    by_slot: Vec<Option<(u64, u32)>>,
    pub(crate) records: Vec<TraceRecord>,
}

impl Tracer {
    pub(crate) fn new(spec: TraceSpec) -> Tracer {
        Tracer {
            spec,
            ..Tracer::default()
        }
    }
}

fn class_name(c: PortClass) -> &'static str {
    match c {
        PortClass::Local => "local",
        PortClass::Global => "global",
        PortClass::Terminal => "terminal",
        PortClass::Unused => "unused",
    }
}

fn kind_name(k: HopKind) -> &'static str {
    match k {
        HopKind::Minimal => "minimal",
        HopKind::NonMinimal => "non-minimal",
        HopKind::Escape => "escape",
    }
}

impl<R: Routing> Simulation<R> {
    /// A packet was generated into pool slot `slot` at node `src` for node `dst`, queued in
    /// VC `vc` of port `port` of router `r`; `number` is its generation number.
    #[cold]
    #[inline(never)]
    pub(super) fn trace_generated(
        &mut self,
        slot: u32,
        number: u64,
        (src, dst): (usize, usize),
        (r, port, vc): (u32, usize, u32),
    ) {
        let in_vc = vc - self.ports[self.gport(r, port)].vc_base;
        let now = self.now;
        let Some(t) = self.trace.as_deref_mut() else {
            return;
        };
        let slot = slot as usize;
        if t.by_slot.len() <= slot {
            t.by_slot.resize(slot + 1, None);
        }
        let traced = t.spec.wants(number, src as u32, dst as u32);
        t.by_slot[slot] = traced.then_some((number, dst as u32));
        if traced {
            t.records.push(TraceRecord {
                packet: number,
                event: TraceEvent::Generated,
                cycle: now,
                router: r,
                in_port: port as u16,
                in_vc: in_vc as u16,
                out_port: None,
                out_vc: None,
                out_class: None,
                decision: None,
                src: src as u32,
                dst: dst as u32,
            });
        }
    }

    /// The packet in pool slot `slot` was granted output `cand.port`/`out_vc` of router `r`
    /// from input `in_port`/`in_vc`.
    #[cold]
    #[inline(never)]
    pub(super) fn trace_grant(
        &mut self,
        slot: u32,
        r: usize,
        (in_port, in_vc): (usize, usize),
        cand: &Candidate,
        out_vc: usize,
    ) {
        let now = self.now;
        let p = *self.pool.get(slot);
        let out = self.ports[self.net.port_base[r] as usize + cand.port as usize];
        let Some(t) = self.trace.as_deref_mut() else {
            return;
        };
        let Some((number, dst)) = t.by_slot.get(slot as usize).copied().flatten() else {
            return;
        };
        let delivered = out.class == PortClass::Terminal;
        let record = TraceRecord {
            packet: number,
            event: TraceEvent::Hop,
            cycle: now,
            router: r as u32,
            in_port: in_port as u16,
            in_vc: in_vc as u16,
            out_port: Some(cand.port),
            out_vc: Some(out_vc as u16),
            out_class: Some(class_name(out.class)),
            decision: Some(kind_name(cand.kind)),
            src: p.src,
            dst,
        };
        if delivered {
            // The tail is received `len - 1 + terminal latency` cycles after the grant, as
            // the collector counts it.
            let tail = now + u64::from(p.len) - 1 + u64::from(out.latency);
            t.records.push(record.clone());
            t.records.push(TraceRecord {
                event: TraceEvent::Delivered,
                cycle: tail,
                ..record
            });
            t.by_slot[slot as usize] = None;
        } else {
            t.records.push(record);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_pick_packets_by_number_flow_and_rate() {
        let by_id = TraceSpec {
            ids: vec![3],
            ..TraceSpec::default()
        };
        assert!(by_id.wants(3, 0, 0) && !by_id.wants(4, 0, 0));
        let flow = TraceSpec {
            flows: vec![(5, Some(9)), (7, None)],
            ..TraceSpec::default()
        };
        assert!(flow.wants(0, 5, 9) && !flow.wants(0, 5, 8) && flow.wants(1, 7, 123));
        let all = TraceSpec {
            rate: 1.0,
            ..TraceSpec::default()
        };
        assert!((0..1000).all(|i| all.wants(i, 0, 0)));
        let tenth = TraceSpec {
            rate: 0.1,
            ..TraceSpec::default()
        };
        let n = (0..100_000).filter(|&i| tenth.wants(i, 0, 0)).count();
        assert!((9_000..11_000).contains(&n), "{n}");
        assert!(TraceSpec::default().is_empty());
    }
}
