//! Sweep figures: accepted load and latency against offered load, one plot per panel.

use super::Finished;
use crate::sweep::{write_outputs, Settings, SweepMeta, SweepPoint};
use anyhow::Result;
use arcsim::stats::summary::Repeated;
use std::fmt::Write as _;

pub(super) fn write(f: Finished, report: &mut String) -> Result<()> {
    let Finished {
        plan,
        mut cells,
        out,
        jobs,
    } = f;
    let spec = &plan.spec;
    let mut summary = crate::output::csv_file(out.join("summary.csv"));
    summary.write_record([
        "panel",
        "curve",
        "peak_accepted_load",
        "at_offered_load",
        "accepted_at_max_load",
        "latency_at_min_load",
        "failed_points",
    ])?;
    for (pi, (pname, ptitle)) in plan.panels.iter().enumerate() {
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
            let mut first_lat = None;
            let mut failed = Vec::new();
            let loads = &plan.loads[pi];
            for (li, load) in loads.iter().enumerate() {
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
                if li == loads.len() - 1 {
                    last = rep.accepted_load.mean;
                }
                if li == 0 {
                    first_lat = rep.latency_mean.as_ref().map(|e| e.mean);
                }
                let job = jobs
                    .iter()
                    .find(|j| (j.panel, j.curve, j.load) == (pi, ci, li))
                    .expect("a job per cell");
                points.push(SweepPoint {
                    curve: curve.label.clone(),
                    varied: Vec::new(),
                    overrides: vec![format!("traffic.load={load}")],
                    settings: Settings::of(&job.cfg),
                    failure: None,
                    warnings: Vec::new(),
                    result: rep,
                });
            }
            let (pa, pl) = peak.unwrap_or((f64::NAN, f64::NAN));
            writeln!(
                report,
                "{:<28} {:>9.4} {:>8.3} {:>10.4} {:>10}{}",
                curve.label,
                pa,
                pl,
                last,
                crate::show::opt(first_lat, 1),
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
                crate::show::opt(first_lat, 3),
                failed.join(" | "),
            ])?;
        }
        let title = plan.title(ptitle);
        // The panel's configuration: its first simulation's (each point's load and seed
        // aside; every simulation's is in OUT/runs/).
        let meta = SweepMeta {
            set: Vec::new(),
            vary: Vec::new(),
            config: jobs
                .iter()
                .find(|j| j.panel == pi)
                .map(|j| j.cfg.to_complete_json())
                .unwrap_or_default(),
        };
        write_outputs(&out.join(pname), &points, Some(&title), &meta)?;
    }
    summary.finish()?;
    Ok(())
}
