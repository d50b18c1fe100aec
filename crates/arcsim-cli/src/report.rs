//! `arcsim run`: one simulation, a printed summary, result.json and plots.

use crate::load::load;
use crate::plot::{bar_plot, grouped_bar_plot, line_plot, Bar, BarSeries, Curve, PlotSpec, Point};
use crate::show;
use anyhow::Result;
use arcsim::stats::summary::Occupancy;
use arcsim::stats::summary::Repeated;
use arcsim::stats::SeriesPoint;
use arcsim::RunResult;
use serde::Serialize;
use std::fmt::Write as _;
use std::path::Path;

/// result.json: the run with `simulation.seed`, plus the aggregate when repeated.
#[derive(Serialize)]
struct RunFile<'a> {
    #[serde(flatten)]
    run: &'a RunResult,
    #[serde(skip_serializing_if = "Option::is_none")]
    repeated: Option<RepeatedSummary<'a>>,
    /// The build that ran it.
    arcsim: crate::provenance::Build,
    /// The complete configuration (every key), as config.toml.
    config: serde_json::Value,
    /// What a reader should not take at face value (`arcsim::stats::sanity::warnings`).
    warnings: &'a [String],
}

#[derive(Serialize)]
struct RepeatedSummary<'a> {
    repetitions: usize,
    accepted_load: &'a arcsim::stats::summary::Estimate,
    latency_mean: &'a Option<arcsim::stats::summary::Estimate>,
    latency_p99: &'a Option<arcsim::stats::summary::Estimate>,
    network_latency_mean: &'a Option<arcsim::stats::summary::Estimate>,
    hops_mean: &'a Option<arcsim::stats::summary::Estimate>,
    misrouted_fraction: &'a Option<arcsim::stats::summary::Estimate>,
    burst_consumption_cycles: &'a Option<arcsim::stats::summary::Estimate>,
}

/// A run's simulations and what is known of them, before anything is written.
pub struct RunOutcome {
    /// The configuration as run (with the time series a run always gets).
    pub cfg: arcsim::Config,
    pub rep: Repeated,
    /// The traced events of the first seed (`--trace`).
    pub records: Vec<arcsim::engine::TraceRecord>,
    /// Every seed's warnings, each once (`arcsim::stats::sanity::warnings`).
    pub warnings: Vec<String>,
}

pub fn run_command(
    config: Option<&Path>,
    sets: &[String],
    out: &Path,
    trace: &[String],
) -> Result<()> {
    let cfg = load(config, sets)?;
    let nodes = arcsim::topology::Dragonfly::new(&cfg.topology).num_nodes();
    let trace = crate::trace::parse(trace, nodes)?;
    let o = simulate(cfg, sets, &trace, Some(out))?;
    if !trace.is_empty() {
        crate::trace::write_csv(&o.records, &out.join("trace.csv"))?;
        eprintln!(
            "arcsim: traced {} events in {}",
            o.records.len(),
            out.join("trace.csv").display()
        );
    }
    let first = &o.rep.runs[0];
    print!("{}", summary_text(first));
    if let Some(line) = seeds_line(&o.rep) {
        println!("{line}");
    }
    for w in &o.warnings {
        eprintln!("arcsim: warning: {w}");
    }
    let path = write_run(&o, out)?;
    let mut ports = if first.ports.is_empty() {
        ""
    } else {
        ", ports.csv"
    }
    .to_string();
    if first.ports.iter().any(|p| !p.series.is_empty()) {
        ports += ", ports_series.csv";
    }
    if first
        .qcn
        .as_ref()
        .is_some_and(|q| q.probabilities.is_some())
    {
        ports += ", qcn_probabilities.csv";
    }
    println!(
        "wrote {}, report.html, series.csv{ports}, config.toml and plots series.{{svg,pdf,png}}, series_throughput.{{svg,pdf,png}}, queues.{{svg,pdf,png}}, hops.{{svg,pdf,png}}, links.{{svg,pdf,png}}",
        path.display()
    );
    Ok(())
}

