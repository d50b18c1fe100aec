//! The general kernel: what every switch architecture shares. It owns time, the event
//! wheel, the packet pool, the links (their occupancy and latency), flow control between
//! buffers, the NICs with their flows and messages, routing tables and measurement; a
//! switch architecture ([`crate::switch::Switch`], chosen once per run, static dispatch)
//! owns what happens inside a switch: its buffers, crossbar and arbitration.
//!
//! It runs any topology ([`crate::topology::Graph`], the dragonfly) with the CIOQ switch
//! ([`crate::switch::cioq`]), credits, priority flow control or no flow control, synthetic
//! Bernoulli traffic and explicit flows. The OFAR paper's input-queued dragonfly keeps its
//! own engine ([`crate::engine`]), which is tuned for it and reproduces the paper's figures
//! bit for bit.
//!
//! A cycle: the events due now (arrivals, credits and pauses, crossbar transfers ending),
//! then generation at the NICs, then the NICs' injections, then every switch holding a
//! packet (its outputs, then its allocator). Work is done per event and per switch holding
//! packets, never per idle port or per phit.

mod bits;
pub mod classes;
pub mod events;
pub mod flow_control;
mod measure;
pub mod mechanism;
pub mod nic;
pub mod packet;
pub mod piggyback;
pub mod qcn;
pub mod route;
mod stall;
pub mod tables;

use crate::config::{Config, FlowControlKind, QueueScheme, SwitchKind, TopologyKind};
use crate::engine::{Audit, Simulator, Tick, TICK_CYCLES};
use crate::error::{ConfigError, SimError};
use crate::rng::{Geometric, Rng};
use crate::stats::{Collector, RunResult};
use crate::switch::{cioq::Cioq, Switch};
use crate::topology::{Dragonfly, Graph, Network, PortClass, Topology};
use crate::traffic::calendar::Calendar;
use crate::traffic::pattern::{Pattern, Shape};
use crate::traffic::{Injection, Workload};
use events::{Ev, Wheel};
use flow_control::{FlowControl, Signal};
use mechanism::{Mechanism, NoMechanism};
use nic::{FlowState, Message, Nic};
use packet::{Kind, Packet, Pool, MISROUTED, NEVER, NO_FLOW, NO_VIA};
use route::{NonMinimal, RouteTable, VcPolicy};
use std::time::Instant;

/// Control packets: sent by the mechanism, consumed at their switch, dropped for want of
/// room in a switch's control queue, and their phits on links.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ControlCount {
    pub sent: u64,
    pub consumed: u64,
    pub dropped: u64,
    pub link_phits: u64,
}

/// What the switches share: time, links, flow control, NICs, routing and measurement.
pub struct Kernel {
    pub now: u64,
    pub wheel: Wheel,
    pub pool: Pool,
    pub net: Network,
    pub route: RouteTable,
    pub fc: FlowControl,
    /// Per global port: its first input VC (global input-VC index) and how many it has.
    pub vc_base: Vec<u32>,
    pub vc_count: Vec<u16>,
    /// Per input VC: the global port it belongs to.
    pub vc_port: Vec<u32>,
    /// Per global port: the global port at the other end of its link (switch links), or
    /// the node (terminal ports); and the switch it belongs to.
    pub peer: Vec<u32>,
    pub port_switch: Vec<u32>,
    /// Which input queue a packet joins.
    pub queues: QueueScheme,
    /// Per global port (input side): the VCs of each level of the routing's VC order
    /// there. A packet of level `l` joins one of VCs `l·m .. (l+1)·m` (the one with the most
    /// room): 1 unless `link_classes.NAME.vcs` gives a port more VCs than the order has
    /// levels, or the order has one level (up*/down*), where every VC serves it. Control
    /// VCs (as many as data VCs, when the mechanism sends control packets) follow the data
    /// VCs.
    pub vc_set: Vec<u8>,
    pub control_vcs: bool,
    /// Control packets the mechanism sent this cycle, by switch, for the switch to queue.
    pub pending_control: Vec<(u32, u32)>,
    pub control: ControlCount,
    /// Per global port, output side: its link carries a packet until this cycle, and the
    /// phits it has sent.
    pub link_busy: Vec<u64>,
    /// Per global port: cycles a phit takes on its link, both ways (1 unless the link's
    /// class has a `rate` below the base rate).
    pub phit_cycles: Vec<u32>,
    pub sent: Vec<u64>,
    /// Per port: packets sent, output states and input occupancy over the window.
    pub(crate) meas: measure::PortMeasure,
    sent_at_window_start: Vec<u64>,
    pub nics: Vec<Nic>,
    /// NICs with packets queued (each once), in the order they got them.
    nic_active: Vec<u32>,
    nic_listed: Vec<bool>,
    pub rng: Rng,
    pub collector: Collector,
    packet_length: u32,
    /// Capacity of each NIC's injection queue (all its admittance queues) in phits.
    nic_capacity: u32,
    /// One queue per destination at every NIC.
    admittance: bool,
    /// Link time of a credit, PAUSE or resume frame, and the phits frames took in all.
    frame_phits: u32,
    pub frame_link_phits: u64,
    // Synthetic traffic.
    pattern: Option<Pattern>,
    /// A traffic change: its cycle, the pattern and the load from then on.
    change: Option<(u64, Pattern, f64)>,
    gap: Geometric,
    calendar: Calendar,
    due: Vec<u32>,
    // Flows and messages.
    pub flows: Vec<FlowState>,
    /// Each NIC that sends flows, with its flows, and the flow it takes a packet from next.
    flow_nics: Vec<(u32, Vec<u32>)>,
    flow_rr: Vec<u32>,
    /// Flows that may still create messages or hold a backlog (not waiting for others, not
    /// finished); per flow its NIC (index into `flow_nics`) and place in that NIC's list;
    /// per NIC the places of its flows with a backlog, and the NICs with any: a cycle's
    /// flow work is proportional to the active flows, in the same order as a scan of all.
    flow_live: bits::BitSet,
    flow_place: Vec<(u32, u32)>,
    nic_backlogged: Vec<bits::BitSet>,
    nics_backlogged: bits::BitSet,
    /// Message table; slots of delivered messages are reused.
    messages: Vec<Message>,
    free_messages: Vec<u32>,
    series_window: u64,
    /// Where each collective's flows are in `flows`.
    pub collectives: Vec<crate::config::CollectiveFlows>,
    /// With collectives and no synthetic traffic: the flows still to complete (the run ends
    /// when none is left); None otherwise (the run lasts its measurement window).
    pub unfinished: Option<usize>,
    // Counters.
    pub generated: u64,
    pub delivered: u64,
    pub refused: u64,
    pub packet_hops: u64,
    /// PAUSE frames that reached a node's NIC (the pause spread back to a source).
    pub pauses_at_nodes: u64,
    pub last_move: u64,
    last_tail: u64,
    events: Vec<Ev>,
    /// Per global port, the class of the link leaving it ([`classes`]).
    pub class_names: Vec<&'static str>,
    /// Non-minimal routing (`routing.algorithm`) and whether the mechanism routes at
    /// injection; when either is on, `route_at_injection` runs for every packet reaching
    /// its source switch.
    pub nonminimal: NonMinimal,
    pub routes_at_injection: bool,
    pub decides_at_injection: bool,
    /// Per switch its group (dragonfly, Dragonfly+; empty elsewhere), nodes per group
    /// (numbered group by group), groups, leaves per group and switches per group
    /// (Dragonfly+; on the dragonfly its routers).
    pub group_of: Vec<u32>,
    nodes_per_group: u32,
    groups: u32,
    leaves_per_group: u32,
    switches_per_group: u32,
    /// An intermediate switch is reached with its group (the dragonfly: VAL goes
    /// minimally to the group), or only at the switch itself (Dragonfly+).
    via_by_group: bool,
    /// Random draws of the routing, apart from the traffic's, so that a non-minimal run
    /// offers the same packets as a minimal one.
    pub route_rng: Rng,
    /// PB's flags (`routing.algorithm = "pb"`), updated every cycle.
    pub pb: Option<piggyback::Piggyback>,
    /// Nodes with several links (rails): how a NIC picks the rail of a packet, and the
    /// switch-to-switch distances (hops; `u8::MAX`: not reachable) that pick the
    /// destination's link a packet is routed to (empty when every node has one link).
    pub rail_selection: crate::config::RailSelection,
    pub switch_dist: Vec<u8>,
    /// Per node link (`net.rails`, nodes with several links only): phits its NIC sent on it,
    /// in all and at the window's start.
    pub rail_sent: Vec<u64>,
    rail_sent_at_window_start: Vec<u64>,
}

impl Kernel {
    /// Occupy output `gp`'s link with `pkt` and schedule its head's arrival at the far end:
    /// the input VC `pkt.vc` of the peer port, or the destination NIC.
    #[inline]
    pub fn send(&mut self, gp: usize, pkt: u32) {
        let info = self.net.ports[gp];
        let p = self.pool.get_mut(pkt);
        let len = p.len as u64;
        self.link_busy[gp] = self.now + len * self.phit_cycles[gp] as u64;
        self.sent[gp] += len;
        self.meas.sent(gp, self.now);
        self.last_move = self.now;
        let at = self.now + info.latency as u64;
        if p.kind == Kind::Control {
            self.control.link_phits += len;
        }
        if info.class == PortClass::Terminal {
            self.wheel.at(self.now, at, Ev::Deliver { pkt });
        } else {
            p.hops += 1;
            p.global_hops += (info.class == PortClass::Global) as u8;
            self.packet_hops += 1;
            let vc = self.vc_base[self.peer[gp] as usize] + p.vc as u32;
            self.wheel.at(self.now, at, Ev::Arrive { pkt, vc });
        }
    }

