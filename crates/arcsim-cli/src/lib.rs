//! The `arcsim` command as a library: its commands, and the pieces other front ends share
//! (the Python package `arcsim`, crates/arcsim-py, calls the same loading, sweep, store and
//! output functions). The binary (src/main.rs) is [`main`] with the huge-page allocator.

pub mod bench;
pub mod check;
pub mod figure;
pub mod html;
pub mod hugealloc;
pub mod interrupt;
pub mod load;
pub mod output;
pub mod plot;
pub mod progress;
pub mod provenance;
pub mod report;
pub mod show;
pub mod slurm;
pub mod sweep;
pub mod trace;

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
    /// Run one simulation (the embedded default, the network of the OFAR paper, García et al. 2014, when no CONFIG is given), print a
    /// summary and write OUT/result.json plus time-series and hop-histogram plots.
    Run {
        /// TOML configuration file (`-`: standard input).
        config: Option<PathBuf>,
        /// Override a configuration key, e.g. --set traffic.load=0.3 (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
        /// Output directory.
        #[arg(long, default_value = "results/run")]
        out: PathBuf,
        /// Follow chosen packets of the first run, writing OUT/trace.csv (every hop with its
        /// cycle, router, ports, VCs and routing decision): id=N,N... (packets by
        /// generation number, from 0), flow=SRC:DST or flow=SRC (by source and destination
        /// node), rate=R (that share of the packets). Repeatable.
        #[arg(long, value_name = "RULE")]
        trace: Vec<String>,
    },
    /// Sweep offered load (and optionally other keys) in parallel; write CSV, JSON and plots.
    Sweep(sweep::SweepArgs),
    /// Run one task of a Slurm sweep (`arcsim sweep ... --slurm DIR`): point ID's
    /// simulations, stored in DIR/runs/ (those stored already are kept).
    SweepTask {
        /// The folder `--slurm` wrote.
        dir: PathBuf,
        /// The point (the task's `$SLURM_ARRAY_TASK_ID`, from 0).
        id: usize,
        /// Worker threads for the point's seeds (default: the cores the task may use).
        #[arg(long)]
        threads: Option<usize>,
    },
    /// Write a Slurm sweep's outputs (sweep.csv, sweep.json, config.toml, plots) into its
    /// folder from the simulations its tasks stored, or name the points still missing.
    Collect {
        /// The folder `arcsim sweep ... --slurm DIR` wrote.
        dir: PathBuf,
    },
    /// Run every simulation of a figure specification (panels × curves × loads) and write
    /// its tables and plots, e.g. `arcsim figure experiments/ofar/fig06.toml --scale quick`.
    Figure(figure::FigureArgs),
    /// Measure simulator speed on the OFAR paper's network (UN, MIN, load 0.5, 20,000 cycles).
    Bench {
        /// Global links per router of the balanced dragonfly (6: 5,256 nodes; 8: 16,512 nodes).
        #[arg(long, default_value_t = 6)]
        h: usize,
        #[arg(long, default_value_t = 20_000)]
        cycles: u64,
        #[arg(long, default_value_t = 0.5)]
        load: f64,
        /// Run the benchmark this many times and report the median and the range (on a
        /// shared machine single runs vary); every run must give identical results.
        #[arg(long, default_value_t = 1)]
        repeat: u32,
        /// Further overrides (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
    },
    /// Print the embedded default configuration (a starting point for your own files).
    Config,
    /// Validate a configuration (every error at once, with line numbers) and print the
    /// complete effective configuration, every key with defaults included; runs nothing
    /// and writes no file. `arcsim check my.toml --set traffic.load=0.3 > full.toml`.
    Check {
        /// TOML configuration file (`-`: standard input; none: the embedded default).
        config: Option<PathBuf>,
        /// Override a configuration key, e.g. --set traffic.load=0.3 (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
    },
}

/// The `arcsim` command: parse the command line, run the command, and say how it ended.
pub fn main() -> ExitCode {
    die_quietly_on_closed_pipe();
    let cli = Cli::parse();
    interrupt::install();
    match dispatch(cli) {
        Ok(()) => ExitCode::SUCCESS,
        // A command that ends with a status of its own (interrupted, some sweep point
        // failed) has already written what it could.
        Err(e) => match e.downcast_ref::<interrupt::Exit>() {
            Some(exit) => {
                eprintln!("arcsim: {}", exit.message);
                ExitCode::from(exit.code)
            }
            None => {
                eprintln!("error: {e:#}");
                ExitCode::from(2)
            }
        },
    }
}

/// End quietly, like other Unix tools, when the reader of stdout goes away
/// (`arcsim figure spec.toml --dry-run | head`). Rust starts programs with SIGPIPE ignored, which
/// turns a closed pipe into a panic in `println!`; the default disposition ends the process.
fn die_quietly_on_closed_pipe() {
    #[cfg(unix)]
    // SAFETY: changes the disposition of one signal, before any other thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn dispatch(cli: Cli) -> Result<()> {
    match cli.cmd {
        Cmd::Run {
            config,
            set,
            out,
            trace,
        } => report::run_command(config.as_deref(), &set, &out, &trace),
        Cmd::Sweep(args) => sweep::sweep_command(&args),
        Cmd::SweepTask { dir, id, threads } => slurm::task_command(&dir, id, threads),
        Cmd::Collect { dir } => slurm::collect_command(&dir),
        Cmd::Figure(args) => figure::figure_command(&args),
        Cmd::Bench {
            h,
            cycles,
            load,
            repeat,
            set,
        } => bench::bench_command(h, cycles, load, repeat, &set),
        Cmd::Config => {
            print!("{}", arcsim::config::DEFAULT_TOML);
            Ok(())
        }
        Cmd::Check { config, set } => check::check_command(config.as_deref(), &set),
    }
}