/// Run `cfg` (its `simulation.repetitions` seeds) as `arcsim run` does: warnings about unused
/// keys (`sets`: the overrides given) and the configuration's notes on stderr, a time series
/// always. `out`, where the outputs will go, is checked first, so that a bad folder does not
/// waste the simulation. Writes nothing.
pub fn simulate(
    mut cfg: arcsim::Config,
    sets: &[String],
    trace: &arcsim::TraceSpec,
    out: Option<&Path>,
) -> Result<RunOutcome> {
    crate::load::warn_unused_keys([&cfg], sets, true);
    crate::load::print_advisories([&cfg]);
    // A run always gets a time series so the plot shows warm-up and steady state.
    if cfg.simulation.series_window == 0 {
        let total = cfg.simulation.warmup_cycles + cfg.simulation.measure_cycles;
        cfg.simulation.series_window = (total / 60).max(10);
    }
    let workload = if cfg.traffic.burst_packets > 0 {
        let pace = match cfg.traffic.burst_generation {
            arcsim::config::BurstGeneration::Fill => String::new(),
            arcsim::config::BurstGeneration::Load => {
                format!(" generated at load {}", show::load(cfg.traffic.load))
            }
        };
        format!("burst of {} packets/node{pace}", cfg.traffic.burst_packets)
    } else {
        format!(
            "load {} | {} + {} cycles",
            show::load(cfg.traffic.load),
            cfg.simulation.warmup_cycles,
            cfg.simulation.measure_cycles
        )
    };
    eprintln!(
        "arcsim: {} | routing {} | {} | seed {}{}",
        arcsim::topology::describe(&cfg.topology),
        if cfg.routing.paths.is_shortest() {
            cfg.routing.algorithm.name()
        } else {
            cfg.routing.paths.name()
        },
        workload,
        cfg.simulation.seed,
        if cfg.simulation.repetitions > 1 {
            format!(" (x{} seeds)", cfg.simulation.repetitions)
        } else {
            String::new()
        }
    );
    // Before the simulation, so that a bad --out does not waste it.
    if let Some(out) = out {
        crate::output::check_writable(out)?;
    }
    if !trace.is_empty() && cfg.uses_kernel() {
        anyhow::bail!(
            "--trace: tracing is not available on the general kernel (switch.kind = \"cioq\") yet"
        );
    }
    let (rep, records) = run_seeds(&cfg, out, trace)?;
    // Every seed's warnings, each said once.
    let mut warnings: Vec<String> = Vec::new();
    for r in &rep.runs {
        for w in arcsim::stats::sanity::warnings(&cfg, r) {
            let w = if rep.repetitions > 1 {
                format!("seed {}: {w}", r.seed)
            } else {
                w
            };
            if !warnings.contains(&w) {
                warnings.push(w);
            }
        }
    }
    Ok(RunOutcome {
        cfg,
        rep,
        records,
        warnings,
    })
}

/// result.json's contents: the first seed's run, the aggregate over seeds when repeated, the
/// build, the complete configuration and the warnings.
pub fn result_json(o: &RunOutcome) -> Result<String> {
    let file = RunFile {
        run: &o.rep.runs[0],
        repeated: (o.rep.repetitions > 1).then(|| summary_of(&o.rep)),
        arcsim: crate::provenance::BUILD,
        config: o.cfg.to_complete_json(),
        warnings: &o.warnings,
    };
    Ok(serde_json::to_string_pretty(&file)?)
}

/// The line on the spread over seeds, when the run has more than one.
fn seeds_line(rep: &Repeated) -> Option<String> {
    (rep.repetitions > 1).then(|| {
        format!(
            "over {} seeds: accepted {:.4} ± {:.4}, latency {} cycles (95% CI)",
            rep.repetitions,
            rep.accepted_load.mean,
            rep.accepted_load.ci95,
            rep.latency_mean.as_ref().map_or_else(
                || format!(
                    "{} (a seed delivered no packet in its window)",
                    show::MISSING
                ),
                |e| format!("{:.1} ± {:.1}", e.mean, e.ci95)
            )
        )
    })
}

/// What `arcsim run` prints about a run, and report.html shows: the summary, the spread
/// over seeds and the warnings.
pub fn run_summary(o: &RunOutcome) -> String {
    let mut summary = summary_text(&o.rep.runs[0]);
    if let Some(line) = seeds_line(&o.rep) {
        let _ = writeln!(summary, "{line}");
    }
    for w in &o.warnings {
        let _ = writeln!(summary, "warning: {w}");
    }
    summary
}

