//! Injection figures: packets injected per router in chosen groups.

use super::spec::Job;
use super::{slug, Finished};
use crate::plot::{grouped_bar_plot, BarSeries, PlotSpec};
use anyhow::{bail, Result};
use arcsim::stats::summary::Estimate;
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
        let mut w = crate::output::csv_file(dir.join("injected.csv"));
        w.write_record([
            "curve",
            "group",
            "router_in_group",
            "router",
            "injected",
            "injected_ci95",
        ])?;
        // With QCN: the CNMs each router of the groups received in the measurement window,
        // through local and through global ports (no row for a curve without the counts).
        let mut cnms = crate::output::csv_file(dir.join("cnms.csv"));
        cnms.write_record([
            "curve",
            "group",
            "router_in_group",
            "router",
            "cnms_local",
            "cnms_global",
        ])?;
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
            let job = Job::of(jobs, pi, ci);
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
                let (mut values, mut errors) = (Vec::new(), Vec::new());
                for i in 0..a {
                    let r = gidx * a + i;
                    let seeds: Vec<f64> = cell
                        .runs
                        .iter()
                        .map(|x| x.injected_per_router[r] as f64)
                        .collect();
                    let est = Estimate::of(&seeds);
                    w.write_record([
                        curve.label.clone(),
                        gidx.to_string(),
                        i.to_string(),
                        r.to_string(),
                        format!("{:.1}", est.mean),
                        format!("{:.1}", est.ci95),
                    ])?;
                    values.push(est.mean);
                    errors.push(est.ci95);
                    let counts: Option<Vec<(u64, u64)>> = cell
                        .runs
                        .iter()
                        .map(|x| {
                            let q = x.qcn.as_ref()?;
                            Some((
                                *q.cnms_received_local.get(r)?,
                                *q.cnms_received_global.get(r)?,
                            ))
                        })
                        .collect();
                    if let Some(c) = counts {
                        let n = c.len() as f64;
                        let mean = |f: fn(&(u64, u64)) -> u64| {
                            c.iter().map(|x| f(x) as f64).sum::<f64>() / n
                        };
                        cnms.write_record([
                            curve.label.clone(),
                            gidx.to_string(),
                            i.to_string(),
                            r.to_string(),
                            format!("{:.1}", mean(|x| x.0)),
                            format!("{:.1}", mean(|x| x.1)),
                        ])?;
                    }
                }
                let (lo, hi) = values
                    .iter()
                    .fold((f64::INFINITY, 0.0f64), |(l, h), &v| (l.min(v), h.max(v)));
                let total: f64 = values.iter().sum();
                // The unfairness quotient: the most a router injected over the fewest.
                let quotient = if lo > 0.0 {
                    format!("{:.3}", hi / lo)
                } else {
                    crate::show::MISSING.to_string()
                };
                writeln!(
                    report,
                    "{:<24} {:<12} total {:>10.0}  min {:>8.0}  max {:>8.0}  max/min {:>7}",
                    curve.label, gname, total, lo, hi, quotient
                )?;
                series.push(BarSeries {
                    label: gname.clone(),
                    values,
                    errors,
                });
            }
            let labels: Vec<String> = (0..a).map(|i| format!("R{i}")).collect();
            let file = format!("injected-{}", slug(&curve.label));
            grouped_bar_plot(
                &dir.join(file),
                &PlotSpec {
                    title: &format!("{}, {}", plan.title(ptitle), curve.label),
                    x_label: "router in group",
                    y_label: "packets injected",
                    log_y: false,
                },
                &labels,
                &series,
                None,
            )?;
        }
        w.finish()?;
        cnms.finish()?;
    }
    Ok(())
}
