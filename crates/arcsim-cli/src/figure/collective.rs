//! Collective figures (`kind = "collective"`): the completion time of the configuration's
//! `[[collectives]]` against their message size, one curve per configuration (the
//! InfiniBand adaptive-routing paper's Figs. 13-15: OSU latency of all-to-all, allreduce and
//! allgather under deterministic and adaptive routing).
//!
//! The spec lists the sizes (`sizes = ["1 B", "4 B", ..., "1 MiB"]`); each simulation sets
//! every collective of its configuration to one of them, rounded up to whole phits with the
//! configuration's `[units]`. A simulation's time is its slowest collective's completion
//! time (first start to last delivery); it is missing when one did not complete.

use super::claims::{Claim, Metric};
use super::Finished;
use crate::plot::{line_plot, Curve, PlotSpec, Point};
use anyhow::{bail, Context, Result};
use arcsim::{Config, RunResult};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// The sizes of a spec in bytes, in its order.
pub(super) fn sizes(given: &[String], path: &Path) -> Result<Vec<f64>> {
    if given.is_empty() {
        bail!(
            "{}: a collective figure needs sizes = [\"1 B\", \"1 KiB\", \"1 MiB\"] (message sizes with a unit)",
            path.display()
        );
    }
    given
        .iter()
        .map(|s| {
            arcsim::config::units::bytes_of(s)
                .filter(|b| *b > 0.0 && b.is_finite())
                .with_context(|| {
                    format!(
                        "{}: sizes: '{s}' is not a size such as \"1 B\", \"64 KiB\" or \"1 MiB\"",
                        path.display()
                    )
                })
        })
        .collect()
}

/// Set every collective of `cfg` to `bytes`, rounded up to whole phits.
pub(super) fn set_size(cfg: &mut Config, bytes: f64) -> Result<()> {
    if cfg.collectives.is_empty() {
        bail!("a collective figure (kind = \"collective\") needs [[collectives]] in its configuration");
    }
    let Some(units) = cfg.units.resolve()? else {
        bail!("a collective figure gives sizes in bytes: its configuration needs [units] (link_rate and phit, say)");
    };
    let phits = bytes / units.phit_bytes;
    let whole = if (phits - phits.round()).abs() < 1e-9 * phits.max(1.0) {
        phits.round()
    } else {
        phits.ceil()
    };
    for c in &mut cfg.collectives {
        c.size = (whole as u64).max(1);
    }
    Ok(())
}

/// "1 MiB", "4 KiB", "64 B": the size in the largest binary unit it is a whole number of.
pub(super) fn show_size(bytes: f64) -> String {
    for (unit, scale) in [("MiB", 1048576.0), ("KiB", 1024.0)] {
        if bytes >= scale && (bytes / scale).fract() == 0.0 {
            return format!("{} {unit}", bytes / scale);
        }
    }
    format!("{bytes} B")
}

/// The completion time of a run: its slowest collective's, in µs (cycles without units);
/// None when one did not complete.
fn time_of(r: &RunResult) -> Option<f64> {
    let cycles = r
        .collectives
        .iter()
        .map(|c| c.completion_cycles)
        .collect::<Option<Vec<u64>>>()?
        .into_iter()
        .max()?;
    Some(match &r.units {
        Some(u) => cycles as f64 * u.cycle_ns / 1e3,
        None => cycles as f64,
    })
}