    /// Send a control packet of `len` phits from switch `at` to switch `to`, carrying
    /// `payload` (a mechanism-defined word, e.g. an index into the mechanism's own table).
    /// It enters `at`'s control queue this cycle (or is dropped if that is full).
    pub fn send_control(&mut self, at: usize, to: usize, len: u16, payload: u32) {
        let p = Packet {
            src: at as u32,
            dst: u32::MAX,
            dst_switch: to as u32,
            gen_time: self.now as u32,
            inject_time: self.now as u32,
            at: 0,
            flow: NO_FLOW,
            msg: payload,
            seq: 0,
            len: len.max(1),
            hops: 0,
            global_hops: 0,
            vc: 0,
            kind: Kind::Control,
            class: 1,
            route: NO_VIA,
        };
        let id = self.pool.alloc(p);
        self.control.sent += 1;
        self.pending_control.push((at as u32, id));
    }

    /// The VC a control packet takes on output `gp`'s link: the first control VC of its
    /// level of the routing's order.
    #[inline]
    pub fn control_vc(&self, pkt: &Packet, gp: usize) -> u16 {
        let input = self.peer[gp] as usize;
        let m = self.vc_set[input] as u16;
        let level = self
            .route
            .next_vc(pkt.hops, pkt.global_hops, self.net.ports[gp].class);
        self.vc_count[input] / 2 + level as u16 * m
    }

    /// Data VCs of input port `gp` (its control VCs, when the mechanism sends control
    /// packets, follow them).
    #[inline]
    pub fn data_vcs(&self, gp: usize) -> u16 {
        let n = self.vc_count[gp];
        if self.control_vcs && self.net.ports[gp].class != PortClass::Terminal {
            n / 2
        } else {
            n
        }
    }

    /// The input VC that output `gp`'s VC `vc` feeds at the far end of its link.
    #[inline]
    pub fn downstream_vc(&self, gp: usize, vc: u16) -> u32 {
        self.vc_base[self.peer[gp] as usize] + vc as u32
    }

    /// The queue (VC) of input port `gp` that `pkt` joins, by the queue scheme: the
    /// routing's VC `ordered` (VCs), the one with the most room that can take it (4Q, and
    /// VCs at a node's port), its output at that switch (VOQsw) or its destination
    /// (VOQnet). None: no queue can take it now. With `room` false the queue is chosen
    /// whether or not flow control lets it in now (a packet that will wait for it in an
    /// output queue).
    #[inline]
    pub fn queue_at(
        &self,
        gp: usize,
        pkt: &Packet,
        ordered: Option<u8>,
        room: bool,
    ) -> Option<u16> {
        let len = if room { pkt.len as u32 } else { 0 };
        let base = self.vc_base[gp];
        let q = match (self.queues, ordered) {
            (QueueScheme::Vc, Some(level)) if self.vc_set[gp] == 1 => level as u16,
            (QueueScheme::Vc | QueueScheme::FourQ, _) => {
                // The level's VCs (several), or all of the port's queues.
                let (first, n) = match (self.queues, ordered) {
                    (QueueScheme::Vc, Some(level)) => {
                        let m = self.vc_set[gp] as u16;
                        (level as u16 * m, m)
                    }
                    _ => (0, self.vc_count[gp]),
                };
                let mut best = None;
                let mut best_room = 0;
                for q in first..first + n {
                    let free = self.fc.room(base + q as u32);
                    if (best.is_none() || free > best_room)
                        && self.fc.can_send(base + q as u32, len)
                    {
                        best = Some(q);
                        best_room = free;
                    }
                }
                return best;
            }
            (QueueScheme::VoqSwitch, _) => self.output_at(self.port_switch[gp] as usize, pkt),
            (QueueScheme::VoqNet, _) => pkt.dst as u16,
        };
        (!room || self.fc.can_send(base + q as u32, len)).then_some(q)
    }

    /// The output port a packet takes at switch `s` under deterministic choice among its
    /// shortest paths (the destination modulo their number), or its node's port.
    #[inline]
    pub fn output_at(&self, s: usize, pkt: &Packet) -> u16 {
        if pkt.dst_switch as usize == s {
            return self.node_port(s, pkt.dst);
        }
        let ports = self.route.group(s, self.target_at(s, pkt), pkt.dst);
        ports[self.route.first_choice(s, pkt.src, pkt.dst, ports.len())]
    }

    /// The port of switch `s` that leads to node `dst` (a packet at its destination
    /// switch: `s` is one of the node's links).
    #[inline]
    pub fn node_port(&self, s: usize, dst: u32) -> u16 {
        self.net
            .port_to_node(s, dst as usize)
            .expect("a packet's destination switch has a link to its node")
    }

    /// The switch of node `dst`'s links that a packet entering the network at switch `s0`
    /// on its source's rail `rail` is routed to: the nearest to `s0` (fewest switch hops),
    /// and among equals the one at position `rail` modulo their number (so that a source
    /// alternating its rails alternates the destination's). None when no link of `dst` can
    /// be reached from `s0` (another plane). A node with one link: that link's switch.
    #[inline]
    pub fn dst_switch_for(&self, s0: usize, rail: usize, dst: usize) -> Option<u32> {
        let links = self.net.node_links(dst);
        if links.len() == 1 {
            let t = links[0].0;
            let n = self.net.num_routers();
            return (self.switch_dist.is_empty()
                || self.switch_dist[s0 * n + t as usize] != u8::MAX)
                .then_some(t);
        }
        let n = self.net.num_routers();
        let row = &self.switch_dist[s0 * n..(s0 + 1) * n];
        let best = links.iter().map(|&(t, _)| row[t as usize]).min()?;
        if best == u8::MAX {
            return None;
        }
        let nearest = || links.iter().filter(move |&&(t, _)| row[t as usize] == best);
        let count = nearest().count();
        nearest().nth(rail % count).map(|&(t, _)| t)
    }

    /// The switch `pkt` is routed towards at switch `s`: its intermediate switch while it
    /// has one that `s` does not reach, else its destination's.
    #[inline]
    pub fn target_at(&self, s: usize, pkt: &Packet) -> usize {
        let via = pkt.via();
        if via == NO_VIA || self.reached_via(s, via) {
            pkt.dst_switch as usize
        } else {
            via as usize
        }
    }

    /// Whether a packet at switch `s` has reached its intermediate switch `via`: its group
    /// on the dragonfly, the switch itself on Dragonfly+.
    #[inline]
    pub fn reached_via(&self, s: usize, via: u32) -> bool {
        if self.via_by_group {
            self.group_of[s] == self.group_of[via as usize]
        } else {
            s as u32 == via
        }
    }

    /// Data packet `pkt` reached switch `s`: once it is where its intermediate switch
    /// leads, it goes minimally to its destination.
    #[inline]
    pub fn on_switch(&mut self, s: usize, pkt: u32) {
        let via = self.pool.get(pkt).via();
        if via != NO_VIA && self.reached_via(s, via) {
            let p = self.pool.get_mut(pkt);
            p.route = (p.route & MISROUTED) | NO_VIA;
        }
    }

    /// The output ports of switch `s` on the minimal paths of `pkt` (its node's port at
    /// its destination switch): for mechanisms that route at injection.
    pub fn minimal_ports(&self, s: usize, pkt: u32) -> Vec<u16> {
        let p = self.pool.get(pkt);
        if p.dst_switch as usize == s {
            return vec![self.node_port(s, p.dst)];
        }
        self.route.group(s, p.dst_switch as usize, p.dst).to_vec()
    }

    /// Valiant's intermediate switch for `pkt` at its source switch `s`, as FOGSim v5 draws
    /// it: the switch of a random node outside the source group, or [`NO_VIA`] for traffic
    /// within the group (a random node inside it, where going to its group is staying).
    pub fn valiant_via(&mut self, s: usize, pkt: u32) -> u32 {
        let dst_switch = self.pool.get(pkt).dst_switch as usize;
        let sg = self.group_of[s];
        if sg == self.group_of[dst_switch] || self.groups < 2 {
            return NO_VIA;
        }
        let per = self.nodes_per_group as u64;
        let mut node = self.route_rng.below((self.groups as u64 - 1) * per);
        if node >= sg as u64 * per {
            node += per;
        }
        self.net.attach[node as usize].0
    }

