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

pub mod events;
pub mod flow_control;
mod measure;
pub mod mechanism;
pub mod nic;
pub mod packet;
pub mod qcn;
pub mod route;
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
use events::{Ev, Wheel};
use flow_control::{FlowControl, Signal};
use mechanism::{Mechanism, NoMechanism};
use nic::{FlowState, Message, Nic};
use packet::{Kind, Packet, Pool, NEVER, NO_FLOW};
use route::{RouteTable, VcPolicy};
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
    /// Data VCs of local and global links; control VCs (as many, when the mechanism sends
    /// control packets) follow them.
    pub data_vcs: [u16; 2],
    pub control_vcs: bool,
    /// Control packets the mechanism sent this cycle, by switch, for the switch to queue.
    pub pending_control: Vec<(u32, u32)>,
    pub control: ControlCount,
    /// Per global port, output side: its link carries a packet until this cycle, and the
    /// phits it has sent.
    pub link_busy: Vec<u64>,
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
    gap: Geometric,
    calendar: Calendar,
    due: Vec<u32>,
    // Flows and messages.
    pub flows: Vec<FlowState>,
    /// Each NIC that sends flows, with its flows, and the flow it takes a packet from next.
    flow_nics: Vec<(u32, Vec<u32>)>,
    flow_rr: Vec<u32>,
    /// Message table; slots of delivered messages are reused.
    messages: Vec<Message>,
    free_messages: Vec<u32>,
    series_window: u64,
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
}

