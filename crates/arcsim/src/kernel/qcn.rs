//! QCN congestion points and QCN-Switch's per-port minimal-routing probabilities (the
//! QCN-Switch paper, Benito, Vallejo, Izu and Beivide 2018), as a kernel [`Mechanism`]
//! configured by `[qcn]` ([`QcnConfig`]). What follows names the paper's sections and,
//! where the paper is silent, what FOGSim v5 (the simulator the paper used) does, by its
//! file and function.
//!
//! **Congestion point.** Every transit port (local or global; not a node's) has a sampling
//! counter of `cpc` packet times (`cpc * packet_length` cycles) that runs down by one every
//! cycle and by one more for every data packet arriving at the port's input (FOGSim:
//! `switchModule::action` and `insertFlit`, `QCNSamplingInterval`). When it has run out the
//! port is sampled:
//!
//! - output sampling (`ioqSwitchModule::qcnOccupancySampling`): Qlen is the phits of the
//!   packets waiting whole in the port's output queue (data and CNMs); the culprit is the
//!   data packet nearest the queue's head;
//! - input sampling (`switchModule::qcnOccupancySampling`): Qlen is the phits in all the
//!   port's data VCs; the culprit is a random packet among them (uniform; FOGSim's index
//!   has a small bias at VC boundaries), taken only if Qlen holds at least one packet.
//!
//! With no culprit the counter stays run out and the port is sampled as soon as a data
//! packet enters its output queue (output) or its input (input): FOGSim retries every
//! cycle, which finds it at the same moment. Fb = (Qlen - Q_eq) + w (Qlen - Q_old), clamped
//! to [0, Q_eq (2w + 1)] and quantised to 6 bits as floor(63 Fb / (Q_eq (2w + 1)))
//! ([`feedback`]); a sample with Fb > 0 sends a CNM with probability `cnm_percent` %
//! (FOGSim: `rand() % 100 + 1 <= QCNCNMsPercent`). The counter restarts and Q_old = Qlen
//! after every sample that found a culprit, whether or not it sent anything.
//!
//! **CNMs.** A CNM is a control packet of `cnm_length` phits (a full packet by default, as
//! FOGSim's) from the sampling switch to the culprit's source switch, carrying Fb: it takes
//! the kernel's control VCs (strict priority over data at every input and output; FOGSim
//! gives none in output queues), waits in the switch's control queue (dropped, counted,
//! when that is full: FOGSim's `QCNQueueLength`; here `switch.output_buffer`), and is
//! applied to the input port it arrives on when its head reaches the culprit's switch
//! (FOGSim applies it when it wins its ejection port, a few cycles later, and then ejects it
//! to a node, taking that node's link for a packet time; the kernel consumes it at the
//! switch). A culprit injected at the sampling switch itself sends nothing: the switch
//! applies Fb to its minimal output for the culprit's destination at once (a local
//! reaction: not counted as a CNM, its PC_l timer not restarted).
//!
//! **Probabilities** (spec B.3-B.6). Every transit port has a minimal-routing probability
//! in percent, 100 at the start. A received CNM multiplies it by 1 - L_f Fb (floored at
//! `min_probability`) and restarts the port's PC_l timer; the timer counts the phits of
//! every packet (data or CNM) crossing the crossbar to the port and adds PI (capped at 100)
//! each time `pc_limit` packets have crossed (FOGSim: `qcnRpTxBCount`). With feedback
//! comparison ([`compare`], FOGSim `switchModule::qcnFeedbackComparison`) the port's last
//! Fb is set, the switch's average over its transit ports is taken (integer division,
//! including the new value), and the probability rises by PI if Fb <= avg + Th1, is cut by
//! 1 - L_f (Fb - avg) if Fb > avg + Th2, else stays. Source processing (input sampling)
//! also cuts, with plain AIMD, the sampling switch's own minimal output for the culprit's
//! destination when that is in another group, whenever it generates a CNM (even one then
//! dropped), as FOGSim does.
//!
//! **Routing.** The decision that uses the probabilities, at injection, is not made here:
//! [`Qcn::minimal_probability`] is the query, and [`takes_minimal`] with [`draw`] the
//! paper's rule (a random N in 1..=100 per packet; the minimal rule is taken if N is at
//! most the probability of its first-hop output truncated to whole percent).

use super::mechanism::Mechanism;
use super::packet::{Kind, Packet};
use super::Kernel;
use crate::config::{Config, QcnConfig, QcnSampling, TopologyKind};
use crate::rng::Rng;
use crate::stats::summary::{ProbabilityPoint, ProbabilitySeries, QcnStats};
use crate::stats::RunResult;
use crate::switch::Switch;
use crate::topology::PortClass;

