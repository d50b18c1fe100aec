//! The combined input-output-queued (CIOQ) switch, as FOGSim's IOQ switch models it (the
//! QCN-Switch paper's Ethernet switch) and as the RECN paper's switches are built:
//!
//! - an input buffer per VC at every port, which a packet's head may leave as soon as it
//!   has arrived (virtual cut-through);
//! - a crossbar `switch.speedup` times faster than a link: a transfer takes
//!   ceil(len / speedup) cycles, or lasts until the packet's tail has arrived if that is
//!   later; each input port and each output port takes part in one transfer at a time;
//! - a separable input-first allocator, `router.allocator_iterations` iterations a cycle,
//!   round-robin over an input's VCs and over the inputs requesting an output, pointers
//!   moving past the winner (iSLIP), so that later iterations match what earlier ones left;
//! - output queues of `switch.output_buffer` phits, one per port shared by every VC or one
//!   per VC; a whole packet in an output queue may take the link `switch.latency` cycles
//!   after its transfer ended;
//! - by default a packet crosses only once the credits of its next buffer are reserved
//!   (so output queues only absorb the crossbar's speedup); with `switch.output_hold`, or
//!   under priority flow control, it crosses into any room in the output queue and waits
//!   there for credits or for its priority to be resumed.
//!
//! Node ports eject at link rate to the destination NIC, which takes every packet.

use super::Switch;
use crate::config::{Arbitration, Config, FlowControlKind, OutputQueues, QueueScheme};
use crate::kernel::events::Ev;
use crate::kernel::mechanism::Mechanism;
use crate::kernel::packet::Kind;
use crate::kernel::route::{Choice, Pick};
use crate::kernel::Kernel;
use crate::topology::PortClass;
use std::collections::VecDeque;

const NONE: u32 = u32::MAX;
/// The "input VC" of a switch's control queue (it frees no buffer upstream).
const CONTROL_QUEUE: u32 = u32::MAX;

/// An input's request in one allocator iteration.
#[derive(Debug, Clone, Copy)]
struct Request {
    /// Local output port, or [`NONE`].
    out: u32,
    /// Global input VC whose head asks.
    vc: u32,
    /// VC (queue) the packet takes at the next buffer.
    next_vc: u16,
    /// A control packet: it wins over data.
    control: bool,
    /// Index of the output in the packet's group ([`NO_CHOICE`]: not taken from a group).
    choice: u16,
}

/// A request's output taken other than from the packet's group (its own node, VOQsw).
const NO_CHOICE: u16 = u16::MAX;

pub struct Cioq {
    speedup: f64,
    latency: u64,
    /// Packets may wait in output queues for credits or pauses.
    hold: bool,
    iterations: usize,
    queue_capacity: u32,
    /// Per input VC: its packets, oldest first; and its head ([`NONE`]: empty), kept flat so
    /// that the allocator reads a port's heads from one cache line without touching the
    /// queues of empty VCs.
    fifo: Vec<VecDeque<u32>>,
    heads: Vec<u32>,
    /// Per global port: its state, one record.
    port: Vec<Port>,
    /// Per global port: what its output reads of the wiring, in 16 bytes (four to a cache
    /// line, a switch's ports side by side), so that testing an output or weighing its
    /// load reads one small record instead of the kernel's port, peer, VC-base and VC-set
    /// tables.
    link: Vec<Link>,
    /// Per output queue: packets (whole, each with the cycle it may leave), and the phits
    /// reserved in it (packets crossing the crossbar included).
    queue: Vec<VecDeque<u32>>,
    queued: Vec<u32>,
    /// Per switch: packets inside; switches holding any, each once.
    held: Vec<u32>,
    active: Vec<u32>,
    listed: Vec<bool>,
    /// Per switch, the ports with packets in their input FIFOs, and in their output
    /// queues, so that a cycle visits only ports with packets.
    inputs: PortSet,
    outputs: PortSet,
    /// Per switch: the last cycle a flow-control frame reached one of its outputs.
    signal_at: Vec<u64>,
    /// Per switch: control packets its mechanism sent, waiting for the crossbar (an input of
    /// their own, `control_busy` until its transfer ends), and the phits they take.
    control: Vec<VecDeque<u32>>,
    control_busy: Vec<u64>,
    control_queued: Vec<u32>,
    control_capacity: u32,
    /// Per routing-table entry, the round-robin pointer into its group (empty unless
    /// `routing.selection` is `"round-robin"`, `"ingress-round-robin"`, or `"least-loaded"`
    /// on groups not ordered by preference, where it breaks ties).
    rr_group: Vec<u16>,
    /// Pointers per routing-table entry under `ingress-round-robin` and `least-loaded`: one
    /// per local input port (the control queue last), `rr_stride` of them per entry (1
    /// otherwise).
    rr_stride: usize,
    /// The local input port whose head `choose_output` is looking at.
    cur_input: u32,
    // Scratch, per local port of the switch being allocated: an input or output is done
    // (granted) in this allocation when its entry equals `stamp`, counted up once per
    // allocation, so that nothing is cleared per call.
    requests: Vec<(u32, Request)>,
    input_done: Vec<u64>,
    output_done: Vec<u64>,
    stamp: u64,
    /// Crossbar cycles of a packet of each length up to `router.packet_length`
    /// (ceil(len / speedup), worked out once).
    xbar_cycles: Vec<u64>,
    best: Vec<(u32, u32)>,
    ports_scratch: Vec<u64>,
    /// `switch.arbitration = "drr"`: per global output port and local input port, the
    /// input's deficit in phits (`drr_stride` inputs per output); empty under round robin.
    drr: Vec<u32>,
    drr_stride: usize,
    /// Per global output port under DRR: whether the input at its pointer is in a turn
    /// (granted since the pointer reached it); false: the input is next in line.
    drr_turn: Vec<bool>,
    /// Phits a turn adds to a deficit: `router.packet_length`, the longest packet.
    quantum: u32,
}

