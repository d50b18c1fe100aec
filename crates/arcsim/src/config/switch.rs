//! `[switch]`: the switch architecture. `iq` is the input-queued router of the dragonfly
//! engine (configured by `[router]` alone); `cioq` is the combined input-output-queued switch
//! of the general kernel ([`crate::kernel`]): input buffers per VC, a crossbar with internal
//! speedup, output queues, and a switch latency before a packet in an output queue may take
//! its link.

use super::field_err;
use crate::error::ConfigError;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SwitchKind {
    /// Input-queued, no speedup, no output queues: the OFAR paper's router.
    #[default]
    Iq,
    /// Combined input-output queued, with crossbar speedup and output queues.
    Cioq,
}

/// How the output queues of a CIOQ port are organised.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OutputQueues {
    /// One FIFO per output port shared by every VC (FOGSim's IOQ switch).
    #[default]
    Shared,
    /// One FIFO per output port and VC, each of `switch.output_buffer` phits.
    PerVc,
}

/// How an input port's memory is split into queues, and which queue a packet joins (the
/// RECN paper's schemes). Except for `vc`, a port's buffer (`router.buffer_*`) is its whole
/// memory, divided equally among its queues, and the queues carry no deadlock-avoiding
/// order: they need a network whose switches form no cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum QueueScheme {
    /// Virtual channels chosen by the routing's order (`router.vcs_*` per port, each
    /// `router.buffer_*` phits).
    #[default]
    Vc,
    /// `switch.queue_count` queues per port; the sender picks the one with the most room.
    FourQ,
    /// One queue per output port of the switch (virtual output queues at switch level).
    VoqSwitch,
    /// One queue per destination node (virtual output queues at network level).
    VoqNet,
}

impl QueueScheme {
    /// The name a configuration gives it.
    pub fn name(self) -> &'static str {
        match self {
            QueueScheme::Vc => "vc",
            QueueScheme::FourQ => "four-q",
            QueueScheme::VoqSwitch => "voq-switch",
            QueueScheme::VoqNet => "voq-net",
        }
    }
}

/// How an output port of a CIOQ switch chooses among the inputs requesting it
/// (`switch.arbitration`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Arbitration {
    /// Round robin per packet (iSLIP's pointer): fair in packets.
    #[default]
    RoundRobin,
    /// Deficit round robin (Shreedhar and Varghese): fair in phits. The input at the
    /// pointer keeps its turn while its deficit covers its head packet; a turn adds
    /// `router.packet_length` phits. With packets of equal length it grants as round robin.
    Drr,
}

fn is_default_arbitration(a: &Arbitration) -> bool {
    !super::writing_every_key() && *a == Arbitration::RoundRobin
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SwitchConfig {
    pub kind: SwitchKind,
    /// Crossbar speed over the link speed (CIOQ): a packet of L phits crosses in
    /// ceil(L / speedup) cycles, or when its tail has arrived if later. At least 1.
    pub speedup: f64,
    /// Cycles from a packet's arrival in an output queue until it may take the link (the
    /// "switch latency" of the QCN-Switch paper's Table I; FOGSim's `XbarDelay`).
    pub latency: u32,
    /// Capacity of each output queue in phits (CIOQ).
    pub output_buffer: u32,
    pub output_queues: OutputQueues,
    /// Whether a packet may enter an output queue without credits for its next buffer and
    /// wait there (true), or only once the credits are reserved (false: FOGSim's IOQ switch,
    /// where output queues only match the crossbar's speed to the link's). Priority flow
    /// control always holds packets in output queues.
    pub output_hold: bool,
    /// Queues of an input port.
    pub queues: QueueScheme,
    /// Queues per port with `queues = "four-q"`.
    pub queue_count: u16,
    /// How an output chooses among its requesting inputs. Written only when not the
    /// default (runs stored before the key keep their identity).
    #[serde(skip_serializing_if = "is_default_arbitration")]
    pub arbitration: Arbitration,
}

impl Default for SwitchConfig {
    fn default() -> Self {
        SwitchConfig {
            kind: SwitchKind::Iq,
            speedup: 1.0,
            latency: 0,
            output_buffer: 64,
            output_queues: OutputQueues::Shared,
            output_hold: false,
            queues: QueueScheme::Vc,
            queue_count: 4,
            arbitration: Arbitration::RoundRobin,
        }
    }
}

impl SwitchConfig {
    pub fn is_default(&self) -> bool {
        *self == SwitchConfig::default()
    }

    pub fn validate(&self, packet_length: u32) -> Result<(), ConfigError> {
        if !(self.speedup >= 1.0 && self.speedup <= 64.0) {
            return Err(field_err(
                "switch.speedup",
                format!(
                    "{} is not allowed: the crossbar must be at least as fast as a link (1 to 64; \
                     1.5 for a 12 Gbps crossbar on 8 Gbps links, 2 for the QCN-Switch paper)",
                    self.speedup
                ),
            ));
        }
        if self.latency > 100_000 {
            return Err(field_err(
                "switch.latency",
                format!(
                    "{} cycles is out of range: allowed 0..=100000",
                    self.latency
                ),
            ));
        }
        if self.output_buffer < packet_length {
            return Err(field_err(
                "switch.output_buffer",
                format!(
                    "{} phits cannot hold one packet of {packet_length} phits: use at least {packet_length}",
                    self.output_buffer
                ),
            ));
        }
        if self.queue_count == 0 {
            return Err(field_err(
                "switch.queue_count",
                "0 queues cannot hold a packet: use at least 1 (4 for the RECN paper's 4Q)",
            ));
        }
        if self.kind == SwitchKind::Iq && !self.is_iq_compatible() {
            return Err(field_err(
                "switch.kind",
                "speedup, latency, output_buffer, output_queues, output_hold, queues, \
                 queue_count and arbitration describe a CIOQ switch: set switch.kind = \"cioq\", or leave them out",
            ));
        }
        Ok(())
    }

    /// Whether every CIOQ-only key is at its default (the IQ router reads none of them).
    fn is_iq_compatible(&self) -> bool {
        let d = SwitchConfig::default();
        self.speedup == d.speedup
            && self.latency == d.latency
            && self.output_buffer == d.output_buffer
            && self.output_queues == d.output_queues
            && self.output_hold == d.output_hold
            && self.queues == d.queues
            && self.queue_count == d.queue_count
            && self.arbitration == d.arbitration
    }
}
