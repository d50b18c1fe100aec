//! Burst figures: consumption time normalised to a baseline curve, longest paths, and the hop
//! and escape-entry histograms of every panel.

use super::spec::Spec;
use super::Finished;
use crate::plot::truncate;
use crate::plot::{grouped_bar_plot, line_plot, BarSeries, Curve, PlotSpec, Point};
use anyhow::Result;
use arcsim::stats::summary::Repeated;
use arcsim::RunResult;
use std::fmt::Write as _;

pub(super) fn write(f: Finished, report: &mut String) -> Result<()> {
    let Finished {
        plan,
        mut cells,
        out,
        ..
    } = f;
    let spec = &plan.spec;
    let base_idx = spec
        .baseline
        .as_ref()
        .and_then(|b| spec.curve.iter().position(|c| &c.label == b))
        .unwrap_or(0);
    let base_label = &spec.curve[base_idx].label;
    let mut w = crate::output::csv_file(out.join("bursts.csv"));
    w.write_record([
        "panel",
        "curve",
        "repetitions",
        "consumption_cycles",
        "consumption_ci95",
        "relative_to_baseline",
        "max_hops",
        "max_hops_seeds_min",
        "hops_mean",
        "escape_entered_fraction",
        "median_router_done_cycles",
        "failed",
    ])?;
    let groups: Vec<String> = plan.panels.iter().map(|p| p.1.clone()).collect();
    // Longest path per panel and curve over all seeds, and the shortest of the seeds'
    // longest paths (None: not consumed), for the second table.
    let mut longest: Vec<Vec<Option<Longest>>> = Vec::new();
    // When half the routers had all their packets delivered, relative to the baseline's
    // consumption time (None: not consumed), for the third table.
    let mut half_done: Vec<Vec<Option<f64>>> = Vec::new();
    // Per panel and curve: how the packets entered the escape network (None: none did).
    let mut entered: Vec<Vec<Option<Entered>>> = Vec::new();
    let mut series: Vec<BarSeries> = spec
        .curve
        .iter()
        .map(|c| BarSeries {
            label: c.label.clone(),
            ..BarSeries::default()
        })
        .collect();
    writeln!(
        report,
        "\nburst consumption time relative to {base_label} (its cycles in parentheses)"
    )?;
    table_header(report, spec)?;
    for (pi, (pname, ptitle)) in plan.panels.iter().enumerate() {
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
        half_done.push(Vec::new());
        entered.push(Vec::new());
        let mut hop_curves = Vec::new();
        let mut hop_csv = crate::output::csv_file({
            std::fs::create_dir_all(out.join(pname))?;
            out.join(pname).join("hops.csv")
        });
        hop_csv.write_record(["curve", "hops", "packets", "fraction"])?;
        let mut entries_csv = crate::output::csv_file(out.join(pname).join("entries.csv"));
        entries_csv.write_record(["curve", "entries", "packets", "fraction"])?;
        let mut entry_curves = Vec::new();
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
                    // The whisker: the 95% interval of this curve's time over the seeds,
                    // on the same scale (the baseline's own spread is not folded in).
                    let ci95 = r.burst_consumption_cycles.as_ref().map(|e| e.ci95);
                    series[ci].errors.push(match (ci95, base) {
                        (Some(e), Some(b)) if b > 0.0 => e / b,
                        _ => f64::NAN,
                    });
                    write!(
                        report,
                        " {:>18}",
                        format!("{rel:.3} ({:.0})", c.unwrap_or(f64::NAN))
                    )?;
                    let lp = Longest::of(&r.runs);
                    longest[pi].push(Some(lp));
                    let median_done = median_router_done(&r.runs);
                    half_done[pi].push(match (median_done, base) {
                        (Some(m), Some(b)) if b > 0.0 => Some(m / b),
                        _ => None,
                    });
                    let hist = pooled(&r.runs, |x| &x.hops.histogram);
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
                        hop_csv.write_record([
                            label.clone(),
                            hops,
                            n.to_string(),
                            hop_share(n, total),
                        ])?;
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
                    // Runs stored before the histogram existed have none: left out.
                    let entries = pooled(&r.runs, |x| &x.escape.entries_histogram);
                    let total: u64 = entries.iter().sum();
                    let mut pts = Vec::new();
                    for (k, &n) in entries.iter().enumerate() {
                        entries_csv.write_record([
                            label.clone(),
                            k.to_string(),
                            n.to_string(),
                            hop_share(n, total),
                        ])?;
                        pts.push(Point {
                            x: k as f64,
                            y: n as f64 / total.max(1) as f64,
                            ci: None,
                        });
                    }
                    entered[pi].push(Entered::of(&entries));
                    if entries.len() > 1 {
                        entry_curves.push(Curve {
                            label: label.clone(),
                            points: pts,
                        });
                    }
                    let escape = arcsim::stats::summary::Estimate::of_present(
                        &r.runs
                            .iter()
                            .map(|x| x.escape.entered_fraction)
                            .collect::<Vec<_>>(),
                    )
                    .map(|e| e.mean);
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
                        lp.max.to_string(),
                        lp.seeds_min.to_string(),
                        crate::show::opt(r.hops_mean.as_ref().map(|e| e.mean), 4),
                        crate::show::opt(escape, 6),
                        median_done.map_or(String::new(), |m| format!("{m:.1}")),
                        String::new(),
                    ])?;
                }
                None => {
                    // Drawn as an open bar off the top of the chart.
                    series[ci].values.push(f64::INFINITY);
                    series[ci].errors.push(f64::NAN);
                    longest[pi].push(None);
                    half_done[pi].push(None);
                    entered[pi].push(None);
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
                        String::new(),
                        String::new(),
                        failures.join(" | "),
                    ])?;
                }
            }
        }
        writeln!(report)?;
        hop_csv.finish()?;
        entries_csv.finish()?;
        // Shares of packets by count, log scale: the tails are single packets in millions.
        let shares = |stem: &str, what: &str, x_label: &str, curves: &[Curve]| {
            line_plot(
                &out.join(pname).join(stem),
                &PlotSpec {
                    title: &plan.title_of(ptitle, what),
                    x_label,
                    y_label: "fraction of packets",
                    log_y: true,
                },
                curves,
            )
        };
        if !entry_curves.is_empty() {
            shares(
                "entries",
                "escape-network entries per packet",
                "entries into the escape network",
                &entry_curves,
            )?;
        }
        write_delivery(
            &out.join(pname),
            &plan.title_of(ptitle, "delivery over time (first seed)"),
            spec,
            &reps,
        )?;
        shares(
            "hops",
            "hops per packet",
            "router-to-router hops",
            &hop_curves,
        )?;
    }
    w.finish()?;
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
    let panels: Vec<&str> = plan.panels.iter().map(|p| p.1.as_str()).collect();
    panel_table(
        report,
        spec,
        "longest path (router-to-router hops, escape hops included; in parentheses the range of the seeds' longest paths, where they differ)",
        &panels,
        &longest,
        Longest::cell,
    )?;
    if entered.iter().flatten().any(Option::is_some) {
        // The OFAR paper §5.7's question: how many packets go back to the escape network.
        panel_table(
            report,
            spec,
            "escape-network entries: packets entering at least once, twice or more (%), most entries by one packet",
            &panels,
            &entered,
            Entered::cell,
        )?;
    }
    // A burst ends with its slowest router: this table tells a slow tail (a few routers
    // starved) from a slow bulk.
    panel_table(
        report,
        spec,
        &format!(
            "half of the routers done (their nodes' last packet delivered), relative to {base_label}'s consumption time"
        ),
        &panels,
        &half_done,
        |m| format!("{m:.3}"),
    )?;
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