    /// DFP's decision at the source leaf `s` of `pkt` (Dragonfly+): a leaf of a random
    /// group other than the source's and the destination's, taken when the least loaded up
    /// port towards the minimal path holds more than twice the phits of the least loaded
    /// one towards that leaf, plus two packets (the non-minimal path is twice as long); the
    /// load of an up port is what the spine's input buffer holds as this leaf's credits
    /// tell (UGAL-L).
    fn dfp_via(&mut self, s: usize, pkt: u32) -> u32 {
        let p = *self.pool.get(pkt);
        let (sg, dg) = (self.group_of[s], self.group_of[p.dst_switch as usize]);
        if sg == dg || self.groups < 3 {
            return NO_VIA;
        }
        let mut g = self.route_rng.below(self.groups as u64 - 2) as u32;
        let (lo, hi) = (sg.min(dg), sg.max(dg));
        if g >= lo {
            g += 1;
        }
        if g >= hi {
            g += 1;
        }
        let leaf =
            g * self.switches_per_group + self.route_rng.below(self.leaves_per_group as u64) as u32;
        let held = |k: &Kernel, ports: &[u16]| -> u64 {
            ports
                .iter()
                .map(|&o| {
                    let gp = k.net.port_base[s] as usize + o as usize;
                    let down = k.downstream_vc(gp, 0) as usize;
                    k.fc.held_by_room(down as u32) as u64
                })
                .min()
                .unwrap_or(0)
        };
        let minimal = held(self, self.route.ports_towards(s, p.dst_switch as usize));
        let other = held(self, self.route.ports_towards(s, leaf as usize));
        if minimal > 2 * other + 2 * p.len as u64 {
            leaf
        } else {
            NO_VIA
        }
    }

    /// The routing decision for data packet `pkt` whose head reached its source switch `s`
    /// (from its node): the routing's (`routing.algorithm`), then the mechanism's
    /// ([`Mechanism::route_at_injection`]).
    pub fn route_at_injection<M: Mechanism>(&mut self, m: &mut M, s: usize, pkt: u32) {
        let (mut via, mut misrouted) = match self.nonminimal {
            NonMinimal::None => (NO_VIA, false),
            // Every packet is counted as misrouted, as FOGSim v5 does.
            NonMinimal::Valiant => (self.valiant_via(s, pkt), true),
            NonMinimal::Dfp => {
                let v = self.dfp_via(s, pkt);
                (v, v != NO_VIA)
            }
            NonMinimal::Pb => {
                let dst_switch = self.pool.get(pkt).dst_switch as usize;
                let pb = self
                    .pb
                    .as_ref()
                    .expect("PB's flags are built with the kernel");
                if dst_switch == s {
                    (NO_VIA, false)
                } else {
                    let nodes = self.net.num_terminals();
                    let val = pb.valiant_node(&mut self.route_rng, nodes, s, dst_switch);
                    pb.decide(self, s, pkt, val)
                }
            }
        };
        if self.routes_at_injection {
            let chosen = m.route_at_injection(self, s, pkt, via);
            if chosen != via {
                via = chosen;
                misrouted = via != NO_VIA;
            }
        }
        if via != NO_VIA && self.reached_via(s, via) {
            via = NO_VIA;
        }
        self.pool.get_mut(pkt).route = via | if misrouted { MISROUTED } else { 0 };
    }

    /// A packet's head reaches input VC `vc`: account for its space and pause the sender if
    /// the buffer crossed its threshold.
    #[inline]
    pub fn buffer_enter(&mut self, vc: u32, len: u32) -> Result<(), SimError> {
        self.meas
            .hold(self.vc_port[vc as usize] as usize, self.now, len, true);
        match self.fc.enter(vc, len) {
            Ok(Some(s)) => {
                self.signal_upstream(vc, s);
                Ok(())
            }
            Ok(None) => Ok(()),
            Err(occ) => Err(SimError::Overflow(format!(
                "cycle {}: input buffer of VC {} at {} overflowed ({occ} phits for {}): a packet \
                 would be lost; with priority flow control, lower flow_control.xoff so that the \
                 buffer can absorb what is on the link when it pauses its sender",
                self.now,
                vc - self.vc_base[self.vc_port[vc as usize] as usize],
                self.port_name(self.vc_port[vc as usize] as usize),
                self.fc.capacity[vc as usize]
            ))),
        }
    }

    /// A packet of `len` phits has left input VC `vc`: credits or a resume go upstream.
    #[inline]
    pub fn buffer_leave(&mut self, vc: u32, len: u32) {
        self.meas
            .hold(self.vc_port[vc as usize] as usize, self.now, len, false);
        let (first, second) = self.fc.leave(vc, len);
        if let Some(s) = first {
            self.signal_upstream(vc, s);
        }
        if let Some(s) = second {
            self.signal_upstream(vc, s);
        }
    }

    /// Send a link-level frame for input VC `vc` back over its link.
    #[inline]
    fn signal_upstream(&mut self, vc: u32, s: Signal) {
        let gp = self.vc_port[vc as usize] as usize;
        // A frame that takes link time waits for the link back (this port's output) and
        // holds it for its phits, as data does.
        let mut start = self.now;
        if self.frame_phits > 0 {
            start = start.max(self.link_busy[gp]);
            self.link_busy[gp] = start + self.frame_phits as u64 * self.phit_cycles[gp] as u64;
            self.frame_link_phits += self.frame_phits as u64;
        }
        let at = start + self.net.ports[gp].latency as u64;
        let ev = match s {
            Signal::Credit(phits) => Ev::Credit { vc, phits },
            Signal::Pause => Ev::Pause { vc, on: true },
            Signal::Resume => Ev::Pause { vc, on: false },
        };
        self.wheel.at(self.now, at, ev);
    }

    /// "switch 3 port 5" for messages.
    pub fn port_name(&self, gp: usize) -> String {
        let s = self.port_switch[gp] as usize;
        format!("switch {s} port {}", gp - self.net.port_base[s] as usize)
    }

    /// Put packet `pkt` in node `n`'s injection queue.
    fn queue_at_nic(&mut self, n: usize, pkt: u32) {
        let p = self.pool.get(pkt);
        let (len, dst) = (p.len as u32, p.dst);
        let nic = &mut self.nics[n];
        if self.admittance {
            let (q, phits) = nic.by_destination.entry(dst).or_default();
            q.push_back(pkt);
            *phits += len;
        } else {
            nic.queue.push_back(pkt);
        }
        nic.queued += len;
        if !self.nic_listed[n] {
            self.nic_listed[n] = true;
            self.nic_active.push(n as u32);
        }
        self.generated += 1;
        self.collector.on_generate(self.now);
    }

    #[allow(clippy::too_many_arguments)]
    fn new_packet(
        &self,
        src: usize,
        dst: usize,
        len: u32,
        flow: u32,
        msg: u32,
        seq: u32,
    ) -> Packet {
        Packet {
            src: src as u32,
            dst: dst as u32,
            dst_switch: self.net.attach[dst].0,
            gen_time: self.now as u32,
            inject_time: NEVER,
            at: 0,
            flow,
            msg,
            seq,
            len: len as u16,
            hops: 0,
            global_hops: 0,
            vc: 0,
            kind: Kind::Data,
            class: 0,
            route: NO_VIA,
        }
    }

    /// Synthetic traffic: the nodes due now create a packet each, if their queue has room.
    /// At the traffic change's cycle: its pattern and load from now on, every node's next
    /// packet drawn again (the gaps are memoryless, so redrawing is exact).
    fn apply_change(&mut self) {
        if self.change.as_ref().is_none_or(|c| c.0 != self.now) {
            return;
        }
        let (_, pattern, load) = self.change.take().expect("checked");
        self.pattern = Some(pattern);
        self.gap = Geometric::new(load / self.packet_length as f64);
        self.calendar.clear();
        for n in 0..self.net.num_terminals() {
            let t = self.now + self.gap.sample(&mut self.rng) - 1;
            self.calendar.schedule(self.now, t, n as u32);
        }
    }

    fn generate(&mut self) {
        if self.pattern.is_none() {
            return;
        }
        let mut due = std::mem::take(&mut self.due);
        self.calendar.take(self.now, &mut due);
        for &n in &due {
            let n = n as usize;
            let len = self.packet_length;
            let pattern = self.pattern.as_mut().expect("synthetic traffic");
            let dst = pattern.destination(n, &mut self.rng);
            if self.nics[n].queued_for(dst as u32, self.admittance) + len <= self.nic_capacity {
                let p = self.new_packet(n, dst, len, NO_FLOW, u32::MAX, 0);
                let id = self.pool.alloc(p);
                self.queue_at_nic(n, id);
            } else {
                self.refused += 1;
            }
            let next = self.now + self.gap.sample(&mut self.rng);
            self.calendar.schedule(self.now, next, n as u32);
        }
        self.due = due;
    }

