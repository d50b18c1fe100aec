//! `arcsim sweep`: offered-load sweeps, one curve per combination of `--vary` values, run in
//! parallel. Every point is an independent simulation with its own seed, and results are
//! collected in job order, so the output does not depend on the number of threads.

use crate::figure::store::Stored;
use crate::load::finish;
use crate::plot::{line_plot, Curve, PlotSpec, Point};
use crate::progress::Progress;
use anyhow::{bail, Context, Result};
use arcsim::stats::summary::Repeated;
use arcsim::{Config, RunResult};
use rayon::prelude::*;
use serde::Serialize;
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct SweepArgs {
    /// TOML configuration file (the embedded default when omitted).
    pub config: Option<PathBuf>,
    /// Offered loads START:STOP:STEP (inclusive), e.g. 0.05:0.5:0.05, or a comma-separated
    /// list of such ranges and single loads, e.g. 0.05:0.5:0.05,0.7,0.9.
    #[arg(long, value_name = "START:STOP:STEP")]
    pub load: String,
    /// One curve per value: --vary routing.algorithm=min,val,val-any (repeatable; curves
    /// are the cartesian product).
    #[arg(long, value_name = "KEY=V1,V2,...")]
    pub vary: Vec<String>,
    /// Override a configuration key for every point (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Output directory.
    #[arg(long, default_value = "results/sweep")]
    pub out: PathBuf,
    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Plot title.
    #[arg(long)]
    pub title: Option<String>,
    /// Run every simulation again instead of reusing those stored in OUT/runs/ with the
    /// same configuration (an interrupted sweep run again resumes from them).
    #[arg(long)]
    pub fresh: bool,
    /// Run nothing now: write DIR/sweep.sbatch, a Slurm job array of one task per point
    /// (`arcsim sweep-task DIR ID`, storing its simulations in DIR/runs/), for
    /// `sbatch DIR/sweep.sbatch`; then `arcsim collect DIR` writes the sweep's outputs to DIR.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["out", "fresh", "threads"])]
    pub slurm: Option<PathBuf>,
    /// With --slurm: one more `#SBATCH` line in the script, e.g. --sbatch=--time=02:00:00 or
    /// --sbatch="--partition=long" (repeatable).
    #[arg(
        long,
        value_name = "OPTION",
        requires = "slurm",
        allow_hyphen_values = true
    )]
    pub sbatch: Vec<String>,
}

/// One point of a sweep in the JSON output (its offered load is `result.offered_load`).
pub struct SweepPoint {
    pub curve: String,
    /// The `--vary` keys and this curve's values, in `--vary` order (one column each in
    /// sweep.csv; an object in sweep.json); empty without `--vary` and in figures.
    pub varied: Vec<(String, String)>,
    /// What this point sets beyond the sweep's configuration: its `--vary` values and its
    /// load, as `KEY=VALUE`.
    pub overrides: Vec<String>,
    /// The settings that most often explain a difference between results.
    pub settings: Settings,
    /// Why the point has no result: one of its simulations failed (a deadlock, a burst not
    /// consumed in time); `result` then holds no run, only the offered load.
    pub failure: Option<String>,
    /// What a reader should not take at face value in its runs
    /// (`arcsim::stats::sanity::warnings`, as `arcsim run` reports them).
    pub warnings: Vec<String>,
    pub result: Repeated,
}

/// The settings of a point that sweep.csv shows beside its measurements (the complete
/// configuration is in sweep.json and config.toml).
#[derive(Serialize, Clone, Debug)]
pub struct Settings {
    pub routing: &'static str,
    pub seed: u64,
    pub warmup_cycles: u64,
    pub measure_cycles: u64,
    pub packet_length: u32,
    pub buffer_injection: u32,
    pub buffer_local: u32,
    pub buffer_global: u32,
    /// VCs in use (0 in the configuration: what the routing needs).
    pub vcs_local: usize,
    pub vcs_global: usize,
    pub vcs_injection: usize,
    pub local_latency: u32,
    pub global_latency: u32,
}

impl Settings {
    pub fn of(cfg: &Config) -> Settings {
        let auto = arcsim::routing::default_vcs(cfg.routing.algorithm);
        let (r, t, sim) = (&cfg.router, &cfg.topology, &cfg.simulation);
        Settings {
            routing: cfg.routing.algorithm.name(),
            seed: sim.seed,
            warmup_cycles: sim.warmup_cycles,
            measure_cycles: sim.measure_cycles,
            packet_length: r.packet_length,
            buffer_injection: r.buffer_injection,
            buffer_local: r.buffer_local,
            buffer_global: r.buffer_global,
            vcs_local: arcsim::engine::effective_vcs(r.vcs_local, auto.local),
            vcs_global: arcsim::engine::effective_vcs(r.vcs_global, auto.global),
            vcs_injection: r.vcs_injection,
            local_latency: t.local_latency,
            global_latency: t.global_latency,
        }
    }

    const COLUMNS: [&'static str; 13] = [
        "routing",
        "seed",
        "warmup_cycles",
        "measure_cycles",
        "packet_length",
        "buffer_injection",
        "buffer_local",
        "buffer_global",
        "vcs_local",
        "vcs_global",
        "vcs_injection",
        "local_latency",
        "global_latency",
    ];

    fn cells(&self) -> Vec<String> {
        vec![
            self.routing.to_string(),
            self.seed.to_string(),
            self.warmup_cycles.to_string(),
            self.measure_cycles.to_string(),
            self.packet_length.to_string(),
            self.buffer_injection.to_string(),
            self.buffer_local.to_string(),
            self.buffer_global.to_string(),
            self.vcs_local.to_string(),
            self.vcs_global.to_string(),
            self.vcs_injection.to_string(),
            self.local_latency.to_string(),
            self.global_latency.to_string(),
        ]
    }
}

