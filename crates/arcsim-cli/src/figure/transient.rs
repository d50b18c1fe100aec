//! Transient figures: latency per generation window around a change of traffic, and the
//! accepted load per window (how throughput evolves: after a change, or as a network
//! collapses at a constant load).

use super::spec::Job;
use super::Finished;
use crate::plot::{line_plot_with, Curve, LineExtras, PlotSpec, Point};
use anyhow::Result;
use arcsim::stats::summary::Occupancy;
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
        let mut w = crate::output::csv_file(dir.join("series.csv"));
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
            "curve",
            if change.is_some() {
                "before change"
            } else {
                "mean"
            },
            if change.is_some() {
                "peak after"
            } else {
                "worst window"
            },
            if change.is_some() {
                "mean after"
            } else {
                "last window"
            }
        )?;
        let mut curves = Vec::new();
        let mut tw = crate::output::csv_file(dir.join("throughput.csv"));
        tw.write_record([
            "curve",
            "cycle",
            "accepted_load",
            "generated_load",
            "in_flight_per_node",
            "injection_occupancy",
            "local_occupancy",
            "global_occupancy",
            "escape_occupancy",
            "seeds",
        ])?;
        // QCN-Switch's probabilities over time, when the runs trace them (probability.csv).
        let mut pw: Option<crate::output::CsvFile> = None;
        // And every traced port's (probability_ports.csv).
        let mut ppw: Option<crate::output::CsvFile> = None;
        let mut prob_curves = Vec::new();
        let mut thr_curves = Vec::new();
        let mut fly_curves = Vec::new();
        let mut escape_curves = Vec::new();
        let mut thr_report = String::new();
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
            let job = Job::of(jobs, pi, ci);
            let warm = job.cfg.simulation.warmup_cycles;
            let len = job.cfg.router.packet_length;
            let thr = throughput_series(&cell.runs);
            let probs = probability_series(&cell.runs, &job.cfg.topology);
            if !probs.is_empty() {
                if pw.is_none() {
                    let mut f = crate::output::csv_file(dir.join("probability.csv"));
                    f.write_record(["curve", "cycle", "mid_to_sout", "sout_global", "seeds"])?;
                    pw = Some(f);
                }
                let f = pw.as_mut().expect("opened above");
                for q in &probs {
                    f.write_record([
                        curve.label.clone(),
                        q.cycle.to_string(),
                        format!("{:.6}", q.mid_to_sout),
                        format!("{:.6}", q.sout_global),
                        q.seeds.to_string(),
                    ])?;
                }
                let ports = port_probabilities(&cell.runs, &job.cfg.topology);
                if ppw.is_none() {
                    let mut f = crate::output::csv_file(dir.join("probability_ports.csv"));
                    f.write_record([
                        "curve",
                        "cycle",
                        "switch",
                        "port",
                        "towards_sout",
                        "probability",
                        "seeds",
                    ])?;
                    ppw = Some(f);
                }
                let f = ppw.as_mut().expect("opened above");
                for q in &ports {
                    f.write_record([
                        curve.label.clone(),
                        q.cycle.to_string(),
                        q.port.0.to_string(),
                        q.port.1.to_string(),
                        u8::from(q.towards_sout).to_string(),
                        format!("{:.6}", q.probability),
                        q.seeds.to_string(),
                    ])?;
                }
                let origin = change.unwrap_or(0) as f64;
                prob_curves.push(Curve {
                    label: curve.label.clone(),
                    points: probs
                        .iter()
                        .map(|q| Point {
                            x: q.cycle as f64 - origin,
                            y: q.mid_to_sout,
                            ci: None,
                        })
                        .collect(),
                });
            }
            for p in &thr {
                let o = p.occupancy.to_array();
                tw.write_record([
                    curve.label.clone(),
                    p.cycle.to_string(),
                    format!("{:.6}", p.accepted),
                    format!("{:.6}", p.generated),
                    format!("{:.4}", p.in_flight_per_node),
                    format!("{:.6}", o[0]),
                    format!("{:.6}", o[1]),
                    format!("{:.6}", o[2]),
                    format!("{:.6}", o[3]),
                    p.seeds.to_string(),
                ])?;
            }
            let measured: Vec<f64> = thr
                .iter()
                .filter(|p| p.cycle >= warm)
                .map(|p| p.accepted)
                .collect();
            writeln!(
                thr_report,
                "{:<24} {:>14} {:>14} {:>14} {:>14}",
                curve.label,
                thr.first()
                    .map(|p| format!("{:.4}", p.accepted))
                    .unwrap_or_else(|| "-".into()),
                fmt_or_dash(measured.iter().copied().fold(f64::NAN, f64::min)),
                fmt_or_dash(measured.iter().sum::<f64>() / measured.len() as f64),
                fmt_or_dash(measured.iter().copied().fold(f64::NAN, f64::max)),
            )?;
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
                            // A window mostly delivered has packets, hence a latency.
                            match (p.latency_mean, p.misrouted_fraction) {
                                (Some(l), Some(m))
                                    if p.mostly_delivered(r.nodes, s.window_cycles, len) =>
                                {
                                    lat += l;
                                    mis += m;
                                }
                                _ => complete = false,
                            }
                            acc += p.accepted_load;
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
            // Plotted against the cycles from the change (the paper's view of a transient).
            let origin = change.unwrap_or(0) as f64;
            let along = |y: &dyn Fn(&ThroughputPoint) -> f64, at_end: u64| Curve {
                label: curve.label.clone(),
                points: thr
                    .iter()
                    .map(|p| Point {
                        x: (p.cycle + at_end) as f64 - origin,
                        y: y(p),
                        ci: None,
                    })
                    .collect(),
            };
            thr_curves.push(along(&|p| p.accepted, 0));
            // Sampled when each window ends.
            let window = thr_window(&cell.runs);
            fly_curves.push(along(&|p| p.in_flight_per_node, window));
            escape_curves.push(along(&|p| 100.0 * p.occupancy.escape, window));
            if pts.is_empty() {
                // Saturated: the packets of no window were all delivered.
                writeln!(
                    report,
                    "{:<24} no window complete (fewer than 99% of a window's packets delivered: saturated)",
                    curve.label
                )?;
                curves.push(Curve {
                    label: curve.label.clone(),
                    points: Vec::new(),
                });
                continue;
            }
            // Around the change: mean latency of the windows before it; worst and mean after.
            // Without a change: mean, worst and last window.
            let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
            let worst = |v: &[f64]| v.iter().copied().fold(f64::NAN, f64::max);
            let cols = match change {
                Some(c) => {
                    let split = c as f64;
                    let before: Vec<f64> =
                        pts.iter().filter(|p| p.x < split).map(|p| p.y).collect();
                    let after: Vec<f64> =
                        pts.iter().filter(|p| p.x >= split).map(|p| p.y).collect();
                    [mean(&before), worst(&after), mean(&after)]
                }
                None => {
                    let all: Vec<f64> = pts.iter().map(|p| p.y).collect();
                    [mean(&all), worst(&all), all[all.len() - 1]]
                }
            };
            writeln!(
                report,
                "{:<24} {:>14.1} {:>14.1} {:>14.1}",
                curve.label, cols[0], cols[1], cols[2]
            )?;
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
        w.finish()?;
        tw.finish()?;
        if let Some(f) = pw {
            f.finish()?;
        }
        writeln!(
            report,
            "\n## {ptitle}: accepted load per window, phits/(node·cycle){}",
            if thr_curves.iter().any(|c| !c.points.is_empty()) {
                ""
            } else {
                " (no series)"
            }
        )?;
        writeln!(
            report,
            "{:<24} {:>14} {:>14} {:>14} {:>14}",
            "curve", "first window", "min measured", "mean measured", "max measured"
        )?;
        report.push_str(&thr_report);
        let title = plan.title(ptitle);
        // Every plot of the panel over the same cycles (the union of what they show), the
        // change marked by a dashed line at 0.
        let mut span: Option<(f64, f64)> = None;
        for p in thr_curves
            .iter()
            .chain(&fly_curves)
            .chain(&escape_curves)
            .chain(&curves)
            .flat_map(|c| &c.points)
            .filter(|p| p.x.is_finite())
        {
            span = Some(span.map_or((p.x, p.x), |(a, b)| (a.min(p.x), b.max(p.x))));
        }
        let extras = LineExtras {
            x_range: span,
            vline: change.map(|_| (0.0, "traffic change".to_string())),
        };
        // Every plot of the panel against the cycle, counted from the change if there is one.
        let plot = |name: &str, generation: bool, y_label: &str, curves: &[Curve]| {
            let x_label = match (generation, change.is_some()) {
                (true, true) => "generation cycle relative to the traffic change",
                (true, false) => "generation cycle",
                (false, true) => "cycle relative to the traffic change",
                (false, false) => "cycle",
            };
            line_plot_with(
                &dir.join(name),
                &PlotSpec {
                    title: &title,
                    x_label,
                    y_label,
                    log_y: false,
                },
                curves,
                &extras,
            )
        };
        plot(
            "throughput",
            false,
            "accepted load (phits/(node·cycle))",
            &thr_curves,
        )?;
        plot(
            "in_flight",
            false,
            "packets in flight per node (end of window)",
            &fly_curves,
        )?;
        // Only the curves whose escape buffers held a packet at some sample (so none without
        // an escape subnetwork).
        escape_curves.retain(|c| c.points.iter().any(|p| p.y > 0.0));
        if !escape_curves.is_empty() {
            plot(
                "escape",
                false,
                "escape buffers occupied, % (end of window)",
                &escape_curves,
            )?;
        }
        if let Some(f) = ppw {
            f.finish()?;
        }
        plot("latency", true, "mean packet latency (cycles)", &curves)?;
        if !prob_curves.is_empty() {
            plot(
                "probability",
                false,
                "minimal probability (%), middle switch of group 0 towards S_out",
                &prob_curves,
            )?;
        }
    }
    Ok(())
}