    /// Flows: create the messages due now and queue their packets while the NICs have room.
    fn run_flows(&mut self) {
        let mut next = self.flow_live.next_from(0);
        while let Some(f) = next {
            next = self.flow_live.next_from(f + 1);
            let fl = &self.flows[f];
            debug_assert_eq!(fl.waiting_for, 0, "a live flow waits for no other");
            if fl.backlog.is_empty() && fl.exhausted(self.now) {
                // Finished for good: nothing is created once exhausted.
                self.flow_live.remove(f);
                continue;
            }
            let now = self.now as f64;
            // New messages: on the flow's clock, or (greedy) when nothing is left to queue.
            loop {
                let fl = &self.flows[f];
                if fl.exhausted(self.now) {
                    break;
                }
                let due = if fl.greedy() {
                    fl.backlog.is_empty() && fl.next <= now
                } else {
                    fl.next <= now
                };
                if !due {
                    break;
                }
                let size = fl.next_message();
                // A greedy source creates messages at up to its node's link rate: w link
                // rates for a node of w links (rails).
                let links = if fl.greedy() {
                    self.net.node_links(fl.spec.src as usize).len() as f64
                } else {
                    1.0
                };
                let interval = size as f64 / (fl.spec.rate * links);
                let msg = Message {
                    flow: f as u32,
                    size,
                    missing: size,
                    created: self.now,
                    arrived: 0,
                };
                let id = match self.free_messages.pop() {
                    Some(i) => {
                        self.messages[i as usize] = msg;
                        i
                    }
                    None => {
                        self.messages.push(msg);
                        (self.messages.len() - 1) as u32
                    }
                };
                let fl = &mut self.flows[f];
                fl.started.get_or_insert(self.now);
                fl.created += size as u64;
                fl.backlog.push_back((id, size));
                let (i, place) = self.flow_place[f];
                self.nic_backlogged[i as usize].insert(place as usize);
                self.nics_backlogged.insert(i as usize);
                fl.next = if fl.greedy() {
                    fl.next.max(now) + interval
                } else {
                    fl.next + interval
                };
            }
        }
        // Packetise into the NICs' queues: each NIC takes a packet from each of its flows
        // with a message waiting in turn (round robin, from the flow after the last one it
        // took), so that flows sharing a NIC share its queue, while it has room. Only NICs
        // and flows with a backlog are visited: a run of flows without one counts as that
        // many idle places, as a scan of every flow would count them.
        let mut next_nic = self.nics_backlogged.next_from(0);
        while let Some(i) = next_nic {
            next_nic = self.nics_backlogged.next_from(i + 1);
            let src = self.flow_nics[i].0 as usize;
            let n = self.flow_nics[i].1.len();
            let mut j = self.flow_rr[i] as usize;
            let mut idle = 0;
            loop {
                // The next place with a backlog, cyclically from `j`, and how far it is.
                let at = j % n;
                let waiting = &self.nic_backlogged[i];
                let Some(place) = waiting.next_from(at).or_else(|| waiting.next_from(0)) else {
                    break;
                };
                let d = if place >= at {
                    place - at
                } else {
                    place + n - at
                };
                if idle + d >= n {
                    break;
                }
                idle += d;
                j += d;
                let f = self.flow_nics[i].1[place] as usize;
                j += 1;
                let (msg, left) = *self.flows[f]
                    .backlog
                    .front()
                    .expect("a place with a backlog");
                let len = left.min(self.packet_length);
                let dst = self.flows[f].spec.dst as usize;
                if self.nics[src].queued_for(dst as u32, self.admittance) + len > self.nic_capacity
                {
                    if self.admittance {
                        // Only this destination's queue is full: try the NIC's other flows.
                        idle += 1;
                        continue;
                    }
                    break;
                }
                idle = 0;
                let seq = (self.messages[msg as usize].size - left) / self.packet_length;
                let p = self.new_packet(src, dst, len, f as u32, msg, seq);
                let id = self.pool.alloc(p);
                self.queue_at_nic(src, id);
                let fl = &mut self.flows[f];
                if left == len {
                    fl.backlog.pop_front();
                    if fl.backlog.is_empty() {
                        self.nic_backlogged[i].remove(place);
                    }
                } else {
                    fl.backlog.front_mut().expect("not empty").1 -= len;
                }
                self.flow_rr[i] = (j % n) as u32;
            }
            if self.nic_backlogged[i].is_empty() {
                self.nics_backlogged.remove(i);
            }
        }
    }

    /// Every NIC with packets and a free link sends its oldest, if its switch's injection
    /// buffer takes it (the VC with the most room).
    fn inject<M: Mechanism>(&mut self, m: &mut M) {
        if self.net.multi_rail() {
            return self.inject_rails(m);
        }
        let mut i = 0;
        while i < self.nic_active.len() {
            let n = self.nic_active[i] as usize;
            if self.nics[n].link_busy <= self.now {
                let (s, pt) = self.net.attach[n];
                let gp = (self.net.port_base[s as usize] + pt as u32) as usize;
                let base = self.vc_base[gp];
                // The oldest packet, or with admittance queues the head of the first
                // destination (round robin) whose packet the switch can take.
                let pick = if self.admittance {
                    let nic = &self.nics[n];
                    let from = nic.next_destination;
                    nic.by_destination
                        .range(from..)
                        .chain(nic.by_destination.range(..from))
                        .find_map(|(&dst, (q, _))| {
                            let pkt = *q.front().expect("admittance queues hold packets");
                            if !m.may_inject(self, n, pkt) {
                                return None;
                            }
                            self.queue_at(gp, self.pool.get(pkt), None, true)
                                .map(|vc| (pkt, vc, dst))
                        })
                } else {
                    let pkt = *self.nics[n]
                        .queue
                        .front()
                        .expect("listed NICs hold packets");
                    if m.may_inject(self, n, pkt) {
                        self.queue_at(gp, self.pool.get(pkt), None, true)
                            .map(|vc| (pkt, vc, 0))
                    } else {
                        None
                    }
                };
                if let Some((pkt, q, dst)) = pick {
                    let vc = base + q as u32;
                    let len = self.pool.get(pkt).len as u32;
                    self.fc.take(vc, len);
                    let nic = &mut self.nics[n];
                    if self.admittance {
                        let (queue, phits) = nic
                            .by_destination
                            .get_mut(&dst)
                            .expect("the destination picked");
                        queue.pop_front();
                        *phits -= len;
                        if queue.is_empty() {
                            nic.by_destination.remove(&dst);
                        }
                        nic.next_destination = dst.wrapping_add(1);
                    } else {
                        nic.queue.pop_front();
                    }
                    nic.queued -= len;
                    nic.link_busy = self.now + len as u64 * self.phit_cycles[gp] as u64;
                    let p = self.pool.get_mut(pkt);
                    p.inject_time = self.now as u32;
                    p.vc = (vc - base) as u16;
                    self.collector.on_inject(self.now, s as usize);
                    self.last_move = self.now;
                    let at = self.now + self.net.ports[gp].latency as u64;
                    self.wheel.at(self.now, at, Ev::Arrive { pkt, vc });
                }
            }
            if self.nics[n].is_empty() {
                self.nic_listed[n] = false;
                self.nic_active.swap_remove(i);
            } else {
                i += 1;
            }
        }
    }

    /// Injection on a network where some node has several links (rails): every NIC with
    /// packets sends its oldest, again and again, each on a rail `nic.rail_selection`
    /// picks (a free link whose switch input can take it), so that a node of w rails starts
    /// up to w packets a cycle; the packet is routed to the destination's link
    /// [`Kernel::dst_switch_for`] names.
    fn inject_rails<M: Mechanism>(&mut self, m: &mut M) {
        let mut i = 0;
        while i < self.nic_active.len() {
            let n = self.nic_active[i] as usize;
            while let Some(&pkt) = self.nics[n].queue.front() {
                if !m.may_inject(self, n, pkt) {
                    break;
                }
                let Some((rail, vc, dst_switch)) = self.pick_rail(n, pkt) else {
                    break;
                };
                self.send_on_rail(n, rail, pkt, vc, dst_switch);
            }
            if self.nics[n].is_empty() {
                self.nic_listed[n] = false;
                self.nic_active.swap_remove(i);
            } else {
                i += 1;
            }
        }
    }

    /// Whether node `n` can send `pkt` on its rail `rail` now: its link free, the
    /// destination reachable from that rail's switch, and the switch's input able to take
    /// it. Then the input VC (global index), its room, and the destination switch.
    #[inline]
    fn rail_takes(&self, n: usize, rail: usize, pkt: &Packet) -> Option<(u32, u32, u32)> {
        if self.nics[n].rail_busy[rail] > self.now {
            return None;
        }
        let (s, pt) = self.net.node_links(n)[rail];
        let dst_switch = self.dst_switch_for(s as usize, rail, pkt.dst as usize)?;
        let gp = (self.net.port_base[s as usize] + pt as u32) as usize;
        let mut p = *pkt;
        p.dst_switch = dst_switch;
        let q = self.queue_at(gp, &p, None, true)?;
        let vc = self.vc_base[gp] + q as u32;
        Some((vc, self.fc.room(vc), dst_switch))
    }

    /// The rail node `n` sends `pkt` on now (`nic.rail_selection`), with the input VC it
    /// joins and its destination switch; None: it waits.
    fn pick_rail(&self, n: usize, pkt: u32) -> Option<(usize, u32, u32)> {
        use crate::config::RailSelection;
        let p = *self.pool.get(pkt);
        let w = self.net.node_links(n).len();
        let from = self.nics[n].rail_next as usize;
        match self.rail_selection {
            RailSelection::DModK => {
                // Rail d mod w among the rails from which d can be reached (all of them
                // on an XGFT), waited for.
                let reach = |r: usize| {
                    let s = self.net.node_links(n)[r].0 as usize;
                    self.dst_switch_for(s, r, p.dst as usize).is_some()
                };
                let count = (0..w).filter(|&r| reach(r)).count().max(1);
                let r = (0..w).filter(|&r| reach(r)).nth(p.dst as usize % count)?;
                self.rail_takes(n, r, &p).map(|(vc, _, d)| (r, vc, d))
            }
            RailSelection::RoundRobin => (0..w).find_map(|j| {
                let r = (from + j) % w;
                self.rail_takes(n, r, &p).map(|(vc, _, d)| (r, vc, d))
            }),
            RailSelection::LeastLoaded => {
                let mut best: Option<(usize, u32, u32, u32)> = None;
                for j in 0..w {
                    let r = (from + j) % w;
                    if let Some((vc, room, d)) = self.rail_takes(n, r, &p) {
                        if best.is_none_or(|b| room > b.2) {
                            best = Some((r, vc, room, d));
                        }
                    }
                }
                best.map(|(r, vc, _, d)| (r, vc, d))
            }
        }
    }

