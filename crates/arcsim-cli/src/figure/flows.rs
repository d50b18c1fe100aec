//! Flow figures (`kind = "flows"`): per-flow throughput over time, for the scenarios of the
//! InfiniBand adaptive-routing paper (Rocher-González et al.), whose figures plot the
//! throughput of each flow of a few explicit flows (`[[flows]]`) under deterministic and
//! adaptive routing.
//!
//! Per panel it writes `flows.csv` (every flow's throughput in every series window, the mean
//! over the seeds), `phases.csv` (each flow's mean share in each phase: the intervals
//! between flows starting or stopping, without the first window of each, where the shares
//! settle), `ports.csv` (the output ports' counters of the first seed: packets, and the
//! cycles with data queued with and without credits, a congestion tree's root and
//! branches), with `simulation.port_series_window` also `ports_series.csv` (the same
//! counters per window of that many cycles from cycle 0, of the first seed), and a plot per
//! curve. Its claims read a flow's share of a link (or a sum over flows) over an interval,
//! the Jain index and variance of the flows' shares, the split of packets over ports and the
//! root and branch time of a port, over the measurement or (from `ports_series.csv`) over an
//! interval.

use super::claims::{Claim, Metric};
use super::spec::{Job, Plan};
use super::Finished;
use crate::plot::{line_plot, Curve, PlotSpec, Point};
use anyhow::{bail, Result};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// One flow's throughput in one window, as `flows.csv` holds it.
#[derive(Debug, Clone, Deserialize)]
struct FlowRow {
    curve: String,
    flow: usize,
    window_start: u64,
    window_end: u64,
    throughput: f64,
}

/// One port's counters, as `ports.csv` holds them.
#[derive(Debug, Clone, Deserialize)]
struct PortRow {
    curve: String,
    switch: u32,
    port: u32,
    packets: u64,
    queued_with_credits: u64,
    queued_without_credits: u64,
    cycles: u64,
}

/// One port's counters in one window, as `ports_series.csv` holds them.
#[derive(Debug, Clone, Deserialize)]
struct PortWindowRow {
    curve: String,
    switch: u32,
    port: u32,
    window_start: u64,
    window_end: u64,
    queued_with_credits: u64,
    queued_without_credits: u64,
}

/// What the claims of a flow figure read: per (panel, curve), the windows of every flow,
/// the ports, and the ports' windows (with `simulation.port_series_window`).
#[derive(Default)]
pub(super) struct FlowTables {
    windows: BTreeMap<(String, String), Vec<FlowRow>>,
    ports: BTreeMap<(String, String), Vec<PortRow>>,
    port_windows: BTreeMap<(String, String), Vec<PortWindowRow>>,
}

fn read_rows<T: serde::de::DeserializeOwned>(p: &Path) -> Result<Vec<T>> {
    use anyhow::Context;
    let mut r = csv::Reader::from_path(p).with_context(|| format!("reading {}", p.display()))?;
    r.deserialize()
        .collect::<std::result::Result<_, _>>()
        .with_context(|| format!("reading {}", p.display()))
}

/// Read what a flow figure of this plan wrote under `out`.
pub(super) fn read(plan: &Plan, out: &Path) -> Result<FlowTables> {
    let mut t = FlowTables::default();
    for (pname, _) in &plan.panels {
        for r in read_rows::<FlowRow>(&out.join(pname).join("flows.csv"))? {
            t.windows
                .entry((pname.clone(), r.curve.clone()))
                .or_default()
                .push(r);
        }
        for r in read_rows::<PortRow>(&out.join(pname).join("ports.csv"))? {
            t.ports
                .entry((pname.clone(), r.curve.clone()))
                .or_default()
                .push(r);
        }
        let series = out.join(pname).join("ports_series.csv");
        if series.exists() {
            for r in read_rows::<PortWindowRow>(&series)? {
                t.port_windows
                    .entry((pname.clone(), r.curve.clone()))
                    .or_default()
                    .push(r);
            }
        }
    }
    Ok(t)
}