/// `PANEL/delivery.{csv,svg,pdf,png}` when the runs kept a time series
/// (`simulation.series_window`): per curve, the first seed's accepted load per window over
/// the burst, and in the CSV its escape use and how full the global and escape buffers were.
/// A burst that jams shows as a collapse of the accepted load, not only as a long bar.
fn write_delivery(
    dir: &std::path::Path,
    title: &str,
    spec: &Spec,
    reps: &[(Option<Repeated>, Vec<String>)],
) -> Result<()> {
    let firsts: Vec<(&str, &arcsim::stats::Series)> = spec
        .curve
        .iter()
        .zip(reps)
        .filter_map(|(c, (rep, _))| {
            let s = rep.as_ref()?.runs.first()?.series.as_ref()?;
            Some((c.label.as_str(), s))
        })
        .collect();
    if firsts.is_empty() {
        return Ok(());
    }
    let mut w = crate::output::csv_file(dir.join("delivery.csv"));
    w.write_record([
        "curve",
        "cycle",
        "accepted_load",
        "escaped_fraction",
        "hops_mean",
        "in_flight",
        "global_occupancy",
        "escape_occupancy",
    ])?;
    let mut curves = Vec::new();
    for (label, s) in &firsts {
        for p in &s.points {
            w.write_record([
                label.to_string(),
                p.cycle.to_string(),
                format!("{:.6}", p.accepted_load),
                crate::show::opt(p.escaped_fraction, 6),
                crate::show::opt(p.hops_mean, 4),
                p.in_flight.to_string(),
                format!("{:.6}", p.occupancy.global),
                format!("{:.6}", p.occupancy.escape),
            ])?;
        }
        curves.push(Curve {
            label: label.to_string(),
            points: s
                .points
                .iter()
                .map(|p| Point {
                    x: p.cycle as f64,
                    y: p.accepted_load,
                    ci: None,
                })
                .collect(),
        });
    }
    w.finish()?;
    line_plot(
        &dir.join("delivery"),
        &PlotSpec::linear(title, "cycle", "accepted load, phits/(node·cycle)"),
        &curves,
    )
}

