//! Network interfaces: each node's injection queue and its link into its switch, the
//! explicit flows of `[[flows]]` and their messages. A message is cut into packets of
//! `router.packet_length` phits (the last one shorter) as it enters the injection queue;
//! the receiving NIC counts a message's phits as its packets arrive, in any order, and
//! the message is delivered when the last one is in.
//!
//! A node with several links to the network (rails: an XGFT with w1 > 1, a graph's
//! `rails`) keeps one injection queue and sends its oldest packet on a rail that
//! `nic.rail_selection` picks, each rail with its own link and its own credits towards its
//! switch's input, so that it starts up to one packet per rail per cycle; it receives on
//! every rail, and reassembly does not care which rail a packet came by.

use crate::config::FlowSpec;
use std::collections::{BTreeMap, VecDeque};

/// One node's interface: one injection queue, or (with admittance queues) one queue per
/// destination, served round robin, so that a destination whose packets cannot advance
/// does not hold up the others (the RECN paper's NICs).
#[derive(Debug, Default)]
pub struct Nic {
    /// Packets waiting to leave, oldest first (one injection queue).
    pub queue: VecDeque<u32>,
    /// Per destination with packets waiting: its packets, oldest first, and their phits
    /// (admittance queues).
    pub by_destination: BTreeMap<u32, (VecDeque<u32>, u32)>,
    /// Admittance queues: the first destination to try next (round robin).
    pub next_destination: u32,
    /// Phits waiting, in all queues.
    pub queued: u32,
    /// The link into the switch carries a packet until this cycle.
    pub link_busy: u64,
    /// Nodes with several links (rails), on a network where some node has them: per rail,
    /// its link into its switch carries a packet until this cycle (`link_busy` is then
    /// unused); and the rail to try first next (round robin). Empty elsewhere.
    pub rail_busy: Vec<u64>,
    pub rail_next: u32,
}

impl Nic {
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty() && self.by_destination.is_empty()
    }

    /// Every packet waiting (for audits).
    pub fn packets(&self) -> impl Iterator<Item = &u32> {
        self.queue
            .iter()
            .chain(self.by_destination.values().flat_map(|(q, _)| q))
    }

    /// Phits waiting where a packet to `dst` would wait: the injection queue, or that
    /// destination's admittance queue (each bounded by `nic.queue` on its own, so that a
    /// destination that drains slowly does not take the room of the others).
    #[inline]
    pub fn queued_for(&self, dst: u32, admittance: bool) -> u32 {
        if admittance {
            self.by_destination.get(&dst).map_or(0, |(_, phits)| *phits)
        } else {
            self.queued
        }
    }
}

/// A message on its way: its flow, its size, the phits still to arrive, and when it was
/// created.
#[derive(Debug, Clone, Copy)]
pub struct Message {
    pub flow: u32,
    pub size: u32,
    pub missing: u32,
    pub created: u64,
    /// Packets arrived so far: a packet whose place in the message differs arrived out of
    /// order.
    pub arrived: u32,
}

/// A flow as it runs.
#[derive(Debug, Clone)]
pub struct FlowState {
    pub spec: FlowSpec,
    /// Message length in phits.
    pub message: u32,
    /// Flows still to complete before this one may start.
    pub waiting_for: usize,
    /// Cycle of the next message (fractional for rates that do not divide the message).
    pub next: f64,
    /// Cycle it started (after its `after` flows), None before.
    pub started: Option<u64>,
    /// Messages created but not yet wholly queued: (message index, phits still to queue).
    pub backlog: VecDeque<(u32, u32)>,
    /// Phits created, and phits delivered (whole packets, in any order).
    pub created: u64,
    pub delivered: u64,
    pub delivered_in_window: u64,
    pub messages_delivered: u64,
    /// Packets that arrived before an earlier packet of their message.
    pub reordered: u64,
    /// Sum of the delivered messages' latencies (creation to last phit in).
    pub message_latency_sum: u64,
    /// Cycle its last phit of `size` arrived.
    pub completed: Option<u64>,
    /// Phits delivered per series window (empty without a series).
    pub series: Vec<u64>,
    /// Flows that wait for this one.
    pub dependents: Vec<usize>,
}

impl FlowState {
    pub fn new(spec: &FlowSpec, packet_length: u32) -> FlowState {
        FlowState {
            message: if spec.message == 0 {
                packet_length
            } else {
                spec.message
            },
            waiting_for: spec.after.len(),
            next: spec.start as f64,
            started: None,
            backlog: VecDeque::new(),
            created: 0,
            delivered: 0,
            delivered_in_window: 0,
            messages_delivered: 0,
            reordered: 0,
            message_latency_sum: 0,
            completed: None,
            series: Vec::new(),
            dependents: Vec::new(),
            spec: spec.clone(),
        }
    }

    /// Whether the flow creates no more messages: stopped, or its size all created.
    pub fn exhausted(&self, now: u64) -> bool {
        (self.spec.stop != 0 && now >= self.spec.stop)
            || (self.spec.size != 0 && self.created >= self.spec.size)
    }

    /// The next message's size: the message length, or what is left of `size`.
    pub fn next_message(&self) -> u32 {
        if self.spec.size == 0 {
            self.message
        } else {
            (self.spec.size - self.created).min(self.message as u64) as u32
        }
    }

    /// Whether the flow creates messages on its own clock (rate below 1) or whenever the
    /// previous one has been queued (a greedy source).
    pub fn greedy(&self) -> bool {
        self.spec.rate >= 1.0
    }
}