/// Fb quantised to 6 bits (0..=63) from a queue of `qlen` phits, Q_eq `q_eq`, the length
/// at the last sample `q_old` and weight `w` (FOGSim's integer arithmetic; positive is
/// congested, the sign opposite to the paper's).
pub fn feedback(qlen: u32, q_eq: u32, q_old: u32, w: u32) -> u32 {
    let max = q_eq as i64 * (2 * w as i64 + 1);
    let fb = (qlen as i64 - q_eq as i64) + w as i64 * (qlen as i64 - q_old as i64);
    let fb = fb.clamp(0, max);
    if max == 0 {
        return 0;
    }
    (fb * 63 / max) as u32
}

/// A random N in 1..=100 for one packet's routing decision.
#[inline]
pub fn draw(rng: &mut Rng) -> u32 {
    1 + rng.below(100) as u32
}

/// Whether a packet with draw `n` (1..=100) takes the minimal rule of an output whose
/// probability is `percent` (whole percent, [`Qcn::minimal_probability`]): FOGSim's
/// `minCond.cc` misroutes iff N > (int) probability, so 100 never misroutes and 0 always
/// does.
#[inline]
pub fn takes_minimal(percent: u8, n: u32) -> bool {
    n <= percent as u32
}

/// What feedback comparison did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    Increase,
    Decrease,
    Unchanged,
}

/// Feedback comparison of a CNM's `fb` against the switch's average `avg`: the new
/// probability and what changed.
pub fn compare(prob: f64, fb: u32, avg: u32, q: &QcnConfig) -> (f64, Change) {
    if fb <= avg + q.th1 {
        ((prob + q.pi).min(100.0), Change::Increase)
    } else if fb > avg + q.th2 {
        let r = 1.0 - q.lf * (fb - avg) as f64;
        ((prob * r).max(q.min_probability), Change::Decrease)
    } else {
        (prob, Change::Unchanged)
    }
}

/// The plain multiplicative decrease of a CNM with feedback `fb`.
pub fn cut(prob: f64, fb: u32, q: &QcnConfig) -> f64 {
    (prob * (1.0 - q.lf * fb as f64)).max(q.min_probability)
}

/// The probabilities of every transit port and what changes them: QCN-Switch's reaction,
/// apart from the network (unit-testable).
#[derive(Debug, Clone)]
pub struct Probabilities {
    cfg: QcnConfig,
    /// Per global port: its probability (percent), its PC_l timer (phits to go), the last
    /// Fb it received, and the switch's first port, transit ports and their number.
    pub prob: Vec<f64>,
    timer: Vec<i64>,
    last_fb: Vec<u32>,
    switch_of: Vec<u32>,
    transit: Vec<bool>,
    port_base: Vec<u32>,
    transit_count: Vec<u32>,
    timer_limit: i64,
    pub decreases: u64,
    pub timer_increases: u64,
    pub feedback_increases: u64,
    pub feedback_unchanged: u64,
}

impl Probabilities {
    /// For switches with the given ports: `class[gp]` is whether global port gp is a
    /// transit port, `port_base[s]` switch s's first port (and one past the last).
    pub fn new(
        cfg: &QcnConfig,
        transit: Vec<bool>,
        port_base: Vec<u32>,
        packet_length: u32,
    ) -> Self {
        let n = transit.len();
        let mut switch_of = vec![0u32; n];
        let mut transit_count = Vec::with_capacity(port_base.len());
        for s in 0..port_base.len().saturating_sub(1) {
            let (a, b) = (port_base[s] as usize, port_base[s + 1] as usize);
            switch_of[a..b].fill(s as u32);
            transit_count.push(transit[a..b].iter().filter(|&&t| t).count() as u32);
        }
        let timer_limit = cfg.pc_limit as i64 * packet_length.max(1) as i64;
        Probabilities {
            cfg: cfg.clone(),
            prob: vec![100.0; n],
            timer: vec![timer_limit; n],
            last_fb: vec![0; n],
            switch_of,
            transit,
            port_base,
            transit_count,
            timer_limit,
            decreases: 0,
            timer_increases: 0,
            feedback_increases: 0,
            feedback_unchanged: 0,
        }
    }

    pub fn is_transit(&self, gp: usize) -> bool {
        self.transit[gp]
    }

