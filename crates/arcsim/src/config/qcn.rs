//! `[qcn]`: QCN congestion points and QCN-Switch's per-port minimal-routing probabilities
//! (the QCN-Switch paper, Benito, Vallejo, Izu and Beivide 2018), on the general kernel.
//! Present: the kernel runs [`crate::kernel::qcn::Qcn`] as its congestion mechanism;
//! absent: no mechanism (the kernel's results are those of a run without it).
//!
//! The paper's six variants are three switches of this section:
//!
//! | paper | `sampling` | `source_processing` | `feedback_comparison` |
//! |---|---|---|---|
//! | QCN-Switch input | `"input"` | false | false |
//! | QCN-SWin + Source processing | `"input"` | true | false |
//! | QCN-SWin + Feedback comparison | `"input"` | false | true |
//! | QCN-SWin + Source P. + Fb. comparison | `"input"` | true | true |
//! | QCN-Switch output | `"output"` | false | false |
//! | QCN-SWout + Feedback comparison | `"output"` | false | true |

use super::field_err;
use crate::error::ConfigError;
use serde::{Deserialize, Serialize};

/// Where the congestion points sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum QcnSampling {
    /// The output queue of every transit port (the 802.1Qau standard's place); the culprit
    /// is the data packet nearest its head.
    #[default]
    Output,
    /// The input buffers of every transit port, all data VCs together (Neeser et al.); the
    /// culprit is a random data packet of the port.
    Input,
}

impl QcnSampling {
    pub fn name(self) -> &'static str {
        match self {
            QcnSampling::Output => "output",
            QcnSampling::Input => "input",
        }
    }
}

/// The longest sampling interval (`cpc` times `router.packet_length`), in cycles: the
/// mechanism keeps a timer wheel of that many slots.
pub const QCN_MAX_INTERVAL: u64 = 1_000_000;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct QcnConfig {
    /// Where congestion points sample: "output" (default) or "input".
    pub sampling: QcnSampling,
    /// Input sampling only: the sampling switch also applies a CNM it generates to its own
    /// minimal output for the culprit's destination (spec B.6).
    pub source_processing: bool,
    /// Feedback comparison (spec B.5): a CNM's Fb is compared with the average of the last
    /// Fb received on each transit port before the probability changes.
    pub feedback_comparison: bool,
    /// Congestion point cycle: a port is sampled every `cpc` packet times (`cpc` times
    /// `router.packet_length` cycles), sooner by one cycle per packet arriving at it.
    pub cpc: u32,
    /// Q_eq, the equilibrium occupancy, as a fraction of the buffer sampled: the output
    /// queue (`switch.output_buffer`) or one input VC's buffer (`router.buffer_local` or
    /// `buffer_global`), rounded to whole phits.
    pub q_eq: f64,
    /// w, the weight of the queue's growth since the last sample in Fb.
    pub w: u32,
    /// Percentage of congested samples (Fb > 0) that send a CNM, drawn per sample.
    pub cnm_percent: u32,
    /// Length of a CNM in phits; 0: a full packet (`router.packet_length`), as FOGSim.
    pub cnm_length: u32,
    /// L_f: a CNM with feedback Fb multiplies the probability by 1 - L_f * Fb (at most
    /// 1/63, so that the factor stays non-negative).
    pub lf: f64,
    /// PC_l: packets crossing to a transit output between additive increases of its
    /// probability (a received CNM restarts the count).
    pub pc_limit: u32,
    /// PI: the additive increase, in percentage points.
    pub pi: f64,
    /// Th1 and Th2 of feedback comparison, in Fb units (0..63).
    pub th1: u32,
    pub th2: u32,
    /// The floor of a probability, in percent (FOGSim's `QCN_MIN_RATE`).
    pub min_probability: f64,
    /// On the dragonfly, route by the probabilities at injection (QCN-Switch's conditional
    /// rules: minimal unless a random N exceeds the first hop's probability, then the
    /// global port the injecting node's index names); false: measure them only.
    pub routing: bool,
}

impl Default for QcnConfig {
    /// The paper's Table I (feedback comparison with output sampling, its "QCN-Switch").
    fn default() -> Self {
        QcnConfig {
            sampling: QcnSampling::Output,
            source_processing: false,
            feedback_comparison: true,
            cpc: 100,
            q_eq: 0.2,
            w: 0,
            cnm_percent: 30,
            cnm_length: 0,
            lf: 1.0 / 64.0,
            pc_limit: 100,
            pi: 1.0,
            routing: true,
            th1: 0,
            th2: 30,
            min_probability: 0.0000125,
        }
    }
}

