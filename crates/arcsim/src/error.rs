//! Error types. Every user-facing error names the offending field and what is allowed.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum ConfigError {
    #[error("invalid TOML: {0}")]
    Syntax(String),
    #[error("configuration field `{field}`: {message}")]
    Field { field: String, message: String },
    #[error("--set {assignment}: {message}")]
    Override { assignment: String, message: String },
    #[error("cannot read configuration file {path}: {message}")]
    Io { path: String, message: String },
}

#[derive(Debug, Error)]
pub enum SimError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("{0}")]
    Deadlock(Box<crate::engine::DeadlockReport>),
    /// The general kernel's watchdog: packets in flight and none moving.
    #[error("{0}")]
    Stall(String),
    /// A buffer received more than it holds: a packet would have been lost.
    #[error("{0}")]
    Overflow(String),
    #[error("burst did not complete within simulation.max_cycles = {max_cycles} cycles ({delivered} of {total} packets delivered); raise simulation.max_cycles")]
    BurstTimeout {
        max_cycles: u64,
        delivered: u64,
        total: u64,
    },
    /// Stopped on request ([`crate::Simulator::run_with`]), e.g. by Ctrl-C.
    #[error("interrupted after {cycles} cycles")]
    Interrupted { cycles: u64 },
}