    /// A CNM with feedback `fb` applied to port `gp`: received through it (`received`: its
    /// PC_l timer restarts) or a local reaction; with or without feedback comparison.
    pub fn apply(&mut self, gp: usize, fb: u32, comparison: bool, received: bool) {
        if comparison {
            self.last_fb[gp] = fb;
            let s = self.switch_of[gp] as usize;
            let (a, b) = (self.port_base[s] as usize, self.port_base[s + 1] as usize);
            let sum: u64 = (a..b)
                .filter(|&p| self.transit[p])
                .map(|p| self.last_fb[p] as u64)
                .sum();
            let avg = (sum / self.transit_count[s].max(1) as u64) as u32;
            let (p, change) = compare(self.prob[gp], fb, avg, &self.cfg);
            self.prob[gp] = p;
            match change {
                Change::Increase => self.feedback_increases += 1,
                Change::Decrease => self.decreases += 1,
                Change::Unchanged => self.feedback_unchanged += 1,
            }
        } else {
            self.decrease(gp, fb);
        }
        if received {
            self.timer[gp] = self.timer_limit;
        }
    }

    /// The plain multiplicative decrease (source processing, and CNMs without feedback
    /// comparison).
    pub fn decrease(&mut self, gp: usize, fb: u32) {
        self.prob[gp] = cut(self.prob[gp], fb, &self.cfg);
        self.decreases += 1;
    }

    /// A packet of `len` phits crossed the crossbar to transit output `gp`: the PC_l timer
    /// runs down, and adds PI once it has run out.
    #[inline]
    pub fn crossed(&mut self, gp: usize, len: u32) {
        let t = &mut self.timer[gp];
        *t -= len as i64;
        if *t <= 0 {
            *t = self.timer_limit;
            self.prob[gp] = (self.prob[gp] + self.cfg.pi).min(100.0);
            self.timer_increases += 1;
        }
    }
}

/// The QCN mechanism: congestion points at every transit port and QCN-Switch's reaction.
pub struct Qcn {
    cfg: QcnConfig,
    packet_length: u32,
    cnm_length: u16,
    group_size: usize,
    /// The dragonfly's nodes per switch (p; = h where QCN-Switch routes).
    nodes_per_switch: usize,
    dragonfly: bool,
    /// Sampling interval in cycles.
    interval: u64,
    output_buffer: u32,
    rng: Rng,
    pub probs: Probabilities,
    /// Per global port: Q_eq in phits, the cycle its sampling counter runs out (sooner by
    /// one per arrival), whether it has run out with no culprit found, Q_old.
    q_eq: Vec<u32>,
    due: Vec<u64>,
    armed: Vec<bool>,
    q_old: Vec<u32>,
    /// Ports to sample, by the cycle they are due (a ring of `interval + 2` buckets; an
    /// entry whose port is no longer due then is stale and skipped).
    buckets: Vec<Vec<u32>>,
    scratch: Vec<u32>,
    /// Data VCs per transit port (the first ones of the port).
    data_vcs: Vec<u16>,
    window: (u64, u64),
    series_window: u64,
    traced: Vec<u32>,
    series: Vec<ProbabilityPoint>,
    samples: u64,
    congested: u64,
    sent: u64,
    sent_in_window: u64,
    local: u64,
    source_processing: u64,
    received: u64,
    /// Per switch, the CNMs received in the measurement window through a local and
    /// through a global port.
    received_local: Vec<u64>,
    received_global: Vec<u64>,
}

impl Qcn {
    pub fn new(q: &QcnConfig, cfg: &Config) -> Qcn {
        let dragonfly = cfg.topology.kind == TopologyKind::Dragonfly;
        let len = cfg.router.packet_length.max(1);
        let interval = q.cpc as u64 * len as u64;
        let cnm = if q.cnm_length == 0 { len } else { q.cnm_length };
        let sim = &cfg.simulation;
        Qcn {
            cfg: q.clone(),
            packet_length: len,
            cnm_length: cnm.min(u16::MAX as u32) as u16,
            group_size: if dragonfly { cfg.topology.a.max(1) } else { 1 },
            nodes_per_switch: cfg.topology.p.max(1),
            dragonfly,
            interval,
            output_buffer: cfg.switch.output_buffer,
            rng: Rng::new(sim.seed ^ 0x5143_4e5f_5357_4954),
            probs: Probabilities::new(q, Vec::new(), vec![0], len),
            q_eq: Vec::new(),
            due: Vec::new(),
            armed: Vec::new(),
            q_old: Vec::new(),
            buckets: (0..interval + 2).map(|_| Vec::new()).collect(),
            scratch: Vec::new(),
            data_vcs: Vec::new(),
            window: (sim.warmup_cycles, sim.warmup_cycles + sim.measure_cycles),
            series_window: sim.series_window,
            traced: Vec::new(),
            series: Vec::new(),
            samples: 0,
            congested: 0,
            sent: 0,
            sent_in_window: 0,
            local: 0,
            source_processing: 0,
            received: 0,
            received_local: Vec::new(),
            received_global: Vec::new(),
        }
    }

