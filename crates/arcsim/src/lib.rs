//! arcsim: a cycle-accurate simulator of lossless HPC and datacenter interconnection networks
//! for studying adaptive routing and congestion management.
//!
//! Layout: [`config`] (TOML schema and validation), [`topology`] (wiring), [`routing`]
//! (algorithms behind the [`routing::Routing`] trait), [`router`] (buffers, allocator,
//! arbiters), [`traffic`] (patterns and injection), [`engine`] (the cycle loop), [`stats`]
//! (measurement and results).

pub mod config;
pub mod engine;
pub mod error;
pub mod kernel;
pub mod prefetch;
pub mod rng;
pub mod router;
pub mod routing;
pub mod stats;
pub mod switch;
pub mod topology;
pub mod traffic;

pub use config::Config;
pub use engine::{build, run, run_with, Simulator, Tick};
pub use error::{ConfigError, SimError};
pub use stats::RunResult;

/// Run `cfg.simulation.repetitions` independent simulations with seeds seed, seed+1, ... and
/// aggregate them (mean and 95% confidence interval).
pub fn run_repeated(cfg: &Config) -> Result<stats::summary::Repeated, SimError> {
    let reps = cfg.simulation.repetitions.max(1) as u64;
    let mut runs = Vec::with_capacity(reps as usize);
    for k in 0..reps {
        let mut c = cfg.clone();
        c.simulation.seed = cfg.simulation.seed.wrapping_add(k);
        runs.push(run(&c)?);
    }
    Ok(stats::summary::Repeated::of(runs))
}
