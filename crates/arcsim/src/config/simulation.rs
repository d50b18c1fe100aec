//! `[simulation]`: seed, windows, repetitions, the watchdog and run limits.

use super::field_err;
use crate::error::ConfigError;
use serde::{Deserialize, Serialize};

/// Longest run the engine supports: router records keep times as 32-bit cycles, and this
/// leaves room below 2^32 for every event horizon.
pub const MAX_CYCLES: u64 = 4_000_000_000;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SimulationConfig {
    pub seed: u64,
    pub warmup_cycles: u64,
    pub measure_cycles: u64,
    /// Independent runs with seeds seed, seed+1, ...; the summary reports mean and 95% CI.
    pub repetitions: u32,
    /// Stop with a deadlock report when packets are in flight and none has moved for this
    /// many cycles.
    pub watchdog_cycles: u64,
    /// Width of the time-series windows in cycles (0 = no time series).
    pub series_window: u64,
    /// Burst mode only: give up after this many cycles.
    pub max_cycles: u64,
    /// Most memory one simulation may need, in MiB (0: the machine's memory). A
    /// configuration whose estimate ([`crate::memory::estimate`]) is above it is refused.
    /// Written only when set (runs stored before the key keep their identity).
    #[serde(skip_serializing_if = "is_zero")]
    pub memory_limit_mib: u64,
    /// General kernel: width in cycles of the windows in which every output port's root and
    /// branch time and phits sent are counted (`ports_series.csv`); 0: none. Written only
    /// when set (runs stored before the key keep their identity).
    #[serde(skip_serializing_if = "is_zero")]
    pub port_series_window: u64,
}

fn is_zero(v: &u64) -> bool {
    !super::writing_every_key() && *v == 0
}

impl Default for SimulationConfig {
    fn default() -> Self {
        SimulationConfig {
            seed: 1,
            warmup_cycles: 5_000,
            measure_cycles: 10_000,
            repetitions: 1,
            watchdog_cycles: 20_000,
            series_window: 0,
            max_cycles: 10_000_000,
            memory_limit_mib: 0,
            port_series_window: 0,
        }
    }
}

impl SimulationConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.measure_cycles == 0 {
            return Err(field_err(
                "simulation.measure_cycles",
                "must be at least 1 cycle",
            ));
        }
        if self.repetitions == 0 || self.repetitions > 1000 {
            return Err(field_err(
                "simulation.repetitions",
                format!("{} is out of range: allowed 1..=1000", self.repetitions),
            ));
        }
        if self.warmup_cycles.saturating_add(self.measure_cycles) > MAX_CYCLES {
            return Err(field_err(
                "simulation.measure_cycles",
                format!(
                    "warm-up plus measurement is {} cycles: allowed up to {MAX_CYCLES}",
                    self.warmup_cycles.saturating_add(self.measure_cycles)
                ),
            ));
        }
        if self.max_cycles > MAX_CYCLES {
            return Err(field_err(
                "simulation.max_cycles",
                format!(
                    "{} is out of range: allowed up to {MAX_CYCLES}",
                    self.max_cycles
                ),
            ));
        }
        if self.watchdog_cycles < 100 {
            return Err(field_err(
                "simulation.watchdog_cycles",
                format!(
                    "{} cycles is too short: must be at least 100 cycles (longer than any link latency plus a packet)",
                    self.watchdog_cycles
                ),
            ));
        }
        Ok(())
    }
}