/// What the switch keeps per port, in one record of one cache line (64 bytes, aligned): a
/// packet's hop touches one line of port state per port instead of one per field (or two
/// where a record straddles lines).
#[derive(Debug, Clone, Copy, Default)]
#[repr(align(64))]
struct Port {
    /// The cycle its crossbar input and output are free again.
    xbar_in_busy: u64,
    xbar_out_busy: u64,
    /// The first cycle at which looking at its input (its heads) or its output (its
    /// queues' heads and link) again can change anything, as far as times known now tell,
    /// and the cycle the input's was worked out. A packet arriving, a transfer ending or a
    /// flow-control frame (`Cioq::signal_at`) makes it look earlier.
    in_wake: u64,
    /// (A cycle, u32 as the packet record's times are.)
    in_since: u32,
    out_wake: u64,
    /// Its first output queue and how many it has.
    queue_base: u32,
    queue_count: u16,
    /// Round-robin pointers over its VCs (input), over the inputs (output) and over its
    /// output queues (link).
    rr_in: u16,
    rr_out: u16,
    rr_queue: u16,
    /// Packets in its input FIFOs, and in its output queues.
    in_packets: u32,
    out_packets: u32,
    /// The switch it belongs to.
    switch: u32,
    /// Phits of the packet on its link and that packet's queue (among the port's), released
    /// from the queue once the link is free (the tail has left).
    draining: (u16, u16),
}

const _: () = assert!(std::mem::size_of::<Port>() == 64);

/// An output's wiring as the allocator reads it (constant through a run).
#[derive(Debug, Clone, Copy)]
#[repr(align(16))]
struct Link {
    /// The first input VC of the buffer at the far end (`Kernel::downstream_vc` of VC 0);
    /// 0 for a node's port.
    down_vc_base: u32,
    /// Its first output queue and how many it has (as `Port`'s).
    queue_base: u32,
    queue_count: u16,
    class: PortClass,
    /// VCs per level of the routing's order at the far end (`Kernel::vc_set` of the peer).
    peer_vc_set: u8,
}

const _: () = assert!(std::mem::size_of::<Link>() == 16);

/// A set of local ports per switch: bit words, `words(s)` for switch `s`. No limit on the
/// number of ports.
struct PortSet {
    base: Vec<u32>,
    bits: Vec<u64>,
    /// Every switch has at most 64 ports: switch `s`'s word is `bits[s]`, found without
    /// reading `base` (one array touched instead of two).
    one_word: bool,
}

impl PortSet {
    fn new(radix: impl Iterator<Item = usize>) -> PortSet {
        let mut base = vec![0u32];
        for r in radix {
            base.push(base.last().copied().unwrap_or(0) + r.div_ceil(64) as u32);
        }
        let words = *base.last().unwrap_or(&0) as usize;
        let one_word = base.windows(2).all(|w| w[1] == w[0] + 1);
        PortSet {
            base,
            bits: vec![0; words],
            one_word,
        }
    }
    /// The word holding port `p` of switch `s`.
    #[inline(always)]
    fn word(&self, s: usize, p: usize) -> usize {
        if self.one_word {
            s
        } else {
            self.base[s] as usize + p / 64
        }
    }
    #[inline]
    fn insert(&mut self, s: usize, p: usize) {
        let w = self.word(s, p);
        self.bits[w] |= 1u64 << (p % 64);
    }
    #[inline]
    fn remove(&mut self, s: usize, p: usize) {
        let w = self.word(s, p);
        self.bits[w] &= !(1u64 << (p % 64));
    }
    /// Copy switch `s`'s words into `out` (cleared first).
    #[inline(always)]
    fn copy(&self, s: usize, out: &mut Vec<u64>) {
        out.clear();
        if self.one_word {
            out.push(self.bits[s]);
            return;
        }
        let (a, b) = (self.base[s] as usize, self.base[s + 1] as usize);
        if b == a + 1 {
            // Up to 64 ports: one word, no call to copy memory.
            out.push(self.bits[a]);
        } else {
            out.extend_from_slice(&self.bits[a..b]);
        }
    }
}