    /// Q_eq in phits for a buffer of `capacity` phits.
    fn q_eq_of(&self, capacity: u32) -> u32 {
        ((self.cfg.q_eq * capacity as f64).round() as u32).max(1)
    }

    /// The minimal-routing probability of local port `port` of switch `switch`, truncated
    /// to whole percent as FOGSim's decision reads it (100 for a port that is not a
    /// transit port).
    pub fn minimal_probability(&self, switch: usize, port: usize) -> u8 {
        let gp = self.probs.port_base[switch] as usize + port;
        if !self.probs.transit[gp] {
            return 100;
        }
        self.probs.prob[gp].clamp(0.0, 100.0) as u8
    }

    /// The paper's routing decision for packet `pkt` injected at switch `s` (for a
    /// decision hook at injection to call, once per packet): true to take the minimal
    /// path, false to take the non-minimal rule. A packet whose destination is in its own
    /// group always goes minimally (FOGSim never misroutes it); any other draws N in
    /// 1..=100 from the mechanism's own random stream and goes minimally if N is at most
    /// the whole-percent probability of its minimal first hop ([`takes_minimal`]).
    pub fn takes_minimal_at_injection(&mut self, k: &Kernel, s: usize, pkt: &Packet) -> bool {
        if self.group(pkt.dst_switch as usize) == self.group(s) {
            return true;
        }
        let port = k.output_at(s, pkt) as usize;
        let percent = self.minimal_probability(s, port);
        takes_minimal(percent, draw(&mut self.rng))
    }

    /// The same, unrounded (percent).
    pub fn probability(&self, switch: usize, port: usize) -> f64 {
        self.probs.prob[self.probs.port_base[switch] as usize + port]
    }

    /// The group of switch `s` (the dragonfly's; every switch is its own elsewhere).
    fn group(&self, s: usize) -> usize {
        s / self.group_size
    }

    #[inline]
    fn bucket(&mut self, t: u64, gp: usize) {
        let n = self.buckets.len() as u64;
        self.buckets[(t % n) as usize].push(gp as u32);
    }

    /// Sample transit port `gp` of switch `s` now.
    fn sample<S: Switch>(&mut self, k: &mut Kernel, sw: &S, s: usize, gp: usize) {
        let len = self.packet_length;
        let (qlen, culprit) = match self.cfg.sampling {
            QcnSampling::Output => {
                let mut qlen = 0u32;
                let mut culprit = None;
                for id in sw.output_packets(gp) {
                    let p = k.pool.get(id);
                    qlen += p.len as u32;
                    if culprit.is_none() && p.kind == Kind::Data {
                        culprit = Some(*p);
                    }
                }
                (qlen, culprit)
            }
            QcnSampling::Input => {
                let base = k.vc_base[gp];
                let data = self.data_vcs[gp] as u32;
                let (mut qlen, mut packets) = (0u32, 0u32);
                for v in base..base + data {
                    for id in sw.input_packets(v) {
                        qlen += k.pool.get(id).len as u32;
                        packets += 1;
                    }
                }
                if qlen < len || packets == 0 {
                    (qlen, None)
                } else {
                    // A random data packet of the port.
                    let mut i = self.rng.below(packets as u64) as usize;
                    let mut culprit = None;
                    for v in base..base + data {
                        let n = sw.input_packets(v).count();
                        if i < n {
                            let id = sw.input_packets(v).nth(i).expect("counted");
                            culprit = Some(*k.pool.get(id));
                            break;
                        }
                        i -= n;
                    }
                    (qlen, culprit)
                }
            }
        };
        let Some(culprit) = culprit else {
            // Run out with nothing to sample: sampled when a data packet comes.
            self.armed[gp] = true;
            return;
        };
        self.samples += 1;
        let fb = feedback(qlen, self.q_eq[gp], self.q_old[gp], self.cfg.w);
        if fb > 0 {
            self.congested += 1;
            // FOGSim: rand() % 100 + 1 <= QCNCNMsPercent.
            if draw(&mut self.rng) <= self.cfg.cnm_percent {
                self.notify(k, s, &culprit, fb);
            }
        }
        self.armed[gp] = false;
        self.due[gp] = k.now + self.interval;
        self.bucket(k.now + self.interval, gp);
        self.q_old[gp] = qlen;
    }

