//! `arcsim figure SPEC.toml`: one command per figure of a paper.
//!
//! A figure specification names a base configuration and the grid it varies: panels (one
//! plot each, e.g. one traffic pattern) × curves (one line or bar per configuration, e.g. a
//! routing) × offered loads for sweeps. Every simulation of the figure runs in one parallel
//! pool, in a fixed job order, so the output does not depend on the number of threads. Named
//! scales (`[scale.quick]`) shrink the network, windows and seeds for a small machine while
//! the spec itself keeps the paper's full-size setting. Runs that fail (a burst that does not
//! finish within `simulation.max_cycles`, a deadlock report) are recorded as such in the
//! tables, not dropped silently, and do not stop the rest of the figure.
//!
//! Kinds:
//! - `sweep`: accepted load and latency against offered load (the OFAR paper Figs. 5, 6, 9, 10, 14).
//! - `burst`: every node sends a burst; consumption time normalised to a baseline curve, and
//!   the hop histograms of every panel (Figs. 8, 11, 13).
//! - `transient`: latency per generation window around a change of traffic (Fig. 7).
//! - `injection`: packets injected per router in chosen groups (Fig. 12).
//! - `flows`: per-flow throughput over time, with phase means, Jain index and port
//!   counters (the InfiniBand adaptive-routing paper's figures).

//! - `collective`: completion time of `[[collectives]]` against message size (the
//!   InfiniBand adaptive-routing paper's Figs. 13-15).

mod burst;
mod claims;
mod collective;
mod flows;
mod injection;
mod spec;
pub mod store;
mod sweep;
mod transient;

use anyhow::{bail, Context, Result};
use arcsim::{Config, RunResult};
use spec::{jobs, plan, Job, Kind, Plan};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use store::Stored;

#[derive(clap::Args)]
pub struct FigureArgs {
    /// Figure specification (TOML), e.g. experiments/ofar/fig06.toml.
    pub spec: PathBuf,
    /// Run at a reduced scale defined in the spec (`[scale.NAME]`), e.g. `quick`; without
    /// it the figure runs at the spec's full (paper) size.
    #[arg(long)]
    pub scale: Option<String>,
    /// Run only this panel of the figure (repeatable), e.g. `--panel advgh`; the claims on the
    /// panels left out are not checked. A later run of the whole figure into the same OUT
    /// reuses these simulations.
    #[arg(long = "panel", value_name = "NAME")]
    pub panels: Vec<String>,
    /// Override a configuration key in every simulation of the figure (repeatable; applied
    /// last).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Output directory (default: results/SPEC, the spec file's name, with -SCALE appended).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Print the simulations the figure would run, and run none.
    #[arg(long)]
    pub dry_run: bool,
    /// Run every simulation again instead of reusing those stored in OUT/runs/ with the
    /// same configuration.
    #[arg(long)]
    pub fresh: bool,
    /// Check the spec's claims (`[[claim]]`) on the tables a run of the figure already
    /// wrote to OUT (with the same --scale), and simulate nothing.
    #[arg(long, conflicts_with_all = ["dry_run", "fresh"])]
    pub claims_only: bool,
    /// Redraw the figure's tables, plots and summary from the simulations stored in
    /// OUT/runs/ by any build of arcsim (after a change to the report alone), and simulate
    /// nothing; the summary names the builds whose results it shows.
    #[arg(long, conflicts_with_all = ["dry_run", "fresh", "claims_only"])]
    pub redraw: bool,
}