/// Data VCs of port `gp`: all its VCs, but half of a link's when control packets have VCs.
#[inline]
fn data_vcs(k: &Kernel, gp: usize) -> usize {
    let n = k.vc_count[gp] as usize;
    if k.control_vcs && k.net.ports[gp].class != PortClass::Terminal {
        n / 2
    } else {
        n
    }
}

/// The ports in a copy of a switch's words, in increasing order.
#[inline]
fn each_port(words: &[u64], mut f: impl FnMut(usize)) {
    for (w, &word) in words.iter().enumerate() {
        let mut bits = word;
        while bits != 0 {
            f(w * 64 + bits.trailing_zeros() as usize);
            bits &= bits - 1;
        }
    }
}

impl Cioq {
    pub fn new(cfg: &Config, k: &Kernel) -> Cioq {
        let net = &k.net;
        let n_ports = net.ports.len();
        let fc = cfg.flow_control.kind;
        let per_vc = cfg.switch.output_queues == OutputQueues::PerVc;
        let len = cfg.router.packet_length.max(1);
        let mut port = Vec::with_capacity(n_ports);
        let mut max_radix = 0;
        let mut queues = 0u32;
        for s in 0..net.num_routers() {
            max_radix = max_radix.max(net.radix(s));
            for p in 0..net.radix(s) {
                let gp = net.port_base[s] as usize + p;
                let n = match net.ports[gp].class {
                    PortClass::Unused => 0,
                    PortClass::Terminal => 1,
                    _ if per_vc => k.vc_count[k.peer[gp] as usize],
                    _ => 1,
                };
                port.push(Port {
                    queue_base: queues,
                    queue_count: n,
                    switch: s as u32,
                    ..Port::default()
                });
                queues += n as u32;
            }
        }
        let queue_capacity = if fc == FlowControlKind::None {
            u32::MAX
        } else {
            cfg.switch.output_buffer
        };
        let slots = |phits: u32| (phits.min(1 << 20) / len + 1) as usize;
        let fifo =
            k.fc.capacity
                .iter()
                .map(|&c| VecDeque::with_capacity(slots(c)))
                .collect();
        let heads = vec![NONE; k.fc.capacity.len()];
        let link = (0..n_ports)
            .map(|gp| {
                let class = net.ports[gp].class;
                let wired = matches!(class, PortClass::Local | PortClass::Global);
                Link {
                    down_vc_base: if wired {
                        k.vc_base[k.peer[gp] as usize]
                    } else {
                        0
                    },
                    queue_base: port[gp].queue_base,
                    queue_count: port[gp].queue_count,
                    class,
                    peer_vc_set: if wired {
                        k.vc_set[k.peer[gp] as usize]
                    } else {
                        0
                    },
                }
            })
            .collect();
        Cioq {
            link,
            heads,
            speedup: cfg.switch.speedup,
            latency: cfg.switch.latency as u64,
            hold: cfg.switch.output_hold || fc != FlowControlKind::Credits,
            iterations: cfg.router.allocator_iterations.max(1),
            queue_capacity,
            fifo,
            port,
            queue: (0..queues)
                .map(|_| VecDeque::with_capacity(slots(queue_capacity)))
                .collect(),
            queued: vec![0; queues as usize],
            held: vec![0; net.num_routers()],
            active: Vec::new(),
            listed: vec![false; net.num_routers()],
            signal_at: vec![0; net.num_routers()],
            control: (0..net.num_routers()).map(|_| VecDeque::new()).collect(),
            control_busy: vec![0; net.num_routers()],
            control_queued: vec![0; net.num_routers()],
            control_capacity: cfg.switch.output_buffer,
            inputs: PortSet::new((0..net.num_routers()).map(|s| net.radix(s))),
            outputs: PortSet::new((0..net.num_routers()).map(|s| net.radix(s))),
            rr_group: match k.route.pick {
                Pick::RoundRobin => vec![0; k.route.entries()],
                Pick::IngressRoundRobin => vec![0; k.route.entries() * (max_radix + 1)],
                // Least-loaded breaks ties round robin, a pointer per ingress as the spec of
                // the InfiniBand adaptive-routing paper has it (one per switch and group lets
                // two inputs with the same destination lock one out: measured, C1 S3 gave
                // C -> E nothing), except over groups listed in order of preference
                // (per-destination DAGs), where a tie goes to the preferred port.
                Pick::LeastLoaded if k.route.choice != Choice::First => {
                    vec![0; k.route.entries() * (max_radix + 1)]
                }
                _ => Vec::new(),
            },
            rr_stride: if k.route.pick == Pick::IngressRoundRobin
                || (k.route.pick == Pick::LeastLoaded && k.route.choice != Choice::First)
            {
                max_radix + 1
            } else {
                1
            },
            cur_input: 0,
            requests: Vec::with_capacity(max_radix + 1),
            input_done: vec![0; max_radix + 1],
            output_done: vec![0; max_radix],
            stamp: 0,
            xbar_cycles: (0..=len as u64)
                .map(|l| (l as f64 / cfg.switch.speedup).ceil() as u64)
                .collect(),
            best: vec![(NONE, 0); max_radix],
            ports_scratch: Vec::new(),
            drr: if cfg.switch.arbitration == Arbitration::Drr {
                vec![0; k.net.ports.len() * max_radix]
            } else {
                Vec::new()
            },
            drr_stride: max_radix,
            drr_turn: if cfg.switch.arbitration == Arbitration::Drr {
                vec![false; k.net.ports.len()]
            } else {
                Vec::new()
            },
            quantum: cfg.router.packet_length,
        }
    }