pub(super) fn write(f: Finished, report: &mut String) -> Result<()> {
    let Finished {
        plan,
        mut cells,
        out,
        jobs,
    } = f;
    let spec = &plan.spec;
    let mut summary = crate::output::csv_file(out.join("summary.csv"));
    summary.write_record(["panel", "curve", "size_bytes", "completion_us", "failures"])?;
    for (pi, (pname, ptitle)) in plan.panels.iter().enumerate() {
        let sizes = &plan.loads[pi];
        let unit = jobs.iter().find(|j| j.panel == pi).map_or("cycles", |j| {
            match j.cfg.units.is_default() {
                true => "cycles",
                false => "us",
            }
        });
        writeln!(report, "\n## {ptitle}")?;
        let name = jobs
            .iter()
            .find(|j| j.panel == pi)
            .and_then(|j| j.cfg.collectives.first().map(|c| c.describe()))
            .unwrap_or_default();
        writeln!(
            report,
            "{name}: completion time ({unit}, first start to last delivery) per message size"
        )?;
        let mut head = format!("{:>9}", "size");
        for c in &spec.curve {
            write!(head, " {:>14}", c.label)?;
        }
        writeln!(report, "{head}")?;
        let dir = out.join(pname);
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        let mut table = crate::output::csv_file(dir.join("collective.csv"));
        table.write_record([
            "curve",
            "size_bytes",
            "size_phits",
            "completion_cycles",
            "completion_us",
            "runs",
            "failures",
        ])?;
        let mut curves: Vec<Curve> = spec
            .curve
            .iter()
            .map(|c| Curve {
                label: c.label.clone(),
                points: Vec::new(),
            })
            .collect();
        for (li, &bytes) in sizes.iter().enumerate() {
            let mut line = format!("{:>9}", show_size(bytes));
            for (ci, curve) in spec.curve.iter().enumerate() {
                let cell = cells.remove(&(pi, ci, li)).unwrap_or_default();
                // The mean over the seeds; missing when any run did not complete.
                let times: Option<Vec<f64>> = if cell.runs.is_empty() {
                    None
                } else {
                    cell.runs.iter().map(time_of).collect()
                };
                let mean = times.map(|t| t.iter().sum::<f64>() / t.len() as f64);
                let cycles: Option<Vec<u64>> = cell
                    .runs
                    .iter()
                    .map(|r| {
                        r.collectives
                            .iter()
                            .filter_map(|c| c.completion_cycles)
                            .max()
                    })
                    .collect();
                let cycles = cycles
                    .filter(|c| !c.is_empty() && mean.is_some())
                    .map(|c| c.iter().sum::<u64>() as f64 / c.len() as f64);
                let phits = jobs
                    .iter()
                    .find(|j| (j.panel, j.curve, j.load) == (pi, ci, li))
                    .and_then(|j| j.cfg.collectives.first().map(|c| c.size))
                    .unwrap_or(0);
                let mut failures = cell.failures.clone();
                if !cell.runs.is_empty() && mean.is_none() {
                    failures.push("a collective did not complete within the run".into());
                }
                write!(line, " {:>14}", crate::show::opt(mean, 3))?;
                if let Some(t) = mean {
                    curves[ci].points.push(Point {
                        x: bytes.log2(),
                        y: t,
                        ci: None,
                    });
                }
                let us = if unit == "us" { mean } else { None };
                table.write_record([
                    curve.label.clone(),
                    format!("{bytes}"),
                    phits.to_string(),
                    crate::show::opt(cycles, 1),
                    crate::show::opt(us, 4),
                    cell.runs.len().to_string(),
                    failures.join(" | "),
                ])?;
                summary.write_record([
                    pname.clone(),
                    curve.label.clone(),
                    format!("{bytes}"),
                    crate::show::opt(us, 4),
                    failures.join(" | "),
                ])?;
            }
            writeln!(report, "{line}")?;
        }
        table.finish()?;
        let title = plan.title(ptitle);
        let y = format!("completion time ({unit})");
        let mut plot = PlotSpec::linear(&title, "message size (log2 bytes)", &y);
        plot.log_y = true;
        line_plot(&out.join(pname).join("collective"), &plot, &curves)?;
    }
    summary.finish()?;
    Ok(())
}

/// A row of `PANEL/collective.csv`, as claims read it.
#[derive(Deserialize)]
struct Row {
    curve: String,
    size_bytes: f64,
    #[serde(deserialize_with = "super::claims::number_or_missing")]
    completion_cycles: Option<f64>,
    #[serde(deserialize_with = "super::claims::number_or_missing")]
    completion_us: Option<f64>,
}

/// (panel, curve) -> (size in bytes, completion time; NaN when missing) per size.
pub(super) type Times = BTreeMap<(String, String), Vec<(f64, f64)>>;