pub fn figure_command(args: &FigureArgs) -> Result<()> {
    let mut plan = plan(&args.spec, args.scale.as_deref())?;
    plan.keep_panels(&args.panels)
        .with_context(|| args.spec.display().to_string())?;
    let jobs = jobs(&plan, args.scale.as_deref(), &args.set)?;
    crate::load::warn_unused_keys(jobs.iter().map(|j| &j.cfg), &args.set, false);
    let stem = args
        .spec
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_else(|| "figure".into());
    let out = args.out.clone().unwrap_or_else(|| {
        let name = match &args.scale {
            Some(s) => format!("{stem}-{s}"),
            None => stem.clone(),
        };
        PathBuf::from("results").join(name)
    });
    let spec = &plan.spec;
    // What claims need of each panel: its network size (claims written per global link,
    // "1/h") and when its traffic changes (transient claims).
    let panel_info: Vec<claims::PanelInfo> = (0..plan.panels.len())
        .map(|pi| {
            let cfg = jobs.iter().find(|j| j.panel == pi).map(|j| &j.cfg);
            claims::PanelInfo {
                h: cfg.map_or(0, |c| c.topology.h),
                change: cfg.and_then(|c| c.traffic.change.as_ref().map(|ch| ch.at_cycle)),
            }
        })
        .collect();
    if args.claims_only {
        if spec.claim.is_empty() {
            bail!(
                "--claims-only: {} has no [[claim]] to check",
                args.spec.display()
            );
        }
        let mut report = String::new();
        claims::write(&plan, &out, &panel_info, &mut report).with_context(|| {
            format!(
                "--claims-only reads the tables a run of this figure wrote to {} (run it first, with the same --scale and --out)",
                out.display()
            )
        })?;
        print!("{report}");
        println!("wrote {}", out.join("claims.csv").display());
        return Ok(());
    }
    eprintln!(
        "arcsim figure: {} | {} simulations{}",
        spec.title,
        jobs.len(),
        plan.scale_note
            .as_ref()
            .map(|s| format!(" | {s}"))
            .unwrap_or_default()
    );
    if args.dry_run {
        for j in &jobs {
            let (pname, _) = &plan.panels[j.panel];
            let c = &j.cfg;
            let t = &c.traffic;
            let pattern = if t.mix.is_empty() && t.pattern == arcsim::config::PatternKind::AllToAll
            {
                format!("{:?} {:?}", t.pattern, t.all_to_all_order)
            } else if t.mix.is_empty() {
                format!("{:?} {}", t.pattern, t.offset)
            } else {
                format!("mix of {}", t.mix.len())
            };
            println!(
                "{pname} | {} | {} | {pattern} | p={} a={} h={} | load {} | burst {} | {} + {} cycles | seed {}",
                spec.curve[j.curve].label,
                c.routing.algorithm.name(),
                c.topology.p,
                c.topology.a,
                c.topology.h,
                c.traffic.load,
                c.traffic.burst_packets,
                c.simulation.warmup_cycles,
                c.simulation.measure_cycles,
                c.simulation.seed
            );
        }
        return Ok(());
    }
    let runs = out.join("runs");
    let texts: Vec<String> = jobs
        .iter()
        .map(|j| j.cfg.to_toml_string())
        .collect::<std::result::Result<_, _>>()?;
    let binary = store::binary_id().unwrap_or_default();
    let (results, older_builds) = if args.redraw {
        redraw_results(&plan, &jobs, &texts, &runs, &binary)?
    } else {
        (simulate(args, &jobs, &texts, &runs, &binary)?, Vec::new())
    };
    let finished = Finished {
        plan: &plan,
        jobs: &jobs,
        cells: cells(&jobs, results),
        out: &out,
    };
    let mut report = String::new();
    writeln!(report, "# {}", spec.title)?;
    writeln!(
        report,
        "made by {}; every simulation's complete configuration is in {}",
        crate::provenance::describe(),
        runs.display()
    )?;
    if let Some(n) = &plan.scale_note {
        writeln!(report, "{n}")?;
    }
    if !plan.omitted.is_empty() {
        let run: Vec<&str> = plan.panels.iter().map(|p| p.0.as_str()).collect();
        writeln!(
            report,
            "panels run (--panel): {}; left out: {}",
            run.join(", "),
            plan.omitted.join(", ")
        )?;
    }
    if !plan.omitted_curves.is_empty() {
        let run: Vec<&str> = spec.curve.iter().map(|c| c.label.as_str()).collect();
        writeln!(
            report,
            "curves run at this scale: {}; left out: {}",
            run.join(", "),
            plan.omitted_curves.join(", ")
        )?;
    }
    if !args.set.is_empty() {
        // They override the spec and the scale (whose description above does not know them).
        let sets: Vec<String> = args.set.iter().map(|s| format!("--set {s}")).collect();
        writeln!(report, "command-line overrides: {}", sets.join(" "))?;
    }
    if !older_builds.is_empty() {
        // Results of another build are that build's: say so where they are read.
        writeln!(
            report,
            "redrawn from simulations stored by {} (this build: {})",
            older_builds.join(", "),
            if binary.is_empty() {
                "unknown"
            } else {
                &binary
            }
        )?;
    }
    match spec.kind {
        Kind::Sweep => sweep::write(finished, &mut report)?,
        Kind::Burst => burst::write(finished, &mut report)?,
        Kind::Transient => transient::write(finished, &mut report)?,
        Kind::Injection => injection::write(finished, &mut report)?,
        Kind::Flows => flows::write(finished, &mut report)?,
        Kind::Collective => collective::write(finished, &mut report)?,
    }
    if let Some(p) = &spec.paper {
        writeln!(report, "\npaper: {}", p.trim())?;
    }
    claims::write(&plan, &out, &panel_info, &mut report)?;
    print!("{report}");
    crate::output::write(&out.join("summary.txt"), report.as_bytes())?;
    write_html(args, &plan, &jobs, &out, &report)?;
    println!(
        "wrote {}/ (report.html: summary, claims, plots)",
        out.display()
    );
    Ok(())
}

