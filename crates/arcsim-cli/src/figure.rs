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
//! - `sweep`: accepted load and latency against offered load (seed 001 Figs. 5, 6, 9, 10, 14).
//! - `burst`: every node sends a burst; consumption time normalised to a baseline curve, and
//!   the hop histograms of every panel (Figs. 8, 11, 13).
//! - `transient`: latency per generation window around a change of traffic (Fig. 7).
//! - `injection`: packets injected per router in chosen groups (Fig. 12).

use crate::load::{finish, load_tree};
use crate::plot::{grouped_bar_plot, line_plot, BarSeries, Curve, PlotSpec, Point};
use crate::sweep::{parse_loads, run_jobs, write_outputs, SweepPoint};
use anyhow::{bail, Context, Result};
use arcsim::stats::summary::Repeated;
use arcsim::{Config, RunResult, SimError};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct FigureArgs {
    /// Figure specification (TOML), e.g. experiments/ofar/fig06.toml.
    pub spec: PathBuf,
    /// Run at a reduced scale defined in the spec (`[scale.NAME]`), e.g. `quick`; without
    /// it the figure runs at the spec's full (paper) size.
    #[arg(long)]
    pub scale: Option<String>,
    /// Override a configuration key in every simulation of the figure (repeatable; applied
    /// last).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Output directory (default: results/<spec name>, with `-<scale>` appended).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Print the simulations the figure would run, and run none.
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    Sweep,
    Burst,
    Transient,
    Injection,
}