/// A bucket's share of the packets for `hops.csv`. Scientific notation: the log-scale tail
/// goes down to one packet in millions, which a fixed six decimals would write as 0.
fn hop_share(n: u64, total: u64) -> String {
    format!("{:.4e}", n as f64 / total.max(1) as f64)
}

/// The cycle by which half the routers had all their nodes' packets delivered, averaged over
/// the seeds of a cell (None if a run does not record it).
fn median_router_done(runs: &[RunResult]) -> Option<f64> {
    let mut sum = 0.0;
    for r in runs {
        let mut f = r.burst.as_ref()?.finished_per_router.clone();
        if f.is_empty() {
            return None;
        }
        f.sort_unstable();
        sum += f[(f.len() - 1) / 2] as f64;
    }
    (!runs.is_empty()).then(|| sum / runs.len() as f64)
}

/// A histogram of each run (`of`) summed over the seeds of a cell.
fn pooled(runs: &[RunResult], of: impl Fn(&RunResult) -> &Vec<u64>) -> Vec<u64> {
    let len = runs.iter().map(|r| of(r).len()).max().unwrap_or(0);
    let mut h = vec![0u64; len];
    for r in runs {
        for (k, &n) in of(r).iter().enumerate() {
            h[k] += n;
        }
    }
    h
}

/// A panel × curve table under `title`: a cell per curve, "-" where the curve has no value.
fn panel_table<T>(
    report: &mut String,
    spec: &Spec,
    title: &str,
    panels: &[&str],
    cells: &[Vec<Option<T>>],
    show: impl Fn(&T) -> String,
) -> std::fmt::Result {
    writeln!(report, "\n{title}")?;
    table_header(report, spec)?;
    for (ptitle, row) in panels.iter().zip(cells) {
        write!(report, "{:<16}", truncate(ptitle, 16))?;
        for m in row {
            let cell = m.as_ref().map_or_else(|| "-".to_string(), &show);
            write!(report, " {cell:>18}")?;
        }
        writeln!(report)?;
    }
    Ok(())
}

/// A curve's longest path: over all its seeds, and the shortest of the seeds' longest paths
/// (a tail statistic, so how much it moves from seed to seed matters when it is compared).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Longest {
    max: u64,
    seeds_min: u64,
}