    /// Node `n` sends `pkt`, the head of its queue, on its rail `rail` into input VC `vc`
    /// of that rail's switch, routed to destination switch `dst_switch`.
    fn send_on_rail(&mut self, n: usize, rail: usize, pkt: u32, vc: u32, dst_switch: u32) {
        let links = self.net.node_links(n);
        let w = links.len();
        let (s, pt) = links[rail];
        let gp = (self.net.port_base[s as usize] + pt as u32) as usize;
        let base = self.vc_base[gp];
        let len = self.pool.get(pkt).len as u32;
        self.fc.take(vc, len);
        let nic = &mut self.nics[n];
        nic.queue.pop_front();
        nic.queued -= len;
        nic.rail_busy[rail] = self.now + len as u64 * self.phit_cycles[gp] as u64;
        nic.rail_next = ((rail + 1) % w) as u32;
        self.rail_sent[self.net.rail_base[n] as usize + rail] += len as u64;
        let p = self.pool.get_mut(pkt);
        p.inject_time = self.now as u32;
        p.vc = (vc - base) as u16;
        p.dst_switch = dst_switch;
        self.collector.on_inject(self.now, s as usize);
        self.last_move = self.now;
        let at = self.now + self.net.ports[gp].latency as u64;
        self.wheel.at(self.now, at, Ev::Arrive { pkt, vc });
    }

    /// The head of `pkt` reaches its destination NIC; its tail follows `len - 1` phits later.
    fn deliver(&mut self, pkt: u32) {
        let p = *self.pool.get(pkt);
        let phit = self.net.attach.get(p.dst as usize).map_or(1, |&(s, port)| {
            self.phit_cycles[self.net.port_base[s as usize] as usize + port as usize]
        });
        let tail = self.now + p.len as u64 * phit as u64 - 1;
        let old = crate::engine::packet::Packet {
            src: p.src,
            dst_router: p.dst_switch,
            gen_time: p.gen_time,
            inject_time: p.inject_time,
            len: p.len,
            hops: p.hops as u16,
            escape_hops: 0,
            dst_port: 0,
            global_hops: p.global_hops,
            escape_entries: 0,
            misrouted: p.misrouted(),
            route: Default::default(),
        };
        self.collector.on_deliver(tail, &old, p.dst_switch as usize);
        self.last_tail = self.last_tail.max(tail);
        self.delivered += 1;
        self.last_move = self.now;
        if p.flow != NO_FLOW {
            let in_window = self.collector.in_window(tail);
            let width = self.series_window;
            let fl = &mut self.flows[p.flow as usize];
            fl.delivered += p.len as u64;
            if in_window {
                fl.delivered_in_window += p.len as u64;
            }
            if let Some(w) = tail.checked_div(width) {
                let w = w as usize;
                if fl.series.len() <= w {
                    fl.series.resize(w + 1, 0);
                }
                fl.series[w] += p.len as u64;
            }
            let m = &mut self.messages[p.msg as usize];
            m.missing -= p.len as u32;
            let reordered = p.seq != m.arrived;
            m.arrived += 1;
            self.flows[p.flow as usize].reordered += reordered as u64;
            let m = &mut self.messages[p.msg as usize];
            if m.missing == 0 {
                let created = m.created;
                self.free_messages.push(p.msg);
                let fl = &mut self.flows[p.flow as usize];
                fl.messages_delivered += 1;
                fl.message_latency_sum += tail - created;
                if fl.spec.size != 0 && fl.delivered == fl.spec.size {
                    fl.completed = Some(tail);
                    if let Some(left) = self.unfinished.as_mut() {
                        *left -= 1;
                    }
                    let deps = std::mem::take(&mut fl.dependents);
                    for d in deps {
                        let w = &mut self.flows[d];
                        w.waiting_for -= 1;
                        if w.waiting_for == 0 {
                            self.flow_live.insert(d);
                            // Its start counts from the completion of the last flow it waited for.
                            w.next = (tail + 1 + w.spec.start) as f64;
                            if w.spec.stop != 0 {
                                w.spec.stop += tail + 1;
                            }
                        }
                    }
                }
            }
        }
        self.pool.release(pkt);
    }
}

/// A simulation on the kernel with switch architecture `S` and congestion mechanism `M`.
pub struct Sim<S: Switch, M: Mechanism> {
    pub k: Kernel,
    pub sw: S,
    pub mech: M,
    watchdog: u64,
    end: u64,
    seed: u64,
    offered: f64,
    describe: String,
    pattern_name: String,
    routing_name: String,
    group_size: usize,
    /// Per switch, its level where the topology has levels (fat trees, multistage
    /// networks, Dragonfly+), for link classes `up`/`down` and statistics per level.
    levels: Vec<u32>,
}

/// The groups of the dragonfly and Dragonfly+, for non-minimal routing: per switch its
/// group, nodes per group (numbered group by group), groups, leaves and switches per group,
/// and whether an intermediate switch is reached with its group.
struct GroupShape {
    group_of: Vec<u32>,
    nodes: u32,
    count: u32,
    leaves: u32,
    switches: u32,
    by_group: bool,
}

/// Build a kernel simulation for a validated configuration that uses it.
pub fn build(cfg: &Config) -> Result<Box<dyn Simulator>, ConfigError> {
    if let Some(q) = &cfg.qcn {
        return Ok(Box::new(build_with(cfg, qcn::Qcn::new(q, cfg))?));
    }
    Ok(Box::new(build_with(cfg, NoMechanism)?))
}

/// A kernel simulation of `cfg` with congestion mechanism `m` (a mechanism written in Rust
/// against [`Mechanism`]: the simulation is returned whole, so that the caller can read the
/// mechanism's own state after running it).
pub fn build_with<M: Mechanism>(cfg: &Config, mut m: M) -> Result<Sim<Cioq, M>, ConfigError> {
    crate::validate(cfg)?;
    let mut levels = Vec::new();
    let nonminimal = match cfg.routing.algorithm {
        crate::config::RoutingAlgorithm::Val => NonMinimal::Valiant,
        crate::config::RoutingAlgorithm::Dfp => NonMinimal::Dfp,
        crate::config::RoutingAlgorithm::Pb => NonMinimal::Pb,
        _ => NonMinimal::None,
    };
    let asks = m.routes_at_injection();
    // Groups for non-minimal routing.
    let mut groups: Option<GroupShape> = None;
    let (net, describe, shape, mut route) = match cfg.topology.kind {
        TopologyKind::Dragonfly => {
            let df = Dragonfly::new(&cfg.topology);
            let shape = Shape {
                p: df.p,
                a: df.a,
                g: df.g,
            };
            let net = df.network();
            rails_supported(cfg, &net, false)?;
            // VCs by position in l-g-l (the global hops taken), as FOGSim and the
            // input-queued engine have them: counting local hops instead put the last local
            // hop of a packet that skipped the first on local VC 0, the VC of other packets'
            // first hop, and deadlocked MIN under ADV+1 (a cycle through every group).
            let route = RouteTable::with_next_hop(&net, VcPolicy::GlobalHops, &|s, d| {
                crate::routing::min::minimal_hop(&df, s, d)
                    .expect("distinct routers have a minimal hop")
                    .0
            });
            let a = df.a as u32;
            groups = Some(GroupShape {
                group_of: (0..net.num_routers() as u32).map(|s| s / a).collect(),
                nodes: (df.p * df.a) as u32,
                count: df.g as u32,
                leaves: a,
                switches: a,
                by_group: true,
            });
            (net, df.describe(), shape, route)
        }
        TopologyKind::Graph => {
            let g = Graph::new(&*cfg.topology.graph()?, cfg.topology.terminal_latency);
            let shape = Shape {
                p: g.num_nodes(),
                a: 1,
                g: 1,
            };
            let net = g.network();
            rails_supported(cfg, &net, m.sends_control() || asks)?;
            let route = tables::for_config(cfg, &net)?
                .unwrap_or_else(|| RouteTable::new(&net, VcPolicy::Hops))
                .with_selection(&cfg.routing, cfg.simulation.seed, None)
                .map_err(|message| ConfigError::Field {
                    field: "routing.selection".into(),
                    message,
                })?;
            (net, g.describe(), shape, route)
        }
        _ => {
            let g = crate::topology::generated(&cfg.topology).expect("a generated topology");
            let shape = Shape {
                p: g.graph.hosts.len(),
                a: 1,
                g: 1,
            };
            let net = g.network();
            rails_supported(cfg, &net, m.sends_control() || asks)?;
            // Shortest paths on fat trees and multistage networks go up, then down: free
            // of deadlock on one VC.
            let route = tables::for_config(cfg, &net)?
                .unwrap_or_else(|| RouteTable::new(&net, VcPolicy::UpDown))
                .with_selection(&cfg.routing, cfg.simulation.seed, Some(&g))
                .map_err(|message| ConfigError::Field {
                    field: "routing.selection".into(),
                    message,
                })?;
            levels = g.level.clone();
            if cfg.topology.kind == TopologyKind::DragonflyPlus {
                let c = &cfg.topology.dragonfly_plus;
                let per = c.leaves + c.spines;
                groups = Some(GroupShape {
                    group_of: (0..net.num_routers() as u32).map(|s| s / per).collect(),
                    nodes: c.leaves * c.hosts,
                    count: c.num_groups(),
                    leaves: c.leaves,
                    switches: per,
                    by_group: false,
                });
            }
            (net, g.describe, shape, route)
        }
    };
    let names = classes::names(&net, &levels);
    let mut net = net;
    classes::apply_latencies(cfg, &mut net, &names)?;
    if nonminimal != NonMinimal::None || asks {
        let what = if asks {
            "a mechanism that routes at injection".to_string()
        } else {
            format!("routing.algorithm = \"{}\"", cfg.routing.algorithm.name())
        };
        if groups.is_none() {
            return Err(ConfigError::Field {
                field: "topology.kind".into(),
                message: format!(
                    "{what} sends packets through intermediate groups: it needs topology.kind = \"dragonfly\" or \"dragonfly-plus\""
                ),
            });
        }
        if route.by_node || route.need.is_some() {
            return Err(ConfigError::Field {
                field: "routing.paths".into(),
                message: format!(
                    "{what} orders the VCs of its own paths: leave routing.paths at \"shortest\""
                ),
            });
        }
        // l-g-l-g-l: local VCs 0, 1, 2 in the source, intermediate and destination
        // groups, global VCs 0 and 1.
        route.policy = VcPolicy::GlobalHops;
        route.need = Some((3, 2));
    }
    if route.by_node && m.sends_control() {
        return Err(ConfigError::Field {
            field: "routing.paths".into(),
            message: "control packets are routed by destination switch, and tables read from a file route by node: use another routing.paths with this mechanism".into(),
        });
    }
    match cfg.switch.kind {
        SwitchKind::Cioq => {
            let mut kernel = Kernel::new(cfg, net, shape, route, m.sends_control(), names)?;
            kernel.nonminimal = nonminimal;
            kernel.routes_at_injection = asks;
            kernel.decides_at_injection = nonminimal != NonMinimal::None || asks;
            if let Some(g) = groups {
                kernel.group_of = g.group_of;
                kernel.nodes_per_group = g.nodes;
                kernel.groups = g.count;
                kernel.leaves_per_group = g.leaves;
                kernel.switches_per_group = g.switches;
                kernel.via_by_group = g.by_group;
            }
            if nonminimal == NonMinimal::Pb {
                let t = &cfg.topology;
                let r = &cfg.routing;
                kernel.pb = Some(piggyback::Piggyback::new(
                    &kernel,
                    (t.p, t.a, t.h),
                    r.pb_factor,
                    r.pb_global_threshold,
                    r.ugal_threshold,
                    cfg.router.packet_length,
                ));
            }
            let sw = Cioq::new(cfg, &kernel);
            kernel.start();
            m.start(&kernel);
            Ok(Sim {
                levels,
                group_size: shape.a,
                watchdog: cfg.simulation.watchdog_cycles,
                end: cfg.simulation.warmup_cycles + cfg.simulation.measure_cycles,
                seed: cfg.simulation.seed,
                offered: cfg.traffic.load,
                describe: format!("{describe}, CIOQ speedup {}", cfg.switch.speedup),
                pattern_name: measure::describe_traffic(cfg),
                routing_name: {
                    let paths = match (nonminimal, cfg.routing.paths) {
                        (NonMinimal::None, crate::config::Paths::Shortest) => "min",
                        (NonMinimal::None, p) => p.name(),
                        _ => cfg.routing.algorithm.name(),
                    };
                    match cfg.routing.selection {
                        crate::config::Selection::Adaptive => paths.into(),
                        s => format!("{paths}, {}", s.name()),
                    }
                },
                k: kernel,
                sw,
                mech: m,
            })
        }
        SwitchKind::Iq => unreachable!("validation sends IQ configurations to the IQ engine"),
    }
}

