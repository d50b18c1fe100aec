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
use crate::config::{Config, FlowControlKind, OutputQueues, QueueScheme};
use crate::kernel::events::Ev;
use crate::kernel::Kernel;
use crate::topology::PortClass;
use std::collections::VecDeque;

const NONE: u32 = u32::MAX;

/// An input's request in one allocator iteration.
#[derive(Debug, Clone, Copy)]
struct Request {
    /// Local output port, or [`NONE`].
    out: u32,
    /// Global input VC whose head asks.
    vc: u32,
    /// VC (queue) the packet takes at the next buffer.
    next_vc: u16,
}

pub struct Cioq {
    speedup: f64,
    latency: u64,
    /// Packets may wait in output queues for credits or pauses.
    hold: bool,
    iterations: usize,
    queue_capacity: u32,
    /// Per input VC: its packets, oldest first.
    fifo: Vec<VecDeque<u32>>,
    /// Per global port: the switch it belongs to; the cycle its crossbar input and output
    /// are free again; round-robin pointers over its VCs (input), over the inputs (output)
    /// and over its output queues (link).
    port_switch: Vec<u32>,
    xbar_in_busy: Vec<u64>,
    xbar_out_busy: Vec<u64>,
    rr_in: Vec<u16>,
    rr_out: Vec<u16>,
    rr_queue: Vec<u16>,
    /// Per global port: its first output queue and how many it has.
    queue_base: Vec<u32>,
    queue_count: Vec<u16>,
    /// Per output queue: packets (whole, each with the cycle it may leave), and the phits
    /// reserved in it (packets crossing the crossbar included).
    queue: Vec<VecDeque<u32>>,
    queued: Vec<u32>,
    /// Per global port: phits of the packet on its link and its queue, released from the
    /// queue once the link is free (the tail has left).
    draining: Vec<(u32, u32)>,
    /// Per switch: packets inside; switches holding any, each once.
    held: Vec<u32>,
    active: Vec<u32>,
    listed: Vec<bool>,
    // Scratch, per local port of the switch being allocated.
    requests: Vec<Request>,
    input_done: Vec<bool>,
    output_done: Vec<bool>,
    best: Vec<(u32, u32)>,
}