    /// Output `gp`'s link is free: send the first eligible packet of its queues.
    #[inline]
    fn try_send(&mut self, k: &mut Kernel, gp: usize) {
        if self.port[gp].out_wake > k.now {
            return;
        }
        if k.link_busy[gp] > k.now {
            self.port[gp].out_wake = k.link_busy[gp];
            return;
        }
        let (phits, q) = self.port[gp].draining;
        if phits > 0 {
            self.queued[self.port[gp].queue_base as usize + q as usize] -= phits as u32;
            self.port[gp].draining = (0, 0);
        }
        let n = self.port[gp].queue_count as usize;
        let base = self.port[gp].queue_base as usize;
        let terminal = k.net.ports[gp].class == PortClass::Terminal;
        // If nothing goes: the earliest head's time, or a flow-control frame.
        let mut wake = u64::MAX;
        for j in 0..n {
            let qi = base + (self.port[gp].rr_queue as usize + j) % n;
            let Some(&pkt) = self.queue[qi].front() else {
                continue;
            };
            let p = *k.pool.get(pkt);
            if p.at as u64 > k.now {
                wake = wake.min(p.at as u64);
                continue;
            }
            let len = p.len as u32;
            if !terminal && self.hold {
                let down = k.downstream_vc(gp, p.vc);
                if !k.fc.can_send(down, len) {
                    k.meas.set_blocked(gp, k.now, true);
                    continue;
                }
                k.fc.take(down, len);
            }
            self.queue[qi].pop_front();
            k.send(gp, pkt);
            self.port[gp].draining = (len as u16, (qi - base) as u16);
            let sw = self.port[gp].switch as usize;
            self.held[sw] -= 1;
            self.port[gp].out_packets -= 1;
            if self.port[gp].out_packets == 0 {
                self.outputs.remove(sw, gp - k.net.port_base[sw] as usize);
                if self.port[gp].xbar_out_busy <= k.now {
                    k.meas.set_empty(gp, k.now, k.link_busy[gp]);
                }
            }
            self.port[gp].rr_queue = ((qi - base + 1) % n) as u16;
            self.port[gp].out_wake = k.link_busy[gp];
            return;
        }
        self.port[gp].out_wake = wake;
    }