impl Kernel {
    fn new(
        cfg: &Config,
        net: Network,
        shape: Shape,
        mut route: RouteTable,
        control: bool,
        class_names: Vec<&'static str>,
    ) -> Result<Kernel, ConfigError> {
        let rc = &cfg.router;
        let (need_local, need_global) = route.vcs_needed(route::acyclic(&net));
        let vcs = |configured: usize, need: u32, key: &str| -> Result<u16, ConfigError> {
            let n = if configured == 0 {
                need as usize
            } else {
                configured
            };
            if (n as u32) < need {
                return Err(ConfigError::Field {
                    field: key.into(),
                    message: format!(
                        "{n} VCs cannot keep shortest-path routing free of deadlock on this network: \
                         its paths need {need} (one per hop of the longest path); use at least {need}, or 0 for exactly that"
                    ),
                });
            }
            if n > 255 {
                return Err(ConfigError::Field {
                    field: key.into(),
                    message: format!("{n} VCs is out of range: allowed up to 255"),
                });
            }
            Ok(n as u16)
        };
        let local = vcs(rc.vcs_local, need_local, "router.vcs_local")?;
        let global = vcs(rc.vcs_global, need_global, "router.vcs_global")?;
        // Levels of the VC order per kind of link: one VC each, or, under up*/down* order
        // (every hop one level), one level that all of a port's VCs serve.
        let levels = if route.policy == VcPolicy::UpDown {
            [1, 1]
        } else {
            [local, global]
        };
        route.last_vc = [(levels[0] - 1) as u8, (levels[1] - 1) as u8];
        // The adaptive selection of generated topologies leaves d-mod-k's port for a port
        // loaded two packets less.
        route.threshold = 2u32.saturating_mul(rc.packet_length);
        let inj = rc.vcs_injection.max(1) as u16;
        let scheme = cfg.switch.queues;
        let nodes = net.num_terminals();
        if control && scheme != QueueScheme::Vc {
            return Err(ConfigError::Field {
                field: "switch.queues".into(),
                message: "a mechanism that sends control packets needs VCs (queues = \"vc\") to give them their own".into(),
            });
        }
        // Control packets take as many VCs again, after the data VCs.
        let copies = if control { 2 } else { 1 };
        if scheme != QueueScheme::Vc && route.policy != VcPolicy::UpDown && !route::acyclic(&net) {
            return Err(ConfigError::Field {
                field: "switch.queues".into(),
                message: "4Q and virtual output queues give packets no deadlock-free order, and \
                          the switches of this network form a cycle: use queues = \"vc\", or a \
                          network without cycles"
                    .into(),
            });
        }
        if scheme == QueueScheme::VoqSwitch
            && route.pick != route::Pick::Fixed
            && route.has_choices()
        {
            // The queue a packet joins is its output at the next switch, chosen by the
            // switch before it from the deterministic first choice: a per-packet choice
            // would never be made, and the user would get a deterministic routing they did
            // not ask for.
            return Err(ConfigError::Field {
                field: "routing.selection".into(),
                message: format!(
                    "\"{}\" chooses among several ports per packet, but with switch.queues = \
                     \"voq-switch\" the queue a packet joins fixes its output before it \
                     arrives, so nothing would be chosen: use a deterministic selection \
                     (\"d-mod-k\", \"s-mod-k\", \"random\"), or queues = \"vc\", \
                     \"four-q\" or \"voq-net\"",
                    cfg.routing.selection.name()
                ),
            });
        }
        if scheme == QueueScheme::VoqNet && nodes > u16::MAX as usize {
            return Err(ConfigError::Field {
                field: "switch.queues".into(),
                message: format!(
                    "one queue per destination is limited to 65535 nodes, not {nodes}"
                ),
            });
        }
        let n_ports = net.ports.len();
        let mut vc_base = Vec::with_capacity(n_ports);
        let mut vc_count = Vec::with_capacity(n_ports);
        let mut vc_port = Vec::new();
        let mut capacity = Vec::new();
        let mut port_capacity = Vec::new();
        let port_credits = cfg.flow_control.kind == FlowControlKind::PortCredits;
        let peer: Vec<u32> = net
            .ports
            .iter()
            .map(|info| match info.class {
                PortClass::Local | PortClass::Global => {
                    net.port_base[info.peer as usize] + info.peer_port as u32
                }
                _ => info.peer,
            })
            .collect();
        // Per input port, its buffers' size and the key that set it.
        let buffers: Vec<(u32, String)> = (0..n_ports)
            .map(|gp| classes::input_buffer(cfg, &net, &class_names, &peer, gp))
            .collect();
        let mut vc_set = Vec::with_capacity(n_ports);
        let mut port_switch = Vec::with_capacity(n_ports);
        for r in 0..net.num_routers() {
            for p in 0..net.radix(r) {
                let gp = net.port_base[r] as usize + p;
                let info = net.ports[gp];
                let (buf, key) = (buffers[gp].0, buffers[gp].1.as_str());
                let class_vcs = classes::input_vcs(cfg, &net, &class_names, &peer, gp);
                if let (Some((_, key)), false) = (&class_vcs, scheme == QueueScheme::Vc) {
                    return Err(ConfigError::Field {
                        field: key.clone(),
                        message: format!(
                            "switch.queues = \"{}\" divides each port's memory among its own \
                             queues, so a VC count does not apply: remove the key, or use \
                             queues = \"vc\"",
                            scheme.name()
                        ),
                    });
                }
                let (n, set) = match info.class {
                    PortClass::Terminal => (class_vcs.map_or(inj, |(v, _)| v), 1),
                    PortClass::Unused => (0, 1),
                    class => {
                        let is_global = class == PortClass::Global;
                        let kind = if is_global { global } else { local };
                        let lv = levels[is_global as usize];
                        let n = match class_vcs {
                            Some((v, key)) if v < lv || v % lv != 0 => {
                                return Err(ConfigError::Field {
                                    field: key,
                                    message: format!(
                                        "{v} VCs do not divide among the {lv} levels of the \
                                         routing's deadlock-free VC order on these links \
                                         (router.vcs_{}: a packet's level is its position on \
                                         its path): use a multiple of {lv}",
                                        if is_global { "global" } else { "local" }
                                    ),
                                });
                            }
                            Some((v, _)) => v,
                            None => kind,
                        };
                        (n * copies, (n / lv) as u8)
                    }
                };
                vc_set.push(set);
                // Other schemes split the port's memory equally among their queues.
                let (n, buf) = match scheme {
                    _ if info.class == PortClass::Unused => (0, 0),
                    QueueScheme::Vc => (n, buf),
                    _ => {
                        let q = match scheme {
                            QueueScheme::FourQ => cfg.switch.queue_count as usize,
                            QueueScheme::VoqSwitch => net.radix(r),
                            _ => nodes,
                        };
                        let each = buf / q as u32;
                        if each < rc.packet_length && !port_credits {
                            return Err(ConfigError::Field {
                                field: key.into(),
                                message: format!(
                                    "{buf} phits of port memory split into {q} queues \
                                     (switch.queues) leave {each} phits each, less than a packet \
                                     of {}: more queues than the port memory holds packets; \
                                     use at least {} phits",
                                    rc.packet_length,
                                    q as u64 * rc.packet_length as u64
                                ),
                            });
                        }
                        (q as u16, each)
                    }
                };
                // With port-level credits the queues share the port's memory: each may grow
                // to all of it, and the port's credits keep their sum within it.
                let memory = if scheme == QueueScheme::Vc {
                    buf.saturating_mul(n as u32)
                } else {
                    buffers[gp].0
                };
                port_capacity.push(memory);
                vc_base.push(vc_port.len() as u32);
                vc_count.push(n);
                for _ in 0..n {
                    vc_port.push(gp as u32);
                    capacity.push(if port_credits { memory } else { buf });
                }
                port_switch.push(r as u32);
            }
        }
        let fcc = &cfg.flow_control;
        if port_credits && fcc.xoff > 0 {
            // A queue may grow to its port's memory and no further: a threshold above the
            // smallest port memory would never stop its sender there.
            let smallest = (0..n_ports)
                .filter(|&gp| net.ports[gp].class != PortClass::Unused)
                .map(|gp| (port_capacity[gp], gp))
                .min_by_key(|&(m, _)| m);
            if let Some((memory, gp)) = smallest {
                if fcc.xoff > memory {
                    return Err(ConfigError::Field {
                        field: "flow_control.xoff".into(),
                        message: format!(
                            "{} phits is above the {memory}-phit port memory of the {} ports \
                             ({}): a queue never holds more than its port's memory, so it would \
                             never stop its sender; use at most {memory} phits",
                            fcc.xoff,
                            class_word(net.ports[gp].class),
                            buffers[gp].1
                        ),
                    });
                }
            }
        }
        if fcc.kind == FlowControlKind::Pfc {
            // A buffer that pauses its sender at xoff still receives what the sender started
            // before the PAUSE reached it, and what was on the link: up to two link latencies
            // of phits and two packets (a packet counts whole when its head arrives).
            let len = rc.packet_length;
            let mut worst: Option<(u32, u32, &str)> = None;
            // Node ports first, then local, then global: on a tie the first is named.
            for class in [PortClass::Terminal, PortClass::Local, PortClass::Global] {
                for gp in (0..n_ports).filter(|&gp| net.ports[gp].class == class) {
                    // The link that feeds the buffer: the node's, or the peer's output.
                    let feeding = if class == PortClass::Terminal {
                        gp
                    } else {
                        peer[gp] as usize
                    };
                    let headroom = 2 * net.ports[feeding].latency + 2 * len;
                    let (buf, key) = (buffers[gp].0, buffers[gp].1.as_str());
                    let max_xoff = buf.saturating_sub(headroom);
                    if worst.is_none_or(|(m, _, _)| max_xoff < m) {
                        worst = Some((max_xoff, buf, key));
                    }
                }
            }
            if let Some((max_xoff, buf, key)) = worst {
                if fcc.xoff > max_xoff {
                    return Err(ConfigError::Field {
                        field: "flow_control.xoff".into(),
                        message: format!(
                            "{} phits leaves too little headroom in the {buf}-phit buffers of {key}: \
                             after pausing, a buffer still takes up to two link latencies and two \
                             packets, so xoff must be at most {max_xoff} (or the buffers larger)",
                            fcc.xoff
                        ),
                    });
                }
            }
        }
        let mut rng = Rng::new(cfg.simulation.seed);
        let sim = &cfg.simulation;
        let (ws, we) = (sim.warmup_cycles, sim.warmup_cycles + sim.measure_cycles);
        // The patterns before and after a change, drawn in the dragonfly engine's order.
        let (pattern, change) = match cfg.synthetic_traffic() {
            true => {
                let wl = Workload::new(cfg, shape.p, shape.a, shape.g, &mut rng);
                let change = wl.change.map(|(at, pattern, injection)| match injection {
                    Injection::Bernoulli { load } => (at, pattern, load),
                    Injection::Burst { .. } => unreachable!("validation refuses bursts here"),
                });
                (Some(wl.pattern), change)
            }
            false => (None, None),
        };
        let max_lat = net.ports.iter().map(|p| p.latency).max().unwrap_or(1) as u64;
        let len = rc.packet_length as u64;
        if sim.watchdog_cycles <= max_lat + len {
            // A packet on the longest link would look like a stall.
            return Err(ConfigError::Field {
                field: "simulation.watchdog_cycles".into(),
                message: format!(
                    "{} cycles is shorter than one hop ({} cycles: longest link latency plus a packet); use more",
                    sim.watchdog_cycles,
                    max_lat + len
                ),
            });
        }
        // Transfers end by when the tail arrived or len / speedup cycles later; links and
        // signals take at most the longest latency.
        let horizon = max_lat + 2 * len + 4;
        let (specs, collectives) = cfg.kernel_flows()?;
        let mut flows: Vec<FlowState> = specs
            .iter()
            .map(|f| FlowState::new(f, rc.packet_length))
            .collect();
        for i in 0..flows.len() {
            for &a in &specs[i].after {
                flows[a].dependents.push(i);
            }
        }
        // A run of collectives (and sized flows) alone ends when the last has completed.
        let unfinished = (!collectives.is_empty()
            && !cfg.synthetic_traffic()
            && specs.iter().all(|f| f.size != 0))
        .then_some(specs.len());
        let mut flow_nics: Vec<(u32, Vec<u32>)> = Vec::new();
        for (i, f) in specs.iter().enumerate() {
            match flow_nics.iter_mut().find(|(n, _)| *n as u64 == f.src) {
                Some((_, list)) => list.push(i as u32),
                None => flow_nics.push((f.src as u32, vec![i as u32])),
            }
        }
        let mut flow_live = bits::BitSet::new(flows.len());
        for (f, fl) in flows.iter().enumerate() {
            if fl.waiting_for == 0 {
                flow_live.insert(f);
            }
        }
        let mut flow_place = vec![(0, 0); flows.len()];
        for (i, (_, list)) in flow_nics.iter().enumerate() {
            for (place, &f) in list.iter().enumerate() {
                flow_place[f as usize] = (i as u32, place as u32);
            }
        }
        let routers = net.num_routers();
        Ok(Kernel {
            flow_rr: vec![0; flow_nics.len()],
            nic_backlogged: flow_nics
                .iter()
                .map(|(_, list)| bits::BitSet::new(list.len()))
                .collect(),
            nics_backlogged: bits::BitSet::new(flow_nics.len()),
            flow_live,
            flow_place,
            flow_nics,
            now: 0,
            wheel: Wheel::new(horizon),
            pool: Pool::default(),
            route,
            fc: FlowControl::new(fcc.kind, fcc.xoff, fcc.xon, capacity)
                .with_ports(vc_port.clone(), port_capacity),
            link_busy: vec![0; n_ports],
            phit_cycles: class_names
                .iter()
                .map(|&c| cfg.link_classes.get(c).map_or(1, |c| c.phit_cycles()))
                .collect(),
            sent: vec![0; n_ports],
            meas: measure::PortMeasure::new(n_ports, (ws, we), sim.port_series_window),
            sent_at_window_start: Vec::new(),
            vc_base,
            vc_count,
            vc_port,
            peer,
            port_switch,
            queues: scheme,
            vc_set,
            control_vcs: control,
            pending_control: Vec::new(),
            control: ControlCount::default(),
            nics: (0..nodes)
                .map(|n| Nic {
                    rail_busy: if net.multi_rail() {
                        vec![0; net.node_links(n).len()]
                    } else {
                        Vec::new()
                    },
                    ..Nic::default()
                })
                .collect(),
            nic_active: Vec::new(),
            nic_listed: vec![false; nodes],
            collector: Collector::new(ws, we, routers, sim.series_window),
            packet_length: rc.packet_length,
            nic_capacity: cfg.nic.queue,
            admittance: cfg.nic.admittance,
            frame_phits: cfg.flow_control.frame_phits,
            frame_link_phits: 0,
            gap: Geometric::new(cfg.traffic.load / rc.packet_length as f64),
            pattern,
            change,
            rng,
            calendar: Calendar::new(12),
            due: Vec::new(),
            flows,
            collectives,
            unfinished,
            messages: Vec::new(),
            free_messages: Vec::new(),
            series_window: sim.series_window,
            generated: 0,
            delivered: 0,
            refused: 0,
            packet_hops: 0,
            pauses_at_nodes: 0,
            last_move: 0,
            last_tail: 0,
            events: Vec::new(),
            class_names,
            nonminimal: NonMinimal::None,
            routes_at_injection: false,
            decides_at_injection: false,
            group_of: Vec::new(),
            nodes_per_group: 0,
            groups: 0,
            leaves_per_group: 0,
            switches_per_group: 0,
            via_by_group: true,
            route_rng: Rng::new(cfg.simulation.seed ^ 0x524F_5554_4552_5321),
            pb: None,
            rail_selection: cfg.nic.rail_selection,
            rail_sent: vec![0; net.rails.len()],
            rail_sent_at_window_start: Vec::new(),
            switch_dist: if net.multi_rail() {
                switch_distances(&net)
            } else {
                Vec::new()
            },
            net,
        })
    }