/// What sweep.json records beside its points: how the sweep was made.
pub struct SweepMeta {
    /// The command line's `--set` overrides (applied to every point).
    pub set: Vec<String>,
    /// The `--vary` lists.
    pub vary: Vec<String>,
    /// The complete configuration every point starts from (before its overrides).
    pub config: serde_json::Value,
}

impl Serialize for SweepPoint {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Done<'a> {
            curve: &'a str,
            #[serde(skip_serializing_if = "no_pairs", serialize_with = "pairs_as_map")]
            varied: &'a [(String, String)],
            overrides: &'a [String],
            settings: &'a Settings,
            #[serde(skip_serializing_if = "<[String]>::is_empty")]
            warnings: &'a [String],
            #[serde(flatten)]
            result: &'a Repeated,
        }
        /// A failed point has no measurement to show, not zeros.
        #[derive(Serialize)]
        struct Failed<'a> {
            curve: &'a str,
            #[serde(skip_serializing_if = "no_pairs", serialize_with = "pairs_as_map")]
            varied: &'a [(String, String)],
            overrides: &'a [String],
            settings: &'a Settings,
            offered_load: f64,
            failed: bool,
            failure: &'a str,
        }
        match &self.failure {
            None => Done {
                curve: &self.curve,
                varied: &self.varied,
                overrides: &self.overrides,
                settings: &self.settings,
                warnings: &self.warnings,
                result: &self.result,
            }
            .serialize(s),
            Some(f) => Failed {
                curve: &self.curve,
                varied: &self.varied,
                overrides: &self.overrides,
                settings: &self.settings,
                offered_load: self.result.offered_load,
                failed: true,
                failure: f,
            }
            .serialize(s),
        }
    }
}

fn no_pairs(pairs: &&[(String, String)]) -> bool {
    pairs.is_empty()
}

/// `[(k, v), ...]` as a JSON object `{k: v, ...}` in the same order.
fn pairs_as_map<S: serde::Serializer>(
    pairs: &&[(String, String)],
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut m = s.serialize_map(Some(pairs.len()))?;
    for (k, v) in pairs.iter() {
        m.serialize_entry(k, v)?;
    }
    m.end()
}

/// The (key, value) pairs of a curve's `KEY=VALUE` assignments.
pub fn varied_pairs(sets: &[String]) -> Vec<(String, String)> {
    sets.iter()
        .filter_map(|s| s.split_once('='))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect()
}

/// Parse a load list: comma-separated single loads and `START:STOP:STEP` ranges (inclusive,
/// tolerant to rounding), e.g. `0.05:0.5:0.05,0.7,0.9`; sorted, each load once.
pub fn parse_loads(spec: &str) -> Result<Vec<f64>> {
    let mut loads = Vec::new();
    for item in spec.split(',') {
        let item = item.trim();
        if item.is_empty() {
            bail!("--load {spec}: an empty item between commas; give START:STOP:STEP ranges or single loads, e.g. 0.05:0.5:0.05,0.7,0.9");
        }
        loads.extend(parse_load_item(spec, item)?);
    }
    loads.sort_by(f64::total_cmp);
    loads.dedup();
    if loads.len() > 1000 {
        bail!(
            "--load {spec}: {} points is too many (at most 1000)",
            loads.len()
        );
    }
    Ok(loads)
}

/// One item of a load list: a single load, or START:STOP:STEP.
fn parse_load_item(spec: &str, item: &str) -> Result<Vec<f64>> {
    let parts: Vec<&str> = item.split(':').collect();
    let num = |s: &str, what: &str| -> Result<f64> {
        s.trim()
            .parse::<f64>()
            .with_context(|| format!("--load {spec}: {what} '{s}' is not a number"))
    };
    // Loads are rounded to 1e-9 (so that 0.1 + 2 * 0.1 prints as 0.3): a load must survive it.
    let round = |x: f64| (x * 1e9).round() / 1e9;
    if parts.len() == 1 {
        let load = num(parts[0], "load")?;
        if !(load > 0.0 && load <= 1.0) {
            bail!("--load {spec}: load {item} must satisfy 0 < load <= 1 (phits/(node·cycle))");
        }
        if round(load) <= 0.0 {
            bail!("--load {spec}: load {item} rounds to 0 at the 1e-9 resolution of --load: use at least 1e-9");
        }
        return Ok(vec![round(load)]);
    }
    if parts.len() != 3 {
        bail!("--load {spec}: expected START:STOP:STEP or a single load (a comma-separated list of either), e.g. 0.05:0.5:0.05");
    }
    let (start, stop, step) = (
        num(parts[0], "START")?,
        num(parts[1], "STOP")?,
        num(parts[2], "STEP")?,
    );
    if !(step > 0.0 && step.is_finite()) {
        bail!("--load {spec}: STEP must be a positive number");
    }
    if !(start > 0.0 && stop <= 1.0 && start <= stop) {
        bail!("--load {spec}: loads must satisfy 0 < START <= STOP <= 1 (phits/(node·cycle))");
    }
    if round(start) <= 0.0 {
        bail!(
            "--load {spec}: START {} rounds to 0 at the 1e-9 resolution of --load: use at least 1e-9",
            parts[0].trim()
        );
    }
    // Counted in floating point: a tiny STEP gives more points than a usize holds.
    let n = ((stop - start) / step + 1e-9).floor() + 1.0;
    if n > 1000.0 {
        let count = if n < 1e6 {
            n.to_string()
        } else {
            "over a million".to_string()
        };
        bail!("--load {spec}: {count} points is too many (at most 1000): use a larger STEP");
    }
    Ok((0..n as usize)
        .map(|i| round(start + i as f64 * step))
        .collect())
}