    /// The first output, in the packet's order of preference, that can take the head `pkt`
    /// of input queue `in_queue` at switch `s` now: (local output port, queue at the next
    /// buffer); or, if none can, the first cycle at which one might (u64::MAX: only once a
    /// flow-control frame arrives).
    #[inline]
    fn choose_output(
        &self,
        k: &Kernel,
        s: usize,
        base: usize,
        pkt: u32,
        in_queue: u16,
    ) -> Result<(u32, u16, u16), u64> {
        let p = k.pool.get(pkt);
        let len = p.len as u64;
        let now = k.now;
        let take = |o: usize| -> Result<(u32, u16), u64> {
            let gp = base + o;
            if self.output_done[o] == self.stamp || self.port[gp].xbar_out_busy > now {
                return Err(self.port[gp].xbar_out_busy);
            }
            let link = self.link[gp];
            let class = link.class;
            let next = if class == PortClass::Terminal {
                0
            } else if p.kind == Kind::Control {
                let vc = k.control_vc(p, gp);
                let down = k.downstream_vc(gp, vc);
                if !self.hold && !k.fc.can_send(down, len as u32) {
                    k.meas.set_blocked(gp, now, true);
                    return Err(u64::MAX);
                }
                vc
            } else {
                let ordered = k.route.next_vc(p.hops, p.global_hops, class);
                let next = if k.queues == QueueScheme::Vc && link.peer_vc_set == 1 {
                    // `Kernel::queue_at` under VCs of one per level, inline: the routing's
                    // VC, if flow control lets the packet in now (or it may wait in the
                    // output queue).
                    let down = link.down_vc_base + ordered as u32;
                    (self.hold || k.fc.can_send(down, len as u32)).then_some(ordered as u16)
                } else {
                    k.queue_at(k.peer[gp] as usize, p, Some(ordered), !self.hold)
                };
                match next {
                    Some(q) => q,
                    None => {
                        k.meas.set_blocked(gp, now, true);
                        return Err(u64::MAX);
                    }
                }
            };
            let q = if link.queue_count > 1 { next } else { 0 };
            let qi = link.queue_base as usize + q as usize;
            // The packet on the link has left the queue once the link is free.
            let (draining, dq) = self.port[gp].draining;
            let link_free = k.link_busy[gp] <= now;
            let gone = if link.queue_base as usize + dq as usize == qi && link_free {
                draining as u32
            } else {
                0
            };
            let queued = (self.queued[qi] - gone) as u64;
            if queued + len <= self.queue_capacity as u64 {
                Ok((o as u32, next))
            } else if link_free {
                // Room comes only once a queued packet has been sent.
                Err(now + 1)
            } else {
                Err(k.link_busy[gp])
            }
        };
        if k.queues == QueueScheme::VoqSwitch {
            // The queue is the output.
            return take(in_queue as usize).map(|(o, v)| (o, v, NO_CHOICE));
        }
        if p.dst_switch as usize == s {
            return take(k.node_port(s, p.dst) as usize).map(|(o, v)| (o, v, NO_CHOICE));
        }
        let route = &k.route;
        let target = k.target_at(s, p);
        let ports = route.group(s, target, p.dst);
        let n = ports.len();
        if n == 1 {
            return take(ports[0] as usize).map(|(o, v)| (o, v, 0));
        }
        match route.pick {
            Pick::Fixed => {
                let c = route.first_choice(s, p.src, p.dst, n);
                take(ports[c] as usize).map(|(o, v)| (o, v, c as u16))
            }
            Pick::FirstFree | Pick::RoundRobin => {
                let start = if route.pick == Pick::RoundRobin {
                    self.rr_group[route.entry(s, target, p.dst)] as usize % n
                } else {
                    route.first_choice(s, p.src, p.dst, n)
                };
                let mut wake = u64::MAX;
                let mut i = start;
                for _ in 0..n {
                    match take(ports[i] as usize) {
                        Ok((o, v)) => return Ok((o, v, i as u16)),
                        Err(t) => wake = wake.min(t),
                    }
                    i += 1;
                    if i == n {
                        i = 0;
                    }
                }
                Err(wake)
            }
            Pick::IngressRoundRobin => {
                let e = route.entry(s, p.dst_switch as usize, p.dst);
                let c = self.rr_group[e * self.rr_stride + self.cur_input as usize] as usize % n;
                take(ports[c] as usize).map(|(o, v)| (o, v, c as u16))
            }
            Pick::LeastLoaded => {
                // Ties go to the first from the ingress's round-robin pointer on (which moves
                // past the port taken), or from the first choice on for ordered groups.
                let start = if self.rr_group.is_empty() {
                    route.first_choice(s, p.src, p.dst, n)
                } else {
                    let e = route.entry(s, target, p.dst);
                    self.rr_group[e * self.rr_stride + self.cur_input as usize] as usize % n
                };
                let mut wake = u64::MAX;
                let mut best: Option<(u64, u32, u16, u16)> = None;
                let mut i = start;
                for _ in 0..n {
                    match take(ports[i] as usize) {
                        Ok((o, v)) => {
                            let load = self.load(k, base + o as usize, v);
                            if best.is_none_or(|b| load < b.0) {
                                best = Some((load, o, v, i as u16));
                            }
                        }
                        Err(t) => wake = wake.min(t),
                    }
                    i += 1;
                    if i == n {
                        i = 0;
                    }
                }
                best.map(|(_, o, v, i)| (o, v, i)).ok_or(wake)
            }
            Pick::Congestion => {
                let start = route.first_choice(s, p.src, p.dst, n);
                let load_of = |o: usize| -> u64 {
                    let gp = base + o;
                    let class = self.link[gp].class;
                    let v = if class == PortClass::Terminal {
                        0
                    } else {
                        let ordered = k.route.next_vc(p.hops, p.global_hops, class);
                        if k.queues == QueueScheme::Vc && self.link[gp].peer_vc_set == 1 {
                            // What `Kernel::queue_at` chooses under VCs of one per
                            // level, inline.
                            ordered as u16
                        } else {
                            k.queue_at(k.peer[gp] as usize, p, Some(ordered), false)
                                .unwrap_or(0)
                        }
                    };
                    self.load(k, gp, v)
                };
                let preferred = load_of(ports[start] as usize);
                let threshold = route.threshold as u64;
                let (mut chosen, mut least) = (start, preferred);
                // No port can be loaded `threshold` less than one loaded at most that much.
                if preferred > threshold {
                    let mut i = start;
                    for _ in 1..n {
                        i += 1;
                        if i == n {
                            i = 0;
                        }
                        let l = load_of(ports[i] as usize);
                        if l < least {
                            (chosen, least) = (i, l);
                            if l == 0 {
                                // No later port can be less loaded: the first idle one wins.
                                break;
                            }
                        }
                    }
                }
                if preferred <= least + threshold {
                    chosen = start;
                }
                take(ports[chosen] as usize).map(|(o, v)| (o, v, chosen as u16))
            }
        }
    }