    /// A congested sample at switch `s` with culprit `c`: the CNM, or the local reaction;
    /// and source processing.
    fn notify(&mut self, k: &mut Kernel, s: usize, c: &Packet, fb: u32) {
        let src = k.net.attach[c.src as usize].0 as usize;
        let comparison = self.cfg.feedback_comparison;
        if src != s {
            k.send_control(s, src, self.cnm_length, fb);
            self.sent += 1;
            if k.now >= self.window.0 && k.now < self.window.1 {
                self.sent_in_window += 1;
            }
        } else {
            let gp = k.net.port_base[s] as usize + k.output_at(s, c) as usize;
            if self.probs.is_transit(gp) {
                self.probs.apply(gp, fb, comparison, false);
                self.local += 1;
            }
        }
        if self.cfg.source_processing && self.group(c.dst_switch as usize) != self.group(s) {
            let gp = k.net.port_base[s] as usize + k.output_at(s, c) as usize;
            if self.probs.is_transit(gp) {
                self.probs.decrease(gp, fb);
                self.source_processing += 1;
            }
        }
    }

    fn snapshot(&mut self, now: u64) {
        let values = self
            .traced
            .iter()
            .map(|&gp| self.probs.prob[gp as usize])
            .collect();
        self.series.push(ProbabilityPoint { cycle: now, values });
    }
}

impl Mechanism for Qcn {
    fn sends_control(&self) -> bool {
        true
    }

    fn routes_at_injection(&self) -> bool {
        self.dragonfly && self.cfg.routing
    }

    /// QCN-Switch's decision (spec B.3, FOGSim's MIN_COND with CRG): a packet leaving its
    /// group takes its minimal first hop unless a random N exceeds that hop's probability;
    /// then it leaves through the global port whose number is the injecting node's index
    /// at its switch (p = h), so it goes through the group at the far end of that link.
    fn route_at_injection(&mut self, k: &mut Kernel, s: usize, pkt: u32, via: u32) -> u32 {
        let p = *k.pool.get(pkt);
        if self.takes_minimal_at_injection(k, s, &p) {
            return via;
        }
        // The dragonfly's ports: p nodes, a - 1 local, h global, and p = h (validated): the
        // last p ports are the global ones.
        let nodes = self.nodes_per_switch;
        let gp = k.net.port_base[s + 1] as usize - nodes + p.src as usize % nodes;
        match k.net.ports[gp].class {
            PortClass::Global => k.port_switch[k.peer[gp] as usize],
            // A spare port of a dragonfly with fewer groups: no alternative, minimal.
            _ => via,
        }
    }

    fn start(&mut self, k: &Kernel) {
        let n = k.net.ports.len();
        let transit: Vec<bool> = k
            .net
            .ports
            .iter()
            .map(|p| matches!(p.class, PortClass::Local | PortClass::Global))
            .collect();
        let mut base = k.net.port_base.clone();
        base.truncate(k.net.num_routers());
        base.push(n as u32);
        self.probs = Probabilities::new(&self.cfg, transit, base, self.packet_length);
        self.received_local = vec![0; k.net.num_routers()];
        self.received_global = vec![0; k.net.num_routers()];
        self.q_eq = vec![0; n];
        self.due = vec![u64::MAX; n];
        self.armed = vec![false; n];
        self.q_old = vec![0; n];
        self.data_vcs = vec![0; n];
        let output_buffer = self.output_buffer;
        for gp in 0..n {
            if !self.probs.transit[gp] {
                continue;
            }
            let vcs = k.vc_count[gp] / if k.control_vcs { 2 } else { 1 };
            self.data_vcs[gp] = vcs;
            let capacity = match self.cfg.sampling {
                QcnSampling::Output => output_buffer,
                QcnSampling::Input => k.fc.capacity[k.vc_base[gp] as usize],
            };
            self.q_eq[gp] = self.q_eq_of(capacity);
            self.due[gp] = self.interval;
            self.bucket(self.interval, gp);
        }
        let traced_switches = if self.dragonfly {
            0..self.group_size.min(k.net.num_routers())
        } else {
            0..k.net.num_routers()
        };
        for s in traced_switches {
            for p in 0..k.net.radix(s) {
                let gp = k.net.port_base[s] as usize + p;
                if self.probs.transit[gp] {
                    self.traced.push(gp as u32);
                }
            }
        }
    }