/// The completion times every panel's `collective.csv` holds (µs where the run had units,
/// else cycles).
pub(super) fn read(panels: &[(String, String)], out: &Path) -> Result<Times> {
    let mut t = Times::new();
    for (pname, _) in panels {
        let p = out.join(pname).join("collective.csv");
        let mut r =
            csv::Reader::from_path(&p).with_context(|| format!("reading {}", p.display()))?;
        for row in r.deserialize::<Row>() {
            let row = row.with_context(|| format!("reading {}", p.display()))?;
            let time = row
                .completion_us
                .or(row.completion_cycles)
                .unwrap_or(f64::NAN);
            t.entry((pname.clone(), row.curve))
                .or_default()
                .push((row.size_bytes, time));
        }
    }
    Ok(t)
}

/// Check a collective claim's own fields (`size`, `versus`) before anything runs.
pub(super) fn validate(c: &Claim, curves: &[&str]) -> std::result::Result<(), String> {
    let size_needed = matches!(c.metric, Metric::Completion | Metric::Reduction);
    let versus_needed = matches!(c.metric, Metric::Reduction | Metric::MaxDifference);
    let collective = size_needed || versus_needed;
    match (&c.size, collective) {
        (Some(s), true) if arcsim::config::units::bytes_of(s).is_none() => {
            return Err(format!("size = '{s}' is not a size such as \"1 MiB\""));
        }
        (None, _) if size_needed => {
            return Err(format!(
                "metric {} needs size = \"1 MiB\" (one of the figure's sizes)",
                if c.metric == Metric::Completion {
                    "completion"
                } else {
                    "reduction"
                }
            ))
        }
        (Some(_), false) => return Err("size applies to the collective metrics only".into()),
        _ => {}
    }
    match (&c.versus, versus_needed) {
        (Some(v), true) if !curves.contains(&v.as_str()) => Err(format!(
            "versus '{v}' is not a curve label; the curves are: {}",
            curves.join(", ")
        )),
        (None, true) => Err("metrics reduction and max-difference need versus = \"CURVE\" (the curve compared with)".into()),
        (Some(_), false) => Err("versus applies to the metrics reduction and max-difference only".into()),
        _ => Ok(()),
    }
}

/// The claim's number for `curve` in `panel`: its completion time at `size`, its reduction
/// against `versus` there, or its largest relative difference from `versus` over the sizes
/// (from `size` up, when given).
pub(super) fn value(
    t: &Times,
    c: &Claim,
    panel: &str,
    curve: &str,
) -> std::result::Result<f64, String> {
    let points = |name: &str| {
        t.get(&(panel.to_string(), name.to_string()))
            .filter(|v| !v.is_empty())
            .ok_or_else(|| format!("{name} has no results in panel {panel}"))
    };
    let size = c.size.as_deref().and_then(arcsim::config::units::bytes_of);
    let at = |name: &str, bytes: f64| {
        points(name)?
            .iter()
            .find(|p| (p.0 - bytes).abs() < 1e-6)
            .map(|p| p.1)
            .ok_or_else(|| format!("no size {} at this scale", show_size(bytes)))
    };
    match c.metric {
        Metric::Completion => at(curve, size.unwrap_or(f64::NAN)),
        Metric::Reduction => {
            let versus = c.versus.as_deref().unwrap_or_default();
            let s = size.unwrap_or(f64::NAN);
            let (mine, theirs) = (at(curve, s)?, at(versus, s)?);
            Ok((theirs - mine) / theirs)
        }
        Metric::MaxDifference => {
            let versus = c.versus.as_deref().unwrap_or_default();
            let from = size.unwrap_or(0.0);
            let mut worst = f64::NAN;
            for &(bytes, mine) in points(curve)? {
                if bytes + 1e-6 < from {
                    continue;
                }
                let theirs = at(versus, bytes)?;
                let d = (mine - theirs).abs() / theirs;
                // A missing time on either side leaves the claim without a number.
                if d.is_nan() {
                    return Ok(f64::NAN);
                }
                worst = worst.max(d);
            }
            Ok(worst)
        }
        _ => Err(format!(
            "{} is not a collective metric",
            c.metric.describe(c)
        )),
    }
}