/// `values` split at the commas that separate values: not those inside a TOML array, inline
/// table or string, so that `["a"],["a","b"]` is two values.
fn split_top_level(values: &str) -> Result<Vec<&str>> {
    let (mut parts, mut depth, mut start) = (Vec::new(), 0i32, 0);
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in values.char_indices() {
        match quote {
            // Basic strings ("...") have escapes, literal strings ('...') do not.
            Some(q) => {
                if escaped {
                    escaped = false;
                } else if c == '\\' && q == '"' {
                    escaped = true;
                } else if c == q {
                    quote = None;
                }
            }
            None => match c {
                '"' | '\'' => quote = Some(c),
                '[' | '{' => depth += 1,
                ']' | '}' => {
                    depth -= 1;
                    if depth < 0 {
                        bail!("unbalanced '{c}' in {values}");
                    }
                }
                ',' if depth == 0 => {
                    parts.push(&values[start..i]);
                    start = i + 1;
                }
                _ => {}
            },
        }
    }
    if depth != 0 || quote.is_some() {
        bail!("unclosed bracket, brace or quote in {values}");
    }
    parts.push(&values[start..]);
    Ok(parts)
}

/// Curves: the cartesian product of the `--vary KEY=V1,V2` lists, as (label, assignments).
pub fn parse_curves(vary: &[String]) -> Result<Vec<(String, Vec<String>)>> {
    let mut curves: Vec<(Vec<String>, Vec<String>)> = vec![(Vec::new(), Vec::new())];
    let mut keys: Vec<&str> = Vec::new();
    for v in vary {
        let (key, values) = v.split_once('=').with_context(|| {
            format!("--vary {v}: expected KEY=V1,V2,... e.g. routing.algorithm=min,val")
        })?;
        let key = key.trim();
        if key == "traffic.load" {
            // The sweep sets traffic.load last, from --load: these curves would all be equal.
            bail!("--vary {v}: the sweep sets traffic.load from --load START:STOP:STEP; vary another key");
        }
        if keys.contains(&key) {
            bail!("--vary {v}: {key} is already varied; give all its values in one --vary");
        }
        keys.push(key);
        let values: Vec<&str> = split_top_level(values)
            .with_context(|| format!("--vary {v}"))?
            .into_iter()
            .map(str::trim)
            .collect();
        if values.iter().all(|s| s.is_empty()) {
            bail!("--vary {v}: give at least one value");
        }
        // As --load: a stray comma is a mistake, not a value to skip.
        if values.iter().any(|s| s.is_empty()) {
            bail!("--vary {v}: an empty value between commas (or a trailing comma); give V1,V2,... e.g. routing.algorithm=min,val");
        }
        for (i, val) in values.iter().enumerate() {
            if values[..i].contains(val) {
                bail!("--vary {v}: {val} is listed twice (the two curves would be the same)");
            }
        }
        let mut next = Vec::new();
        for (labels, sets) in &curves {
            for val in &values {
                // The values only: "min, UN" reads in a legend where
                // "routing.algorithm=min, traffic.pattern=uniform" is cut; the keys head
                // sweep.csv's columns.
                let mut l = labels.clone();
                l.push(val.to_string());
                let mut s = sets.clone();
                s.push(format!("{key}={val}"));
                next.push((l, s));
            }
        }
        curves = next;
    }
    Ok(curves
        .into_iter()
        .map(|(l, s)| {
            (
                if l.is_empty() {
                    "default".to_string()
                } else {
                    l.join(", ")
                },
                s,
            )
        })
        .collect())
}

/// Most worker threads `--threads` accepts: far more than any machine's cores, and few
/// enough that starting them is quick.
const MAX_THREADS: usize = 1024;

/// How many of `jobs` fit in memory at once: the limit ([`arcsim::memory::limit`])
/// over the largest estimate; None when no limit is known.
fn fit_in_memory(jobs: &[Config]) -> Option<usize> {
    let need = jobs.iter().map(arcsim::memory::estimate).max()?;
    let limit = arcsim::memory::limit(jobs.first()?)?;
    Some((limit / need.max(1)) as usize)
}