/// One window of accepted (received) and generated load, and the packets in flight and
/// buffer occupancy when it ended, averaged over the seeds.
struct ThroughputPoint {
    cycle: u64,
    accepted: f64,
    generated: f64,
    in_flight_per_node: f64,
    occupancy: Occupancy,
    seeds: usize,
}

/// The series' window width (0 without a series).
fn thr_window(runs: &[arcsim::stats::RunResult]) -> u64 {
    runs.iter()
        .find_map(|r| r.series.as_ref().map(|s| s.window_cycles))
        .unwrap_or(0)
}

/// Accepted and generated load per window from cycle 0, averaged over the seeds that have the
/// window. Unlike latency, a window's accepted load needs no packet to finish: it counts what
/// arrived in the window, so saturated and collapsing runs have every window.
fn throughput_series(runs: &[arcsim::stats::RunResult]) -> Vec<ThroughputPoint> {
    let nodes = runs.first().map_or(1, |r| r.nodes.max(1));
    let n = runs
        .iter()
        .filter_map(|r| r.series.as_ref().map(|s| s.points.len()))
        .max()
        .unwrap_or(0);
    (0..n)
        .filter_map(|k| {
            let pts: Vec<_> = runs
                .iter()
                .filter_map(|r| r.series.as_ref().and_then(|s| s.points.get(k)))
                .collect();
            let s = pts.len() as f64;
            let mut occupancy = [0.0; 4];
            for p in &pts {
                for (sum, x) in occupancy.iter_mut().zip(p.occupancy.to_array()) {
                    *sum += x / s;
                }
            }
            (!pts.is_empty()).then(|| ThroughputPoint {
                cycle: pts[0].cycle,
                accepted: pts.iter().map(|p| p.accepted_load).sum::<f64>() / s,
                generated: pts.iter().map(|p| p.generated_load).sum::<f64>() / s,
                in_flight_per_node: pts.iter().map(|p| p.in_flight as f64).sum::<f64>()
                    / (s * nodes as f64),
                occupancy: Occupancy::from_array(occupancy),
                seeds: pts.len(),
            })
        })
        .collect()
}