    #[inline]
    fn on_input(&mut self, k: &mut Kernel, vc: u32, _pkt: u32) {
        let gp = k.vc_port[vc as usize] as usize;
        if !self.probs.transit[gp] {
            return;
        }
        if self.armed[gp] {
            if self.cfg.sampling == QcnSampling::Input {
                self.due[gp] = k.now;
                self.bucket(k.now, gp);
            }
            return;
        }
        // The counter runs down by one more: due a cycle sooner (now at the earliest).
        let due = self.due[gp].saturating_sub(1).max(k.now);
        self.due[gp] = due;
        self.bucket(due, gp);
    }

    #[inline]
    fn on_output(&mut self, k: &mut Kernel, port: usize, pkt: u32) {
        if !self.probs.transit[port] {
            return;
        }
        let p = k.pool.get(pkt);
        let (len, data) = (p.len as u32, p.kind == Kind::Data);
        self.probs.crossed(port, len);
        if data && self.armed[port] && self.cfg.sampling == QcnSampling::Output {
            self.due[port] = k.now;
            self.bucket(k.now, port);
        }
    }

    fn on_control(&mut self, k: &mut Kernel, _s: usize, port: Option<usize>, pkt: u32) {
        let Some(gp) = port else { return };
        if !self.probs.transit[gp] {
            return;
        }
        let fb = k.pool.get(pkt).msg;
        self.received += 1;
        if k.now >= self.window.0 && k.now < self.window.1 {
            let s = k.port_switch[gp] as usize;
            match k.net.ports[gp].class {
                PortClass::Global => self.received_global[s] += 1,
                _ => self.received_local[s] += 1,
            }
        }
        self.probs.apply(gp, fb, self.cfg.feedback_comparison, true);
    }

    fn on_cycle<S: Switch>(&mut self, k: &mut Kernel, sw: &S) {
        let now = k.now;
        let n = self.buckets.len() as u64;
        let slot = (now % n) as usize;
        if !self.buckets[slot].is_empty() {
            let mut due = std::mem::take(&mut self.scratch);
            std::mem::swap(&mut due, &mut self.buckets[slot]);
            for &gp in &due {
                let gp = gp as usize;
                if self.due[gp] != now {
                    continue;
                }
                // Sampled once per cycle at most (an entry may be listed twice).
                self.due[gp] = u64::MAX;
                let s = k.port_switch[gp] as usize;
                self.sample(k, sw, s, gp);
            }
            due.clear();
            self.scratch = due;
        }
        let w = self.series_window;
        if w > 0 && (now + 1) % w == 0 {
            self.snapshot(now + 1);
        }
    }