/// Run independent simulations on `threads` workers (None or 0: one per core) with a
/// progress bar (or, in a log, a line a minute); results come back in job order, whatever
/// the number of threads. `done(index, outcome)` is called as each simulation finishes (from a worker
/// thread, in completion order), e.g. to save it at once. After a Ctrl-C
/// ([`crate::interrupt`]) the running simulations stop and the others do not start: their
/// outcome is [`arcsim::SimError::Interrupted`], and `done` is not called for them.
pub fn run_jobs_with(
    jobs: &[Config],
    threads: Option<usize>,
    done: impl Fn(usize, &Result<RunResult, arcsim::SimError>) + Sync,
) -> Result<Vec<Result<RunResult, arcsim::SimError>>> {
    if let Some(t) = threads {
        if t > MAX_THREADS {
            bail!("--threads {t}: at most {MAX_THREADS} (0 or none = one per core)");
        }
    }
    // No more threads than jobs (0 = rayon's default, one per core), and no more
    // simulations at once than fit in memory.
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let wanted = match threads.unwrap_or(0) {
        0 => cores,
        t => t,
    }
    .min(jobs.len());
    let threads = wanted.min(fit_in_memory(jobs).unwrap_or(usize::MAX)).max(1);
    if threads < wanted {
        eprintln!(
            "arcsim: running {threads} simulations at once, not {wanted}: each needs up to about {} and the limit is {} (simulation.memory_limit_mib; 0: the machine's memory)",
            arcsim::memory::human(jobs.iter().map(arcsim::memory::estimate).max().unwrap_or(0)),
            arcsim::memory::human(arcsim::memory::limit(&jobs[0]).unwrap_or(0)),
        );
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("starting worker threads")?;
    let progress = Progress::new(jobs.len());
    let results = pool.install(|| {
        jobs.par_iter()
            .enumerate()
            .map(|(i, c)| {
                if crate::interrupt::requested() {
                    return Err(arcsim::SimError::Interrupted { cycles: 0 });
                }
                let r = arcsim::run_with(c, &mut |_| !crate::interrupt::requested());
                if !matches!(r, Err(arcsim::SimError::Interrupted { .. })) {
                    done(i, &r);
                    progress.inc();
                    crate::interrupt::finished_one();
                }
                r
            })
            .collect()
    });
    progress.finish();
    Ok(results)
}

/// What a sweep is made of, as given: enough to plan it again elsewhere (a Slurm task,
/// `arcsim collect`, the Python package), with the configuration file's text kept.
#[derive(Serialize, serde::Deserialize, Clone, Debug, Default)]
pub struct SweepRequest {
    /// The configuration file's name (as errors cite it) and text; None: the embedded
    /// default.
    pub config: Option<(String, String)>,
    /// `--load`.
    pub load: String,
    /// `--vary`.
    #[serde(default)]
    pub vary: Vec<String>,
    /// `--set`.
    #[serde(default)]
    pub set: Vec<String>,
    /// `--title`.
    #[serde(default)]
    pub title: Option<String>,
}

/// One point of a planned sweep: a curve at a load, run as `reps` simulations (seeds)
/// `jobs[first_job..first_job + reps]`.
pub struct PlannedPoint {
    pub label: String,
    /// The curve's `--vary` assignments.
    pub sets: Vec<String>,
    pub load: f64,
    pub first_job: usize,
    pub reps: usize,
}

/// A sweep planned and validated: every simulation's configuration, in job order.
pub struct SweepPlan {
    pub request: SweepRequest,
    tree: crate::load::Tree,
    /// One per simulation (each seed of each point), in the order results come back.
    pub jobs: Vec<Config>,
    /// The jobs' configurations as the store of OUT/runs/ keys them.
    pub texts: Vec<String>,
    pub points: Vec<PlannedPoint>,
}

impl SweepPlan {
    /// Build and validate every configuration of the sweep, running nothing.
    pub fn new(request: SweepRequest) -> Result<SweepPlan> {
        let loads = parse_loads(&request.load)?;
        let curves = parse_curves(&request.vary)?;
        let tree = crate::load::tree_of(
            request
                .config
                .as_ref()
                .map(|(name, text)| (name.as_str(), text.as_str())),
        )?;
        let mut jobs: Vec<Config> = Vec::new();
        let mut points = Vec::new();
        for (label, sets) in curves.iter() {
            for load in loads.iter() {
                let mut all = request.set.clone();
                all.extend(sets.iter().cloned());
                all.push(format!("traffic.load={load}"));
                let cfg = finish(tree.clone(), &all)?;
                // Repetitions of each point: a --vary may change them per curve.
                let reps = cfg.simulation.repetitions as usize;
                points.push(PlannedPoint {
                    label: label.clone(),
                    sets: sets.clone(),
                    load: *load,
                    first_job: jobs.len(),
                    reps,
                });
                for k in 0..reps {
                    let mut c = cfg.clone();
                    c.simulation.seed = cfg.simulation.seed.wrapping_add(k as u64);
                    c.simulation.repetitions = 1;
                    jobs.push(c);
                }
            }
        }
        let texts: Vec<String> = jobs
            .iter()
            .map(|c| c.to_toml_string())
            .collect::<std::result::Result<_, _>>()?;
        Ok(SweepPlan {
            request,
            tree,
            jobs,
            texts,
            points,
        })
    }

    /// Warn (on stderr) about keys no simulation reads, and print the configuration's notes.
    pub fn warn(&self) {
        // Keys the command line names, by --set or --vary, get warnings of their own.
        // --load names traffic.load.
        let named: Vec<String> = self
            .request
            .set
            .iter()
            .chain(&self.request.vary)
            .cloned()
            .chain(std::iter::once("traffic.load=".to_string()))
            .collect();
        crate::load::warn_unused_keys(&self.jobs, &named, true);
        crate::load::print_advisories(&self.jobs);
    }

    /// The points, from the outcomes of every job (in job order); warnings of their runs are
    /// printed on stderr as `arcsim sweep` prints them.
    pub fn assemble(&self, results: Vec<Stored>) -> Vec<SweepPoint> {
        let mut iter = results.into_iter();
        let mut points = Vec::new();
        for pp in &self.points {
            let (n, start, load) = (pp.reps, pp.first_job, pp.load);
            let mut overrides = pp.sets.clone();
            overrides.push(format!("traffic.load={load}"));
            let mut runs = Vec::with_capacity(n);
            let mut failures = Vec::new();
            let mut warnings: Vec<String> = Vec::new();
            for k in 0..n {
                match iter.next().expect("one result per job") {
                    Ok(r) => {
                        // What a reader should not take at face value, as `run` says it.
                        for w in arcsim::stats::sanity::warnings(&self.jobs[start + k], &r) {
                            let w = if n > 1 {
                                format!("seed {}: {w}", r.seed)
                            } else {
                                w
                            };
                            if !warnings.contains(&w) {
                                warnings.push(w);
                            }
                        }
                        runs.push(r)
                    }
                    Err(e) if n > 1 => failures.push(format!("seed {} of {n}: {e}", k + 1)),
                    Err(e) => failures.push(e),
                }
            }
            let failure = (!failures.is_empty()).then(|| failures.join("; "));
            let result = match failure {
                None => Repeated::of(runs),
                // No run to take the offered load from.
                Some(_) => Repeated {
                    offered_load: load,
                    ..Repeated::of(Vec::new())
                },
            };
            for w in &warnings {
                eprintln!("arcsim: warning: {} at load {load}: {w}", pp.label);
            }
            points.push(SweepPoint {
                curve: pp.label.clone(),
                varied: varied_pairs(&pp.sets),
                overrides,
                settings: Settings::of(&self.jobs[start]),
                failure,
                warnings,
                result,
            });
        }
        points
    }

    /// The configuration every point starts from: the file and --set (each point's --vary
    /// values and load are its `overrides`).
    pub fn base(&self) -> Result<Config> {
        let mut base_tree = self.tree.clone();
        for set in &self.request.set {
            arcsim::config::apply_override(&mut base_tree.value, set)?;
        }
        Ok(Config::from_value(base_tree.value).unwrap_or_else(|_| self.jobs[0].clone()))
    }

    /// What sweep.json records beside its points.
    pub fn meta(&self) -> Result<SweepMeta> {
        Ok(SweepMeta {
            set: self.request.set.clone(),
            vary: self.request.vary.clone(),
            config: self.base()?.to_complete_json(),
        })
    }

    /// The outcomes of point `i`'s simulations: those stored in `runs` by this build, the
    /// others run now and stored (as `arcsim sweep` does for every point).
    pub fn simulate_point(
        &self,
        i: usize,
        runs: &Path,
        threads: Option<usize>,
    ) -> Result<Vec<Stored>> {
        let pp = &self.points[i];
        let range = pp.first_job..pp.first_job + pp.reps;
        let binary = crate::figure::store::binary_id().unwrap_or_default();
        crate::figure::store::simulate(
            &self.jobs[range.clone()],
            &self.texts[range],
            runs,
            &binary,
            false,
            threads,
            false,
        )
    }

    /// Write config.toml, sweep.csv, sweep.json, the plots and report.html to `out`.
    pub fn write(&self, out: &Path, points: &[SweepPoint]) -> Result<()> {
        let base = self.base()?;
        crate::output::write(
            &out.join("config.toml"),
            crate::provenance::config_file(&base)?.as_bytes(),
        )?;
        write_outputs(out, points, self.request.title.as_deref(), &self.meta()?)?;
        crate::html::write_sweep(out, self.request.title.as_deref(), points, &base)
    }

    /// Write config.toml, sweep.csv, sweep.json and the plots to `out`, print the table, and
    /// end with [`EXIT_SOME_FAILED`] when some point failed.
    pub fn finish(&self, out: &Path, points: &[SweepPoint]) -> Result<()> {
        self.write(out, points)?;
        print_table(points);
        println!(
            "wrote {}/sweep.csv, sweep.json, config.toml, report.html, latency.{{svg,pdf,png}}, throughput.{{svg,pdf,png}}, links.{{svg,pdf,png}}",
            out.display()
        );
        let failed: Vec<String> = points
            .iter()
            .filter_map(|p| {
                p.failure
                    .as_ref()
                    .map(|f| format!("{} at load {}: {f}", p.curve, p.result.offered_load))
            })
            .collect();
        if !failed.is_empty() {
            return Err(anyhow::Error::new(crate::interrupt::Exit {
                code: EXIT_SOME_FAILED,
                message: format!(
                    "{} of {} points failed (recorded in sweep.csv and sweep.json, every other point written): {}",
                    failed.len(),
                    points.len(),
                    failed.join("; ")
                ),
            }));
        }
        Ok(())
    }
}

/// The request of `arcsim sweep`'s command line (the configuration file read now).
pub fn request_of(args: &SweepArgs) -> Result<SweepRequest> {
    Ok(SweepRequest {
        config: crate::load::read_source(args.config.as_deref())?,
        load: args.load.clone(),
        vary: args.vary.clone(),
        set: args.set.clone(),
        title: args.title.clone(),
    })
}

pub fn sweep_command(args: &SweepArgs) -> Result<()> {
    if let Some(t) = args.threads {
        if t > MAX_THREADS {
            bail!("--threads {t}: at most {MAX_THREADS} (0 or none = one per core)");
        }
    }
    // Build and validate every configuration before running anything.
    let plan = SweepPlan::new(request_of(args)?)?;
    plan.warn();
    if let Some(dir) = &args.slurm {
        return crate::slurm::write_array(&plan, dir, &args.sbatch);
    }
    // Before the simulations, so that a bad --out does not waste them.
    crate::output::check_writable(&args.out)?;
    // Each simulation is stored in OUT/runs/ as it finishes (as a figure's are): an
    // interrupted sweep run again resumes, and a failed one is recorded, not fatal.
    let runs = args.out.join("runs");
    let binary = crate::figure::store::binary_id().unwrap_or_default();
    let results = crate::figure::store::simulate(
        &plan.jobs,
        &plan.texts,
        &runs,
        &binary,
        args.fresh,
        args.threads,
        false,
    )?;
    let points = plan.assemble(results);
    plan.finish(&args.out, &points)
}

/// Exit status of a sweep some of whose points failed (every output still written).
pub const EXIT_SOME_FAILED: u8 = 3;

fn print_table(points: &[SweepPoint]) {
    // With several seeds per point, the 95% confidence half-widths follow the means.
    let ci = points.iter().any(|p| p.result.repetitions > 1);
    let w = if ci { 17 } else { 10 };
    // As wide as the longest curve name, so that the columns stay aligned.
    let cw = points
        .iter()
        .map(|p| p.curve.chars().count())
        .max()
        .unwrap_or(0)
        .max(5);
    println!(
        "{:<cw$} {:>8} {:>w$} {:>w$} {:>8} {:>9}",
        "curve",
        "offered",
        if ci { "accepted ±95%" } else { "accepted" },
        if ci { "latency ±95%" } else { "latency" },
        "hops",
        "misroute"
    );
    for p in points {
        let r = &p.result;
        if let Some(f) = &p.failure {
            println!("{:<24} {:>8.3} failed: {f}", p.curve, r.offered_load);
            continue;
        }
        let (acc, lat) = if ci {
            (
                format!("{:.4} ±{:.4}", r.accepted_load.mean, r.accepted_load.ci95),
                r.latency_mean.as_ref().map_or_else(
                    || crate::show::MISSING.to_string(),
                    |e| format!("{:.1} ±{:.1}", e.mean, e.ci95),
                ),
            )
        } else {
            (
                format!("{:.4}", r.accepted_load.mean),
                crate::show::opt(r.latency_mean.as_ref().map(|e| e.mean), 1),
            )
        };
        println!(
            "{:<cw$} {:>8.3} {acc:>w$} {lat:>w$} {:>8} {:>8}%",
            p.curve,
            r.offered_load,
            crate::show::opt(r.hops_mean.as_ref().map(|e| e.mean), 2),
            crate::show::opt(r.misrouted_fraction.as_ref().map(|e| 100.0 * e.mean), 1)
        );
    }
}

pub fn write_outputs(
    out: &Path,
    points: &[SweepPoint],
    title: Option<&str>,
    meta: &SweepMeta,
) -> Result<()> {
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let csv_path = out.join("sweep.csv");
    crate::output::write(&csv_path, &sweep_csv(points, meta)?)
        .with_context(|| format!("writing {}", csv_path.display()))?;
    let json_path = out.join("sweep.json");
    crate::output::write(&json_path, sweep_json(points, meta)?.as_bytes())?;
    plot_sweep(out, points, title)
}

/// sweep.csv's contents: one row per point.
pub fn sweep_csv(points: &[SweepPoint], meta: &SweepMeta) -> Result<Vec<u8>> {
    let mut w = csv::Writer::from_writer(Vec::new());
    // One column per --vary key, before the curve's name (the same keys for every point).
    let keys: Vec<&str> = points
        .first()
        .map(|p| p.varied.iter().map(|(k, _)| k.as_str()).collect())
        .unwrap_or_default();
    let header = [
        "curve",
        "offered_load",
        "accepted_load",
        "accepted_ci95",
        "latency_mean",
        "latency_ci95",
        "latency_p99",
        "network_latency_mean",
        "hops_mean",
        "misrouted_fraction",
        "escape_entered_fraction",
        "local_link_mean",
        "local_link_max",
        "global_link_mean",
        "global_link_max",
        "injection_occupancy",
        "local_occupancy",
        "global_occupancy",
        "escape_occupancy",
        "burst_consumption_cycles",
        "generated",
        "delivered",
        "in_flight",
        "repetitions",
        "wall_seconds",
        "failure",
    ];
    // The point's settings and overrides follow (the last column: --set, then the point's
    // own, separated by "; ").
    let mut header: Vec<&str> = keys.iter().copied().chain(header).collect();
    let failure_col = header.len() - 1;
    header.extend(Settings::COLUMNS);
    header.push("overrides");
    w.write_record(&header)?;
    let provenance = |p: &SweepPoint| -> Vec<String> {
        let mut cells = p.settings.cells();
        cells.push(
            meta.set
                .iter()
                .chain(&p.overrides)
                .cloned()
                .collect::<Vec<_>>()
                .join("; "),
        );
        cells
    };
    for p in points {
        let r = &p.result;
        let varied = p.varied.iter().map(|(_, v)| v.clone());
        if let Some(f) = &p.failure {
            // No measurement: empty cells, not zeros.
            let mut row: Vec<String> = varied.collect();
            row.push(p.curve.clone());
            row.push(format!("{}", r.offered_load));
            row.resize(failure_col, String::new());
            row.push(f.clone());
            row.extend(provenance(p));
            w.write_record(&row)?;
            continue;
        }
        let sum = |f: &dyn Fn(&RunResult) -> u64| r.runs.iter().map(f).sum::<u64>().to_string();
        let opt = |e: &Option<arcsim::stats::summary::Estimate>, prec: usize| {
            crate::show::opt(e.as_ref().map(|e| e.mean), prec)
        };
        let opt_ci = |e: &Option<arcsim::stats::summary::Estimate>, prec: usize| {
            crate::show::opt(e.as_ref().map(|e| e.ci95), prec)
        };
        // Means over the seeds.
        let mean = |f: &dyn Fn(&RunResult) -> f64| {
            format!(
                "{:.6}",
                r.runs.iter().map(f).sum::<f64>() / r.runs.len().max(1) as f64
            )
        };
        let mut row: Vec<String> = varied
            .chain([
                p.curve.clone(),
                format!("{}", p.result.offered_load),
                format!("{:.6}", r.accepted_load.mean),
                format!("{:.6}", r.accepted_load.ci95),
                opt(&r.latency_mean, 3),
                opt_ci(&r.latency_mean, 3),
                opt(&r.latency_p99, 3),
                opt(&r.network_latency_mean, 3),
                opt(&r.hops_mean, 4),
                opt(&r.misrouted_fraction, 6),
                // Missing ("-") when a seed delivered no packet in its window.
                crate::show::opt(
                    arcsim::stats::summary::Estimate::of_present(
                        &r.runs
                            .iter()
                            .map(|x| x.escape.entered_fraction)
                            .collect::<Vec<_>>(),
                    )
                    .map(|e| e.mean),
                    6,
                ),
                mean(&|x| x.links.local.mean),
                mean(&|x| x.links.local.max),
                mean(&|x| x.links.global.mean),
                mean(&|x| x.links.global.max),
                mean(&|x| x.buffers.occupancy.injection),
                mean(&|x| x.buffers.occupancy.local),
                mean(&|x| x.buffers.occupancy.global),
                mean(&|x| x.buffers.occupancy.escape),
                r.burst_consumption_cycles
                    .as_ref()
                    .map(|e| format!("{:.1}", e.mean))
                    .unwrap_or_default(),
                sum(&|x| x.packets.generated),
                sum(&|x| x.packets.delivered),
                sum(&|x| x.packets.in_flight),
                r.repetitions.to_string(),
                format!("{:.3}", r.runs.iter().map(|x| x.wall_seconds).sum::<f64>()),
                String::new(),
            ])
            .collect();
        row.extend(provenance(p));
        w.write_record(&row)?;
    }
    w.into_inner().map_err(|e| anyhow::anyhow!("{}", e.error()))
}

/// sweep.json's contents: the build, how the sweep was made, and every point.
pub fn sweep_json(points: &[SweepPoint], meta: &SweepMeta) -> Result<String> {
    #[derive(Serialize)]
    struct SweepFile<'a> {
        arcsim: crate::provenance::Build,
        set: &'a [String],
        vary: &'a [String],
        config: &'a serde_json::Value,
        points: &'a [SweepPoint],
    }
    let file = SweepFile {
        arcsim: crate::provenance::BUILD,
        set: &meta.set,
        vary: &meta.vary,
        config: &meta.config,
        points,
    };
    Ok(serde_json::to_string_pretty(&file)?)
}