/// The metrics of flow figures.
pub(super) fn is_flow_metric(m: Metric) -> bool {
    matches!(
        m,
        Metric::FlowShare
            | Metric::Jain
            | Metric::Variance
            | Metric::PortShare
            | Metric::RootTime
            | Metric::BranchTime
    )
}

/// Check the fields only flow claims read: `flows`, `from`, `to`, `ports`.
pub(super) fn validate(c: &Claim, what: &dyn Fn() -> String) -> Result<()> {
    let flow_metric = is_flow_metric(c.metric);
    if let (Some(a), Some(b)) = (c.from, c.to) {
        if b <= a {
            bail!("{}: to = {b} must be after from = {a} (cycles)", what());
        }
    }
    if !flow_metric {
        // The transient `latency-after` takes an interval too (cycles after the change).
        let interval = c.metric == Metric::LatencyAfter;
        if !c.flows.is_empty()
            || !c.ports.is_empty()
            || (!interval && (c.from.is_some() || c.to.is_some()))
        {
            bail!(
                "{}: flows, from, to and ports apply to the metrics of flow figures only (from and to also to latency-after)",
                what()
            );
        }
        return Ok(());
    }
    match c.metric {
        Metric::FlowShare if c.flows.is_empty() => bail!(
            "{}: metric flow-share needs flows = [N, ...] (the flows whose shares are summed, numbered from 0)",
            what()
        ),
        Metric::PortShare if c.ports.len() < 2 => bail!(
            "{}: metric port-share needs ports = [[SWITCH, PORT], [SWITCH, PORT], ...]: the share of the first port's packets among all of them",
            what()
        ),
        Metric::RootTime | Metric::BranchTime if c.ports.len() != 1 => bail!(
            "{}: metric {} needs ports = [[SWITCH, PORT]] (one output port)",
            what(),
            if c.metric == Metric::RootTime {
                "root-time"
            } else {
                "branch-time"
            }
        ),
        Metric::PortShare if !c.flows.is_empty() || c.from.is_some() || c.to.is_some() => {
            bail!(
                "{}: metric port-share is over the measurement window: leave out flows, from and to",
                what()
            )
        }
        Metric::RootTime | Metric::BranchTime if !c.flows.is_empty() => bail!(
            "{}: the port metrics read ports, not flows: leave out flows",
            what()
        ),
        Metric::FlowShare | Metric::Jain | Metric::Variance if !c.ports.is_empty() => {
            bail!("{}: ports applies to the port metrics only", what())
        }
        _ => Ok(()),
    }
}

/// Each flow's mean share over the windows inside [from, to) (`to` None: the end).
fn flow_means(rows: &[FlowRow], from: u64, to: Option<u64>) -> BTreeMap<usize, f64> {
    let mut sum: BTreeMap<usize, (f64, u64)> = BTreeMap::new();
    for r in rows {
        if r.window_start >= from && to.is_none_or(|t| r.window_end <= t) {
            let e = sum.entry(r.flow).or_default();
            e.0 += r.throughput;
            e.1 += 1;
        }
    }
    sum.into_iter()
        .map(|(f, (s, n))| (f, s / n as f64))
        .collect()
}

/// Jain's fairness index of `x`: (Σx)² / (n Σx²); 1 when all are equal.
pub(super) fn jain(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    let q: f64 = x.iter().map(|v| v * v).sum();
    if x.is_empty() || q == 0.0 {
        f64::NAN
    } else {
        s * s / (x.len() as f64 * q)
    }
}

/// Population variance of `x`.
pub(super) fn variance(x: &[f64]) -> f64 {
    if x.is_empty() {
        return f64::NAN;
    }
    let m = x.iter().sum::<f64>() / x.len() as f64;
    x.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / x.len() as f64
}