    /// Load of output `gp` for a packet taking VC `vc` at the next buffer: the phits in
    /// the output queue it joins, plus those the next buffer holds as far as this switch's
    /// credits tell (least-loaded selection).
    #[inline(always)]
    fn load(&self, k: &Kernel, gp: usize, vc: u16) -> u64 {
        let link = self.link[gp];
        let q = if link.queue_count > 1 { vc as usize } else { 0 };
        let queued = self.queued[link.queue_base as usize + q] as u64;
        if link.class == PortClass::Terminal {
            return queued;
        }
        let down = (link.down_vc_base + vc as u32) as usize;
        let held = k.fc.held_by_room(down as u32) as u64;
        queued + held
    }

    /// Allocate the crossbar of switch `s` for this cycle.
    fn allocate(&mut self, k: &mut Kernel, s: usize) {
        let base = k.net.port_base[s] as usize;
        let radix = k.net.radix(s);
        self.stamp += 1;
        let mut ready = std::mem::take(&mut self.ports_scratch);
        // The inputs to look at: in the first iteration every input with packets; in later
        // ones only those that requested and lost (any other input either crossed, is
        // crossing, or found no output and sleeps until after this cycle, so that
        // looking at it again would give the same answer).
        self.inputs.copy(s, &mut ready);
        for _ in 0..self.iterations {
            self.requests.clear();
            // The control queue: an input of its own (index `radix`), first.
            if let Some(&pkt) = self.control[s].front() {
                if self.input_done[radix] != self.stamp && self.control_busy[s] <= k.now {
                    self.cur_input = radix as u32;
                    if let Ok((out, next_vc, choice)) = self.choose_output(k, s, base, pkt, 0) {
                        let r = Request {
                            out,
                            vc: CONTROL_QUEUE,
                            next_vc,
                            control: true,
                            choice,
                        };
                        self.requests.push((radix as u32, r));
                    }
                }
            }
            let signal_at = self.signal_at[s];
            each_port(&ready, |i| {
                let gp = base + i;
                if self.input_done[i] == self.stamp
                    || self.port[gp].xbar_in_busy > k.now
                    || (self.port[gp].in_wake > k.now && signal_at <= self.port[gp].in_since as u64)
                {
                    return;
                }
                let nv = k.vc_count[gp] as usize;
                let vb = k.vc_base[gp] as usize;
                // Control VCs (after the data VCs of a link) first, in order; then the data
                // VCs round robin.
                let data = data_vcs(k, gp);
                let control_vcs = nv - data;
                let mut wake = u64::MAX;
                // The next data VC round robin (the pointer is always below `data`).
                let mut next_data = self.port[gp].rr_in as usize;
                for j in 0..nv {
                    let v = if j < control_vcs {
                        data + j
                    } else {
                        let v = next_data;
                        next_data += 1;
                        if next_data == data {
                            next_data = 0;
                        }
                        v
                    };
                    let vc = vb + v;
                    let pkt = self.heads[vc];
                    if pkt == NONE {
                        continue;
                    }
                    self.cur_input = i as u32;
                    match self.choose_output(k, s, base, pkt, v as u16) {
                        Ok((out, next_vc, choice)) => {
                            let r = Request {
                                out,
                                vc: vc as u32,
                                next_vc,
                                control: v >= data,
                                choice,
                            };
                            self.requests.push((i as u32, r));
                            return;
                        }
                        Err(t) => wake = wake.min(t),
                    }
                }
                // No head can move before `wake` (or a flow-control frame): skip this input
                // until then.
                self.port[gp].in_wake = wake;
                self.port[gp].in_since = k.now as u32;
            });
            if self.requests.is_empty() {
                break;
            }
            // Each requested output grants a control packet, else the first requester at or
            // after its pointer.
            for &(i, r) in &self.requests {
                let o = r.out as usize;
                let d = if r.control {
                    0
                } else {
                    // Distance from the output's pointer (below `radix`) to input `i`.
                    let mut d = i as usize + radix - self.port[base + o].rr_out as usize;
                    if d >= radix {
                        d -= radix;
                    }
                    // DRR: an input in its turn keeps it while its deficit covers its
                    // head; once not, it comes last.
                    if d == 0 && !self.drr.is_empty() && self.drr_turn[base + o] {
                        let len = k.pool.get(self.heads[r.vc as usize]).len as u32;
                        if self.drr[(base + o) * self.drr_stride + i as usize] < len {
                            d = radix;
                        }
                    }
                    1 + d as u32
                };
                if self.best[o].0 == NONE || d < self.best[o].1 {
                    self.best[o] = (i, d);
                }
            }
            let requests = std::mem::take(&mut self.requests);
            for &(i, r) in &requests {
                let o = r.out as usize;
                if self.best[o].0 == i {
                    self.grant(k, s, base, i as usize, r);
                }
            }
            ready.fill(0);
            for &(i, r) in &requests {
                self.best[r.out as usize] = (NONE, 0);
                let i = i as usize;
                if i != radix && self.input_done[i] != self.stamp {
                    ready[i / 64] |= 1u64 << (i % 64);
                }
            }
            self.requests = requests;
        }
        self.ports_scratch = ready;
    }