fn plot_sweep(out: &Path, points: &[SweepPoint], title: Option<&str>) -> Result<()> {
    // A failed point has nothing to draw.
    let done: Vec<&SweepPoint> = points.iter().filter(|p| p.failure.is_none()).collect();
    let mut labels: Vec<&str> = Vec::new();
    for p in points {
        if !labels.contains(&p.curve.as_str()) {
            labels.push(&p.curve);
        }
    }
    let curves = |f: &dyn Fn(&SweepPoint) -> Option<Point>| -> Vec<Curve> {
        labels
            .iter()
            .map(|l| Curve {
                label: l.to_string(),
                points: done
                    .iter()
                    .filter(|p| p.curve == *l)
                    .filter_map(|p| f(p))
                    .collect(),
            })
            .collect()
    };
    let t = title.unwrap_or("arcsim sweep");
    line_plot(
        &out.join("throughput"),
        &PlotSpec {
            title: &format!("{t}: accepted vs offered load"),
            x_label: "offered load (phits/(node·cycle))",
            y_label: "accepted load (phits/(node·cycle))",
            log_y: false,
        },
        &curves(&|p| {
            Some(Point {
                x: p.result.offered_load,
                y: p.result.accepted_load.mean,
                ci: Some(p.result.accepted_load.ci95),
            })
        }),
    )?;
    line_plot(
        &out.join("latency"),
        &PlotSpec {
            title: &format!("{t}: latency below saturation"),
            x_label: "offered load (phits/(node·cycle))",
            y_label: "mean packet latency (cycles)",
            log_y: false,
        },
        &latency_curves(curves(&|p| {
            below_saturation(p).then(|| latency_point(p)).flatten()
        })),
    )?;
    // The busiest global link: where a routing that cannot spread its load saturates.
    line_plot(
        &out.join("links"),
        &PlotSpec::linear(
            &format!("{t}: busiest global link"),
            "offered load (phits/(node·cycle))",
            "phits sent per cycle",
        ),
        &curves(&|p| {
            let max: Vec<f64> = p.result.runs.iter().map(|r| r.links.global.max).collect();
            let e = arcsim::stats::summary::Estimate::of(&max);
            (p.result.runs.iter().all(|r| r.links.global.links > 0)).then_some(Point {
                x: p.result.offered_load,
                y: e.mean,
                ci: Some(e.ci95),
            })
        }),
    )?;
    Ok(())
}