    fn start(&mut self) {
        if self.pattern.is_some() {
            for n in 0..self.net.num_terminals() {
                let t = self.gap.sample(&mut self.rng) - 1;
                self.calendar.schedule(0, t, n as u32);
            }
        }
    }
}

/// What nodes with several links (rails) do not run with yet, refused naming the key; and
/// `nic.rail_selection` on a network whose nodes have one link each.
fn rails_supported(cfg: &Config, net: &Network, mechanism: bool) -> Result<(), ConfigError> {
    let err = |field: &str, message: String| {
        Err(ConfigError::Field {
            field: field.into(),
            message,
        })
    };
    if !net.multi_rail() {
        if cfg.nic.rail_selection != crate::config::RailSelection::default() {
            return err(
                "nic.rail_selection",
                format!(
                    "\"{}\" chooses among a node's links, and every node of this network has one: \
                     remove the key, or give nodes several links (topology.xgft.w with w1 > 1, \
                     topology.graph.rails)",
                    cfg.nic.rail_selection.name()
                ),
            );
        }
        return Ok(());
    }
    let why = "nodes with several links (topology.xgft.w[0] > 1, topology.graph.rails)";
    if cfg.routing.paths != crate::config::Paths::Shortest {
        return err(
            "routing.paths",
            format!(
                "\"{}\" is not available with {why}: their packets are routed on every shortest \
                 path (routing.paths = \"shortest\", with any routing.selection)",
                cfg.routing.paths.name()
            ),
        );
    }
    if cfg.nic.admittance {
        return err(
            "nic.admittance",
            format!(
                "admittance queues are not available with {why} yet: their NICs keep one \
                 injection queue; remove the key"
            ),
        );
    }
    if mechanism {
        return err(
            "qcn",
            format!(
                "a congestion mechanism ([qcn]) is not available with {why} yet: its \
                 notifications go back to the switch of a packet's source, which has several"
            ),
        );
    }
    Ok(())
}