    /// Input `i` of switch `s` sends its requesting head across the crossbar to output `o`.
    fn grant(&mut self, k: &mut Kernel, s: usize, base: usize, i: usize, r: Request) {
        let o = r.out as usize;
        let (gp_in, gp_out) = (base + i, base + o);
        let now = k.now;
        let from_control_queue = r.vc == CONTROL_QUEUE;
        let pkt = if from_control_queue {
            self.control[s].pop_front()
        } else {
            let fifo = &mut self.fifo[r.vc as usize];
            let head = fifo.pop_front();
            self.heads[r.vc as usize] = fifo.front().copied().unwrap_or(NONE);
            head
        }
        .expect("a request names a head");
        if r.choice != NO_CHOICE && !self.rr_group.is_empty() {
            let p = k.pool.get(pkt);
            let e = k.route.entry(s, k.target_at(s, p), p.dst);
            let n = k.route.group_at(e).len();
            let slot = if self.rr_stride > 1 {
                e * self.rr_stride + i
            } else {
                e
            };
            self.rr_group[slot] = ((r.choice as usize + 1) % n) as u16;
        }
        let p = k.pool.get_mut(pkt);
        let len = p.len as u64;
        let mut end = now
            + match self.xbar_cycles.get(len as usize) {
                Some(&c) => c,
                None => (len as f64 / self.speedup).ceil() as u64,
            };
        p.vc = r.next_vc;
        if from_control_queue {
            // Made whole inside the switch: no tail to wait for.
            self.control_busy[s] = end;
            self.control_queued[s] -= len as u32;
        } else {
            end = end.max(p.at as u64 + len * k.phit_cycles[gp_in] as u64);
            self.port[gp_in].in_packets -= 1;
            if self.port[gp_in].in_packets == 0 {
                self.inputs.remove(s, i);
            }
            self.port[gp_in].xbar_in_busy = end;
        }
        self.port[gp_out].xbar_out_busy = end;
        k.meas.set_queued(gp_out, now);
        let q = if self.port[gp_out].queue_count > 1 {
            r.next_vc
        } else {
            0
        };
        self.queued[self.port[gp_out].queue_base as usize + q as usize] += len as u32;
        if !self.hold && k.net.ports[gp_out].class != PortClass::Terminal {
            let down = k.downstream_vc(gp_out, r.next_vc);
            k.fc.take(down, len as u32);
        }
        k.wheel.at(
            now,
            end,
            Ev::XferDone {
                pkt,
                vc: r.vc,
                port: gp_out as u32,
                queue: q,
            },
        );
        if !from_control_queue && !r.control {
            let data = data_vcs(k, gp_in);
            let v = r.vc as usize - k.vc_base[gp_in] as usize + 1;
            self.port[gp_in].rr_in = if v >= data { 0 } else { v as u16 };
            let next = i + 1;
            let past = if next >= k.net.radix(s) {
                0
            } else {
                next as u16
            };
            if self.drr.is_empty() {
                self.port[gp_out].rr_out = past;
            } else {
                // A new turn unless `i` is in its turn with a deficit that covers the
                // packet. The pointer stays on `i` while deficit is left, else moves past
                // it as round robin's (so that packets of one length grant alike).
                let slot = gp_out * self.drr_stride + i;
                let len = len as u32;
                let in_turn = self.port[gp_out].rr_out as usize == i && self.drr_turn[gp_out];
                if !in_turn || self.drr[slot] < len {
                    self.drr[slot] += self.quantum;
                }
                self.drr[slot] -= len;
                if self.drr[slot] > 0 {
                    self.port[gp_out].rr_out = i as u16;
                    self.drr_turn[gp_out] = true;
                } else {
                    self.port[gp_out].rr_out = past;
                    self.drr_turn[gp_out] = false;
                }
            }
        }
        self.input_done[i] = self.stamp;
        self.output_done[o] = self.stamp;
        k.last_move = now;
    }
}

impl Switch for Cioq {
    #[inline]
    fn arrive<M: Mechanism>(&mut self, k: &mut Kernel, m: &mut M, vc: u32, pkt: u32) {
        let gp = k.vc_port[vc as usize] as usize;
        let s = self.port[gp].switch as usize;
        let p = k.pool.get_mut(pkt);
        p.at = k.now as u32;
        if p.kind == Kind::Control {
            if p.dst_switch as usize == s {
                // Addressed here: the mechanism takes it out of the buffer at once.
                let len = p.len as u32;
                k.buffer_leave(vc, len);
                m.on_control(k, s, Some(gp), pkt);
                k.pool.release(pkt);
                k.control.consumed += 1;
                k.last_move = k.now;
                return;
            }
        } else {
            if k.decides_at_injection {
                if k.net.ports[gp].class == PortClass::Terminal {
                    k.route_at_injection(m, s, pkt);
                } else {
                    k.on_switch(s, pkt);
                }
            }
            m.on_input(k, vc, pkt);
        }
        if self.heads[vc as usize] == NONE {
            self.heads[vc as usize] = pkt;
        }
        self.fifo[vc as usize].push_back(pkt);
        self.held[s] += 1;
        self.port[gp].in_packets += 1;
        self.port[gp].in_wake = 0;
        self.inputs.insert(s, gp - k.net.port_base[s] as usize);
        if !self.listed[s] {
            self.listed[s] = true;
            self.active.push(s as u32);
        }
    }