/// Latency is drawn up to saturation (accepted within 5% of offered), as in the papers:
/// past it the latency only measures how long the run was.
fn below_saturation(p: &SweepPoint) -> bool {
    p.result.accepted_load.mean >= 0.95 * p.result.offered_load
}

fn latency_point(p: &SweepPoint) -> Option<Point> {
    let e = p.result.latency_mean.as_ref()?;
    Some(Point {
        x: p.result.offered_load,
        y: e.mean,
        ci: Some(e.ci95),
    })
}

/// A curve saturated at every load has no point on the latency plot; its legend entry says
/// so, rather than naming a curve the reader then looks for in vain (MIN under ADVG+h).
fn latency_curves(mut curves: Vec<Curve>) -> Vec<Curve> {
    for c in &mut curves {
        if c.points.is_empty() {
            c.label.push_str(" (saturated at every load)");
        }
    }
    curves
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_curve_saturated_at_every_load_says_so_in_the_latency_legend() {
        let point = |x: f64| Point {
            x,
            y: 200.0,
            ci: None,
        };
        let curves = latency_curves(vec![
            Curve {
                label: "MIN".into(),
                points: vec![],
            },
            Curve {
                label: "OFAR".into(),
                points: vec![point(0.1), point(0.2)],
            },
        ]);
        assert_eq!(curves[0].label, "MIN (saturated at every load)");
        assert!(curves[0].points.is_empty());
        assert_eq!(curves[1].label, "OFAR");
        assert_eq!(curves[1].points.len(), 2);
    }

    #[test]
    fn loads_are_inclusive_and_rounded() {
        assert_eq!(parse_loads("0.1:0.3:0.1").unwrap(), vec![0.1, 0.2, 0.3]);
        assert!(parse_loads("0:0.5:0.1").is_err());
        assert!(parse_loads("0.1:1.5:0.1").is_err());
        assert!(parse_loads("0.1:0.5").is_err());
    }

    #[test]
    fn odd_load_specs_fail_with_a_message() {
        let err = |spec: &str| parse_loads(spec).unwrap_err().to_string();
        // An infinite STEP made the only load NaN; a tiny one wrapped the point count to an
        // empty sweep; a tiny START was rounded to a load of 0.
        assert!(err("0.1:0.2:inf").contains("STEP must be a positive number"));
        assert!(err("0.1:0.2:nan").contains("STEP must be a positive number"));
        assert!(err("0.1:0.2:-0.1").contains("STEP must be a positive number"));
        assert!(err("0.1:0.2:1e-300").contains("over a million points is too many"));
        assert!(err("0.1:0.2:0.0001").contains("1001 points is too many"));
        assert!(err("1e-300:1e-300:1").contains("START 1e-300 rounds to 0"));
        assert!(err("0.5:0.1:0.1").contains("START <= STOP"));
        assert!(err("nan:0.2:0.1").contains("0 < START"));
        assert!(err("a:b:c").contains("START 'a' is not a number"));
        assert_eq!(parse_loads("0.3:0.3:5").unwrap(), vec![0.3]);
        assert_eq!(parse_loads("1e-9:1e-9:1").unwrap(), vec![1e-9]);
        assert!(err("0.1,,0.2").contains("an empty item between commas"));
        assert!(err("0.1,1.5").contains("load 1.5 must satisfy 0 < load <= 1"));
        assert!(err("0.1,nan").contains("load nan must satisfy"));
        assert!(err("0.1,x").contains("load 'x' is not a number"));
        assert!(err("0.1:0.5").contains("expected START:STOP:STEP or a single load"));
        assert!(err("0.001:1:0.001,0.0005").contains("1001 points is too many"));
    }

    #[test]
    fn load_lists_are_sorted_without_repeats() {
        assert_eq!(
            parse_loads("0.05:0.2:0.05, 0.7,0.9,0.1").unwrap(),
            vec![0.05, 0.1, 0.15, 0.2, 0.7, 0.9]
        );
        assert_eq!(parse_loads("0.5").unwrap(), vec![0.5]);
        assert_eq!(parse_loads("0.3,0.1:0.3:0.1").unwrap(), vec![0.1, 0.2, 0.3]);
    }

    #[test]
    fn curves_that_would_be_ignored_or_repeated_are_rejected() {
        let err = |vary: &[&str]| {
            let v: Vec<String> = vary.iter().map(|s| s.to_string()).collect();
            parse_curves(&v).unwrap_err().to_string()
        };
        // The sweep overwrites traffic.load: such curves used to be silently identical.
        assert!(err(&["traffic.load=0.5,0.9"]).contains("sets traffic.load from --load"));
        assert!(err(&[" traffic.load =0.5"]).contains("sets traffic.load from --load"));
        assert!(err(&["topology.h=1,1"]).contains("1 is listed twice"));
        assert!(err(&["topology.h=1", "topology.h=2"]).contains("topology.h is already varied"));
        assert!(err(&["topology.h=,,"]).contains("at least one value"));
        // A trailing or doubled comma is rejected, as --load rejects it.
        assert!(err(&["topology.h=1,2,"]).contains("an empty value between commas"));
        assert!(err(&["topology.h=1,,2"]).contains("an empty value between commas"));
    }

    #[test]
    fn curves_are_a_cartesian_product() {
        let c = parse_curves(&[
            "routing.algorithm=min,val".into(),
            "traffic.offset=1,6".into(),
        ])
        .unwrap();
        assert_eq!(c.len(), 4);
        assert_eq!(
            c[1].1,
            vec![
                "routing.algorithm=min".to_string(),
                "traffic.offset=6".to_string()
            ]
        );
        assert_eq!(parse_curves(&[]).unwrap()[0].0, "default");
        // Legends from the values only, which a legend does not cut.
        let labels: Vec<&str> = c.iter().map(|(l, _)| l.as_str()).collect();
        assert_eq!(labels, ["min, 1", "min, 6", "val, 1", "val, 6"]);
        assert_eq!(
            varied_pairs(&c[1].1),
            [
                ("routing.algorithm".to_string(), "min".to_string()),
                ("traffic.offset".to_string(), "6".to_string())
            ]
        );
    }

    /// Arrays, inline tables and strings keep their commas: one curve each.
    #[test]
    fn varied_values_may_be_arrays_and_tables() {
        let labels = |v: &str| -> Vec<String> {
            parse_curves(&[v.to_string()])
                .unwrap()
                .into_iter()
                .map(|(label, _)| label)
                .collect()
        };
        assert_eq!(
            labels(r#"routing.rings=["a"], ["b"], ["a", "b"]"#),
            [r#"["a"]"#, r#"["b"]"#, r#"["a", "b"]"#]
        );
        assert_eq!(
            labels(r#"routing.misroute_congested_global={factor=1.5, packets=0},false"#),
            ["{factor=1.5, packets=0}", "false"]
        );
        assert_eq!(
            labels(r#"x.y="a,b",'c,d',"e\",f""#),
            [r#""a,b""#, "'c,d'", r#""e\",f""#]
        );
        let err = |v: &str| format!("{:#}", parse_curves(&[v.to_string()]).unwrap_err());
        assert!(err(r#"routing.rings=["a","#).contains("unclosed"));
        assert!(err("routing.rings=a],b").contains("unbalanced ']'"));
    }
}