/// Write result.json, config.toml, series.csv and the plots of a run to `out`; returns
/// result.json's path.
pub fn write_run(o: &RunOutcome, out: &Path) -> Result<std::path::PathBuf> {
    let first = &o.rep.runs[0];
    let path = out.join("result.json");
    crate::output::write(&path, result_json(o)?.as_bytes())?;
    crate::output::write(
        &out.join("config.toml"),
        crate::provenance::config_file(&o.cfg)?.as_bytes(),
    )?;
    if let Some(s) = &first.series {
        write_series_csv(s, &out.join("series.csv"))?;
    }
    if !first.ports.is_empty() {
        write_ports_csv(first, &out.join("ports.csv"))?;
    }
    if first.ports.iter().any(|p| !p.series.is_empty()) {
        write_ports_series_csv(first, &out.join("ports_series.csv"))?;
    }
    if let Some(p) = first.qcn.as_ref().and_then(|q| q.probabilities.as_ref()) {
        write_probabilities_csv(p, &out.join("qcn_probabilities.csv"))?;
    }
    plot_run(first, o.cfg.router.packet_length, out)?;
    let config = crate::provenance::config_file(&o.cfg)?;
    crate::html::write(
        out,
        &crate::html::Report {
            title: &run_title(first, "run"),
            summary: &run_summary(o),
            configs: vec![("The complete configuration (config.toml)".into(), config)],
        },
    )?;
    Ok(path)
}

/// `cfg.simulation.repetitions` simulations with seeds seed, seed + 1, ... (as
/// [`arcsim::run_repeated`]), with a progress display; a Ctrl-C stops them and writes
/// nothing.
fn run_seeds(
    cfg: &arcsim::Config,
    out: Option<&Path>,
    trace: &arcsim::TraceSpec,
) -> Result<(Repeated, Vec<arcsim::engine::TraceRecord>)> {
    let reps = cfg.simulation.repetitions.max(1) as u64;
    let mut runs = Vec::with_capacity(reps as usize);
    let mut records = Vec::new();
    let mut progress = crate::progress::RunProgress::new();
    for k in 0..reps {
        let mut c = cfg.clone();
        c.simulation.seed = cfg.simulation.seed.wrapping_add(k);
        let mut tick = |t: arcsim::Tick| {
            progress.set((k as f64 + t.done) / reps as f64);
            !crate::interrupt::requested()
        };
        // The first seed is the one traced.
        let outcome = if k == 0 && !trace.is_empty() {
            arcsim::engine::run_traced_with(&c, trace, &mut tick).map(|(r, t)| {
                records = t;
                r
            })
        } else {
            arcsim::run_with(&c, &mut tick)
        };
        match outcome {
            Ok(r) => runs.push(r),
            Err(arcsim::SimError::Interrupted { cycles }) => {
                progress.finish();
                return Err(crate::interrupt::interrupted(format!(
                    "the simulation stopped after {cycles} cycles{}, before its end: nothing written{}",
                    if reps > 1 {
                        format!(" (seed {} of {reps})", k + 1)
                    } else {
                        String::new()
                    },
                    out.map(|o| format!(", {} left as it was", o.display())).unwrap_or_default()
                )));
            }
            Err(e) => {
                progress.finish();
                return Err(e.into());
            }
        }
    }
    progress.finish();
    Ok((Repeated::of(runs), records))
}

/// ports.csv (general kernel): one row per output port over the window: what it sent, and
/// the cycles it had data queued with credits (the root of a congestion tree) and waiting
/// without (a branch).
fn write_ports_csv(r: &arcsim::RunResult, path: &Path) -> Result<()> {
    crate::output::write_csv(path, |w| {
        w.write_record([
            "switch",
            "port",
            "class",
            "level",
            "peer",
            "packets",
            "phits",
            "queued_with_credits",
            "queued_without_credits",
        ])?;
        for p in &r.ports {
            w.write_record([
                p.switch.to_string(),
                p.port.to_string(),
                p.class.clone(),
                p.level.map_or(String::new(), |l| l.to_string()),
                p.peer.to_string(),
                p.packets.to_string(),
                p.phits.to_string(),
                p.queued_with_credits.to_string(),
                p.queued_without_credits.to_string(),
            ])?;
        }
        Ok(())
    })
}