    #[inline]
    fn transfer_done<M: Mechanism>(
        &mut self,
        k: &mut Kernel,
        m: &mut M,
        pkt: u32,
        vc: u32,
        port: usize,
        queue: u16,
    ) {
        let p = k.pool.get_mut(pkt);
        p.at = (k.now + self.latency) as u32;
        let len = p.len as u32;
        if vc != CONTROL_QUEUE {
            k.buffer_leave(vc, len);
        }
        self.queue[self.port[port].queue_base as usize + queue as usize].push_back(pkt);
        m.on_output(k, port, pkt);
        let s = self.port[port].switch as usize;
        self.port[port].out_wake = self.port[port].out_wake.min(k.now + self.latency);
        self.port[port].out_packets += 1;
        self.outputs.insert(s, port - k.net.port_base[s] as usize);
    }

    #[inline]
    fn flow_control_changed(&mut self, k: &Kernel, port: usize) {
        k.meas.set_blocked(port, k.now, false);
        self.port[port].out_wake = 0;
        self.signal_at[self.port[port].switch as usize] = k.now;
    }

    fn step<M: Mechanism>(&mut self, k: &mut Kernel, m: &mut M) {
        if !k.pending_control.is_empty() {
            let pending = std::mem::take(&mut k.pending_control);
            for &(s, pkt) in &pending {
                let s = s as usize;
                let p = *k.pool.get(pkt);
                if p.dst_switch as usize == s {
                    // To the switch that sent it: a local reaction, no network crossed.
                    m.on_control(k, s, None, pkt);
                    k.pool.release(pkt);
                    k.control.consumed += 1;
                } else if self.control_queued[s] + p.len as u32 > self.control_capacity {
                    k.pool.release(pkt);
                    k.control.dropped += 1;
                } else {
                    self.control_queued[s] += p.len as u32;
                    self.control[s].push_back(pkt);
                    self.held[s] += 1;
                    if !self.listed[s] {
                        self.listed[s] = true;
                        self.active.push(s as u32);
                    }
                }
            }
            // What the mechanism sent while reacting goes out next cycle.
            let mut pending = pending;
            pending.clear();
            pending.append(&mut k.pending_control);
            k.pending_control = pending;
        }
        let mut i = 0;
        while i < self.active.len() {
            let s = self.active[i] as usize;
            let base = k.net.port_base[s] as usize;
            let mut ready = std::mem::take(&mut self.ports_scratch);
            self.outputs.copy(s, &mut ready);
            each_port(&ready, |o| self.try_send(k, base + o));
            self.ports_scratch = ready;
            self.allocate(k, s);
            if self.held[s] == 0 {
                self.listed[s] = false;
                self.active.swap_remove(i);
            } else {
                i += 1;
            }
        }
    }

    fn held(&self, f: &mut dyn FnMut(u32)) {
        for q in self.fifo.iter().chain(&self.queue).chain(&self.control) {
            for &p in q {
                f(p);
            }
        }
    }

    fn output_packets(&self, gp: usize) -> impl Iterator<Item = u32> + '_ {
        let base = self.port[gp].queue_base as usize;
        let n = self.port[gp].queue_count as usize;
        self.queue[base..base + n].iter().flatten().copied()
    }

    fn input_packets(&self, vc: u32) -> impl Iterator<Item = u32> + '_ {
        self.fifo[vc as usize].iter().copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ports of switch `s` in `set`, in increasing order.
    fn ports_of(set: &PortSet, s: usize) -> Vec<usize> {
        let mut words = Vec::new();
        set.copy(s, &mut words);
        let mut out = Vec::new();
        each_port(&words, |p| out.push(p));
        out
    }

    #[test]
    fn port_sets_keep_each_switch_apart_with_one_word_or_several() {
        // Up to 64 ports everywhere: one word per switch, indexed by the switch.
        let mut one = PortSet::new([23, 64, 1].into_iter());
        assert!(one.one_word);
        one.insert(0, 22);
        one.insert(1, 0);
        one.insert(1, 63);
        one.insert(2, 0);
        one.remove(1, 0);
        assert_eq!(ports_of(&one, 0), vec![22]);
        assert_eq!(ports_of(&one, 1), vec![63]);
        assert_eq!(ports_of(&one, 2), vec![0]);
        // A switch of 130 ports takes three words; one without ports none.
        let mut many = PortSet::new([23, 130, 0, 5].into_iter());
        assert!(!many.one_word);
        for p in [0, 64, 65, 129] {
            many.insert(1, p);
        }
        many.insert(0, 3);
        many.insert(3, 4);
        many.remove(1, 65);
        assert_eq!(ports_of(&many, 0), vec![3]);
        assert_eq!(ports_of(&many, 1), vec![0, 64, 129]);
        assert_eq!(ports_of(&many, 2), Vec::<usize>::new());
        assert_eq!(ports_of(&many, 3), vec![4]);
    }
}