impl Longest {
    fn of(runs: &[RunResult]) -> Longest {
        let each = runs.iter().map(|x| x.hops.max);
        Longest {
            max: each.clone().max().unwrap_or(0),
            seeds_min: each.min().unwrap_or(0),
        }
    }

    /// `27 (19-27)`, or `13` where every seed gave the same.
    fn cell(&self) -> String {
        if self.seeds_min == self.max {
            self.max.to_string()
        } else {
            format!("{} ({}-{})", self.max, self.seeds_min, self.max)
        }
    }
}

/// How a curve's packets entered the escape network, from its pooled entries histogram.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Entered {
    /// Share of the packets that entered at least once, and twice or more.
    once: f64,
    twice: f64,
    /// Most entries made by one packet.
    most: usize,
}

impl Entered {
    /// None when no packet entered (or the routing has no escape network).
    fn of(histogram: &[u64]) -> Option<Entered> {
        let total: u64 = histogram.iter().sum();
        let most = histogram.iter().rposition(|&n| n > 0)?;
        if most == 0 {
            return None;
        }
        let from = |k: usize| histogram[k..].iter().sum::<u64>() as f64 / total as f64;
        Some(Entered {
            once: from(1),
            // most >= 1, so the histogram has at least two buckets.
            twice: from(2),
            most,
        })
    }

    /// "4.57 0.170 3": percentages, then the count.
    fn cell(&self) -> String {
        format!(
            "{:.2} {:.3} {}",
            100.0 * self.once,
            100.0 * self.twice,
            self.most
        )
    }
}

/// Header row of a panel × curve table: the curve labels over 18-character columns.
fn table_header(report: &mut String, spec: &Spec) -> std::fmt::Result {
    write!(report, "{:<16}", "panel")?;
    for c in &spec.curve {
        write!(report, " {:>18}", truncate(&c.label, 18))?;
    }
    writeln!(report)
}

#[cfg(test)]
mod tests {
    use super::{hop_share, Entered, Longest};
    use arcsim::RunResult;

    #[test]
    fn the_longest_path_keeps_the_seeds_range() {
        let run = |max| {
            let mut r = RunResult::default();
            r.hops.max = max;
            r
        };
        let l = Longest::of(&[run(19), run(27), run(22)]);
        assert_eq!((l.max, l.seeds_min), (27, 19));
        assert_eq!(l.cell(), "27 (19-27)");
        // Every seed alike, or a single seed: the number alone.
        assert_eq!(Longest::of(&[run(13), run(13)]).cell(), "13");
        assert_eq!(Longest::of(&[run(5)]).cell(), "5");
    }

    #[test]
    fn entries_are_summarised_from_the_histogram() {
        // 1,000 packets: 900 never entered, 80 once, 15 twice, 5 four times.
        let e = Entered::of(&[900, 80, 15, 0, 5]).expect("packets entered");
        assert_eq!((e.once, e.twice, e.most), (0.1, 0.02, 4));
        assert_eq!(e.cell(), "10.00 2.000 4");
        // Entered once at most: nobody twice.
        let e = Entered::of(&[90, 10]).unwrap();
        assert_eq!((e.once, e.twice, e.most), (0.1, 0.0, 1));
        // Nobody entered, or no escape network: no cell.
        assert_eq!(Entered::of(&[100]), None);
        assert_eq!(Entered::of(&[100, 0, 0]), None);
        assert_eq!(Entered::of(&[]), None);
    }

    #[test]
    fn hop_shares_keep_single_packets_in_the_tail() {
        // One packet of a 2,000-packet burst on 5,256 nodes.
        let f: f64 = hop_share(1, 10_512_000).parse().unwrap();
        assert!((f * 10_512_000.0 - 1.0).abs() < 1e-3, "{f}");
        assert_eq!(hop_share(0, 10), "0.0000e0");
        let half: f64 = hop_share(1, 2).parse().unwrap();
        assert_eq!(half, 0.5);
    }
}