impl Kernel {
    /// Occupy output `gp`'s link with `pkt` and schedule its head's arrival at the far end:
    /// the input VC `pkt.vc` of the peer port, or the destination NIC.
    #[inline]
    pub fn send(&mut self, gp: usize, pkt: u32) {
        let info = self.net.ports[gp];
        let p = self.pool.get_mut(pkt);
        let len = p.len as u64;
        self.link_busy[gp] = self.now + len;
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
        };
        let id = self.pool.alloc(p);
        self.control.sent += 1;
        self.pending_control.push((at as u32, id));
    }

    /// The VC a control packet takes on a link of class `class`: the control VC of the
    /// routing's order.
    #[inline]
    pub fn control_vc(&self, pkt: &Packet, class: PortClass) -> u16 {
        let global = class == PortClass::Global;
        self.data_vcs[global as usize] + self.route.next_vc(pkt.hops, pkt.global_hops, class) as u16
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
            (QueueScheme::Vc, Some(vc)) => vc as u16,
            (QueueScheme::Vc | QueueScheme::FourQ, _) => {
                let mut best = None;
                let mut best_room = 0;
                for q in 0..self.vc_count[gp] {
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
            return self.net.attach[pkt.dst as usize].1;
        }
        let ports = self.route.group(s, pkt.dst_switch as usize, pkt.dst);
        ports[self.route.first_choice(s, pkt.src, pkt.dst, ports.len())]
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
            self.link_busy[gp] = start + self.frame_phits as u64;
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
        }
    }

    /// Synthetic traffic: the nodes due now create a packet each, if their queue has room.
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
        for f in 0..self.flows.len() {
            let fl = &self.flows[f];
            if fl.waiting_for > 0 || (fl.backlog.is_empty() && fl.exhausted(self.now)) {
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
                let interval = size as f64 / fl.spec.rate;
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
                fl.next = if fl.greedy() {
                    fl.next.max(now) + interval
                } else {
                    fl.next + interval
                };
            }
        }
        // Packetise into the NICs' queues: each NIC takes a packet from each of its flows
        // with a message waiting in turn (round robin, from the flow after the last one it
        // took), so that flows sharing a NIC share its queue, while it has room.
        for i in 0..self.flow_nics.len() {
            let src = self.flow_nics[i].0 as usize;
            let n = self.flow_nics[i].1.len();
            let mut j = self.flow_rr[i] as usize;
            let mut idle = 0;
            while idle < n {
                let f = self.flow_nics[i].1[j % n] as usize;
                j += 1;
                let Some(&(msg, left)) = self.flows[f].backlog.front() else {
                    idle += 1;
                    continue;
                };
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
                } else {
                    fl.backlog.front_mut().expect("not empty").1 -= len;
                }
                self.flow_rr[i] = (j % n) as u32;
            }
        }
    }

    /// Every NIC with packets and a free link sends its oldest, if its switch's injection
    /// buffer takes it (the VC with the most room).
    fn inject<M: Mechanism>(&mut self, m: &mut M) {
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
                    nic.link_busy = self.now + len as u64;
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

    /// The head of `pkt` reaches its destination NIC; its tail follows `len - 1` cycles later.
    fn deliver(&mut self, pkt: u32) {
        let p = *self.pool.get(pkt);
        let tail = self.now + p.len as u64 - 1;
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
            misrouted: false,
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
                    let deps = std::mem::take(&mut fl.dependents);
                    for d in deps {
                        let w = &mut self.flows[d];
                        w.waiting_for -= 1;
                        if w.waiting_for == 0 {
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
    let (net, describe, shape, route) = match cfg.topology.kind {
        TopologyKind::Dragonfly => {
            let df = Dragonfly::new(&cfg.topology);
            let shape = Shape {
                p: df.p,
                a: df.a,
                g: df.g,
            };
            let net = df.network();
            let route = RouteTable::with_next_hop(&net, VcPolicy::ClassHops, &|s, d| {
                crate::routing::min::minimal_hop(&df, s, d)
                    .expect("distinct routers have a minimal hop")
                    .0
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
            (net, g.describe, shape, route)
        }
    };
    if route.by_node && m.sends_control() {
        return Err(ConfigError::Field {
            field: "routing.paths".into(),
            message: "control packets are routed by destination switch, and tables read from a file route by node: use another routing.paths with this mechanism".into(),
        });
    }
    match cfg.switch.kind {
        SwitchKind::Cioq => {
            let mut kernel = Kernel::new(cfg, net, shape, route, m.sends_control())?;
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
                    let paths = match cfg.routing.paths {
                        crate::config::Paths::Shortest => "min",
                        p => p.name(),
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
        route.last_vc = [(local - 1) as u8, (global - 1) as u8];
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
        let mut peer = Vec::with_capacity(n_ports);
        let mut port_switch = Vec::with_capacity(n_ports);
        for r in 0..net.num_routers() {
            for p in 0..net.radix(r) {
                let gp = net.port_base[r] as usize + p;
                let info = net.ports[gp];
                let (n, buf, key) = match info.class {
                    PortClass::Terminal => (inj, rc.buffer_injection, "router.buffer_injection"),
                    PortClass::Local => (local * copies, rc.buffer_local, "router.buffer_local"),
                    PortClass::Global => {
                        (global * copies, rc.buffer_global, "router.buffer_global")
                    }
                    PortClass::Unused => (0, 0, ""),
                };
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
                    port_memory_of(info.class, rc)
                };
                port_capacity.push(memory);
                vc_base.push(vc_port.len() as u32);
                vc_count.push(n);
                for _ in 0..n {
                    vc_port.push(gp as u32);
                    capacity.push(if port_credits { memory } else { buf });
                }
                port_switch.push(r as u32);
                peer.push(match info.class {
                    PortClass::Local | PortClass::Global => {
                        net.port_base[info.peer as usize] + info.peer_port as u32
                    }
                    _ => info.peer,
                });
            }
        }
        let fcc = &cfg.flow_control;
        if port_credits && fcc.xoff > 0 {
            // A queue may grow to its port's memory and no further: a threshold above the
            // smallest port memory would never stop its sender there.
            let smallest = (0..n_ports)
                .filter(|&gp| net.ports[gp].class != PortClass::Unused)
                .map(|gp| (port_capacity[gp], net.ports[gp].class))
                .min_by_key(|&(m, _)| m);
            if let Some((memory, class)) = smallest {
                if fcc.xoff > memory {
                    return Err(ConfigError::Field {
                        field: "flow_control.xoff".into(),
                        message: format!(
                            "{} phits is above the {memory}-phit port memory of the {} ports: a \
                             queue never holds more than its port's memory, so it would never \
                             stop its sender; use at most {memory} phits",
                            fcc.xoff,
                            class_word(class)
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
            for (class, buf, key) in [
                (
                    PortClass::Terminal,
                    rc.buffer_injection,
                    "router.buffer_injection",
                ),
                (PortClass::Local, rc.buffer_local, "router.buffer_local"),
                (PortClass::Global, rc.buffer_global, "router.buffer_global"),
            ] {
                let lat = net
                    .ports
                    .iter()
                    .filter(|p| p.class == class)
                    .map(|p| p.latency)
                    .max();
                let Some(lat) = lat else { continue };
                let headroom = 2 * lat + 2 * len;
                let max_xoff = buf.saturating_sub(headroom);
                if worst.is_none_or(|(m, _, _)| max_xoff < m) {
                    worst = Some((max_xoff, buf, key));
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
        let synthetic = cfg.traffic.load != 0.0 || cfg.flows.is_empty();
        let pattern = synthetic.then(|| {
            let t = &cfg.traffic;
            Pattern::new(shape, t.pattern, t.offset, &t.mix, t, &mut rng)
        });
        let max_lat = net.ports.iter().map(|p| p.latency).max().unwrap_or(1) as u64;
        let len = rc.packet_length as u64;
        // Transfers end by when the tail arrived or len / speedup cycles later; links and
        // signals take at most the longest latency.
        let horizon = max_lat + 2 * len + 4;
        let mut flows: Vec<FlowState> = cfg
            .flows
            .iter()
            .map(|f| FlowState::new(f, rc.packet_length))
            .collect();
        for i in 0..flows.len() {
            for &a in &cfg.flows[i].after {
                flows[a].dependents.push(i);
            }
        }
        let mut flow_nics: Vec<(u32, Vec<u32>)> = Vec::new();
        for (i, f) in cfg.flows.iter().enumerate() {
            match flow_nics.iter_mut().find(|(n, _)| *n as u64 == f.src) {
                Some((_, list)) => list.push(i as u32),
                None => flow_nics.push((f.src as u32, vec![i as u32])),
            }
        }
        let routers = net.num_routers();
        Ok(Kernel {
            flow_rr: vec![0; flow_nics.len()],
            flow_nics,
            now: 0,
            wheel: Wheel::new(horizon),
            pool: Pool::default(),
            route,
            fc: FlowControl::new(fcc.kind, fcc.xoff, fcc.xon, capacity)
                .with_ports(vc_port.clone(), port_capacity),
            link_busy: vec![0; n_ports],
            sent: vec![0; n_ports],
            meas: measure::PortMeasure::new(n_ports, (ws, we)),
            sent_at_window_start: Vec::new(),
            vc_base,
            vc_count,
            vc_port,
            peer,
            port_switch,
            queues: scheme,
            data_vcs: [local, global],
            control_vcs: control,
            pending_control: Vec::new(),
            control: ControlCount::default(),
            nics: (0..nodes).map(|_| Nic::default()).collect(),
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
            rng,
            calendar: Calendar::new(12),
            due: Vec::new(),
            flows,
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

/// How a message names the ports of `class`.
fn class_word(class: PortClass) -> &'static str {
    match class {
        PortClass::Terminal => "injection (node)",
        PortClass::Local => "local",
        PortClass::Global => "global",
        PortClass::Unused => "unused",
    }
}

/// The memory of an input port of `class` when its queues divide it (every scheme but VCs).
fn port_memory_of(class: PortClass, rc: &crate::config::RouterConfig) -> u32 {
    match class {
        PortClass::Terminal => rc.buffer_injection,
        PortClass::Local => rc.buffer_local,
        PortClass::Global => rc.buffer_global,
        PortClass::Unused => 0,
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
        k.generate();
        k.run_flows();
        k.inject(&mut self.mech);
        self.sw.step(k, &mut self.mech);
        self.mech.on_cycle(k, &self.sw);
        if k.pool.live() > 0 && k.now - k.last_move > self.watchdog {
            return Err(SimError::Stall(format!(
                "no packet has moved for {} cycles (since cycle {}), with {} in flight: a deadlock, \
                 or senders paused for good; simulation.watchdog_cycles sets the patience",
                k.now - k.last_move,
                k.last_move,
                k.pool.live()
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