/// QCN-Switch's minimal-routing probabilities at the end of one window, averaged over the
/// seeds that have it: the port from the middle switch of group 0 (router ⌊(a − 1)/2⌋)
/// towards the group's last switch (S_out under ADV+1; the QCN-Switch paper's Figs. 12b and
/// 14b), and S_out's last global port (its link to group 1).
struct ProbabilityPoint {
    cycle: u64,
    mid_to_sout: f64,
    sout_global: f64,
    seeds: usize,
}

/// The ports `ProbabilityPoint` follows, as (switch, port): node ports first, then the
/// local ports in the order of the peer routers (skipping the switch itself), then the
/// global ports.
fn sout_ports(t: &arcsim::config::TopologyConfig) -> [(u32, u32); 2] {
    let (p, a, h) = (t.p as u32, t.a as u32, t.h as u32);
    let mid = (a - 1) / 2;
    [(mid, p + a - 2), (a - 1, p + (a - 1) + (h - 1))]
}

/// One traced port's minimal probability (percent) at the end of one window, averaged over
/// the seeds.
struct PortProbability {
    cycle: u64,
    /// (switch, port).
    port: (u32, u32),
    /// The first hop of group 0's minimal paths to S_out's global link to group 1 (ADV+1):
    /// the local port towards the group's last switch, and that switch's last global port.
    towards_sout: bool,
    probability: f64,
    seeds: usize,
}

/// Whether port `port` of switch `s` of group 0 leads towards S_out's global link under
/// ADV+1 (`sout_ports`'s rule for every switch of the group).
fn towards_sout(t: &arcsim::config::TopologyConfig, (s, port): (u32, u32)) -> bool {
    let (p, a, h) = (t.p as u32, t.a as u32, t.h as u32);
    if s + 1 < a {
        port == p + a - 2
    } else {
        s == a - 1 && port == p + (a - 1) + (h - 1)
    }
}

