//! Figure specification files: their schema, the scale they run at, and the simulations they
//! expand to.

use crate::load::{finish, load_tree};
use crate::sweep::parse_loads;
use anyhow::{bail, Context, Result};
use arcsim::Config;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    Sweep,
    Burst,
    Transient,
    Injection,
    Flows,
    /// Completion time of `[[collectives]]` against message size (collective.rs).
    Collective,
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
    /// Offered loads (sweeps only): START:STOP:STEP, or a comma-separated list of such
    /// ranges and single loads.
    #[serde(default)]
    pub loads: Option<String>,
    /// Collective figures: message sizes with a unit ("1 B", "1 MiB").
    #[serde(default)]
    pub sizes: Vec<String>,
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
    /// The paper's statements, checked on the results (claims.rs).
    #[serde(default)]
    pub claim: Vec<super::claims::Claim>,
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
    /// The curves run at this scale, by label (default: every curve), for a variant that
    /// some curves cannot take (e.g. priority flow control, which PB refuses); claims that
    /// read a curve left out are not checked.
    #[serde(default)]
    pub curves: Option<Vec<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScalePanel {
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub set: Vec<String>,
    /// This panel's loads at this scale (sweeps only; replaces every other loads).
    #[serde(default)]
    pub loads: Option<String>,
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
    /// This panel's loads (sweeps only; replaces the spec's, not a scale's).
    #[serde(default)]
    pub loads: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CurveSpec {
    pub label: String,
    #[serde(default)]
    pub set: Vec<String>,
}

/// A spec resolved for one scale: panels with their final titles and overrides.
pub(super) struct Plan {
    pub spec: Spec,
    dir: PathBuf,
    pub scale_note: Option<String>,
    /// Offered loads of each panel (sweeps; empty for other kinds).
    pub loads: Vec<Vec<f64>>,
    /// (name, title) of every panel, the title at the chosen scale.
    pub panels: Vec<(String, String)>,
    /// The spec has no `[[panel]]`: one unnamed panel, titled by the figure alone.
    pub single: bool,
    /// Panels of the spec left out with `--panel` (their claims are not checked).
    pub omitted: Vec<String>,
    /// Curves of the spec left out by the scale's `curves` (their claims are not checked).
    pub omitted_curves: Vec<String>,
}

impl Plan {
    /// `--panel NAME ...`: keep only the named panels, in the spec's order. The claims were
    /// validated on the whole spec; those reading a panel left out are not checked.
    pub fn keep_panels(&mut self, names: &[String]) -> Result<()> {
        if names.is_empty() {
            return Ok(());
        }
        let all: Vec<&str> = self.panels.iter().map(|p| p.0.as_str()).collect();
        if self.single {
            bail!("--panel: this figure has no [[panel]] to choose from; leave out --panel");
        }
        for n in names {
            if !all.contains(&n.as_str()) {
                bail!(
                    "--panel: '{n}' is not a panel of this figure; its panels are: {}",
                    all.join(", ")
                );
            }
        }
        let keep: Vec<bool> = self.panels.iter().map(|p| names.contains(&p.0)).collect();
        self.omitted = self
            .panels
            .iter()
            .zip(&keep)
            .filter(|(_, &k)| !k)
            .map(|(p, _)| p.0.clone())
            .collect();
        // Loads are per panel for sweeps and empty otherwise.
        keep_flagged(&mut self.panels, &keep);
        keep_flagged(&mut self.spec.panel, &keep);
        keep_flagged(&mut self.loads, &keep);
        Ok(())
    }

    /// `[scale.NAME] curves = [...]`: keep only the named curves, in the spec's order. The
    /// claims were validated on the whole spec; those reading a curve left out are not
    /// checked.
    pub fn keep_curves(&mut self, names: &[String], scale: &str) -> Result<()> {
        let all: Vec<&str> = self.spec.curve.iter().map(|c| c.label.as_str()).collect();
        if names.is_empty() {
            bail!(
                "[scale.{scale}] curves is empty: name at least one of the curves ({}), or leave the key out to run them all",
                all.join(", ")
            );
        }
        for n in names {
            if !all.contains(&n.as_str()) {
                bail!(
                    "[scale.{scale}] curves: '{n}' is not a curve label; the curves are: {}",
                    all.join(", ")
                );
            }
        }
        if let Some(b) = &self.spec.baseline {
            if !names.contains(b) {
                bail!("[scale.{scale}] curves leaves out '{b}', the figure's baseline: keep it");
            }
        }
        self.omitted_curves = all
            .iter()
            .filter(|l| !names.iter().any(|n| n == *l))
            .map(|l| l.to_string())
            .collect();
        self.spec.curve.retain(|c| names.contains(&c.label));
        Ok(())
    }

    /// Title of a panel's plots.
    pub fn title(&self, panel_title: &str) -> String {
        if self.single {
            self.spec.title.clone()
        } else {
            format!("{}: {panel_title}", self.spec.title)
        }
    }

    /// Title of a panel's plot of something other than the figure's own measure (a burst
    /// figure's hop and escape-entry histograms): the figure's name (its title up to the first
    /// ": "), the panel's title, then `what`, so that "Fig. 8: burst consumption time" does
    /// not head a histogram of hops.
    pub fn title_of(&self, panel_title: &str, what: &str) -> String {
        let name = self
            .spec
            .title
            .split_once(": ")
            .map_or(self.spec.title.as_str(), |(name, _)| name);
        if self.single {
            format!("{name}: {what}")
        } else {
            format!("{name}, {panel_title}: {what}")
        }
    }
}

/// Keep the items whose flag is set (a vector with fewer items than flags keeps its own).
fn keep_flagged<T>(v: &mut Vec<T>, keep: &[bool]) {
    let mut k = keep.iter();
    v.retain(|_| k.next().copied().unwrap_or(false));
}

/// The TOML parser's report (a snippet of the file, then serde's message) with the message
/// explained as configuration errors are: TOML kinds, and the key or name probably meant.
fn explained(e: &toml::de::Error) -> String {
    let (full, message) = (e.to_string(), e.message().trim_end());
    match full.rfind(message) {
        Some(at) if !message.is_empty() => format!(
            "{}{}{}",
            &full[..at],
            arcsim::config::explain(message),
            &full[at + message.len()..]
        ),
        _ => full,
    }
}

/// Read and check a spec; `scale` picks one of its `[scale.*]` tables.
pub(super) fn plan(path: &Path, scale: Option<&str>) -> Result<Plan> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let mut spec: Spec = toml::from_str(&text)
        .map_err(|e| anyhow::anyhow!("{}", explained(&e)))
        .with_context(|| format!("figure spec {}", path.display()))?;
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
    let single = spec.panel.is_empty();
    if single {
        spec.panel.push(Panel {
            name: "all".into(),
            title: None,
            set: Vec::new(),
            loads: None,
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
    // The most specific loads win: the scale's panel, the scale, the panel, the spec.
    let parse = |l: &String, what: &str| {
        parse_loads(l).with_context(|| format!("{}: {what}", path.display()))
    };
    let mut loads = Vec::new();
    for p in &spec.panel {
        let scale_panel = chosen.and_then(|s| s.panel.get(&p.name));
        let (given, what) = if let Some(l) = scale_panel.and_then(|sp| sp.loads.as_ref()) {
            (
                Some(l),
                format!(
                    "[scale.{}.panel.{}] loads",
                    scale.unwrap_or_default(),
                    p.name
                ),
            )
        } else if let Some(l) = chosen.and_then(|s| s.loads.as_ref()) {
            (
                Some(l),
                format!("[scale.{}] loads", scale.unwrap_or_default()),
            )
        } else if let Some(l) = &p.loads {
            (Some(l), format!("panel {} loads", p.name))
        } else {
            (spec.loads.as_ref(), "loads".to_string())
        };
        match (spec.kind, given) {
            (Kind::Collective, None) => {
                loads.push(super::collective::sizes(&spec.sizes, path)?);
            }
            (Kind::Sweep, Some(l)) => loads.push(parse(l, &what)?),
            (Kind::Sweep, None) => bail!(
                "{}: a sweep figure needs loads = \"START:STOP:STEP\" (for the figure or for panel {})",
                path.display(),
                p.name
            ),
            (_, None) => {}
            (_, Some(_)) => bail!(
                "{}: {what} apply to sweep figures only; this one is {:?}",
                path.display(),
                spec.kind
            ),
        }
    }
    if spec.kind != Kind::Collective && !spec.sizes.is_empty() {
        bail!("{}: sizes apply to collective figures only", path.display());
    }
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
            (p.name.clone(), title)
        })
        .collect();
    let keep_curves = chosen.and_then(|s| s.curves.clone());
    let scale_note = chosen.map(|s| {
        format!(
            "scale {}: {}",
            scale.unwrap_or_default(),
            s.description.clone().unwrap_or_else(|| s.set.join(" "))
        )
    });
    let plan = Plan {
        spec,
        dir,
        scale_note,
        loads,
        panels,
        single,
        omitted: Vec::new(),
        omitted_curves: Vec::new(),
    };
    super::claims::validate(&plan, path)?;
    let mut plan = plan;
    if let Some(keep) = keep_curves {
        plan.keep_curves(&keep, scale.unwrap_or_default())
            .with_context(|| path.display().to_string())?;
    }
    Ok(plan)
}

/// One simulation of the figure.
pub(super) struct Job {
    pub panel: usize,
    pub curve: usize,
    /// Index into the panel's `Plan::loads` (sweeps), else 0.
    pub load: usize,
    pub cfg: Config,
}

impl Job {
    /// The job of curve `curve` in panel `panel` (its first load: kinds other than sweeps
    /// have one job per cell).
    pub(super) fn of(jobs: &[Job], panel: usize, curve: usize) -> &Job {
        jobs.iter()
            .find(|j| j.panel == panel && j.curve == curve)
            .expect("a cell has a job")
    }
}

/// Every simulation, in a fixed order, each configuration validated before anything runs.
pub(super) fn jobs(plan: &Plan, scale: Option<&str>, cli_sets: &[String]) -> Result<Vec<Job>> {
    let spec = &plan.spec;
    let base = plan.dir.join(&spec.config);
    let tree = load_tree(Some(&base))?;
    let chosen = scale.and_then(|s| spec.scale.get(s));
    let scale_sets: &[String] = chosen.map(|s| s.set.as_slice()).unwrap_or_default();
    let mut out = Vec::new();
    for (pi, (pname, _)) in plan.panels.iter().enumerate() {
        let loads: Vec<Option<f64>> = if matches!(spec.kind, Kind::Sweep | Kind::Collective) {
            plan.loads[pi].iter().copied().map(Some).collect()
        } else {
            vec![None]
        };
        let panel_sets = &spec.panel[pi].set;
        let scale_panel_sets: &[String] = chosen
            .and_then(|s| s.panel.get(pname))
            .map(|p| p.set.as_slice())
            .unwrap_or_default();
        for (ci, curve) in spec.curve.iter().enumerate() {
            for (li, load) in loads.iter().enumerate() {
                // Spec, panel, curve, scale (which may shrink what the others set), the
                // scale's panel overrides, then the command line.
                let mut sets = spec.set.clone();
                sets.extend(panel_sets.iter().cloned());
                sets.extend(curve.set.iter().cloned());
                sets.extend(scale_sets.iter().cloned());
                sets.extend(scale_panel_sets.iter().cloned());
                sets.extend(cli_sets.iter().cloned());
                if let (Some(l), Kind::Sweep) = (load, spec.kind) {
                    sets.push(format!("traffic.load={l}"));
                }
                // A file named in the spec (not on the command line) is read from the
                // spec's folder, as the base configuration's files are from its own.
                let load_set = matches!((load, spec.kind), (Some(_), Kind::Sweep)) as usize;
                let spec_sets = sets.len() - cli_sets.len() - load_set;
                for s in &mut sets[..spec_sets] {
                    *s = spec_relative(s, &plan.dir);
                }
                let mut cfg = finish(tree.clone(), &sets)
                    .with_context(|| format!("panel {pname}, curve {}", curve.label))?;
                if let (Some(bytes), Kind::Collective) = (load, spec.kind) {
                    super::collective::set_size(&mut cfg, *bytes)
                        .and_then(|()| Ok(arcsim::validate(&cfg)?))
                        .with_context(|| format!("panel {pname}, curve {}", curve.label))?;
                }
                if spec.kind == Kind::Burst && cfg.traffic.burst_packets == 0 {
                    // It would run at traffic.load for a fixed window and report a
                    // consumption time of NaN.
                    bail!(
                        "panel {pname}, curve {}: a burst figure (kind = \"burst\") needs burst mode, but traffic.burst_packets = 0 here: set traffic.burst_packets > 0 in the spec's configuration or `set` (or --set traffic.burst_packets=N), or use another kind",
                        curve.label
                    );
                }
                let reps = cfg.simulation.repetitions.max(1) as u64;
                for k in 0..reps {
                    let mut c = cfg.clone();
                    c.simulation.seed = cfg.simulation.seed.wrapping_add(k);
                    c.simulation.repetitions = 1;
                    if matches!(spec.kind, Kind::Transient | Kind::Flows)
                        && c.simulation.series_window == 0
                    {
                        bail!(
                            "panel {pname}, curve {}: a {} figure needs simulation.series_window > 0",
                            curve.label,
                            if spec.kind == Kind::Flows { "flows" } else { "transient" }
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

/// `KEY=PATH` with PATH made absolute from `dir` when KEY names a file (`routing.table`,
/// `topology.graph.file`, `nic.flow_file`) and PATH is relative and not empty.
fn spec_relative(set: &str, dir: &Path) -> String {
    const FILE_KEYS: [&str; 3] = ["routing.table", "topology.graph.file", "nic.flow_file"];
    match set.split_once('=') {
        Some((k, v))
            if FILE_KEYS.contains(&k.trim())
                && !v.trim().trim_matches('"').is_empty()
                && Path::new(v.trim().trim_matches('"')).is_relative() =>
        {
            let joined = dir.join(v.trim().trim_matches('"'));
            let abs = std::path::absolute(&joined).unwrap_or(joined);
            format!("{}={}", k.trim(), abs.display())
        }
        _ => set.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(title: &str, single: bool) -> Plan {
        let text = format!(
            "title = \"{title}\"\nkind = \"burst\"\nconfig = \"base.toml\"\n[[curve]]\nlabel = \"a\"\n"
        );
        Plan {
            spec: toml::from_str(&text).expect("a valid spec"),
            dir: PathBuf::new(),
            scale_note: None,
            loads: Vec::new(),
            panels: Vec::new(),
            single,
            omitted: Vec::new(),
            omitted_curves: Vec::new(),
        }
    }

    #[test]
    fn files_named_in_a_spec_are_read_from_its_folder() {
        let dir = Path::new("/specs");
        assert_eq!(
            spec_relative("routing.table=t.txt", dir),
            "routing.table=/specs/t.txt"
        );
        assert_eq!(spec_relative("routing.table=", dir), "routing.table=");
        assert_eq!(
            spec_relative("routing.table=/abs/t.txt", dir),
            "routing.table=/abs/t.txt"
        );
        assert_eq!(spec_relative("traffic.load=0.5", dir), "traffic.load=0.5");
    }

    /// A histogram's title names the figure and the panel, not the figure's own measure.
    #[test]
    fn plots_of_other_measures_keep_only_the_figure_name() {
        let p = plan("OFAR paper Fig. 8: burst consumption time, 3/2 VCs", false);
        assert_eq!(
            p.title("MIX2"),
            "OFAR paper Fig. 8: burst consumption time, 3/2 VCs: MIX2"
        );
        assert_eq!(
            p.title_of("MIX2", "hops per packet"),
            "OFAR paper Fig. 8, MIX2: hops per packet"
        );
        let single = plan("OFAR paper Fig. 13: hops", true);
        assert_eq!(
            single.title_of("", "escape-network entries per packet"),
            "OFAR paper Fig. 13: escape-network entries per packet"
        );
        // A title without ": " is the figure's name whole.
        assert_eq!(
            plan("bursts", false).title_of("UN", "hops per packet"),
            "bursts, UN: hops per packet"
        );
    }
}
