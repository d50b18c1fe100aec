//! `arcsim`: command-line front end. See `arcsim --help` and docs/.

mod bench;
mod load;
mod plot;
mod report;
mod sweep;

use anyhow::Result;
use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "arcsim",
    version,
    about = "Cycle-accurate interconnection network simulator for adaptive routing and congestion management"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run one simulation (the embedded seed-001 default when no CONFIG is given), print a
    /// summary and write OUT/result.json plus time-series and hop-histogram plots.
    Run {
        /// TOML configuration file.
        config: Option<PathBuf>,
        /// Override a configuration key, e.g. --set traffic.load=0.3 (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
        /// Output directory.
        #[arg(long, default_value = "results/run")]
        out: PathBuf,
    },
    /// Sweep offered load (and optionally other keys) in parallel; write CSV, JSON and plots.
    Sweep {
        /// TOML configuration file (the embedded default when omitted).
        config: Option<PathBuf>,
        /// Offered loads START:STOP:STEP (inclusive), e.g. 0.05:0.5:0.05.
        #[arg(long, value_name = "START:STOP:STEP")]
        load: String,
        /// One curve per value: --vary routing.algorithm=min,val,val-any (repeatable; curves
        /// are the cartesian product).
        #[arg(long, value_name = "KEY=V1,V2,...")]
        vary: Vec<String>,
        /// Override a configuration key for every point (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
        /// Output directory.
        #[arg(long, default_value = "results/sweep")]
        out: PathBuf,
        /// Worker threads (default: all cores). Results do not depend on it.
        #[arg(long)]
        threads: Option<usize>,
        /// Plot title.
        #[arg(long)]
        title: Option<String>,
    },
    /// Measure simulator speed on the seed-001 network (UN, MIN, load 0.5, 20,000 cycles).
    Bench {
        /// Global links per router of the balanced dragonfly (6: 5,256 nodes; 8: 16,512 nodes).
        #[arg(long, default_value_t = 6)]
        h: usize,
        #[arg(long, default_value_t = 20_000)]
        cycles: u64,
        #[arg(long, default_value_t = 0.5)]
        load: f64,
        /// Further overrides (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
    },
    /// Print the embedded default configuration (a starting point for your own files).
    Config,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match dispatch(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn dispatch(cli: Cli) -> Result<()> {
    match cli.cmd {
        Cmd::Run { config, set, out } => report::run_command(config.as_deref(), &set, &out),
        Cmd::Sweep {
            config,
            load,
            vary,
            set,
            out,
            threads,
            title,
        } => sweep::sweep_command(&sweep::SweepArgs {
            config,
            load,
            vary,
            set,
            out,
            threads,
            title,
        }),
        Cmd::Bench {
            h,
            cycles,
            load,
            set,
        } => bench::bench_command(h, cycles, load, &set),
        Cmd::Config => {
            print!("{}", arcsim::config::DEFAULT_TOML);
            Ok(())
        }
    }
}