/// The claim's number for `curve` in `panel`, or why there is none.
pub(super) fn value(
    t: &FlowTables,
    c: &Claim,
    panel: &str,
    curve: &str,
) -> std::result::Result<f64, String> {
    let key = (panel.to_string(), curve.to_string());
    match c.metric {
        Metric::FlowShare | Metric::Jain | Metric::Variance => {
            let rows = t
                .windows
                .get(&key)
                .filter(|v| !v.is_empty())
                .ok_or_else(|| format!("{curve} has no flow series in panel {panel}"))?;
            let means = flow_means(rows, c.from.unwrap_or(0), c.to);
            if means.is_empty() {
                return Err(format!(
                    "no whole window lies in the interval (from {} to {})",
                    c.from.unwrap_or(0),
                    c.to.map_or("the end".into(), |t| t.to_string())
                ));
            }
            let pick: Vec<f64> = if c.flows.is_empty() {
                // Every flow that sent in the interval.
                means.values().copied().filter(|&x| x > 0.0).collect()
            } else {
                let mut v = Vec::new();
                for f in &c.flows {
                    v.push(
                        *means
                            .get(f)
                            .ok_or_else(|| format!("flow {f} is not in {curve}'s results"))?,
                    );
                }
                v
            };
            Ok(match c.metric {
                Metric::FlowShare => pick.iter().sum(),
                Metric::Jain => jain(&pick),
                _ => variance(&pick),
            })
        }
        Metric::RootTime | Metric::BranchTime if c.from.is_some() || c.to.is_some() => {
            let (from, to) = (c.from.unwrap_or(0), c.to);
            let rows = t.port_windows.get(&key).filter(|v| !v.is_empty()).ok_or_else(|| {
                format!(
                    "{curve} has no per-window port counters in panel {panel} (a claim with from or to reads them: set simulation.port_series_window)"
                )
            })?;
            let sp = c.ports[0];
            let (mut busy, mut cycles) = (0u64, 0u64);
            for r in rows.iter().filter(|r| {
                r.switch == sp[0]
                    && r.port == sp[1]
                    && r.window_start >= from
                    && to.is_none_or(|t| r.window_end <= t)
            }) {
                busy += if c.metric == Metric::RootTime {
                    r.queued_with_credits
                } else {
                    r.queued_without_credits
                };
                cycles += r.window_end - r.window_start;
            }
            if cycles == 0 {
                return Err(format!(
                    "no whole window of switch {} port {} lies in the interval (from {from} to {})",
                    sp[0],
                    sp[1],
                    to.map_or("the end".into(), |t| t.to_string())
                ));
            }
            Ok(busy as f64 / cycles as f64)
        }
        Metric::PortShare | Metric::RootTime | Metric::BranchTime => {
            let ports = t
                .ports
                .get(&key)
                .filter(|v| !v.is_empty())
                .ok_or_else(|| format!("{curve} has no port counters in panel {panel}"))?;
            let find = |sp: &[u32; 2]| {
                ports
                    .iter()
                    .find(|p| p.switch == sp[0] && p.port == sp[1])
                    .ok_or_else(|| format!("switch {} has no port {}", sp[0], sp[1]))
            };
            match c.metric {
                Metric::PortShare => {
                    let first = find(&c.ports[0])?.packets as f64;
                    let mut all = 0.0;
                    for sp in &c.ports {
                        all += find(sp)?.packets as f64;
                    }
                    if all == 0.0 {
                        return Err("the ports sent no packet".into());
                    }
                    Ok(first / all)
                }
                _ => {
                    let p = find(&c.ports[0])?;
                    let busy = if c.metric == Metric::RootTime {
                        p.queued_with_credits
                    } else {
                        p.queued_without_credits
                    };
                    Ok(busy as f64 / p.cycles.max(1) as f64)
                }
            }
        }
        _ => Err("not a flow metric".into()),
    }
}

