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
pub mod memory;
pub mod prefetch;
pub mod rng;
pub mod router;
pub mod routing;
pub mod slab;
pub mod stats;
pub mod switch;
pub mod topology;
pub mod traffic;
pub mod validate;

pub use config::Config;
pub use engine::{build, run, run_traced, run_with, Simulator, Tick, TraceSpec};
pub use error::{ConfigError, SimError};
pub use stats::RunResult;
pub use validate::validate;

/// Run `cfg.simulation.repetitions` independent simulations with seeds seed, seed+1, ... and
/// aggregate them (mean and 95% confidence interval).
pub fn run_repeated(cfg: &Config) -> Result<stats::summary::Repeated, SimError> {
    run_repeated_traced(cfg, &TraceSpec::default()).map(|(rep, _)| rep)
}

/// [`run_repeated`], tracing the packets `trace` picks in the first run (seed
/// `simulation.seed`).
pub fn run_repeated_traced(
    cfg: &Config,
    trace: &TraceSpec,
) -> Result<(stats::summary::Repeated, Vec<engine::TraceRecord>), SimError> {
    let reps = cfg.simulation.repetitions.max(1) as u64;
    let mut runs = Vec::with_capacity(reps as usize);
    let mut records = Vec::new();
    for k in 0..reps {
        let mut c = cfg.clone();
        c.simulation.seed = cfg.simulation.seed.wrapping_add(k);
        if k == 0 && !trace.is_empty() {
            let (r, t) = run_traced(&c, trace)?;
            runs.push(r);
            records = t;
        } else {
            runs.push(run(&c)?);
        }
    }
    Ok((stats::summary::Repeated::of(runs), records))
}
