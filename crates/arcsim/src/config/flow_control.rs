//! `[flow_control]`: how a buffer holds back the sender upstream of it (general kernel only;
//! the IQ dragonfly engine always uses credits per VC).

use super::field_err;
use crate::error::ConfigError;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FlowControlKind {
    /// Credits per VC: a sender transmits only into free space it has been told about.
    #[default]
    Credits,
    /// Priority flow control (IEEE 802.1Qbb): a buffer filled to `xoff` phits sends a PAUSE
    /// frame for its VC (priority) upstream, and a resume once drained to `xon`; no credits.
    Pfc,
    /// No back-pressure at all: unbounded buffers and output queues (the reference without
    /// flow control).
    None,
    /// Credits per port (the RECN paper's): the queues of an input port share its memory,
    /// each may grow to all of it, and the sender holds one credit count for the whole port.
    PortCredits,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FlowControlConfig {
    pub kind: FlowControlKind,
    /// PFC: occupancy of an input buffer (phits, per VC) at which it pauses its sender.
    /// Port-level credits: occupancy of one queue at which it stops its sender starting
    /// packets into that queue (Xon/Xoff per queue; 0: none).
    pub xoff: u32,
    /// Occupancy at which a paused buffer (queue) lets its sender resume (below `xoff`).
    pub xon: u32,
    /// Phits a link-level frame (a credit, PAUSE or resume) takes on the link it travels
    /// back over; 0: frames take no link time (only the link's latency).
    pub frame_phits: u32,
}

impl Default for FlowControlConfig {
    fn default() -> Self {
        FlowControlConfig {
            kind: FlowControlKind::Credits,
            xoff: 0,
            xon: 0,
            frame_phits: 0,
        }
    }
}

impl FlowControlConfig {
    pub fn is_default(&self) -> bool {
        *self == FlowControlConfig::default()
    }

    /// Checks that need only this section and the packet length; the headroom above `xoff`
    /// against each buffer and link is checked when the network is built.
    pub fn validate(&self, packet_length: u32) -> Result<(), ConfigError> {
        if self.frame_phits > 4096 {
            return Err(field_err(
                "flow_control.frame_phits",
                format!(
                    "{} phits is out of range: allowed 0..=4096",
                    self.frame_phits
                ),
            ));
        }
        if self.frame_phits > 0 && self.kind == FlowControlKind::None {
            return Err(field_err(
                "flow_control.frame_phits",
                "without flow control there are no frames: leave it at 0, or choose a flow control",
            ));
        }
        // Thresholds: per VC under PFC; per queue, optional, under port-level credits.
        let thresholds = match self.kind {
            FlowControlKind::Pfc => true,
            FlowControlKind::PortCredits => self.xoff != 0 || self.xon != 0,
            FlowControlKind::Credits | FlowControlKind::None => {
                if self.xoff != 0 || self.xon != 0 {
                    return Err(field_err(
                        "flow_control.xoff",
                        "xoff and xon apply only to priority flow control (kind = \"pfc\") and to \
                         Xon/Xoff per queue under port-level credits (kind = \"port-credits\"): \
                         choose one of those, or leave them out",
                    ));
                }
                false
            }
        };
        if thresholds {
            if self.xoff < packet_length {
                return Err(field_err(
                    "flow_control.xoff",
                    format!(
                        "{} phits is below one packet ({packet_length} phits): a buffer must \
                         be able to hold a packet before it pauses its sender",
                        self.xoff
                    ),
                ));
            }
            if self.xon >= self.xoff {
                return Err(field_err(
                    "flow_control.xon",
                    format!(
                        "{} phits must be below flow_control.xoff = {} (a paused buffer resumes \
                         its sender once it has drained below xon)",
                        self.xon, self.xoff
                    ),
                ));
            }
        }
        Ok(())
    }
}
