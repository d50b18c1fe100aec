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
    /// An error with where it comes from: `file.toml:12` or `--set topology.h=9`.
    #[error("{location}: {error}")]
    Located {
        location: String,
        error: Box<ConfigError>,
    },
    /// Every error found in one configuration, each on its own line.
    #[error("{} errors in the configuration:\n{}", .0.len(), .0.iter().map(|e| format!("  {e}")).collect::<Vec<_>>().join("\n"))]
    Several(Vec<ConfigError>),
}

impl ConfigError {
    /// The field an error names (`topology.h`), if any.
    pub fn field(&self) -> Option<&str> {
        match self {
            ConfigError::Field { field, .. } => Some(field),
            ConfigError::Located { error, .. } => error.field(),
            _ => None,
        }
    }

    /// One error as itself, several as [`ConfigError::Several`].
    pub fn from_all(mut errors: Vec<ConfigError>) -> ConfigError {
        if errors.len() == 1 {
            errors.remove(0)
        } else {
            ConfigError::Several(errors)
        }
    }
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