/// Every traced port's probability per window from the runs' QCN traces (the dragonfly's
/// group 0; empty without QCN or on another topology), averaged over the seeds whose trace
/// has that window.
fn port_probabilities(
    runs: &[arcsim::stats::RunResult],
    t: &arcsim::config::TopologyConfig,
) -> Vec<PortProbability> {
    if t.kind != arcsim::config::TopologyKind::Dragonfly || t.a < 2 {
        return Vec::new();
    }
    let traces: Vec<&arcsim::stats::summary::ProbabilitySeries> = runs
        .iter()
        .filter_map(|r| r.qcn.as_ref()?.probabilities.as_ref())
        .collect();
    let Some(first) = traces.first() else {
        return Vec::new();
    };
    // Every seed traces the same ports (the same network).
    let traces: Vec<_> = traces.iter().filter(|s| s.ports == first.ports).collect();
    let n = traces.iter().map(|s| s.points.len()).max().unwrap_or(0);
    let mut out = Vec::new();
    for k in 0..n {
        let pts: Vec<_> = traces.iter().filter_map(|s| s.points.get(k)).collect();
        for (i, &port) in first.ports.iter().enumerate() {
            let m = pts.len() as f64;
            out.push(PortProbability {
                cycle: pts[0].cycle,
                port,
                towards_sout: towards_sout(t, port),
                probability: pts.iter().map(|p| p.values[i]).sum::<f64>() / m,
                seeds: pts.len(),
            });
        }
    }
    out
}

/// The probabilities of `sout_ports` per window from the runs' QCN traces (empty without
/// QCN, or on a topology other than the dragonfly).
fn probability_series(
    runs: &[arcsim::stats::RunResult],
    t: &arcsim::config::TopologyConfig,
) -> Vec<ProbabilityPoint> {
    if t.kind != arcsim::config::TopologyKind::Dragonfly || t.a < 2 {
        return Vec::new();
    }
    let want = sout_ports(t);
    let traces: Vec<(&arcsim::stats::summary::ProbabilitySeries, [usize; 2])> = runs
        .iter()
        .filter_map(|r| r.qcn.as_ref()?.probabilities.as_ref())
        .filter_map(|s| {
            let idx = |w: (u32, u32)| s.ports.iter().position(|&x| x == w);
            Some((s, [idx(want[0])?, idx(want[1])?]))
        })
        .collect();
    let n = traces
        .iter()
        .map(|(s, _)| s.points.len())
        .max()
        .unwrap_or(0);
    (0..n)
        .filter_map(|k| {
            let pts: Vec<_> = traces
                .iter()
                .filter_map(|(s, i)| s.points.get(k).map(|p| (p, i)))
                .collect();
            let m = pts.len() as f64;
            (!pts.is_empty()).then(|| ProbabilityPoint {
                cycle: pts[0].0.cycle,
                mid_to_sout: pts.iter().map(|(p, i)| p.values[i[0]]).sum::<f64>() / m,
                sout_global: pts.iter().map(|(p, i)| p.values[i[1]]).sum::<f64>() / m,
                seeds: pts.len(),
            })
        })
        .collect()
}

fn fmt_or_dash(v: f64) -> String {
    if v.is_finite() {
        format!("{v:.4}")
    } else {
        "-".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_port_towards_s_out_at_the_middle_switch() {
        // The QCN-Switch paper's network (p = 6, a = 12, h = 6): router 5's local port
        // towards router 11 is 6 + 10 = 16; S_out (router 11)'s last global port is
        // 6 + 11 + 5 = 22. The FOGSim cross-check's (p = 3, a = 6, h = 3): router 2, port 7;
        // router 5, port 10 (the spec's A.1).
        let mut t = arcsim::config::TopologyConfig {
            p: 6,
            a: 12,
            h: 6,
            ..Default::default()
        };
        assert_eq!(sout_ports(&t), [(5, 16), (11, 22)]);
        (t.p, t.a, t.h) = (3, 6, 3);
        assert_eq!(sout_ports(&t), [(2, 7), (5, 10)]);
        // Every switch of group 0 but the last: its local port towards the last (p + a - 2);
        // the last: its last global port. Nothing else.
        for s in 0..5 {
            for port in 3..13 {
                assert_eq!(towards_sout(&t, (s, port)), port == 7, "{s} {port}");
            }
        }
        for port in 3..13 {
            assert_eq!(towards_sout(&t, (5, port)), port == 10, "5 {port}");
        }
        assert!(sout_ports(&t).iter().all(|&x| towards_sout(&t, x)));
    }
}