/// ports_series.csv (general kernel, `simulation.port_series_window`): one row per output
/// port and window of that many cycles from cycle 0: what it sent, and the cycles it was a
/// root and a branch, so that a congestion tree can be followed as it forms and moves.
fn write_ports_series_csv(r: &arcsim::RunResult, path: &Path) -> Result<()> {
    crate::output::write_csv(path, |w| {
        w.write_record([
            "switch",
            "port",
            "class",
            "level",
            "peer",
            "window_start",
            "window_end",
            "phits",
            "queued_with_credits",
            "queued_without_credits",
        ])?;
        for p in &r.ports {
            for x in &p.series {
                w.write_record([
                    p.switch.to_string(),
                    p.port.to_string(),
                    p.class.clone(),
                    p.level.map_or(String::new(), |l| l.to_string()),
                    p.peer.to_string(),
                    x.start.to_string(),
                    x.end.to_string(),
                    x.phits.to_string(),
                    x.queued_with_credits.to_string(),
                    x.queued_without_credits.to_string(),
                ])?;
            }
        }
        Ok(())
    })
}

/// qcn_probabilities.csv (with `[qcn]`): one row per series window, its end cycle and the
/// minimal-routing probability (percent) of each traced transit port, a column per port
/// named `sSWITCH_pPORT`.
fn write_probabilities_csv(
    p: &arcsim::stats::summary::ProbabilitySeries,
    path: &Path,
) -> Result<()> {
    crate::output::write_csv(path, |w| {
        let mut header = vec!["cycle".to_string()];
        header.extend(p.ports.iter().map(|(s, port)| format!("s{s}_p{port}")));
        w.write_record(&header)?;
        for point in &p.points {
            let mut row = vec![point.cycle.to_string()];
            row.extend(point.values.iter().map(|v| v.to_string()));
            w.write_record(&row)?;
        }
        Ok(())
    })
}

/// series.csv: the time series, one row per window (result.json's `series.points`).
fn write_series_csv(s: &arcsim::stats::Series, path: &Path) -> Result<()> {
    crate::output::write_csv(path, |w| write_series_rows(s, w))
}

fn write_series_rows(s: &arcsim::stats::Series, w: &mut csv::Writer<Vec<u8>>) -> Result<()> {
    w.write_record([
        "cycle",
        "accepted_load",
        "generated_load",
        "latency_mean",
        "latency_samples",
        "misrouted_fraction",
        "escaped_fraction",
        "hops_mean",
        "in_flight",
        "buffered",
        "injection_occupancy",
        "local_occupancy",
        "global_occupancy",
        "escape_occupancy",
    ])?;
    for p in &s.points {
        let o = &p.occupancy;
        w.write_record([
            p.cycle.to_string(),
            format!("{:.6}", p.accepted_load),
            format!("{:.6}", p.generated_load),
            show::opt(p.latency_mean, 3),
            p.latency_samples.to_string(),
            show::opt(p.misrouted_fraction, 6),
            show::opt(p.escaped_fraction, 6),
            show::opt(p.hops_mean, 4),
            p.in_flight.to_string(),
            p.buffered.to_string(),
            format!("{:.6}", o.injection),
            format!("{:.6}", o.local),
            format!("{:.6}", o.global),
            format!("{:.6}", o.escape),
        ])?;
    }
    Ok(())
}

fn summary_of(rep: &Repeated) -> RepeatedSummary<'_> {
    RepeatedSummary {
        repetitions: rep.repetitions,
        accepted_load: &rep.accepted_load,
        latency_mean: &rep.latency_mean,
        latency_p99: &rep.latency_p99,
        network_latency_mean: &rep.network_latency_mean,
        hops_mean: &rep.hops_mean,
        misrouted_fraction: &rep.misrouted_fraction,
        burst_consumption_cycles: &rep.burst_consumption_cycles,
    }
}