/// Switch-to-switch distances in hops, one byte each (`u8::MAX`: not reachable; longer
/// distances are kept at 254), from [`Network::hop_distances`].
fn switch_distances(net: &Network) -> Vec<u8> {
    net.hop_distances()
        .into_iter()
        .map(|d| {
            if d == u32::MAX {
                u8::MAX
            } else {
                d.min(254) as u8
            }
        })
        .collect()
}

/// How a message names the ports of `class`.
fn class_word(class: PortClass) -> &'static str {
    match class {
        PortClass::Terminal => "injection (node)",
        PortClass::Local => "local",
        PortClass::Global => "global",
        PortClass::Unused => "unused",
    }
}

/// Tell the switch upstream of input VC `vc` (none for a node's port: its NIC looks at its
/// credits every cycle) that its flow control state changed.
#[inline]
fn notify_sender<S: Switch>(k: &Kernel, sw: &mut S, vc: u32) {
    let gp = k.vc_port[vc as usize] as usize;
    if k.net.ports[gp].class != PortClass::Terminal {
        sw.flow_control_changed(k, k.peer[gp] as usize);
    }
}

impl<S: Switch, M: Mechanism> Sim<S, M> {
    fn cycle(&mut self) -> Result<(), SimError> {
        let k = &mut self.k;
        if k.now == k.collector.window_start {
            k.sent_at_window_start = k.sent.clone();
            k.rail_sent_at_window_start = k.rail_sent.clone();
        }
        if k.meas.series_due(k.now) {
            k.meas.snapshot(k.now, &k.sent);
        }
        if let Some(mut pb) = k.pb.take() {
            pb.update(k);
            k.pb = Some(pb);
        }
        let mut evs = std::mem::take(&mut k.events);
        k.wheel.take(k.now, &mut evs);
        for &ev in &evs {
            match ev {
                Ev::Arrive { pkt, vc } => {
                    let len = k.pool.get(pkt).len as u32;
                    k.buffer_enter(vc, len)?;
                    self.sw.arrive(k, &mut self.mech, vc, pkt);
                }
                Ev::Deliver { pkt } => {
                    self.mech.on_deliver(k, pkt);
                    k.deliver(pkt);
                }
                Ev::Credit { vc, phits } => {
                    k.fc.receive(vc, Signal::Credit(phits));
                    notify_sender(k, &mut self.sw, vc);
                }
                Ev::Pause { vc, on } => {
                    let gp = k.vc_port[vc as usize] as usize;
                    if on && k.net.ports[gp].class == PortClass::Terminal {
                        k.pauses_at_nodes += 1;
                    }
                    k.fc.receive(vc, if on { Signal::Pause } else { Signal::Resume });
                    notify_sender(k, &mut self.sw, vc);
                }
                Ev::XferDone {
                    pkt,
                    vc,
                    port,
                    queue,
                } => self
                    .sw
                    .transfer_done(k, &mut self.mech, pkt, vc, port as usize, queue),
            }
        }
        k.events = evs;
        k.apply_change();
        k.generate();
        k.run_flows();
        k.inject(&mut self.mech);
        self.sw.step(k, &mut self.mech);
        self.mech.on_cycle(k, &self.sw);
        if k.pool.live() > 0 && k.now - k.last_move > self.watchdog {
            let idle = k.now - k.last_move;
            return Err(SimError::Stall(stall::report(
                k,
                &self.sw,
                idle,
                k.last_move,
            )));
        }
        if k.pool.live() == 0 {
            k.last_move = k.now;
        }
        k.now += 1;
        Ok(())
    }
}

impl<S: Switch, M: Mechanism> Simulator for Sim<S, M> {
    fn run_with(&mut self, tick: &mut dyn FnMut(Tick) -> bool) -> Result<RunResult, SimError> {
        let t0 = Instant::now();
        while self.k.now < self.end {
            let now = self.k.now;
            if now % TICK_CYCLES == 0 && now > 0 {
                let done = now as f64 / self.end as f64;
                if !tick(Tick { now, done }) {
                    return Err(SimError::Interrupted { cycles: now });
                }
            }
            self.cycle()?;
            if self.k.unfinished == Some(0) && self.k.now > self.k.last_tail {
                // Every flow delivered, its last tail in: nothing is left to move.
                break;
            }
        }
        Ok(self.result(t0.elapsed().as_secs_f64()))
    }

    fn step(&mut self) -> Result<(), SimError> {
        self.cycle()
    }

    fn now(&self) -> u64 {
        self.k.now
    }

    fn audit(&self) -> Audit {
        let mut seen = vec![false; self.k.pool.capacity_used()];
        let (mut dup, mut in_buffers, mut on_links) = (0u64, 0u64, 0u64);
        let mut mark = |id: u32, seen: &mut Vec<bool>| {
            if std::mem::replace(&mut seen[id as usize], true) {
                dup += 1;
            }
        };
        for nic in &self.k.nics {
            for &id in nic.packets() {
                mark(id, &mut seen);
                in_buffers += 1;
            }
        }
        for &(_, id) in &self.k.pending_control {
            mark(id, &mut seen);
            in_buffers += 1;
        }
        self.sw.held(&mut |id| {
            mark(id, &mut seen);
            in_buffers += 1;
        });
        for ev in self.k.wheel.pending() {
            match *ev {
                Ev::Arrive { pkt, .. } | Ev::Deliver { pkt } => {
                    mark(pkt, &mut seen);
                    on_links += 1;
                }
                Ev::XferDone { pkt, .. } => {
                    mark(pkt, &mut seen);
                    in_buffers += 1;
                }
                Ev::Credit { .. } | Ev::Pause { .. } => {}
            }
        }
        // Control packets count as generated when sent and as delivered when consumed or
        // dropped (for want of room in a switch's control queue).
        let c = self.k.control;
        Audit {
            generated: self.k.generated + c.sent,
            delivered: self.k.delivered + c.consumed + c.dropped,
            in_buffers,
            on_links,
            duplicates: dup,
            live: self.k.pool.live() as u64,
        }
    }

    fn set_exhaustive_allocation(&mut self, _on: bool) {}

    /// Tracing is the dragonfly engine's (the CLI refuses `--trace` on the kernel).
    fn set_trace(&mut self, _spec: crate::engine::TraceSpec) {}

    fn take_trace(&mut self) -> Vec<crate::engine::TraceRecord> {
        Vec::new()
    }
}