/// `OUT/report.html`: the summary, the claims and every plot, the figure's spec and the
/// complete configuration of the first simulation of each (panel, curve) (its other
/// simulations differ from it in their load and seed only; all are in OUT/runs/).
fn write_html(
    args: &FigureArgs,
    plan: &Plan,
    jobs: &[Job],
    out: &Path,
    report: &str,
) -> Result<()> {
    let spec_text = std::fs::read_to_string(&args.spec)
        .with_context(|| format!("reading {}", args.spec.display()))?;
    let mut configs = vec![(
        format!("The figure's specification ({})", args.spec.display()),
        spec_text,
    )];
    let mut seen = std::collections::BTreeSet::new();
    for j in jobs {
        if seen.insert((j.panel, j.curve)) {
            configs.push((
                format!(
                    "panel {}, curve {}: the complete configuration of its first simulation",
                    plan.panels[j.panel].0, plan.spec.curve[j.curve].label
                ),
                crate::provenance::config_file(&j.cfg)?,
            ));
        }
    }
    crate::html::write(
        out,
        &crate::html::Report {
            title: &plan.spec.title,
            summary: report,
            configs,
        },
    )
}

/// Every simulation of the figure, from OUT/runs/ where this binary stored it, the rest run
/// now (and stored as each finishes).
fn simulate(
    args: &FigureArgs,
    jobs: &[Job],
    texts: &[String],
    runs: &Path,
    binary: &str,
) -> Result<Vec<Stored>> {
    let cfgs: Vec<Config> = jobs.iter().map(|j| j.cfg.clone()).collect();
    store::simulate(&cfgs, texts, runs, binary, args.fresh, args.threads, true)
}

/// `--redraw`: every simulation of the figure from OUT/runs/, whatever build stored it, and
/// the builds other than this one that did. Nothing is simulated: a simulation not stored
/// stops the redraw, naming the first one missing.
fn redraw_results(
    plan: &Plan,
    jobs: &[Job],
    texts: &[String],
    runs: &Path,
    binary: &str,
) -> Result<(Vec<Stored>, Vec<String>)> {
    let found: Vec<Option<(Stored, String)>> =
        texts.iter().map(|t| store::load_any(runs, t)).collect();
    let missing: Vec<usize> = (0..jobs.len()).filter(|&i| found[i].is_none()).collect();
    if let Some(&first) = missing.first() {
        let j = &jobs[first];
        bail!(
            "--redraw simulates nothing, but {} of the figure's {} simulations are not stored in {} \
             (the first: panel {}, curve {}, seed {}); run the figure without --redraw to simulate them",
            missing.len(),
            jobs.len(),
            runs.display(),
            plan.panels[j.panel].0,
            plan.spec.curve[j.curve].label,
            j.cfg.simulation.seed
        );
    }
    let mut older: Vec<String> = Vec::new();
    let results = found
        .into_iter()
        .map(|f| {
            let (stored, by) = f.expect("none missing");
            if by != binary && !older.contains(&by) {
                older.push(by);
            }
            stored
        })
        .collect();
    eprintln!(
        "redrawing from the {} simulations stored in {}",
        jobs.len(),
        runs.display()
    );
    Ok((results, older))
}

/// What a figure kind writes its outputs from: the plan, its simulations, and their outcomes
/// grouped by (panel, curve, load).
struct Finished<'a> {
    plan: &'a Plan,
    jobs: &'a [Job],
    cells: BTreeMap<(usize, usize, usize), Cell>,
    out: &'a Path,
}

/// Group the outcomes of (panel, curve, load) cells; failures become messages.
fn cells(jobs: &[Job], results: Vec<Stored>) -> BTreeMap<(usize, usize, usize), Cell> {
    let mut m: BTreeMap<(usize, usize, usize), Cell> = BTreeMap::new();
    for (j, r) in jobs.iter().zip(results) {
        let cell = m.entry((j.panel, j.curve, j.load)).or_default();
        match r {
            Ok(run) => cell.runs.push(run),
            Err(e) => cell.failures.push(e),
        }
    }
    m
}

#[derive(Default)]
struct Cell {
    pub runs: Vec<RunResult>,
    pub failures: Vec<String>,
}

fn slug(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect()
}