/// The summary of a run that `arcsim run` prints and `report.html` shows.
pub fn summary_text(r: &RunResult) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "topology        {}", r.topology);
    let _ = writeln!(
        s,
        "routing         {}   pattern {}   seed {}",
        r.routing, r.pattern, r.seed
    );
    if let Some(b) = &r.burst {
        let _ = writeln!(
            s,
            "burst           {} packets/node consumed in {} cycles",
            b.packets_per_node, b.consumption_cycles
        );
        let mut f = b.finished_per_router.clone();
        f.sort_unstable();
        if let (Some(first), Some(last)) = (f.first(), f.last()) {
            let _ = writeln!(
                s,
                "routers done    first {}  median {}  90% {}  last {} cycles",
                first,
                f[(f.len() - 1) / 2],
                f[(f.len() * 9).div_ceil(10) - 1],
                last
            );
        }
    } else {
        let _ = writeln!(
            s,
            "load            offered {}  generated {:.4}  accepted {:.4}  phits/(node·cycle)",
            // Four decimals as the others, unless that would read 0.0000.
            if r.offered_load >= 1e-4 {
                format!("{:.4}", r.offered_load)
            } else {
                show::load(r.offered_load)
            },
            r.generated_load,
            r.accepted_load
        );
    }
    use show::opt;
    let _ = writeln!(
        s,
        "latency         mean {}  p50 {}  p99 {}  max {} cycles (network mean {})",
        opt(r.latency.mean, 1),
        opt(r.latency.p50, 0),
        opt(r.latency.p99, 0),
        opt(r.latency.max, 0),
        opt(r.network_latency.mean, 1)
    );
    let local = r.hops.mean.zip(r.hops.global_mean).map(|(m, g)| m - g);
    let _ = writeln!(
        s,
        "hops            mean {} (local {}, global {})  max {}   misrouted {}",
        opt(r.hops.mean, 3),
        opt(local, 3),
        opt(r.hops.global_mean, 3),
        r.hops.max,
        r.misrouted_fraction.map_or_else(
            || show::MISSING.to_string(),
            |f| format!("{:.1}%", 100.0 * f)
        )
    );
    let l = &r.links;
    if l.local.links + l.global.links > 0 {
        let _ = writeln!(
            s,
            "link use        local mean {:.3} max {:.3}; global mean {:.3} max {:.3}  phits/cycle",
            l.local.mean, l.local.max, l.global.mean, l.global.max
        );
    }
    if r.escape.entered_fraction.is_some_and(|f| f > 0.0) {
        let _ = writeln!(
        s,
            "escape network  entered by {}% of packets, {} entries and {} escape hops per packet, at most {} entries",
            opt(r.escape.entered_fraction.map(|f| 100.0 * f), 2),
            opt(r.escape.entries_mean, 3),
            opt(r.escape.hops_mean, 3),
            r.escape.entries_max
        );
    }
    if let Some((what, o)) = buffer_summary(r) {
        let escape = if o.escape > 0.0 {
            format!("  escape {:.1}%", 100.0 * o.escape)
        } else {
            String::new()
        };
        let _ = writeln!(
        s,
            "buffers         {what}: injection {:.1}%  local {:.1}%  global {:.1}%{escape} of their slots",
            100.0 * o.injection,
            100.0 * o.local,
            100.0 * o.global
        );
    }
    let _ = writeln!(
        s,
        "fairness        injected per router min {:.0} max {:.0} Jain {}; accepted per group Jain {}",
        r.per_router.injected.min,
        r.per_router.injected.max,
        opt(r.per_router.injected.jain, 4),
        opt(r.per_group.accepted.jain, 4)
    );
    let _ = writeln!(
        s,
        "packets         generated {}  delivered {}  in flight {}  refused at source {}",
        r.packets.generated, r.packets.delivered, r.packets.in_flight, r.packets.refused_at_source
    );
    if r.pauses > 0 {
        let _ = writeln!(
            s,
            "pauses          {} PAUSE frames sent, {} of them reached a node",
            r.pauses, r.pauses_at_nodes
        );
    }
    if let Some(c) = &r.control {
        let _ = writeln!(
            s,
            "control         {} sent, {} consumed, {} dropped; {} phits on links ({:.2}% of all)",
            c.sent,
            c.consumed,
            c.dropped,
            c.link_phits,
            100.0 * c.link_share
        );
    }
    if let Some(q) = &r.qcn {
        let _ = writeln!(
            s,
            "qcn             {}: {} samples, {} congested; CNMs {} sent ({} in the window), {} received, {} local; {} cuts, {} timer and {} feedback increases; {} ports below 100% (lowest {:.2}%)",
            q.variant,
            q.samples,
            q.congested_samples,
            q.cnms_sent,
            q.cnms_sent_in_window,
            q.cnms_received,
            q.local_reactions,
            q.decreases,
            q.timer_increases,
            q.feedback_increases,
            q.ports_below_100,
            q.min_probability
        );
    }
    if let Some(u) = &r.units {
        let time = |cycles: Option<f64>| {
            let Some(cycles) = cycles else {
                return show::MISSING.to_string();
            };
            let ns = cycles * u.cycle_ns;
            if ns >= 1e6 {
                format!("{:.3} ms", ns / 1e6)
            } else if ns >= 1e3 {
                format!("{:.3} us", ns / 1e3)
            } else {
                format!("{ns:.1} ns")
            }
        };
        let _ = writeln!(
        s,
            "in units        cycle {} ns, phit {} B: latency mean {} p99 {}; accepted {:.3} Gbps per node",
            u.cycle_ns,
            u.phit_bytes,
            time(r.latency.mean),
            time(r.latency.p99),
            r.accepted_load * u.link_gbps
        );
    }
    // The flows of collectives are summed up per collective below (result.json has each).
    let own = r
        .collectives
        .first()
        .map_or(r.flows.len(), |c| c.first_flow as usize);
    for (i, f) in r.flows.iter().enumerate().take(own) {
        let done = match f.completed {
            Some(c) => format!("  completed at cycle {c}"),
            None => String::new(),
        };
        let _ = writeln!(
            s,
            "flow {i:<10} {} -> {}  throughput {:.4} phits/cycle  {} messages{done}",
            f.src, f.dst, f.throughput, f.messages_delivered
        );
    }
    for (i, c) in r.collectives.iter().enumerate() {
        let time = match (c.completion_cycles, &r.units) {
            (Some(t), Some(u)) => format!(
                "completed in {t} cycles = {:.3} us",
                t as f64 * u.cycle_ns / 1e3
            ),
            (Some(t), None) => format!("completed in {t} cycles"),
            (None, _) => format!("did not complete (completion time {})", show::MISSING),
        };
        let _ = writeln!(
            s,
            "collective {i:<5} {}, {} ranks, {} phits, {} steps ({} flows from flow {}): {time}",
            c.name, c.ranks, c.size, c.steps, c.flow_count, c.first_flow
        );
    }
    let _ = writeln!(
        s,
        "speed           {} cycles in {:.2} s = {:.0} cycles/s, {:.2e} packet-hops/s",
        r.cycles, r.wall_seconds, r.cycles_per_second, r.packet_hops_per_second
    );
    s
}

