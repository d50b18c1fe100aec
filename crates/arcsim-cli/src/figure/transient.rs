//! Transient figures: latency per generation window around a change of traffic.

use super::Finished;
use crate::plot::{line_plot, Curve, PlotSpec, Point};
use anyhow::Result;
use std::fmt::Write as _;

pub(super) fn write(f: Finished, report: &mut String) -> Result<()> {
    let Finished {
        plan,
        jobs,
        mut cells,
        out,
    } = f;
    let spec = &plan.spec;
    for (pi, (pname, ptitle)) in plan.panels.iter().enumerate() {
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
            // Plotted against the cycles from the change (the paper's view of a transient).
            let origin = change.unwrap_or(0) as f64;
            curves.push(Curve {
                label: curve.label.clone(),
                points: pts
                    .into_iter()
                    .map(|p| Point {
                        x: p.x - origin,
                        ..p
                    })
                    .collect(),
            });
        }
        w.flush()?;
        line_plot(
            &dir.join("latency"),
            &PlotSpec {
                title: &plan.title(ptitle),
                x_label: if change.is_some() {
                    "generation cycle relative to the traffic change"
                } else {
                    "generation cycle"
                },
                y_label: "mean packet latency (cycles)",
                log_y: false,
            },
            &curves,
        )?;
    }
    Ok(())
}