/// A figure specification file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spec {
    /// Plot and table title.
    pub title: String,
    pub kind: Kind,
    /// Base configuration, relative to the spec file.
    pub config: PathBuf,
    /// What the paper reports for this figure (printed with the results, for comparison).
    #[serde(default)]
    pub paper: Option<String>,
    /// Overrides for every simulation.
    #[serde(default)]
    pub set: Vec<String>,
    /// Offered loads START:STOP:STEP (sweeps only).
    #[serde(default)]
    pub loads: Option<String>,
    /// Burst figures: the curve every consumption time is divided by (default: the first).
    #[serde(default)]
    pub baseline: Option<String>,
    /// Injection figures: the groups whose routers are shown. A number is a group index;
    /// `"root"` is the group of `routing.tree_root`.
    #[serde(default)]
    pub groups: Vec<toml::Value>,
    #[serde(default)]
    pub scale: BTreeMap<String, Scale>,
    /// One plot each (default: a single panel).
    #[serde(default)]
    pub panel: Vec<Panel>,
    pub curve: Vec<CurveSpec>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scale {
    /// What this scale changes, for the record (printed and written to the summary).
    #[serde(default)]
    pub description: Option<String>,
    /// Overrides applied after the panel's and curve's own.
    #[serde(default)]
    pub set: Vec<String>,
    /// Replaces the spec's loads.
    #[serde(default)]
    pub loads: Option<String>,
    /// Per-panel overrides at this scale (e.g. ADVG+h's offset on a smaller network).
    #[serde(default)]
    pub panel: BTreeMap<String, ScalePanel>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScalePanel {
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub set: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Panel {
    /// Directory name of the panel's outputs (letters, digits, '-' and '_').
    pub name: String,
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub set: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CurveSpec {
    pub label: String,
    #[serde(default)]
    pub set: Vec<String>,
}

/// A spec resolved for one scale: panels with their final titles and overrides.
struct Plan {
    spec: Spec,
    dir: PathBuf,
    scale_note: Option<String>,
    loads: Vec<f64>,
    panels: Vec<(String, String, Vec<String>)>,
}

/// Read and check a spec; `scale` picks one of its `[scale.*]` tables.
fn plan(path: &Path, scale: Option<&str>) -> Result<Plan> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let mut spec: Spec =
        toml::from_str(&text).with_context(|| format!("figure spec {}", path.display()))?;
    let dir = path.parent().unwrap_or(Path::new(".")).to_path_buf();
    if spec.curve.is_empty() {
        bail!(
            "{}: no [[curve]]: give at least one, e.g. [[curve]] label = \"OFAR\" set = [\"routing.algorithm=ofar\"]",
            path.display()
        );
    }
    for (i, c) in spec.curve.iter().enumerate() {
        if spec.curve[..i].iter().any(|d| d.label == c.label) {
            bail!(
                "{}: curve label '{}' is used twice",
                path.display(),
                c.label
            );
        }
    }
    if spec.panel.is_empty() {
        spec.panel.push(Panel {
            name: "all".into(),
            title: None,
            set: Vec::new(),
        });
    }
    for (i, p) in spec.panel.iter().enumerate() {
        if p.name.is_empty()
            || !p
                .name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            bail!(
                "{}: panel name '{}' must be letters, digits, '-' or '_' (it names a directory)",
                path.display(),
                p.name
            );
        }
        if spec.panel[..i].iter().any(|q| q.name == p.name) {
            bail!("{}: panel name '{}' is used twice", path.display(), p.name);
        }
    }
    let chosen = match scale {
        None => None,
        Some(s) => Some(spec.scale.get(s).with_context(|| {
            let known: Vec<&str> = spec.scale.keys().map(String::as_str).collect();
            format!(
                "--scale {s}: {} defines {}",
                path.display(),
                if known.is_empty() {
                    "no scales".to_string()
                } else {
                    format!("the scales: {}", known.join(", "))
                }
            )
        })?),
    };
    if let Some(sc) = chosen {
        for name in sc.panel.keys() {
            if !spec.panel.iter().any(|p| &p.name == name) {
                bail!(
                    "{}: [scale.{}.panel.{name}] names no panel of the figure",
                    path.display(),
                    scale.unwrap_or_default()
                );
            }
        }
    }
    let loads = match (
        spec.kind,
        chosen.and_then(|s| s.loads.as_ref()),
        &spec.loads,
    ) {
        (Kind::Sweep, Some(l), _) | (Kind::Sweep, None, Some(l)) => {
            parse_loads(l).with_context(|| format!("{}: loads", path.display()))?
        }
        (Kind::Sweep, None, None) => bail!(
            "{}: a sweep figure needs loads = \"START:STOP:STEP\"",
            path.display()
        ),
        (_, None, None) => Vec::new(),
        _ => bail!(
            "{}: loads apply to sweep figures only; this one is {:?}",
            path.display(),
            spec.kind
        ),
    };
    if spec.kind != Kind::Burst && spec.baseline.is_some() {
        bail!("{}: baseline applies to burst figures only", path.display());
    }
    if let Some(b) = &spec.baseline {
        if !spec.curve.iter().any(|c| &c.label == b) {
            bail!("{}: baseline '{b}' is not a curve label", path.display());
        }
    }
    if spec.kind == Kind::Injection && spec.groups.is_empty() {
        bail!(
            "{}: an injection figure needs groups = [0, \"root\"] (group indices or \"root\")",
            path.display()
        );
    }
    let panels = spec
        .panel
        .iter()
        .map(|p| {
            let sp = chosen.and_then(|s| s.panel.get(&p.name));
            let title = sp
                .and_then(|s| s.title.clone())
                .or_else(|| p.title.clone())
                .unwrap_or_else(|| p.name.clone());
            let mut sets = p.set.clone();
            if let Some(sp) = sp {
                sets.extend(sp.set.iter().cloned());
            }
            (p.name.clone(), title, sets)
        })
        .collect();
    let scale_note = chosen.map(|s| {
        format!(
            "scale {}: {}",
            scale.unwrap_or_default(),
            s.description.clone().unwrap_or_else(|| s.set.join(" "))
        )
    });
    Ok(Plan {
        spec,
        dir,
        scale_note,
        loads,
        panels,
    })
}

/// One simulation of the figure.
struct Job {
    panel: usize,
    curve: usize,
    /// Index into `Plan::loads` (sweeps), else 0.
    load: usize,
    cfg: Config,
}

/// Every simulation, in a fixed order, each configuration validated before anything runs.
fn jobs(plan: &Plan, scale: Option<&str>, cli_sets: &[String]) -> Result<Vec<Job>> {
    let spec = &plan.spec;
    let base = plan.dir.join(&spec.config);
    let tree = load_tree(Some(&base))?;
    let scale_sets: Vec<String> = scale
        .and_then(|s| spec.scale.get(s))
        .map(|s| s.set.clone())
        .unwrap_or_default();
    let loads: Vec<Option<f64>> = if spec.kind == Kind::Sweep {
        plan.loads.iter().copied().map(Some).collect()
    } else {
        vec![None]
    };
    let mut out = Vec::new();
    for (pi, (pname, _, psets)) in plan.panels.iter().enumerate() {
        for (ci, curve) in spec.curve.iter().enumerate() {
            for (li, load) in loads.iter().enumerate() {
                // Spec, panel, curve, scale (which may shrink what the others set), the
                // scale's panel overrides, then the command line.
                let mut sets = spec.set.clone();
                sets.extend(psets.iter().take(plan.spec_panel_len(pi)).cloned());
                sets.extend(curve.set.iter().cloned());
                sets.extend(scale_sets.iter().cloned());
                sets.extend(psets.iter().skip(plan.spec_panel_len(pi)).cloned());
                sets.extend(cli_sets.iter().cloned());
                if let Some(l) = load {
                    sets.push(format!("traffic.load={l}"));
                }
                let cfg = finish(tree.clone(), &sets)
                    .with_context(|| format!("panel {pname}, curve {}", curve.label))?;
                let reps = cfg.simulation.repetitions.max(1) as u64;
                for k in 0..reps {
                    let mut c = cfg.clone();
                    c.simulation.seed = cfg.simulation.seed.wrapping_add(k);
                    c.simulation.repetitions = 1;
                    if spec.kind == Kind::Transient && c.simulation.series_window == 0 {
                        bail!(
                            "panel {pname}, curve {}: a transient figure needs simulation.series_window > 0",
                            curve.label
                        );
                    }
                    out.push(Job {
                        panel: pi,
                        curve: ci,
                        load: li,
                        cfg: c,
                    });
                }
            }
        }
    }
    Ok(out)
}

impl Plan {
    /// How many of panel `pi`'s overrides come from the spec itself (the rest come from the
    /// scale and are applied after the curves').
    fn spec_panel_len(&self, pi: usize) -> usize {
        self.spec.panel[pi].set.len()
    }
}

/// Outcome of one simulation.
type Outcome = std::result::Result<RunResult, SimError>;

pub fn figure_command(args: &FigureArgs) -> Result<()> {
    let plan = plan(&args.spec, args.scale.as_deref())?;
    let jobs = jobs(&plan, args.scale.as_deref(), &args.set)?;
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
            let (pname, _, _) = &plan.panels[j.panel];
            let c = &j.cfg;
            let t = &c.traffic;
            let pattern = if t.mix.is_empty() {
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
    // Before the simulations, so that a bad --out does not waste them.
    std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
    let cfgs: Vec<Config> = jobs.iter().map(|j| j.cfg.clone()).collect();
    let results = run_jobs(&cfgs, args.threads)?;
    let mut report = String::new();
    writeln!(report, "# {}", spec.title)?;
    if let Some(n) = &plan.scale_note {
        writeln!(report, "{n}")?;
    }
    match spec.kind {
        Kind::Sweep => write_sweep(&plan, &jobs, results, &out, &mut report)?,
        Kind::Burst => write_burst(&plan, &jobs, results, &out, &mut report)?,
        Kind::Transient => write_transient(&plan, &jobs, results, &out, &mut report)?,
        Kind::Injection => write_injection(&plan, &jobs, results, &out, &mut report)?,
    }
    if let Some(p) = &spec.paper {
        writeln!(report, "\npaper: {}", p.trim())?;
    }
    print!("{report}");
    std::fs::write(out.join("summary.txt"), &report).context("writing summary.txt")?;
    println!("wrote {}/", out.display());
    Ok(())
}

/// Group the outcomes of (panel, curve, load) cells; failures become messages.
fn cells(jobs: &[Job], results: Vec<Outcome>) -> BTreeMap<(usize, usize, usize), Cell> {
    let mut m: BTreeMap<(usize, usize, usize), Cell> = BTreeMap::new();
    for (j, r) in jobs.iter().zip(results) {
        let cell = m.entry((j.panel, j.curve, j.load)).or_default();
        match r {
            Ok(run) => cell.runs.push(run),
            Err(e) => cell.failures.push(failure_text(&e)),
        }
    }
    m
}

#[derive(Default)]
struct Cell {
    runs: Vec<RunResult>,
    failures: Vec<String>,
}

fn failure_text(e: &SimError) -> String {
    match e {
        SimError::BurstTimeout {
            max_cycles,
            delivered,
            total,
        } => format!("not consumed: {delivered} of {total} packets in {max_cycles} cycles"),
        SimError::Deadlock(_) => "deadlock (watchdog)".to_string(),
        other => other.to_string(),
    }
}

fn write_sweep(
    plan: &Plan,
    jobs: &[Job],
    results: Vec<Outcome>,
    out: &Path,
    report: &mut String,
) -> Result<()> {
    let spec = &plan.spec;
    let mut cells = cells(jobs, results);
    let mut summary = csv::Writer::from_path(out.join("summary.csv"))?;
    summary.write_record([
        "panel",
        "curve",
        "peak_accepted_load",
        "at_offered_load",
        "accepted_at_max_load",
        "latency_at_min_load",
        "failed_points",
    ])?;
    for (pi, (pname, ptitle, _)) in plan.panels.iter().enumerate() {
        writeln!(report, "\n## {ptitle}")?;
        writeln!(
            report,
            "{:<28} {:>9} {:>8} {:>10} {:>10}",
            "curve", "peak acc", "at load", "acc @max", "lat @min"
        )?;
        let mut points = Vec::new();
        for (ci, curve) in spec.curve.iter().enumerate() {
            let mut peak: Option<(f64, f64)> = None;
            let mut last = f64::NAN;
            let mut first_lat = f64::NAN;
            let mut failed = Vec::new();
            for (li, load) in plan.loads.iter().enumerate() {
                let cell = cells.remove(&(pi, ci, li)).unwrap_or_default();
                if !cell.failures.is_empty() {
                    failed.push(format!("{load}: {}", cell.failures.join("; ")));
                }
                if cell.runs.is_empty() {
                    continue;
                }
                let rep = Repeated::of(cell.runs);
                if peak.is_none_or(|(a, _)| rep.accepted_load.mean > a) {
                    peak = Some((rep.accepted_load.mean, *load));
                }
                if li == plan.loads.len() - 1 {
                    last = rep.accepted_load.mean;
                }
                if li == 0 {
                    first_lat = rep.latency_mean.mean;
                }
                points.push(SweepPoint {
                    curve: curve.label.clone(),
                    result: rep,
                });
            }
            let (pa, pl) = peak.unwrap_or((f64::NAN, f64::NAN));
            writeln!(
                report,
                "{:<28} {:>9.4} {:>8.3} {:>10.4} {:>10.1}{}",
                curve.label,
                pa,
                pl,
                last,
                first_lat,
                if failed.is_empty() {
                    String::new()
                } else {
                    format!("   failed at {}", failed.join(", "))
                }
            )?;
            summary.write_record([
                pname.clone(),
                curve.label.clone(),
                format!("{pa:.6}"),
                format!("{pl}"),
                format!("{last:.6}"),
                format!("{first_lat:.3}"),
                failed.join(" | "),
            ])?;
        }
        let title = format!("{}: {ptitle}", spec.title);
        write_outputs(&out.join(pname), &points, Some(&title))?;
    }
    summary.flush()?;
    Ok(())
}

fn write_burst(
    plan: &Plan,
    jobs: &[Job],
    results: Vec<Outcome>,
    out: &Path,
    report: &mut String,
) -> Result<()> {
    let spec = &plan.spec;
    let mut cells = cells(jobs, results);
    let base_idx = spec
        .baseline
        .as_ref()
        .and_then(|b| spec.curve.iter().position(|c| &c.label == b))
        .unwrap_or(0);
    let base_label = &spec.curve[base_idx].label;
    let mut w = csv::Writer::from_path(out.join("bursts.csv"))?;
    w.write_record([
        "panel",
        "curve",
        "repetitions",
        "consumption_cycles",
        "consumption_ci95",
        "relative_to_baseline",
        "max_hops",
        "hops_mean",
        "escape_entered_fraction",
        "failed",
    ])?;
    let groups: Vec<String> = plan.panels.iter().map(|p| p.1.clone()).collect();
    // Longest path per panel and curve (None: not consumed), for the second table.
    let mut longest: Vec<Vec<Option<u64>>> = Vec::new();
    let mut series: Vec<BarSeries> = spec
        .curve
        .iter()
        .map(|c| BarSeries {
            label: c.label.clone(),
            values: Vec::new(),
        })
        .collect();
    writeln!(
        report,
        "\nburst consumption time relative to {base_label} (its cycles in parentheses)"
    )?;
    write!(report, "{:<16}", "panel")?;
    for c in &spec.curve {
        write!(report, " {:>18}", truncate(&c.label, 18))?;
    }
    writeln!(report)?;
    for (pi, (pname, ptitle, _)) in plan.panels.iter().enumerate() {
        let reps: Vec<(Option<Repeated>, Vec<String>)> = (0..spec.curve.len())
            .map(|ci| {
                let cell = cells.remove(&(pi, ci, 0)).unwrap_or_default();
                // A curve counts as consumed only if every seed finished.
                let ok = cell.failures.is_empty() && !cell.runs.is_empty();
                (ok.then(|| Repeated::of(cell.runs)), cell.failures)
            })
            .collect();
        let base = reps[base_idx]
            .0
            .as_ref()
            .and_then(|r| r.burst_consumption_cycles.as_ref())
            .map(|e| e.mean);
        write!(report, "{:<16}", truncate(ptitle, 16))?;
        longest.push(Vec::new());
        let mut hop_curves = Vec::new();
        let mut hop_csv = csv::Writer::from_path({
            std::fs::create_dir_all(out.join(pname))?;
            out.join(pname).join("hops.csv")
        })?;
        hop_csv.write_record(["curve", "hops", "fraction"])?;
        for (ci, (rep, failures)) in reps.iter().enumerate() {
            let label = &spec.curve[ci].label;
            match rep {
                Some(r) => {
                    let c = r.burst_consumption_cycles.as_ref().map(|e| e.mean);
                    let rel = match (c, base) {
                        (Some(c), Some(b)) if b > 0.0 => c / b,
                        _ => f64::NAN,
                    };
                    series[ci].values.push(rel);
                    write!(
                        report,
                        " {:>18}",
                        format!("{rel:.3} ({:.0})", c.unwrap_or(f64::NAN))
                    )?;
                    let max_hops = r.runs.iter().map(|x| x.hops.max).max().unwrap_or(0);
                    longest[pi].push(Some(max_hops));
                    let hist = pooled_histogram(&r.runs);
                    let total: u64 = hist.iter().sum();
                    let mut pts = Vec::new();
                    // The histogram's last bucket holds every longer path: written as "63+"
                    // in the CSV and left out of the plot, where it would look like a peak.
                    let last = arcsim::stats::HOP_BUCKETS - 1;
                    for (k, &n) in hist.iter().enumerate() {
                        let f = n as f64 / total.max(1) as f64;
                        let overflow = k == last;
                        let hops = if overflow {
                            format!("{k}+")
                        } else {
                            k.to_string()
                        };
                        hop_csv.write_record([label.clone(), hops, format!("{f:.6}")])?;
                        if !overflow {
                            pts.push(Point {
                                x: k as f64,
                                y: f,
                                ci: None,
                            });
                        }
                    }
                    hop_curves.push(Curve {
                        label: label.clone(),
                        points: pts,
                    });
                    let escape = r
                        .runs
                        .iter()
                        .map(|x| x.escape.entered_fraction)
                        .sum::<f64>()
                        / r.runs.len() as f64;
                    w.write_record([
                        pname.clone(),
                        label.clone(),
                        r.repetitions.to_string(),
                        format!("{:.1}", c.unwrap_or(f64::NAN)),
                        format!(
                            "{:.1}",
                            r.burst_consumption_cycles
                                .as_ref()
                                .map(|e| e.ci95)
                                .unwrap_or(f64::NAN)
                        ),
                        format!("{rel:.4}"),
                        max_hops.to_string(),
                        format!("{:.4}", r.hops_mean.mean),
                        format!("{escape:.6}"),
                        String::new(),
                    ])?;
                }
                None => {
                    series[ci].values.push(f64::NAN);
                    longest[pi].push(None);
                    write!(report, " {:>18}", "not consumed")?;
                    w.write_record([
                        pname.clone(),
                        label.clone(),
                        String::new(),
                        String::new(),
                        String::new(),
                        String::new(),
                        String::new(),
                        String::new(),
                        String::new(),
                        failures.join(" | "),
                    ])?;
                }
            }
        }
        writeln!(report)?;
        hop_csv.flush()?;
        line_plot(
            &out.join(pname).join("hops"),
            &PlotSpec {
                title: &format!("{}: {ptitle}", spec.title),
                x_label: "router-to-router hops",
                y_label: "fraction of packets",
                log_y: true,
            },
            &hop_curves,
        )?;
    }
    w.flush()?;
    // The paper's summary of such a figure: mean and range over the patterns.
    writeln!(
        report,
        "\nrelative to {base_label} over the panels: mean (min to max)"
    )?;
    for (ci, c) in spec.curve.iter().enumerate() {
        let v: Vec<f64> = series[ci]
            .values
            .iter()
            .copied()
            .filter(|x| x.is_finite())
            .collect();
        let missing = series[ci].values.len() - v.len();
        if v.is_empty() {
            writeln!(report, "{:<24} no panel consumed", c.label)?;
            continue;
        }
        writeln!(
            report,
            "{:<24} {:.3} ({:.3} to {:.3}){}",
            c.label,
            v.iter().sum::<f64>() / v.len() as f64,
            v.iter().copied().fold(f64::INFINITY, f64::min),
            v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            if missing > 0 {
                format!(", {missing} panel(s) not consumed")
            } else {
                String::new()
            }
        )?;
    }
    writeln!(
        report,
        "\nlongest path (router-to-router hops, escape hops included)"
    )?;
    write!(report, "{:<16}", "panel")?;
    for c in &spec.curve {
        write!(report, " {:>18}", truncate(&c.label, 18))?;
    }
    writeln!(report)?;
    for (pi, (_, ptitle, _)) in plan.panels.iter().enumerate() {
        write!(report, "{:<16}", truncate(ptitle, 16))?;
        for m in &longest[pi] {
            match m {
                Some(m) => write!(report, " {m:>18}")?,
                None => write!(report, " {:>18}", "-")?,
            }
        }
        writeln!(report)?;
    }
    grouped_bar_plot(
        &out.join("bursts"),
        &PlotSpec {
            title: &spec.title,
            x_label: "traffic pattern",
            y_label: &format!("consumption time / {base_label}'s"),
            log_y: false,
        },
        &groups,
        &series,
        Some(1.0),
    )?;
    Ok(())
}

/// Hop histogram summed over the seeds of a cell.
fn pooled_histogram(runs: &[RunResult]) -> Vec<u64> {
    let len = runs
        .iter()
        .map(|r| r.hops.histogram.len())
        .max()
        .unwrap_or(0);
    let mut h = vec![0u64; len];
    for r in runs {
        for (k, &n) in r.hops.histogram.iter().enumerate() {
            h[k] += n;
        }
    }
    h
}

fn write_transient(
    plan: &Plan,
    jobs: &[Job],
    results: Vec<Outcome>,
    out: &Path,
    report: &mut String,
) -> Result<()> {
    let spec = &plan.spec;
    let mut cells = cells(jobs, results);
    for (pi, (pname, ptitle, _)) in plan.panels.iter().enumerate() {
        let dir = out.join(pname);
        std::fs::create_dir_all(&dir)?;
        let mut w = csv::Writer::from_path(dir.join("series.csv"))?;
        w.write_record([
            "curve",
            "cycle",
            "latency_mean",
            "accepted_load",
            "misrouted_fraction",
            "seeds",
        ])?;
        let change = jobs
            .iter()
            .find(|j| j.panel == pi)
            .and_then(|j| j.cfg.traffic.change.as_ref().map(|c| c.at_cycle));
        writeln!(
            report,
            "\n## {ptitle}: mean latency of the packets generated in each window{}",
            change
                .map(|c| format!(" (traffic changes at cycle {c})"))
                .unwrap_or_default()
        )?;
        writeln!(
            report,
            "{:<24} {:>14} {:>14} {:>14}",
            "curve", "before change", "peak after", "mean after"
        )?;
        let mut curves = Vec::new();
        for (ci, curve) in spec.curve.iter().enumerate() {
            let cell = cells.remove(&(pi, ci, 0)).unwrap_or_default();
            if !cell.failures.is_empty() {
                writeln!(
                    report,
                    "{:<24} failed: {}",
                    curve.label,
                    cell.failures.join("; ")
                )?;
                continue;
            }
            let job = jobs
                .iter()
                .find(|j| j.panel == pi && j.curve == ci)
                .expect("a cell has a job");
            let warm = job.cfg.simulation.warmup_cycles;
            let len = job.cfg.router.packet_length as f64;
            // Average over seeds, window by window, from the end of the warm-up. A window is
            // kept only if, in every seed, at least 99% of the packets generated in it were
            // delivered before the run ended: the last windows would otherwise show only the
            // packets that happened to be fast.
            let n = cell
                .runs
                .iter()
                .filter_map(|r| r.series.as_ref().map(|s| s.points.len()))
                .max()
                .unwrap_or(0);
            let mut pts = Vec::new();
            for k in 0..n {
                let mut lat = 0.0;
                let mut acc = 0.0;
                let mut mis = 0.0;
                let mut complete = true;
                let mut cycle = 0;
                for r in &cell.runs {
                    let Some(s) = r.series.as_ref() else {
                        complete = false;
                        continue;
                    };
                    match s.points.get(k) {
                        Some(p) => {
                            cycle = p.cycle;
                            let generated =
                                p.generated_load * r.nodes as f64 * s.window_cycles as f64 / len;
                            if generated < 0.5 || (p.latency_samples as f64) < 0.99 * generated {
                                complete = false;
                            }
                            lat += p.latency_mean;
                            acc += p.accepted_load;
                            mis += p.misrouted_fraction;
                        }
                        None => complete = false,
                    }
                }
                if !complete || cycle < warm {
                    continue;
                }
                let s = cell.runs.len() as f64;
                w.write_record([
                    curve.label.clone(),
                    cycle.to_string(),
                    format!("{:.3}", lat / s),
                    format!("{:.6}", acc / s),
                    format!("{:.6}", mis / s),
                    cell.runs.len().to_string(),
                ])?;
                pts.push(Point {
                    x: cycle as f64,
                    y: lat / s,
                    ci: None,
                });
            }
            // Around the change: mean latency of the windows before it; worst and mean after.
            let split = change.map(|c| c as f64).unwrap_or(f64::INFINITY);
            let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
            let before: Vec<f64> = pts.iter().filter(|p| p.x < split).map(|p| p.y).collect();
            let after: Vec<f64> = pts.iter().filter(|p| p.x >= split).map(|p| p.y).collect();
            writeln!(
                report,
                "{:<24} {:>14.1} {:>14.1} {:>14.1}",
                curve.label,
                mean(&before),
                after.iter().copied().fold(f64::NAN, f64::max),
                mean(&after)
            )?;
            curves.push(Curve {
                label: curve.label.clone(),
                points: pts,
            });
        }
        w.flush()?;
        line_plot(
            &dir.join("latency"),
            &PlotSpec {
                title: &format!("{}: {ptitle}", spec.title),
                x_label: "generation cycle",
                y_label: "mean packet latency (cycles)",
                log_y: false,
            },
            &curves,
        )?;
    }
    Ok(())
}

fn write_injection(
    plan: &Plan,
    jobs: &[Job],
    results: Vec<Outcome>,
    out: &Path,
    report: &mut String,
) -> Result<()> {
    let spec = &plan.spec;
    let mut cells = cells(jobs, results);
    for (pi, (pname, ptitle, _)) in plan.panels.iter().enumerate() {
        let dir = out.join(pname);
        std::fs::create_dir_all(&dir)?;
        let mut w = csv::Writer::from_path(dir.join("injected.csv"))?;
        w.write_record(["curve", "group", "router_in_group", "router", "injected"])?;
        writeln!(
            report,
            "\n## {ptitle}: packets injected per router (mean over seeds)"
        )?;
        for (ci, curve) in spec.curve.iter().enumerate() {
            let cell = cells.remove(&(pi, ci, 0)).unwrap_or_default();
            if !cell.failures.is_empty() || cell.runs.is_empty() {
                writeln!(
                    report,
                    "{}: failed: {}",
                    curve.label,
                    cell.failures.join("; ")
                )?;
                continue;
            }
            let job = jobs
                .iter()
                .find(|j| j.panel == pi && j.curve == ci)
                .expect("a cell has a job");
            let a = job.cfg.topology.a;
            let routers = cell.runs[0].injected_per_router.len();
            let mut groups = Vec::new();
            for g in &spec.groups {
                let idx = match g {
                    toml::Value::Integer(i) if *i >= 0 => *i as usize,
                    toml::Value::String(s) if s == "root" => job.cfg.routing.tree_root / a,
                    other => bail!("groups: {other} is neither a group index nor \"root\""),
                };
                if (idx + 1) * a > routers {
                    bail!(
                        "groups: group {idx} does not exist ({} groups)",
                        routers / a
                    );
                }
                // "root" names the tree root's group; with a ring it is an ordinary group.
                let tree = job.cfg.routing.escape == arcsim::config::EscapeKind::Tree;
                let name = if tree && idx == job.cfg.routing.tree_root / a {
                    format!("G{idx} (root)")
                } else {
                    format!("G{idx}")
                };
                groups.push((idx, name));
            }
            let mut series = Vec::new();
            for (gidx, gname) in &groups {
                let mut values = Vec::new();
                for i in 0..a {
                    let r = gidx * a + i;
                    let mean = cell
                        .runs
                        .iter()
                        .map(|x| x.injected_per_router[r] as f64)
                        .sum::<f64>()
                        / cell.runs.len() as f64;
                    w.write_record([
                        curve.label.clone(),
                        gidx.to_string(),
                        i.to_string(),
                        r.to_string(),
                        format!("{mean:.1}"),
                    ])?;
                    values.push(mean);
                }
                let (lo, hi) = values
                    .iter()
                    .fold((f64::INFINITY, 0.0f64), |(l, h), &v| (l.min(v), h.max(v)));
                let total: f64 = values.iter().sum();
                writeln!(
                    report,
                    "{:<24} {:<12} total {:>10.0}  min {:>8.0}  max {:>8.0}",
                    curve.label, gname, total, lo, hi
                )?;
                series.push(BarSeries {
                    label: gname.clone(),
                    values,
                });
            }
            let labels: Vec<String> = (0..a).map(|i| format!("R{i}")).collect();
            let file = format!("injected-{}", slug(&curve.label));
            grouped_bar_plot(
                &dir.join(file),
                &PlotSpec {
                    title: &format!("{}: {}, {ptitle}", spec.title, curve.label),
                    x_label: "router in group",
                    y_label: "packets injected",
                    log_y: false,
                },
                &labels,
                &series,
                None,
            )?;
        }
        w.flush()?;
    }
    Ok(())
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

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        s.chars().take(n - 1).chain(std::iter::once('…')).collect()
    }
}