/// How full the buffers were: the means over the measurement window (`RunResult::buffers`),
/// or in burst mode (which ends with empty buffers) each class's fullest sample of the time
/// series.
fn buffer_summary(r: &RunResult) -> Option<(&'static str, Occupancy)> {
    if r.burst.is_some() {
        let s = r.series.as_ref()?;
        let mut max = [0.0f64; 4];
        for p in &s.points {
            for (m, x) in max.iter_mut().zip(p.occupancy.to_array()) {
                *m = m.max(x);
            }
        }
        return Some(("at their fullest", Occupancy::from_array(max)));
    }
    (r.buffers.samples > 0).then_some(("mean over the window", r.buffers.occupancy))
}

fn plot_run(r: &RunResult, packet_length: u32, out: &Path) -> Result<()> {
    if let Some(s) = &r.series {
        // Each point at its window's first cycle, or (`at_end`) at its last, where the
        // buffers were sampled.
        let curve_at = |at_end: bool, label: &str, f: &dyn Fn(&SeriesPoint) -> f64| Curve {
            label: label.to_string(),
            points: s
                .points
                .iter()
                .map(|p| Point {
                    x: (p.cycle + if at_end { s.window_cycles } else { 0 }) as f64,
                    y: f(p),
                    ci: None,
                })
                .collect(),
        };
        let curve = |label: &str, f: &dyn Fn(&SeriesPoint) -> f64| curve_at(false, label, f);
        let end_curve = |label: &str, f: &dyn Fn(&SeriesPoint) -> f64| curve_at(true, label, f);
        line_plot(
            &out.join("series_throughput"),
            &PlotSpec::linear(
                &run_title(r, "load over time"),
                "cycle",
                "phits/(node·cycle)",
            ),
            &[
                curve("accepted", &|p| p.accepted_load),
                curve("generated", &|p| p.generated_load),
            ],
        )?;
        // How full each class of buffer is at the end of every window: where packets wait
        // as congestion builds (sources, network buffers, the escape subnetwork).
        let escape = s.points.iter().any(|p| p.occupancy.escape > 0.0);
        let mut queues = vec![
            end_curve("injection", &|p| 100.0 * p.occupancy.injection),
            end_curve("local", &|p| 100.0 * p.occupancy.local),
            end_curve("global", &|p| 100.0 * p.occupancy.global),
        ];
        if escape {
            queues.push(end_curve("escape", &|p| 100.0 * p.occupancy.escape));
        }
        line_plot(
            &out.join("queues"),
            &PlotSpec::linear(
                &run_title(r, "buffer occupancy"),
                "cycle (end of window)",
                "% of the class's packet slots",
            ),
            &queues,
        )?;
        let lat: Vec<_> = s
            .points
            .iter()
            // Not the last windows, whose packets are partly still in flight: their mean
            // would count only the fast ones.
            .filter(|p| p.mostly_delivered(r.nodes, s.window_cycles, packet_length))
            .filter_map(|p| {
                Some(Point {
                    x: p.cycle as f64,
                    y: p.latency_mean?,
                    ci: None,
                })
            })
            .collect();
        line_plot(
            &out.join("series"),
            &PlotSpec::linear(
                &run_title(r, "latency by generation window"),
                "generation cycle",
                "mean packet latency (cycles)",
            ),
            &[Curve {
                label: "latency".into(),
                points: lat,
            }],
        )?;
    }
    let bars: Vec<Bar> = r
        .hops
        .histogram
        .iter()
        .enumerate()
        .map(|(k, &n)| Bar {
            label: k.to_string(),
            value: n as f64,
        })
        .collect();
    bar_plot(
        &out.join("hops"),
        &PlotSpec::linear(
            &run_title(r, "hop count"),
            "router-to-router hops",
            "packets",
        ),
        &bars,
    )?;
    plot_link_use(r, out)
}