/// "flows 0 + 2 share of a link from cycle 8000 to 40000", for a claim's verdict.
pub(super) fn describe(c: &Claim) -> String {
    let span = match (c.from, c.to) {
        (None, None) => String::new(),
        (a, None) => format!(" from cycle {}", a.unwrap_or(0)),
        (a, Some(b)) => format!(" over cycles {}-{b}", a.unwrap_or(0)),
    };
    let flows = if c.flows.is_empty() {
        "the flows sending".to_string()
    } else {
        let list: Vec<String> = c.flows.iter().map(|f| f.to_string()).collect();
        format!(
            "flow{} {}",
            if c.flows.len() > 1 { "s" } else { "" },
            list.join(" + ")
        )
    };
    let port = |sp: &[u32; 2]| format!("switch {} port {}", sp[0], sp[1]);
    match c.metric {
        Metric::FlowShare => format!("throughput of {flows} (share of a link){span}"),
        Metric::Jain => format!("Jain index of {flows}{span}"),
        Metric::Variance => format!("variance of the shares of {flows}{span}"),
        Metric::PortShare => format!(
            "share of the packets sent by {} among {}",
            c.ports.first().map(port).unwrap_or_default(),
            c.ports.iter().map(port).collect::<Vec<_>>().join(", ")
        ),
        Metric::RootTime => format!(
            "share of the cycles{} {} had data queued with credits (congestion root)",
            if span.is_empty() {
                String::new()
            } else {
                format!(" ({})", span.trim())
            },
            c.ports.first().map(port).unwrap_or_default()
        ),
        Metric::BranchTime => format!(
            "share of the cycles{} {} had data queued without credits (congestion branch)",
            if span.is_empty() {
                String::new()
            } else {
                format!(" ({})", span.trim())
            },
            c.ports.first().map(port).unwrap_or_default()
        ),
        _ => String::new(),
    }
}