    fn report(&self, k: &Kernel, r: &mut RunResult) {
        let transit: Vec<usize> = (0..self.probs.prob.len())
            .filter(|&gp| self.probs.transit[gp])
            .collect();
        let below = transit
            .iter()
            .filter(|&&gp| self.probs.prob[gp] < 100.0)
            .count();
        let min = transit
            .iter()
            .map(|&gp| self.probs.prob[gp])
            .fold(100.0, f64::min);
        let mut q_eq: Vec<u32> = transit.iter().map(|&gp| self.q_eq[gp]).collect();
        q_eq.sort_unstable();
        q_eq.dedup();
        let probabilities = (self.series_window > 0).then(|| {
            let mut points = self.series.clone();
            if points.last().is_none_or(|p| p.cycle < k.now) {
                points.push(ProbabilityPoint {
                    cycle: k.now,
                    values: self
                        .traced
                        .iter()
                        .map(|&gp| self.probs.prob[gp as usize])
                        .collect(),
                });
            }
            ProbabilitySeries {
                window_cycles: self.series_window,
                ports: self
                    .traced
                    .iter()
                    .map(|&gp| {
                        let s = k.port_switch[gp as usize];
                        (s, gp - k.net.port_base[s as usize])
                    })
                    .collect(),
                points,
            }
        });
        r.qcn = Some(QcnStats {
            variant: self.cfg.variant().into(),
            sampling: self.cfg.sampling.name().into(),
            q_eq_phits: q_eq,
            sampling_interval: self.interval,
            samples: self.samples,
            congested_samples: self.congested,
            cnms_sent: self.sent,
            cnms_sent_in_window: self.sent_in_window,
            local_reactions: self.local,
            source_processing: self.source_processing,
            cnms_received: self.received,
            cnms_received_local: self.received_local.clone(),
            cnms_received_global: self.received_global.clone(),
            decreases: self.probs.decreases,
            timer_increases: self.probs.timer_increases,
            feedback_increases: self.probs.feedback_increases,
            feedback_unchanged: self.probs.feedback_unchanged,
            ports_below_100: below as u64,
            min_probability: min,
            probabilities,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::Sim;

    /// One switch with `n` transit ports (and no node port).
    fn switch(n: usize, cfg: &QcnConfig) -> Probabilities {
        Probabilities::new(cfg, vec![true; n], vec![0, n as u32], 10)
    }

    #[test]
    fn feedback_is_quantised_to_six_bits_and_saturates_at_twice_q_eq() {
        // The spec's D2.1 at full scale: Q_eq = 4000 phits (20 packets of 200).
        assert_eq!(feedback(4000, 4000, 0, 0), 0);
        assert_eq!(feedback(4063, 4000, 0, 0), 0);
        assert_eq!(feedback(4064, 4000, 0, 0), 1);
        assert_eq!(feedback(6000, 4000, 0, 0), 31);
        assert_eq!(feedback(7999, 4000, 0, 0), 62);
        assert_eq!(feedback(8000, 4000, 0, 0), 63);
        assert_eq!(feedback(20000, 4000, 0, 0), 63);
        assert_eq!(feedback(0, 4000, 0, 0), 0);
        // At k = 20: Q_eq = 200 phits; Fb >= 1 needs 204 phits.
        assert_eq!(feedback(203, 200, 0, 0), 0);
        assert_eq!(feedback(204, 200, 0, 0), 1);
        assert_eq!(feedback(400, 200, 0, 0), 63);
        // w = 2 (the QCN standard's): growth counts, and the range is Q_eq (2w + 1).
        assert_eq!(feedback(300, 200, 250, 2), 200 * 63 / 1000);
        assert_eq!(feedback(300, 200, 400, 2), 0);
        assert_eq!(feedback(1000, 200, 0, 2), 63);
    }

    #[test]
    fn the_first_cut_with_feedback_comparison_is_the_specs() {
        let cfg = QcnConfig::default();
        // 8 transit ports (p = 3, a = 6, h = 3): avg = 63 / 8 = 7, factor 1 - 56/64.
        let mut p = switch(8, &cfg);
        p.apply(0, 63, true, true);
        assert_eq!(p.prob[0], 12.5);
        assert_eq!(p.decreases, 1);
        // 17 (p = 6, a = 12, h = 6): avg = 3, factor 1 - 60/64.
        let mut p = switch(17, &cfg);
        p.apply(5, 63, true, true);
        assert_eq!(p.prob[5], 6.25);
        // The paper's Fig. 4 case: 5 transit ports, Fb = 60: avg 12, factor 0.25; without
        // comparison 1 - 60/64.
        let mut p = switch(5, &cfg);
        p.apply(0, 60, true, true);
        assert_eq!(p.prob[0], 25.0);
        let mut p = switch(5, &cfg);
        p.apply(0, 60, false, true);
        assert_eq!(p.prob[0], 6.25);
        // The base cut at Fb = 63 with L_f = 1/64 is x 1/64.
        let mut p = switch(5, &cfg);
        p.apply(0, 63, false, true);
        assert_eq!(p.prob[0], 100.0 / 64.0);
    }

    #[test]
    fn feedback_comparison_raises_keeps_or_cuts() {
        let cfg = QcnConfig::default();
        // Every port reported 60 (uniform load): a CNM of 60 is at the average: +PI.
        let mut p = switch(4, &cfg);
        p.prob[0] = 50.0;
        p.last_fb.fill(60);
        p.apply(0, 60, true, true);
        assert_eq!(p.prob[0], 51.0);
        // A CNM can raise a probability, never above 100.
        p.apply(1, 60, true, true);
        assert_eq!(p.prob[1], 100.0);
        assert_eq!(p.feedback_increases, 2);
        // Within (avg + Th1, avg + Th2]: unchanged. Ports at 0 except this one: avg =
        // 20 / 4 = 5, and 20 - 5 = 15 <= 30.
        let mut p = switch(4, &cfg);
        p.apply(2, 20, true, true);
        assert_eq!((p.prob[2], p.feedback_unchanged), (100.0, 1));
        // Fb - avg = 36 - 9 = 27: still unchanged; 44 - 11 = 33 > 30: cut by 1 - 33/64.
        p.apply(3, 36, true, true);
        assert_eq!(p.prob[3], 100.0);
        let mut p = switch(4, &cfg);
        p.apply(3, 44, true, true);
        assert_eq!(p.prob[3], 100.0 * (1.0 - 33.0 / 64.0));
    }

    #[test]
    fn aimd_follows_a_sequence_of_notifications_and_packets() {
        let cfg = QcnConfig::default();
        let mut p = switch(3, &cfg);
        // A CNM of Fb 32: x (1 - 32/64).
        p.apply(1, 32, false, true);
        assert_eq!(p.prob[1], 50.0);
        // PC_l = 100 packets of 10 phits cross to the port: +1 percentage point.
        for _ in 0..99 {
            p.crossed(1, 10);
        }
        assert_eq!(p.prob[1], 50.0);
        p.crossed(1, 10);
        assert_eq!(p.prob[1], 51.0);
        // 99 more, then a CNM of Fb 16 restarts the count: x 0.75.
        for _ in 0..99 {
            p.crossed(1, 10);
        }
        p.apply(1, 16, false, true);
        assert_eq!(p.prob[1], 38.25);
        for _ in 0..99 {
            p.crossed(1, 10);
        }
        assert_eq!(p.prob[1], 38.25);
        p.crossed(1, 10);
        assert_eq!(p.prob[1], 39.25);
        // A local reaction does not restart the count: 50 packets, a local cut, 50 more.
        for _ in 0..50 {
            p.crossed(1, 10);
        }
        p.apply(1, 32, false, false);
        assert_eq!(p.prob[1], 39.25 / 2.0);
        for _ in 0..50 {
            p.crossed(1, 10);
        }
        assert_eq!(p.prob[1], 39.25 / 2.0 + 1.0);
        // Other ports are untouched; increases stop at 100.
        assert_eq!((p.prob[0], p.prob[2]), (100.0, 100.0));
        for _ in 0..1000 {
            p.crossed(0, 10);
        }
        assert_eq!(p.prob[0], 100.0);
        // Cuts stop at the floor.
        for _ in 0..10 {
            p.apply(2, 63, false, true);
        }
        assert_eq!(p.prob[2], cfg.min_probability);
        assert_eq!((p.decreases, p.timer_increases), (13, 13));
    }

    #[test]
    fn the_routing_rule_truncates_to_whole_percent() {
        // The paper's Fig. 3: a port at 10% and N = 77 misroutes.
        assert!(!takes_minimal(10, 77));
        assert!(takes_minimal(10, 10));
        assert!((1..=100).all(|n| takes_minimal(100, n)));
        assert!((1..=100).all(|n| !takes_minimal(0, n)));
        let mut rng = Rng::new(3);
        let draws: Vec<u32> = (0..10_000).map(|_| draw(&mut rng)).collect();
        assert!(draws.iter().all(|&n| (1..=100).contains(&n)));
        assert!(draws.contains(&1) && draws.contains(&100));
        // 12.5% and 0.9% read as 12 and 0.
        let cfg = Config::from_toml_str(
            "[topology]\nkind = \"graph\"\n[topology.graph]\nswitches = 2\nhosts = [0, 1]\n\
             links = [{ a = 0, b = 1 }]\n[switch]\nkind = \"cioq\"\n[qcn]\n",
        )
        .unwrap();
        let mut sim =
            crate::kernel::build_with(&cfg, Qcn::new(cfg.qcn.as_ref().unwrap(), &cfg)).unwrap();
        // The decision at injection: node 0 (switch 0) to node 1 (switch 1), through port 1.
        let pkt = Packet {
            src: 0,
            dst: 1,
            dst_switch: 1,
            gen_time: 0,
            inject_time: 0,
            at: 0,
            flow: crate::kernel::packet::NO_FLOW,
            msg: 0,
            seq: 0,
            len: 8,
            hops: 0,
            global_hops: 0,
            vc: 0,
            kind: Kind::Data,
            class: 0,
            route: crate::kernel::packet::NO_VIA,
        };
        let Sim { k, mech, .. } = &mut sim;
        assert!((0..100).all(|_| mech.takes_minimal_at_injection(k, 0, &pkt)));
        mech.probs.prob[1] = 0.5;
        assert!((0..100).all(|_| !mech.takes_minimal_at_injection(k, 0, &pkt)));
        mech.probs.prob[1] = 30.0;
        let minimal = (0..10_000)
            .filter(|_| mech.takes_minimal_at_injection(k, 0, &pkt))
            .count();
        assert!((2800..3200).contains(&minimal), "{minimal}");
        // To a node of the same switch (its own group here): always minimal.
        let local = Packet {
            dst: 0,
            dst_switch: 0,
            ..pkt
        };
        assert!((0..100).all(|_| mech.takes_minimal_at_injection(k, 0, &local)));
        sim.mech.probs.prob[1] = 12.5;
        assert_eq!(sim.mech.minimal_probability(0, 1), 12);
        sim.mech.probs.prob[1] = 0.9;
        assert_eq!(sim.mech.minimal_probability(0, 1), 0);
        assert_eq!(sim.mech.minimal_probability(0, 0), 100, "a node's port");
    }
}