impl QcnConfig {
    /// The paper's name of the variant configured.
    pub fn variant(&self) -> &'static str {
        match (
            self.sampling,
            self.source_processing,
            self.feedback_comparison,
        ) {
            (QcnSampling::Input, false, false) => "QCN-Switch input",
            (QcnSampling::Input, true, false) => "QCN-SWin + Source processing",
            (QcnSampling::Input, false, true) => "QCN-SWin + Feedback comparison",
            (QcnSampling::Input, true, true) => "QCN-SWin + Source P. + Fb. comparison",
            (QcnSampling::Output, _, false) => "QCN-Switch output",
            (QcnSampling::Output, _, true) => "QCN-SWout + Feedback comparison",
        }
    }

    /// The section's own rules (the buffers Q_eq is taken of are checked when the kernel
    /// is built).
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.source_processing && self.sampling == QcnSampling::Output {
            return Err(field_err(
                "qcn.source_processing",
                "source processing applies to input sampling only (with output sampling the \
                 congested switch samples its own output and reacts to it): set \
                 qcn.sampling = \"input\", or leave source_processing out",
            ));
        }
        if self.cpc == 0 || self.cpc > 1_000_000 {
            return Err(field_err(
                "qcn.cpc",
                format!(
                    "{} packets is not allowed: a port is sampled every cpc packet times, 1 to 1000000",
                    self.cpc
                ),
            ));
        }
        if !(self.q_eq > 0.0 && self.q_eq <= 0.5) {
            return Err(field_err(
                "qcn.q_eq",
                format!(
                    "{} is not allowed: Q_eq is a fraction of the buffer sampled in (0, 0.5] \
                     (Fb saturates at 2 Q_eq, which must fit in the buffer); the paper uses 0.2",
                    self.q_eq
                ),
            ));
        }
        if self.w > 1000 {
            return Err(field_err(
                "qcn.w",
                format!(
                    "{} is not allowed: use 0 to 1000 (the paper uses 0, the QCN standard 2)",
                    self.w
                ),
            ));
        }
        if self.cnm_percent == 0 || self.cnm_percent > 100 {
            return Err(field_err(
                "qcn.cnm_percent",
                format!(
                    "{} is not allowed: the percentage of congested samples that send a CNM is 1 to 100",
                    self.cnm_percent
                ),
            ));
        }
        if self.cnm_length > u16::MAX as u32 {
            return Err(field_err(
                "qcn.cnm_length",
                format!(
                    "{} phits is too long: allowed up to {}",
                    self.cnm_length,
                    u16::MAX
                ),
            ));
        }
        if !(self.lf > 0.0 && self.lf <= 1.0 / 63.0) {
            return Err(field_err(
                "qcn.lf",
                format!(
                    "{} is not allowed: L_f must be in (0, 1/63] so that 1 - L_f * Fb (Fb up to 63) \
                     stays at least 0; the paper uses 1/64 = 0.015625",
                    self.lf
                ),
            ));
        }
        if self.pc_limit == 0 || self.pc_limit > 1_000_000 {
            return Err(field_err(
                "qcn.pc_limit",
                format!("{} packets is not allowed: use 1 to 1000000", self.pc_limit),
            ));
        }
        if !(self.pi > 0.0 && self.pi <= 100.0) {
            return Err(field_err(
                "qcn.pi",
                format!(
                    "{} is not allowed: the additive increase is in (0, 100] percentage points",
                    self.pi
                ),
            ));
        }
        for (key, th) in [("qcn.th1", self.th1), ("qcn.th2", self.th2)] {
            if th > 63 {
                return Err(field_err(
                    key,
                    format!("{th} is not allowed: thresholds are in Fb units, 0 to 63"),
                ));
            }
        }
        if self.th1 > self.th2 {
            return Err(field_err(
                "qcn.th1",
                format!(
                    "{} is above qcn.th2 = {}: the band where nothing changes is (avg + th1, avg + th2]",
                    self.th1, self.th2
                ),
            ));
        }
        if !(self.min_probability >= 0.0 && self.min_probability < 100.0) {
            return Err(field_err(
                "qcn.min_probability",
                format!(
                    "{} is not allowed: the floor is a percentage in [0, 100)",
                    self.min_probability
                ),
            ));
        }
        Ok(())
    }
}