impl Cioq {
    pub fn new(cfg: &Config, k: &Kernel) -> Cioq {
        let net = &k.net;
        let n_ports = net.ports.len();
        let fc = cfg.flow_control.kind;
        let per_vc = cfg.switch.output_queues == OutputQueues::PerVc;
        let len = cfg.router.packet_length.max(1);
        let mut port_switch = Vec::with_capacity(n_ports);
        let mut queue_base = Vec::with_capacity(n_ports);
        let mut queue_count = Vec::with_capacity(n_ports);
        let mut max_radix = 0;
        let mut queues = 0u32;
        for s in 0..net.num_routers() {
            max_radix = max_radix.max(net.radix(s));
            for p in 0..net.radix(s) {
                let gp = net.port_base[s] as usize + p;
                port_switch.push(s as u32);
                let n = match net.ports[gp].class {
                    PortClass::Unused => 0,
                    PortClass::Terminal => 1,
                    _ if per_vc => k.vc_count[k.peer[gp] as usize],
                    _ => 1,
                };
                queue_base.push(queues);
                queue_count.push(n);
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
        Cioq {
            speedup: cfg.switch.speedup,
            latency: cfg.switch.latency as u64,
            hold: cfg.switch.output_hold || fc != FlowControlKind::Credits,
            iterations: cfg.router.allocator_iterations.max(1),
            queue_capacity,
            fifo,
            port_switch,
            xbar_in_busy: vec![0; n_ports],
            xbar_out_busy: vec![0; n_ports],
            rr_in: vec![0; n_ports],
            rr_out: vec![0; n_ports],
            rr_queue: vec![0; n_ports],
            queue_base,
            queue_count,
            queue: (0..queues)
                .map(|_| VecDeque::with_capacity(slots(queue_capacity)))
                .collect(),
            queued: vec![0; queues as usize],
            draining: vec![(0, 0); n_ports],
            held: vec![0; net.num_routers()],
            active: Vec::new(),
            listed: vec![false; net.num_routers()],
            requests: vec![
                Request {
                    out: NONE,
                    vc: 0,
                    next_vc: 0
                };
                max_radix
            ],
            input_done: vec![false; max_radix],
            output_done: vec![false; max_radix],
            best: vec![(NONE, 0); max_radix],
        }
    }

    /// Output `gp`'s link is free: send the first eligible packet of its queues.
    #[inline]
    fn try_send(&mut self, k: &mut Kernel, gp: usize) {
        if k.link_busy[gp] > k.now {
            return;
        }
        let (phits, q) = self.draining[gp];
        if phits > 0 {
            self.queued[q as usize] -= phits;
            self.draining[gp] = (0, 0);
        }
        let n = self.queue_count[gp] as usize;
        let base = self.queue_base[gp] as usize;
        let terminal = k.net.ports[gp].class == PortClass::Terminal;
        for j in 0..n {
            let qi = base + (self.rr_queue[gp] as usize + j) % n;
            let Some(&pkt) = self.queue[qi].front() else {
                continue;
            };
            let p = *k.pool.get(pkt);
            if p.at as u64 > k.now {
                continue;
            }
            let len = p.len as u32;
            if !terminal && self.hold {
                let down = k.downstream_vc(gp, p.vc);
                if !k.fc.can_send(down, len) {
                    continue;
                }
                k.fc.take(down, len);
            }
            self.queue[qi].pop_front();
            k.send(gp, pkt);
            self.draining[gp] = (len, qi as u32);
            self.held[self.port_switch[gp] as usize] -= 1;
            self.rr_queue[gp] = ((qi - base + 1) % n) as u16;
            return;
        }
    }

    /// The first output, in the packet's order of preference, that can take the head `pkt`
    /// of input queue `in_queue` at switch `s` now: (local output port, queue at the next
    /// buffer).
    #[inline]
    fn choose_output(
        &self,
        k: &Kernel,
        s: usize,
        base: usize,
        pkt: u32,
        in_queue: u16,
    ) -> Option<(u32, u16)> {
        let p = k.pool.get(pkt);
        let len = p.len as u64;
        let take = |o: usize| -> Option<(u32, u16)> {
            let gp = base + o;
            if self.output_done[o] || self.xbar_out_busy[gp] > k.now {
                return None;
            }
            let class = k.net.ports[gp].class;
            let next = if class == PortClass::Terminal {
                0
            } else {
                let ordered = k.route.next_vc(p.hops, p.global_hops, class);
                k.queue_at(k.peer[gp] as usize, p, Some(ordered), !self.hold)?
            };
            let q = if self.queue_count[gp] > 1 { next } else { 0 };
            let qi = self.queue_base[gp] as usize + q as usize;
            (self.queued[qi] as u64 + len <= self.queue_capacity as u64).then_some((o as u32, next))
        };
        if k.queues == QueueScheme::VoqSwitch {
            // The queue is the output.
            return take(in_queue as usize);
        }
        if p.dst_switch as usize == s {
            return take(k.net.attach[p.dst as usize].1 as usize);
        }
        let ports = k.route.ports_towards(s, p.dst_switch as usize);
        let n = ports.len();
        let start = p.dst as usize % n;
        (0..n).find_map(|c| take(ports[(start + c) % n] as usize))
    }

    /// Allocate the crossbar of switch `s` for this cycle.
    fn allocate(&mut self, k: &mut Kernel, s: usize) {
        let base = k.net.port_base[s] as usize;
        let radix = k.net.radix(s);
        self.input_done[..radix].fill(false);
        self.output_done[..radix].fill(false);
        for _ in 0..self.iterations {
            let mut any = false;
            for i in 0..radix {
                self.requests[i].out = NONE;
                let gp = base + i;
                if self.input_done[i] || self.xbar_in_busy[gp] > k.now {
                    continue;
                }
                let nv = k.vc_count[gp] as usize;
                let vb = k.vc_base[gp] as usize;
                for j in 0..nv {
                    let v = (self.rr_in[gp] as usize + j) % nv;
                    let vc = vb + v;
                    let Some(&pkt) = self.fifo[vc].front() else {
                        continue;
                    };
                    if let Some((out, next_vc)) = self.choose_output(k, s, base, pkt, v as u16) {
                        self.requests[i] = Request {
                            out,
                            vc: vc as u32,
                            next_vc,
                        };
                        any = true;
                        break;
                    }
                }
            }
            if !any {
                break;
            }
            // Each requested output grants the first requester at or after its pointer.
            self.best[..radix].fill((NONE, 0));
            for i in 0..radix {
                let o = self.requests[i].out;
                if o == NONE {
                    continue;
                }
                let o = o as usize;
                let d = ((i + radix - self.rr_out[base + o] as usize) % radix) as u32;
                if self.best[o].0 == NONE || d < self.best[o].1 {
                    self.best[o] = (i as u32, d);
                }
            }
            for o in 0..radix {
                let (i, _) = self.best[o];
                if i != NONE {
                    self.grant(k, s, base, i as usize, o);
                }
            }
        }
    }

    /// Input `i` of switch `s` sends its requesting head across the crossbar to output `o`.
    fn grant(&mut self, k: &mut Kernel, s: usize, base: usize, i: usize, o: usize) {
        let r = self.requests[i];
        let (gp_in, gp_out) = (base + i, base + o);
        let pkt = self.fifo[r.vc as usize]
            .pop_front()
            .expect("a request names a head");
        let now = k.now;
        let p = k.pool.get_mut(pkt);
        let len = p.len as u64;
        let end = (now + (len as f64 / self.speedup).ceil() as u64).max(p.at as u64 + len);
        p.vc = r.next_vc;
        self.xbar_in_busy[gp_in] = end;
        self.xbar_out_busy[gp_out] = end;
        let q = if self.queue_count[gp_out] > 1 {
            r.next_vc
        } else {
            0
        };
        self.queued[self.queue_base[gp_out] as usize + q as usize] += len as u32;
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
        let nv = k.vc_count[gp_in] as usize;
        let v = r.vc as usize - k.vc_base[gp_in] as usize;
        self.rr_in[gp_in] = ((v + 1) % nv) as u16;
        self.rr_out[gp_out] = ((i + 1) % k.net.radix(s)) as u16;
        self.input_done[i] = true;
        self.output_done[o] = true;
        k.last_move = now;
    }
}

impl Switch for Cioq {
    #[inline]
    fn arrive(&mut self, k: &mut Kernel, vc: u32, pkt: u32) {
        k.pool.get_mut(pkt).at = k.now as u32;
        self.fifo[vc as usize].push_back(pkt);
        let s = self.port_switch[k.vc_port[vc as usize] as usize] as usize;
        self.held[s] += 1;
        if !self.listed[s] {
            self.listed[s] = true;
            self.active.push(s as u32);
        }
    }

    #[inline]
    fn transfer_done(&mut self, k: &mut Kernel, pkt: u32, vc: u32, port: usize, queue: u16) {
        let p = k.pool.get_mut(pkt);
        p.at = (k.now + self.latency) as u32;
        let len = p.len as u32;
        k.buffer_leave(vc, len);
        self.queue[self.queue_base[port] as usize + queue as usize].push_back(pkt);
    }

    fn step(&mut self, k: &mut Kernel) {
        let mut i = 0;
        while i < self.active.len() {
            let s = self.active[i] as usize;
            let base = k.net.port_base[s] as usize;
            for gp in base..base + k.net.radix(s) {
                self.try_send(k, gp);
            }
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
        for q in self.fifo.iter().chain(&self.queue) {
            for &p in q {
                f(p);
            }
        }
    }
}