/// A plot's title: the routing, the pattern and what the plot shows.
fn run_title(r: &RunResult, what: &str) -> String {
    format!("{} {} — {what}", r.routing, r.pattern)
}

/// `links.{svg,pdf,png}`: the share of each class's links per tenth of utilisation, which shows
/// how evenly a routing spreads the load (MIN under ADVG+1: a few global links full, the rest
/// idle).
fn plot_link_use(r: &RunResult, out: &Path) -> Result<()> {
    let bins = arcsim::stats::summary::LINK_USE_BINS;
    let groups: Vec<String> = (0..bins)
        .map(|k| {
            format!(
                "{:.1}–{:.1}",
                k as f64 / bins as f64,
                (k + 1) as f64 / bins as f64
            )
        })
        .collect();
    let series: Vec<BarSeries> = [
        ("local links", &r.links.local),
        ("global links", &r.links.global),
    ]
    .into_iter()
    .filter(|(_, u)| u.links > 0)
    .map(|(label, u)| BarSeries {
        label: label.to_string(),
        values: u
            .histogram
            .iter()
            .map(|&n| 100.0 * n as f64 / u.links as f64)
            .collect(),
        errors: Vec::new(),
    })
    .collect();
    grouped_bar_plot(
        &out.join("links"),
        &PlotSpec::linear(
            &run_title(r, "link utilisation"),
            "phits sent per cycle",
            "% of the class's links",
        ),
        &groups,
        &series,
        None,
    )
}