/// The phases of a run: the intervals between the cycles where a flow starts or stops,
/// from the end of the warm-up to `end`.
fn phases(cfg: &arcsim::Config, end: u64) -> Vec<(u64, u64)> {
    let warm = cfg.simulation.warmup_cycles;
    let mut cuts: Vec<u64> = vec![warm, end];
    for f in &cfg.flows {
        for t in [f.start, f.stop] {
            if t > warm && t < end {
                cuts.push(t);
            }
        }
    }
    cuts.sort_unstable();
    cuts.dedup();
    cuts.windows(2).map(|w| (w[0], w[1])).collect()
}

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
        let mut fw = crate::output::csv_file(dir.join("flows.csv"));
        fw.write_record([
            "curve",
            "flow",
            "src",
            "dst",
            "window_start",
            "window_end",
            "throughput",
            "gbps",
            "seeds",
        ])?;
        let mut phw = crate::output::csv_file(dir.join("phases.csv"));
        phw.write_record([
            "curve",
            "phase_start",
            "phase_end",
            "flow",
            "share",
            "gbps",
            "jain",
            "variance",
        ])?;
        // Per-window port counters, written when some run has them.
        let mut psw: Option<crate::output::CsvFile> = None;
        let mut pw = crate::output::csv_file(dir.join("ports.csv"));
        pw.write_record([
            "curve",
            "switch",
            "port",
            "class",
            "peer",
            "packets",
            "queued_with_credits",
            "queued_without_credits",
            "cycles",
        ])?;
        writeln!(
            report,
            "\n## {ptitle}: each flow's share of a link per phase (first window of a phase left out)"
        )?;
        for (ci, curve) in spec.curve.iter().enumerate() {
            let cell = cells.remove(&(pi, ci, 0)).unwrap_or_default();
            if !cell.failures.is_empty() || cell.runs.is_empty() {
                writeln!(
                    report,
                    "{:<24} failed: {}",
                    curve.label,
                    cell.failures.join("; ")
                )?;
                continue;
            }
            let job = Job::of(jobs, pi, ci);
            let window = job.cfg.simulation.series_window;
            let runs = &cell.runs;
            let first = &runs[0];
            let gbps = first.units.map(|u| u.link_gbps);
            let nflows = first.flows.len();
            // Whole windows only: the run may end inside the last one.
            let sim = &job.cfg.simulation;
            let nwin = first
                .flows
                .iter()
                .map(|f| f.series.len())
                .max()
                .unwrap_or(0)
                .min(((sim.warmup_cycles + sim.measure_cycles) / window.max(1)) as usize);
            if window == 0 || nwin == 0 {
                bail!(
                    "panel {pname}, curve {}: a flow figure needs [[flows]] and simulation.series_window > 0",
                    curve.label
                );
            }
            // Mean over the seeds, window by window.
            let mean = |fi: usize, k: usize| -> f64 {
                let v: Vec<f64> = runs
                    .iter()
                    .filter_map(|r| r.flows.get(fi).and_then(|f| f.series.get(k)))
                    .copied()
                    .collect();
                v.iter().sum::<f64>() / v.len().max(1) as f64
            };
            let mut plot_curves = Vec::new();
            for fi in 0..nflows {
                let fl = &first.flows[fi];
                let mut points = Vec::new();
                for k in 0..nwin {
                    let (a, b) = (k as u64 * window, (k as u64 + 1) * window);
                    let x = mean(fi, k);
                    fw.write_record([
                        curve.label.clone(),
                        fi.to_string(),
                        fl.src.to_string(),
                        fl.dst.to_string(),
                        a.to_string(),
                        b.to_string(),
                        format!("{x:.6}"),
                        gbps.map(|g| format!("{:.3}", x * g)).unwrap_or_default(),
                        runs.len().to_string(),
                    ])?;
                    points.push(Point {
                        x: b as f64,
                        y: gbps.map_or(x, |g| x * g),
                        ci: None,
                    });
                }
                plot_curves.push(Curve {
                    label: format!("flow {fi}: {} -> {}", fl.src, fl.dst),
                    points,
                });
            }
            let end = nwin as u64 * window;
            writeln!(report, "{}", curve.label)?;
            for (a, b) in phases(&job.cfg, end) {
                // Skip the first window of the phase: the shares settle there.
                let from = a + window;
                let mut shares = Vec::new();
                let mut line = String::new();
                for fi in 0..nflows {
                    let ks: Vec<usize> = (0..nwin)
                        .filter(|&k| k as u64 * window >= from && (k as u64 + 1) * window <= b)
                        .collect();
                    if ks.is_empty() {
                        continue;
                    }
                    let x = ks.iter().map(|&k| mean(fi, k)).sum::<f64>() / ks.len() as f64;
                    let active = x > 0.0;
                    if active {
                        shares.push(x);
                    }
                    write!(
                        line,
                        "  f{fi} {x:.4}{}",
                        gbps.map(|g| format!(" ({:.1} Gbps)", x * g))
                            .unwrap_or_default()
                    )?;
                    phw.write_record([
                        curve.label.clone(),
                        a.to_string(),
                        b.to_string(),
                        fi.to_string(),
                        format!("{x:.6}"),
                        gbps.map(|g| format!("{:.3}", x * g)).unwrap_or_default(),
                        String::new(),
                        String::new(),
                    ])?;
                }
                if line.is_empty() {
                    continue;
                }
                let total: f64 = shares.iter().sum();
                writeln!(
                    report,
                    "  cycles {a}-{b}:{line}  | total {total:.4}{}  Jain {:.4}  variance {:.2e}",
                    gbps.map(|g| format!(" ({:.1} Gbps)", total * g))
                        .unwrap_or_default(),
                    jain(&shares),
                    variance(&shares)
                )?;
                phw.write_record([
                    curve.label.clone(),
                    a.to_string(),
                    b.to_string(),
                    "all".into(),
                    format!("{total:.6}"),
                    gbps.map(|g| format!("{:.3}", total * g))
                        .unwrap_or_default(),
                    format!("{:.6}", jain(&shares)),
                    format!("{:.6e}", variance(&shares)),
                ])?;
            }
            let cycles = job.cfg.simulation.measure_cycles;
            for p in &first.ports {
                pw.write_record([
                    curve.label.clone(),
                    p.switch.to_string(),
                    p.port.to_string(),
                    p.class.clone(),
                    p.peer.to_string(),
                    p.packets.to_string(),
                    p.queued_with_credits.to_string(),
                    p.queued_without_credits.to_string(),
                    cycles.to_string(),
                ])?;
            }
            if first.ports.iter().any(|p| !p.series.is_empty()) {
                if psw.is_none() {
                    let mut w = crate::output::csv_file(dir.join("ports_series.csv"));
                    w.write_record([
                        "curve",
                        "switch",
                        "port",
                        "class",
                        "peer",
                        "window_start",
                        "window_end",
                        "phits",
                        "queued_with_credits",
                        "queued_without_credits",
                    ])?;
                    psw = Some(w);
                }
                let w = psw.as_mut().expect("just made");
                for p in &first.ports {
                    for x in &p.series {
                        w.write_record([
                            curve.label.clone(),
                            p.switch.to_string(),
                            p.port.to_string(),
                            p.class.clone(),
                            p.peer.to_string(),
                            x.start.to_string(),
                            x.end.to_string(),
                            x.phits.to_string(),
                            x.queued_with_credits.to_string(),
                            x.queued_without_credits.to_string(),
                        ])?;
                    }
                }
            }
            let title = format!("{}: {}", plan.title(ptitle), curve.label);
            let y = if gbps.is_some() {
                "throughput (Gbps)"
            } else {
                "throughput (phits/cycle)"
            };
            line_plot(
                &dir.join(format!("flows-{}", super::slug(&curve.label))),
                &PlotSpec::linear(&title, "cycle (end of window)", y),
                &plot_curves,
            )?;
        }
        fw.finish()?;
        phw.finish()?;
        pw.finish()?;
        match psw {
            Some(w) => w.finish()?,
            // Not one left from an earlier run, for the claims to read.
            None => match std::fs::remove_file(dir.join("ports_series.csv")) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e.into()),
                _ => {}
            },
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jain_and_variance_of_shares() {
        assert!((jain(&[0.5, 0.5]) - 1.0).abs() < 1e-12);
        // One of two flows has everything: 1/n.
        assert!((jain(&[1.0, 0.0]) - 0.5).abs() < 1e-12);
        assert!((jain(&[0.5, 0.25, 0.25]) - (1.0 / (3.0 * 0.375))).abs() < 1e-12);
        assert!(jain(&[]).is_nan());
        assert!((variance(&[0.5, 0.25, 0.25]) - 1.0 / 72.0).abs() < 1e-12);
    }

    #[test]
    fn window_means_keep_whole_windows_of_the_interval() {
        let row = |flow, a, b, x| FlowRow {
            curve: "c".into(),
            flow,
            window_start: a,
            window_end: b,
            throughput: x,
        };
        let rows = vec![
            row(0, 0, 10, 1.0),
            row(0, 10, 20, 0.5),
            row(0, 20, 30, 0.25),
            row(1, 0, 10, 0.0),
            row(1, 10, 20, 0.5),
            row(1, 20, 30, 0.75),
        ];
        let m = flow_means(&rows, 10, Some(30));
        assert_eq!(m[&0], 0.375);
        assert_eq!(m[&1], 0.625);
        // A window that crosses the end is left out.
        let m = flow_means(&rows, 0, Some(25));
        assert_eq!(m[&0], 0.75);
    }
}
