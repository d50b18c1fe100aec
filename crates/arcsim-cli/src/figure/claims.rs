//! The paper's claims: statements a figure spec makes checkable (`[[claim]]`), each checked
//! against the tables the figure wrote, so that a run says in so many words which of the
//! paper's conclusions it reproduces.
//!
//! A claim names one number of the figure (a curve's peak accepted load, its latency at a
//! load, its burst time relative to the baseline, ...) and one test of it: near a value,
//! at least or at most a value, above or below other curves, or the best of its panel.
//! Values may be written per global link (`"1/h"`), so that one claim serves every scale.
//! Claims are read from the CSV files in the output directory, the same ones a user reads;
//! `arcsim figure --claims-only` checks them again without simulating.

use super::spec::{Kind, Plan};
use anyhow::{bail, Context, Result};
use arcsim::stats::HOP_BUCKETS;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// One `[[claim]]` of a figure spec.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Claim {
    /// The paper's words, printed with the verdict.
    pub paper: String,
    /// The panel the number comes from (may be left out when the figure has one panel;
    /// must be left out for `mean-time`).
    #[serde(default)]
    pub panel: Option<String>,
    /// The curve whose number is tested.
    pub curve: String,
    pub metric: Metric,
    /// The offered load of `accepted` and `latency`; for `knee`, the load whose latency is
    /// the reference (default: the curve's lowest load).
    #[serde(default)]
    pub load: Option<f64>,
    /// Within `tolerance` (relative) of this value.
    #[serde(default)]
    pub near: Option<Value>,
    /// Within `tolerance` (relative) of the same number of this curve.
    #[serde(default)]
    pub near_curve: Option<String>,
    /// Relative tolerance of `near` and `near_curve` (default 0.1).
    #[serde(default)]
    pub tolerance: Option<f64>,
    #[serde(default)]
    pub at_least: Option<Value>,
    #[serde(default)]
    pub at_most: Option<Value>,
    /// Strictly above the same number of each of these curves.
    #[serde(default)]
    pub above: Vec<String>,
    /// Strictly below the same number of each of these curves.
    #[serde(default)]
    pub below: Vec<String>,
    /// The highest or the lowest of every curve of the panel.
    #[serde(default)]
    pub best: Option<Best>,
    /// The path length of `long-paths`: the share of packets whose path is this many hops or
    /// longer.
    #[serde(default)]
    pub hops: Option<u32>,
    /// The count of `many-entries`: the share of packets that entered the escape network
    /// this many times or more.
    #[serde(default)]
    pub entries: Option<u32>,
    /// Collective figures: the message size of `completion` and `reduction`, the smallest
    /// size `max-difference` considers ("1 MiB").
    #[serde(default)]
    pub size: Option<String>,
    /// Collective figures: the curve `reduction` and `max-difference` compare with.
    #[serde(default)]
    pub versus: Option<String>,
    /// Checked only on a network with this many global links per router (the paper's
    /// numbers that hold for its network alone, e.g. "about 0.36" at h = 6).
    #[serde(default)]
    pub h: Option<usize>,
    /// Flow figures: the flows (numbered from 0) whose shares `flow-share` sums, or among
    /// which `jain` and `variance` are taken (default: every flow that sent).
    #[serde(default)]
    pub flows: Vec<usize>,
    /// Flow figures: the interval, in cycles, whose whole series windows are averaged.
    /// Transients (`latency-after`): the windows that start in [`from`, `to`) cycles after
    /// the traffic change.
    #[serde(default)]
    pub from: Option<u64>,
    #[serde(default)]
    pub to: Option<u64>,
    /// Flow figures: output ports `[switch, port]` of `port-share`, `root-time` and
    /// `branch-time`.
    #[serde(default)]
    pub ports: Vec<[u32; 2]>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Metric {
    /// Sweeps: the highest accepted load of the curve.
    Peak,
    /// Sweeps: accepted load at `load`.
    Accepted,
    /// Sweeps: mean latency (cycles) at `load`.
    Latency,
    /// Sweeps: the lowest offered load whose mean latency is more than 1.3 times the
    /// latency at `load` (default: the curve's lowest load), where its latency "rises";
    /// infinite if none. Under adversarial traffic the lowest loads may need no misrouting
    /// at all, so their latency is a poor reference; `load = 0.1` then gives a better one.
    Knee,
    /// Sweeps: how far the accepted load at the highest offered load lies below the peak,
    /// as a fraction of the peak (0: no fall; a collapse is close to 1).
    Fall,
    /// Sweeps: the share of delivered packets that were misrouted (0 to 1) at `load`.
    Misrouted,
    /// Bursts: consumption time relative to the baseline curve, in the panel.
    Time,
    /// Bursts: consumption time relative to the baseline, averaged over the panels.
    MeanTime,
    /// Bursts: the longest path (hops, escape hops included) in the panel.
    MaxHops,
    /// Bursts: the mean path length (hops) in the panel.
    MeanHops,
    /// Bursts: the share of the packets (0 to 1) whose path (escape hops included) is
    /// `hops` hops or longer, from the panel's hop histogram: the tail the paper bounds
    /// ("more than 99.99% of the packets need less than 30 hops").
    LongPaths,
    /// Bursts: the share of the packets (0 to 1) that entered the escape network `entries`
    /// times or more, from the panel's escape-entries histogram (the OFAR paper §5.7: "the amount
    /// of packets with such a high number of injections is very low").
    ManyEntries,
    /// Transients: how much the mean latency of the windows after the traffic change exceeds
    /// that of the windows before it, as a fraction of the latter.
    ChangeRise,
    /// Transients: how far the share of misrouted packets falls, in the first half of the
    /// windows after the change, below its level in the second half (0: no adaptation
    /// period; a source-routed scheme that must first learn of the new congestion dips).
    MisrouteDip,
    /// Transients: how far the accepted load of the last quarter of the windows lies below
    /// the best window's, as a fraction of the latter (a collapse over time is close to 1).
    ThroughputFall,
    /// Transients: cycles from the change until the mean latency per window settles: the
    /// end of the last window after the change whose latency lies more than 10% from the
    /// mean of the second half of the windows after the change (0: the first window is
    /// already within 10%). The QCN-Switch paper's "response time".
    SettleTime,
    /// Transients: the mean latency (cycles) of the windows after the change, or of those
    /// that start in [`from`, `to`) cycles after it: a curve's latency under the new traffic,
    /// compared with another curve's by `below`/`above` (the QCN-Switch paper's "the latency
    /// of our proposal under adversarial is lower than Piggyback").
    LatencyAfter,
    /// Transients: the mean misrouted share of the windows before the change.
    MisroutedBefore,
    /// Transients: the misrouted share of the first window after the change.
    MisroutedFirst,
    /// Transients: the mean misrouted share of the last quarter of the windows after the
    /// change.
    MisroutedLast,
    /// Transients with QCN-Switch on a dragonfly: the mean minimal-routing probability
    /// (percent) of the port from the middle switch of group 0 towards the last switch of
    /// the group (S_out under ADV+1), over the windows after the change
    /// (`probability.csv`).
    ProbabilityAfter,
    /// Transients with QCN-Switch on a dragonfly: at the change (the end of the last window
    /// before it), the most ports of one switch of group 0 whose minimal probability (mean
    /// over the seeds) is below 100% (`probability_ports.csv`): the QCN-Switch paper's "only
    /// one rule on each switch ... needs updating" after ADV+1 to UN.
    ReducedPorts,
    /// Transients with QCN-Switch on a dragonfly: at the change, the ports of group 0 below
    /// 100% that do not lead towards S_out's global link (its `towards_sout` column): 0 when
    /// the rules reduced are those of the global link alone.
    ReducedOffRoute,
    /// Injection figures: packets injected by the routers of the spec's last group over
    /// those of its first (Fig. 12: G_root over G0).
    GroupRatio,
    /// Injection figures: the unfairness quotient of the spec's first group, the most
    /// packets injected by one of its routers over the fewest.
    Unfairness,
    /// Injection figures with QCN: the CNMs the last router of the spec's first group
    /// (S_out under ADV+1) received through its global ports during the measurement, as a
    /// share of all the CNMs the group's routers received (`cnms.csv`): the QCN-Switch
    /// paper's "SW11 does not receive a significant amount of congestion notification
    /// messages from the global link".
    SoutGlobalCnms,
    /// Flow figures: the mean share of a link of the flows `flows` (summed) over the
    /// windows in [`from`, `to`).
    FlowShare,
    /// Flow figures: Jain's index of the flows' mean shares over the interval.
    Jain,
    /// Flow figures: the variance of the flows' mean shares over the interval.
    Variance,
    /// Flow figures: the packets of the first of `ports` over those of all of them.
    PortShare,
    /// Flow figures: the share of the measured cycles the port had data queued with
    /// credits (a congestion root).
    RootTime,
    /// Flow figures: the share of the measured cycles the port had data waiting without
    /// credits (a congestion branch).
    BranchTime,
    /// Collectives: completion time (µs with units, else cycles) at `size`.
    Completion,
    /// Collectives: (T_versus − T_curve) / T_versus at `size`: how much shorter the curve's
    /// completion time is than `versus`'s.
    Reduction,
    /// Collectives: the largest |T_curve − T_versus| / T_versus over the sizes (from
    /// `size` up, when given).
    MaxDifference,
}

/// A latency more than this many times the latency at the lowest load has "risen".
const KNEE_FACTOR: f64 = 1.3;

impl Metric {
    fn kind(self) -> Kind {
        match self {
            Metric::Peak
            | Metric::Accepted
            | Metric::Latency
            | Metric::Knee
            | Metric::Fall
            | Metric::Misrouted => Kind::Sweep,
            Metric::Time
            | Metric::MeanTime
            | Metric::MaxHops
            | Metric::MeanHops
            | Metric::LongPaths
            | Metric::ManyEntries => Kind::Burst,
            Metric::ChangeRise
            | Metric::MisrouteDip
            | Metric::ThroughputFall
            | Metric::SettleTime
            | Metric::LatencyAfter
            | Metric::MisroutedBefore
            | Metric::MisroutedFirst
            | Metric::MisroutedLast
            | Metric::ProbabilityAfter
            | Metric::ReducedPorts
            | Metric::ReducedOffRoute => Kind::Transient,
            Metric::GroupRatio | Metric::Unfairness | Metric::SoutGlobalCnms => Kind::Injection,
            Metric::FlowShare
            | Metric::Jain
            | Metric::Variance
            | Metric::PortShare
            | Metric::RootTime
            | Metric::BranchTime => Kind::Flows,
            Metric::Completion | Metric::Reduction | Metric::MaxDifference => Kind::Collective,
        }
    }

    /// The name a spec writes.
    fn name(self) -> &'static str {
        match self {
            Metric::Peak => "peak",
            Metric::Accepted => "accepted",
            Metric::Latency => "latency",
            Metric::Knee => "knee",
            Metric::Fall => "fall",
            Metric::Misrouted => "misrouted",
            Metric::Time => "time",
            Metric::MeanTime => "mean-time",
            Metric::MaxHops => "max-hops",
            Metric::MeanHops => "mean-hops",
            Metric::LongPaths => "long-paths",
            Metric::ManyEntries => "many-entries",
            Metric::ChangeRise => "change-rise",
            Metric::MisrouteDip => "misroute-dip",
            Metric::ThroughputFall => "throughput-fall",
            Metric::SettleTime => "settle-time",
            Metric::LatencyAfter => "latency-after",
            Metric::MisroutedBefore => "misrouted-before",
            Metric::MisroutedFirst => "misrouted-first",
            Metric::MisroutedLast => "misrouted-last",
            Metric::ProbabilityAfter => "probability-after",
            Metric::ReducedPorts => "reduced-ports",
            Metric::ReducedOffRoute => "reduced-off-route",
            Metric::GroupRatio => "group-ratio",
            Metric::Unfairness => "unfairness",
            Metric::SoutGlobalCnms => "sout-global-cnms",
            Metric::FlowShare => "flow-share",
            Metric::Jain => "jain",
            Metric::Variance => "variance",
            Metric::PortShare => "port-share",
            Metric::RootTime => "root-time",
            Metric::BranchTime => "branch-time",
            Metric::Completion => "completion",
            Metric::Reduction => "reduction",
            Metric::MaxDifference => "max-difference",
        }
    }

    pub(super) fn describe(self, c: &Claim) -> String {
        let (load, hops) = (c.load, c.hops);
        let at = load.map(|l| format!(" at load {l}")).unwrap_or_default();
        match self {
            Metric::Peak => "peak accepted load".into(),
            Metric::Accepted => format!("accepted load{at}"),
            Metric::Latency => format!("latency{at}"),
            Metric::Time => "burst time relative to the baseline".into(),
            Metric::MeanTime => "mean burst time relative to the baseline".into(),
            Metric::Knee => match load {
                Some(l) => format!(
                    "load where the latency rises (above {KNEE_FACTOR}x its value at load {l})"
                ),
                None => format!(
                    "load where the latency rises (above {KNEE_FACTOR}x its lowest-load value)"
                ),
            },
            Metric::Fall => "fall from the peak at the highest load".into(),
            Metric::Misrouted => format!("misrouted share{at}"),
            Metric::MaxHops => "longest path".into(),
            Metric::MeanHops => "mean path length".into(),
            Metric::LongPaths => format!(
                "share of packets with paths of {} hops or more",
                hops.unwrap_or(0)
            ),
            Metric::ManyEntries => format!(
                "share of packets that entered the escape network {} times or more",
                c.entries.unwrap_or(0)
            ),
            Metric::ChangeRise => "latency rise after the change".into(),
            Metric::MisrouteDip => "dip of the misrouted share after the change".into(),
            Metric::ThroughputFall => "fall of the accepted load from its best window".into(),
            Metric::SettleTime => "cycles until the latency settles after the change".into(),
            Metric::LatencyAfter => match (c.from, c.to) {
                (None, None) => "mean latency of the windows after the change".into(),
                (a, None) => format!(
                    "mean latency of the windows from {} cycles after the change",
                    a.unwrap_or(0)
                ),
                (a, Some(b)) => format!(
                    "mean latency of the windows {}-{b} cycles after the change",
                    a.unwrap_or(0)
                ),
            },
            Metric::MisroutedBefore => "misrouted share before the change".into(),
            Metric::MisroutedFirst => "misrouted share in the first window after the change".into(),
            Metric::MisroutedLast => {
                "misrouted share in the last quarter of the windows after the change".into()
            }
            Metric::ProbabilityAfter => {
                "mean minimal probability (%) of the port towards S_out after the change".into()
            }
            Metric::ReducedPorts => {
                "most ports of one switch of group 0 below 100% at the change".into()
            }
            Metric::ReducedOffRoute => {
                "ports of group 0 below 100% at the change not towards S_out's global link".into()
            }
            Metric::GroupRatio => "injected by the last group over the first".into(),
            Metric::Unfairness => {
                "most over fewest packets injected by a router of the first group".into()
            }
            Metric::SoutGlobalCnms => {
                "share of the first group's CNMs received by its last router (S_out) through a global port".into()
            }
            Metric::Completion => format!(
                "completion time at {}",
                c.size.as_deref().unwrap_or_default()
            ),
            Metric::Reduction => format!(
                "completion time below {}'s at {}",
                c.versus.as_deref().unwrap_or_default(),
                c.size.as_deref().unwrap_or_default()
            ),
            Metric::MaxDifference => format!(
                "largest difference from {}{}",
                c.versus.as_deref().unwrap_or_default(),
                c.size
                    .as_deref()
                    .map(|s| format!(" from {s} up"))
                    .unwrap_or_else(|| " over all sizes".into())
            ),
            _ => super::flows::describe(c),
        }
    }

    /// A number of this metric, as printed.
    fn show(self, x: f64) -> String {
        match self {
            _ if x.is_nan() => "none".into(),
            Metric::Knee if x.is_infinite() => "none (it never rises)".into(),
            Metric::SettleTime if x.is_infinite() => {
                "never within the run (its last windows' packets not delivered)".into()
            }
            _ if x.is_infinite() => "not consumed".into(),
            Metric::MaxHops
            | Metric::SettleTime
            | Metric::ReducedPorts
            | Metric::ReducedOffRoute => format!("{x:.0}"),
            Metric::Variance => format!("{x:.3e}"),
            // A tail share, often parts per million.
            Metric::LongPaths | Metric::ManyEntries if x != 0.0 && x.abs() < 1e-3 => {
                format!("{x:.3e}")
            }
            _ if x.abs() >= 100.0 => format!("{x:.1}"),
            _ => format!("{x:.4}"),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Best {
    Highest,
    Lowest,
}

/// A number, or a multiple of 1/h written `"1/h"`, `"0.5/h"`.
#[derive(Debug, Clone, Deserialize)]
#[serde(
    untagged,
    expecting = "expected a number or a multiple of 1/h such as \"1/h\" or \"0.5/h\""
)]
pub enum Value {
    Number(f64),
    PerH(String),
}

impl Value {
    /// The coefficient of 1/h, if the value is written that way.
    fn per_h(&self) -> Result<Option<f64>> {
        match self {
            Value::Number(_) => Ok(None),
            Value::PerH(s) => {
                let compact: String = s.chars().filter(|c| !c.is_whitespace()).collect();
                let c = compact
                    .strip_suffix("/h")
                    .and_then(|c| c.trim().parse::<f64>().ok())
                    .filter(|c| c.is_finite() && *c > 0.0);
                match c {
                    Some(c) => Ok(Some(c)),
                    None => {
                        bail!("'{s}' is neither a number nor a multiple of 1/h such as \"1/h\"")
                    }
                }
            }
        }
    }

    fn resolve(&self, h: usize) -> f64 {
        match (self, self.per_h()) {
            (Value::Number(x), _) => *x,
            (_, Ok(Some(c))) => c / h as f64,
            _ => f64::NAN, // rejected by `validate`
        }
    }

    fn show(&self, h: usize) -> String {
        match self {
            Value::Number(x) => format!("{x}"),
            Value::PerH(s) => format!("{s} = {:.4}", self.resolve(h)),
        }
    }
}

/// The test a claim applies, resolved from its fields.
enum Test<'a> {
    Near(&'a Value, f64),
    NearCurve(&'a str, f64),
    AtLeast(&'a Value),
    AtMost(&'a Value),
    Above(&'a [String]),
    Below(&'a [String]),
    Best(Best),
}

impl Claim {
    /// Every test the claim gives (`validate` requires exactly one).
    fn tests(&self) -> Vec<Test<'_>> {
        let tol = self.tolerance.unwrap_or(0.1);
        let mut t = Vec::new();
        t.extend(self.near.as_ref().map(|v| Test::Near(v, tol)));
        t.extend(self.near_curve.as_deref().map(|c| Test::NearCurve(c, tol)));
        t.extend(self.at_least.as_ref().map(Test::AtLeast));
        t.extend(self.at_most.as_ref().map(Test::AtMost));
        if !self.above.is_empty() {
            t.push(Test::Above(&self.above));
        }
        if !self.below.is_empty() {
            t.push(Test::Below(&self.below));
        }
        t.extend(self.best.map(Test::Best));
        t
    }

    /// The panel this claim reads (None for `mean-time`).
    fn panel_name<'a>(&'a self, plan: &'a Plan) -> Option<&'a str> {
        match (&self.panel, self.metric) {
            (_, Metric::MeanTime) => None,
            (Some(p), _) => Some(p),
            (None, _) => plan.panels.first().map(|p| p.0.as_str()),
        }
    }
}

/// Check the spec's claims before anything runs: every name they use exists, the metric
/// fits the figure's kind, and each claim has exactly one test.
pub(super) fn validate(plan: &Plan, path: &Path) -> Result<()> {
    let spec = &plan.spec;
    for (i, c) in spec.claim.iter().enumerate() {
        let what = || {
            format!(
                "{}: claim {} (\"{}\")",
                path.display(),
                i + 1,
                short(&c.paper)
            )
        };
        let known_curve = |name: &str, field: &str| -> Result<()> {
            if spec.curve.iter().any(|k| k.label == name) {
                Ok(())
            } else {
                let labels: Vec<&str> = spec.curve.iter().map(|k| k.label.as_str()).collect();
                bail!(
                    "{}: {field} '{name}' is not a curve label; the curves are: {}",
                    what(),
                    labels.join(", ")
                )
            }
        };
        if c.metric.kind() != spec.kind {
            bail!(
                "{}: metric {} applies to {} figures; this one is a {} figure (sweeps: peak, accepted, latency, knee, fall, misrouted; bursts: time, mean-time, max-hops, mean-hops, long-paths, many-entries; transients: change-rise, misroute-dip, throughput-fall, settle-time, latency-after, misrouted-before, misrouted-first, misrouted-last, probability-after, reduced-ports, reduced-off-route; injection: group-ratio, unfairness, sout-global-cnms; flows: flow-share, jain, variance, port-share, root-time, branch-time; collectives: completion, reduction, max-difference)",
                what(),
                c.metric.name(),
                kind_name(c.metric.kind()),
                kind_name(spec.kind)
            );
        }
        known_curve(&c.curve, "curve")?;
        match (&c.panel, c.metric) {
            (Some(_), Metric::MeanTime) => bail!(
                "{}: mean-time averages over every panel; leave out panel",
                what()
            ),
            (Some(p), _) if !plan.panels.iter().any(|q| &q.0 == p) => {
                let names: Vec<&str> = plan.panels.iter().map(|q| q.0.as_str()).collect();
                bail!(
                    "{}: panel '{p}' is not a panel name; the panels are: {}",
                    what(),
                    names.join(", ")
                )
            }
            (None, m) if m != Metric::MeanTime && plan.panels.len() > 1 => bail!(
                "{}: the figure has several panels; name one with panel = \"...\"",
                what()
            ),
            _ => {}
        }
        match (c.metric, c.load) {
            (Metric::Accepted | Metric::Latency | Metric::Misrouted, None) => {
                bail!(
                    "{}: metric {} needs load = OFFERED",
                    what(),
                    c.metric.name()
                )
            }
            (Metric::Accepted | Metric::Latency | Metric::Misrouted, Some(l))
                if !(l > 0.0 && l <= 1.0) =>
            {
                bail!("{}: load = {l} must be in (0, 1]", what())
            }
            (Metric::Accepted | Metric::Latency | Metric::Misrouted, Some(_)) => {}
            (Metric::Knee, Some(l)) if !(l > 0.0 && l <= 1.0) => {
                bail!("{}: load = {l} must be in (0, 1]", what())
            }
            (Metric::Knee, Some(_)) => {}
            (_, Some(_)) => bail!(
                "{}: load applies to the metrics accepted, latency, misrouted and knee only",
                what()
            ),
            (_, None) => {}
        }
        match (c.metric, c.hops) {
            (Metric::LongPaths, None) => bail!(
                "{}: metric long-paths needs hops = N (the share of packets with paths of N hops or more)",
                what()
            ),
            (Metric::LongPaths, Some(n)) if n == 0 || n as usize >= HOP_BUCKETS => bail!(
                "{}: hops = {n} must be in 1..={}: the hop histogram's last bucket holds every longer path",
                what(),
                HOP_BUCKETS - 1
            ),
            (Metric::LongPaths, Some(_)) | (_, None) => {}
            (_, Some(_)) => bail!("{}: hops applies to the metric long-paths only", what()),
        }
        match (c.metric, c.entries) {
            (Metric::ManyEntries, None | Some(0)) => bail!(
                "{}: metric many-entries needs entries = N >= 1 (the share of packets that entered the escape network N times or more)",
                what()
            ),
            (Metric::ManyEntries, Some(_)) | (_, None) => {}
            (_, Some(_)) => bail!("{}: entries applies to the metric many-entries only", what()),
        }
        super::flows::validate(c, &what)?;
        let labels: Vec<&str> = spec.curve.iter().map(|k| k.label.as_str()).collect();
        super::collective::validate(c, &labels).map_err(|e| anyhow::anyhow!("{}: {e}", what()))?;
        let tests = c.tests().len();
        if tests != 1 {
            bail!(
                "{}: give exactly one test of near, near_curve, at_least, at_most, above, below, best (it has {tests})",
                what()
            );
        }
        if let Some(t) = c.tolerance {
            if c.near.is_none() && c.near_curve.is_none() {
                bail!("{}: tolerance applies to near and near_curve only", what());
            }
            if !(t > 0.0 && t < 1.0) {
                bail!(
                    "{}: tolerance = {t} must be a fraction in (0, 1), e.g. 0.1 for ±10%",
                    what()
                );
            }
        }
        for v in [&c.near, &c.at_least, &c.at_most].into_iter().flatten() {
            v.per_h().with_context(what)?;
        }
        if let Some(n) = &c.near_curve {
            known_curve(n, "near_curve")?;
        }
        for n in c.above.iter().chain(&c.below) {
            known_curve(n, "above/below")?;
        }
        if c.h == Some(0) {
            bail!(
                "{}: h = 0: give the network's global links per router, e.g. h = 6",
                what()
            );
        }
    }
    Ok(())
}

fn kind_name(k: Kind) -> &'static str {
    match k {
        Kind::Sweep => "sweep",
        Kind::Burst => "burst",
        Kind::Transient => "transient",
        Kind::Injection => "injection",
        Kind::Flows => "flows",
        Kind::Collective => "collective",
    }
}

fn short(s: &str) -> String {
    let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if s.chars().count() > 60 {
        format!("{}...", s.chars().take(57).collect::<String>())
    } else {
        s
    }
}

/// Three numbers of one row: a sweep's (offered load, accepted load, mean latency), or a
/// transient window's (cycle, mean latency, misrouted share).
type Point = (f64, f64, f64);

/// The numbers claims read, from the figure's CSV outputs.
#[derive(Default)]
pub(super) struct Tables {
    /// Sweeps: (panel, curve) -> (offered, accepted, latency) per load.
    sweep: BTreeMap<(String, String), Vec<Point>>,
    /// Sweeps: (panel, curve) -> (offered load, misrouted share) per load.
    misrouted: BTreeMap<(String, String), Vec<(f64, f64)>>,
    /// Transients: (panel, curve) -> (cycle, probability) per window.
    probability: BTreeMap<(String, String), Vec<(f64, f64)>>,
    /// Transients: (panel, curve) -> every traced port's (cycle, switch, towards S_out,
    /// probability) per window.
    ports: BTreeMap<(String, String), Vec<PortRow>>,
    /// Bursts: (panel, curve) -> (relative time, longest path, mean path); infinite if not
    /// consumed.
    burst: BTreeMap<(String, String), (f64, f64, f64)>,
    /// Bursts: (panel, curve) -> packets per path length (hops); the last bucket holds every
    /// longer path.
    hops: BTreeMap<(String, String), Vec<(u32, u64)>>,
    /// Bursts: (panel, curve) -> packets per number of escape entries.
    entries: BTreeMap<(String, String), Vec<(u32, u64)>>,
    /// Transients: (panel, curve) -> (cycle, latency, misrouted share) per window.
    series: BTreeMap<(String, String), Vec<Point>>,
    /// Transients: (panel, curve) -> (cycle, accepted load) per window, warm-up included.
    throughput: BTreeMap<(String, String), Vec<(f64, f64)>>,
    /// Injection figures: (panel, curve) -> (group, injected) per router, in file order.
    injected: BTreeMap<(String, String), Vec<(u64, f64)>>,
    /// Injection figures with QCN: (panel, curve) -> (group, CNMs received through local
    /// ports, through global ports) per router, in file order.
    cnms: BTreeMap<(String, String), Vec<CnmRow>>,
    /// Flow figures: their windows and ports.
    flows: super::flows::FlowTables,
    /// Collective figures: (panel, curve) -> (size, completion time) per size.
    collective: super::collective::Times,
}

#[derive(Deserialize)]
struct SeriesRow {
    curve: String,
    cycle: f64,
    latency_mean: f64,
    misrouted_fraction: f64,
}

#[derive(Deserialize)]
struct ThroughputRow {
    curve: String,
    cycle: f64,
    accepted_load: f64,
}

#[derive(Deserialize)]
struct InjectedRow {
    curve: String,
    group: u64,
    injected: f64,
}

/// One router of `cnms.csv`: (group, CNMs received through local ports, through global ports).
type CnmRow = (u64, f64, f64);

#[derive(Deserialize)]
struct CnmsRow {
    curve: String,
    group: u64,
    cnms_local: f64,
    cnms_global: f64,
}

#[derive(Deserialize)]
struct HopRow {
    curve: String,
    /// A path length, or the last bucket written "63+".
    hops: String,
    packets: u64,
}

#[derive(Deserialize)]
struct EntriesRow {
    curve: String,
    entries: u32,
    packets: u64,
}

#[derive(Deserialize)]
struct SweepRow {
    curve: String,
    offered_load: f64,
    accepted_load: f64,
    /// "-" where no packet was delivered in a window.
    #[serde(deserialize_with = "number_or_missing")]
    latency_mean: Option<f64>,
    #[serde(default, deserialize_with = "number_or_missing")]
    misrouted_fraction: Option<f64>,
}

#[derive(Deserialize)]
struct PortsRow {
    curve: String,
    cycle: f64,
    switch: u32,
    towards_sout: u8,
    probability: f64,
}

/// One port of `probability_ports.csv` at the end of one window: (cycle, switch, towards
/// S_out, probability in percent).
type PortRow = (f64, u32, bool, f64);

#[derive(Deserialize)]
struct ProbabilityRow {
    curve: String,
    cycle: f64,
    #[serde(deserialize_with = "number_or_missing")]
    mid_to_sout: Option<f64>,
}

/// A CSV cell holding a number, or "-" (or nothing) for a missing measurement.
pub(super) fn number_or_missing<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> std::result::Result<Option<f64>, D::Error> {
    let s = String::deserialize(d)?;
    match s.trim() {
        "" | crate::show::MISSING => Ok(None),
        t => t.parse().map(Some).map_err(serde::de::Error::custom),
    }
}

#[derive(Deserialize)]
struct BurstRow {
    panel: String,
    curve: String,
    relative_to_baseline: Option<f64>,
    max_hops: Option<f64>,
    hops_mean: Option<f64>,
}

fn read_rows<T: serde::de::DeserializeOwned>(p: &Path) -> Result<Vec<T>> {
    let mut r = csv::Reader::from_path(p).with_context(|| format!("reading {}", p.display()))?;
    r.deserialize()
        .collect::<std::result::Result<_, _>>()
        .with_context(|| format!("reading {}", p.display()))
}

/// The rows of every panel's `file` (`DIR/PANEL/file`), each with its panel's name.
fn per_panel<T: serde::de::DeserializeOwned>(
    plan: &Plan,
    out: &Path,
    file: &str,
) -> Result<Vec<(String, T)>> {
    let mut rows = Vec::new();
    for (pname, _) in &plan.panels {
        for row in read_rows::<T>(&out.join(pname).join(file))? {
            rows.push((pname.clone(), row));
        }
    }
    Ok(rows)
}

/// Rows grouped by (panel, curve), in file order; `f` splits a row into its curve and value.
fn grouped<T, V>(
    rows: Vec<(String, T)>,
    f: impl Fn(T) -> (String, V),
) -> BTreeMap<(String, String), Vec<V>> {
    let mut m: BTreeMap<(String, String), Vec<V>> = BTreeMap::new();
    for (panel, row) in rows {
        let (curve, v) = f(row);
        m.entry((panel, curve)).or_default().push(v);
    }
    m
}

impl Tables {
    /// Read what a figure of this plan wrote under `out`.
    pub(super) fn read(plan: &Plan, out: &Path) -> Result<Tables> {
        let mut t = Tables::default();
        match plan.spec.kind {
            Kind::Sweep => {
                let rows = per_panel::<SweepRow>(plan, out, "sweep.csv")?;
                t.misrouted = grouped(
                    rows.iter()
                        .map(|(p, r)| {
                            let m = r.misrouted_fraction.unwrap_or(f64::NAN);
                            (p.clone(), (r.curve.clone(), r.offered_load, m))
                        })
                        .collect(),
                    |(curve, l, m)| (curve, (l, m)),
                );
                t.sweep = grouped(rows, |r| {
                    // A missing latency is NaN: no claim on it can hold.
                    (
                        r.curve,
                        (
                            r.offered_load,
                            r.accepted_load,
                            r.latency_mean.unwrap_or(f64::NAN),
                        ),
                    )
                });
            }
            Kind::Burst => {
                if plan
                    .spec
                    .claim
                    .iter()
                    .any(|c| c.metric == Metric::LongPaths)
                {
                    let rows =
                        per_panel::<HopRow>(plan, out, "hops.csv")?
                            .into_iter()
                            .map(|(panel, r)| {
                                let n = r.hops.trim_end_matches('+').parse::<u32>().with_context(
                                    || {
                                        format!(
                                            "{panel}/hops.csv: '{}' is not a path length",
                                            r.hops
                                        )
                                    },
                                )?;
                                Ok((panel, (r.curve, n, r.packets)))
                            })
                            .collect::<Result<Vec<_>>>()?;
                    t.hops = grouped(rows, |(curve, n, packets)| (curve, (n, packets)));
                }
                if plan
                    .spec
                    .claim
                    .iter()
                    .any(|c| c.metric == Metric::ManyEntries)
                {
                    let rows = per_panel::<EntriesRow>(plan, out, "entries.csv")?;
                    t.entries = grouped(rows, |r| (r.curve, (r.entries, r.packets)));
                }
                for row in read_rows::<BurstRow>(&out.join("bursts.csv"))? {
                    // An empty cell: the burst was not consumed.
                    t.burst.insert(
                        (row.panel, row.curve),
                        (
                            row.relative_to_baseline.unwrap_or(f64::INFINITY),
                            row.max_hops.unwrap_or(f64::INFINITY),
                            row.hops_mean.unwrap_or(f64::INFINITY),
                        ),
                    );
                }
            }
            Kind::Transient => {
                // Only the files the claims read: a table may be missing from an older run.
                let uses = |m: &[Metric]| plan.spec.claim.iter().any(|c| m.contains(&c.metric));
                if uses(&[Metric::ThroughputFall, Metric::SettleTime]) {
                    let rows = per_panel::<ThroughputRow>(plan, out, "throughput.csv")?;
                    t.throughput = grouped(rows, |r| (r.curve, (r.cycle, r.accepted_load)));
                }
                if uses(&[Metric::ReducedPorts, Metric::ReducedOffRoute]) {
                    let rows = per_panel::<PortsRow>(plan, out, "probability_ports.csv")?;
                    t.ports = grouped(rows, |r| {
                        (
                            r.curve,
                            (r.cycle, r.switch, r.towards_sout != 0, r.probability),
                        )
                    });
                }
                if uses(&[Metric::ProbabilityAfter]) {
                    let rows = per_panel::<ProbabilityRow>(plan, out, "probability.csv")?;
                    t.probability = grouped(rows, |r| {
                        (r.curve, (r.cycle, r.mid_to_sout.unwrap_or(f64::NAN)))
                    });
                }
                if uses(&[
                    Metric::ChangeRise,
                    Metric::MisrouteDip,
                    Metric::SettleTime,
                    Metric::LatencyAfter,
                    Metric::MisroutedBefore,
                    Metric::MisroutedFirst,
                    Metric::MisroutedLast,
                ]) {
                    t.series = grouped(per_panel::<SeriesRow>(plan, out, "series.csv")?, |r| {
                        (r.curve, (r.cycle, r.latency_mean, r.misrouted_fraction))
                    });
                }
            }
            Kind::Collective => {
                t.collective = super::collective::read(&plan.panels, out)?;
            }
            Kind::Injection => {
                t.injected = grouped(per_panel::<InjectedRow>(plan, out, "injected.csv")?, |r| {
                    (r.curve, (r.group, r.injected))
                });
                // Only when a claim reads it: a run of an older build has no cnms.csv.
                if plan
                    .spec
                    .claim
                    .iter()
                    .any(|c| c.metric == Metric::SoutGlobalCnms)
                {
                    t.cnms = grouped(per_panel::<CnmsRow>(plan, out, "cnms.csv")?, |r| {
                        (r.curve, (r.group, r.cnms_local, r.cnms_global))
                    });
                }
            }
            Kind::Flows => t.flows = super::flows::read(plan, out)?,
        }
        Ok(t)
    }

    /// The claim's number for `curve`, or why there is none.
    fn value(
        &self,
        plan: &Plan,
        c: &Claim,
        info: &PanelInfo,
        curve: &str,
    ) -> std::result::Result<f64, String> {
        let panel = c.panel_name(plan);
        let key = |p: &str| (p.to_string(), curve.to_string());
        let points = |p: &str| {
            self.sweep
                .get(&key(p))
                .filter(|v| !v.is_empty())
                .ok_or_else(|| format!("{curve} has no results in panel {p}"))
        };
        let at = |p: &str, l: f64, f: fn(&Point) -> f64| {
            points(p)?
                .iter()
                .find(|x| (x.0 - l).abs() < 1e-9)
                .map(f)
                .ok_or_else(|| format!("no load {l} at this scale"))
        };
        let burst = |p: &str| {
            self.burst
                .get(&key(p))
                .copied()
                .ok_or_else(|| format!("{curve} has no burst in panel {p}"))
        };
        let p = panel.unwrap_or_default();
        let l = c.load.unwrap_or(f64::NAN);
        match c.metric {
            Metric::Peak => Ok(points(p)?.iter().map(|x| x.1).fold(f64::NAN, f64::max)),
            Metric::Accepted => at(p, l, |x| x.1),
            Metric::Latency => at(p, l, |x| x.2),
            Metric::Knee => {
                let pts = points(p)?;
                let base = match c.load {
                    Some(l) => at(p, l, |x| x.2)?,
                    None => pts
                        .iter()
                        .min_by(|a, b| a.0.total_cmp(&b.0))
                        .map_or(f64::NAN, |x| x.2),
                };
                Ok(knee(pts, base))
            }
            Metric::Fall => Ok(fall(points(p)?)),
            Metric::Misrouted => self
                .misrouted
                .get(&key(p))
                .and_then(|v| v.iter().find(|x| (x.0 - l).abs() < 1e-9))
                .map(|x| x.1)
                .ok_or_else(|| format!("no load {l} at this scale")),
            Metric::Time => Ok(burst(p)?.0),
            Metric::MaxHops => Ok(burst(p)?.1),
            Metric::MeanHops => Ok(burst(p)?.2),
            Metric::LongPaths | Metric::ManyEntries => {
                let (table, what, n) = if c.metric == Metric::LongPaths {
                    (&self.hops, "hop", c.hops.unwrap_or(0))
                } else {
                    (&self.entries, "escape-entries", c.entries.unwrap_or(0))
                };
                let hist = table
                    .get(&key(p))
                    .filter(|v| !v.is_empty())
                    .ok_or_else(|| format!("{curve} has no {what} histogram in panel {p}"))?;
                let total: u64 = hist.iter().map(|x| x.1).sum();
                let long: u64 = hist.iter().filter(|x| x.0 >= n).map(|x| x.1).sum();
                if total == 0 {
                    return Err(format!("{curve} delivered no packets in panel {p}"));
                }
                Ok(long as f64 / total as f64)
            }
            Metric::MeanTime => {
                let v: Vec<f64> = plan
                    .panels
                    .iter()
                    .map(|(p, _)| burst(p).map(|b| b.0))
                    .collect::<std::result::Result<_, _>>()?;
                Ok(v.iter().sum::<f64>() / v.len() as f64)
            }
            Metric::ChangeRise
            | Metric::MisrouteDip
            | Metric::SettleTime
            | Metric::LatencyAfter
            | Metric::MisroutedBefore
            | Metric::MisroutedFirst
            | Metric::MisroutedLast => {
                let windows = self
                    .series
                    .get(&key(p))
                    .filter(|v| !v.is_empty())
                    .ok_or_else(|| format!("{curve} has no series in panel {p}"))?;
                let at = info
                    .change
                    .ok_or_else(|| format!("the traffic does not change in panel {p}"))?;
                let (before, after): (Vec<Point>, Vec<Point>) =
                    windows.iter().partition(|w| w.0 < at as f64);
                if before.is_empty() || after.len() < 2 {
                    return Err(format!("{curve} has too few windows around the change"));
                }
                Ok(match c.metric {
                    Metric::ChangeRise => change_rise(&before, &after),
                    Metric::MisrouteDip => misroute_dip(&after),
                    Metric::SettleTime => {
                        // The run's last window, from throughput.csv (which has every one).
                        let last = self
                            .throughput
                            .get(&key(p))
                            .and_then(|v| v.iter().map(|x| x.0).reduce(f64::max));
                        settle_time(&after, at as f64, last)?
                    }
                    Metric::LatencyAfter => {
                        latency_after(&after, at as f64, c.from, c.to).ok_or_else(|| {
                            format!(
                                "{curve} has no window (with its packets delivered) in the interval in panel {p}"
                            )
                        })?
                    }
                    Metric::MisroutedBefore => {
                        before.iter().map(|x| x.2).sum::<f64>() / before.len() as f64
                    }
                    Metric::MisroutedFirst => misrouted_first(&after),
                    _ => misrouted_last(&after),
                })
            }
            Metric::ProbabilityAfter => {
                let at = info
                    .change
                    .ok_or_else(|| format!("the traffic does not change in panel {p}"))?;
                let after: Vec<f64> = self
                    .probability
                    .get(&key(p))
                    .map(|v| {
                        v.iter()
                            .filter(|x| x.0 >= at as f64 && !x.1.is_nan())
                            .map(|x| x.1)
                            .collect()
                    })
                    .unwrap_or_default();
                if after.is_empty() {
                    return Err(format!(
                        "{curve} has no probabilities after the change in panel {p}"
                    ));
                }
                Ok(after.iter().sum::<f64>() / after.len() as f64)
            }
            Metric::ReducedPorts | Metric::ReducedOffRoute => {
                let at = info
                    .change
                    .ok_or_else(|| format!("the traffic does not change in panel {p}"))?;
                let rows = self
                    .ports
                    .get(&key(p))
                    .filter(|v| !v.is_empty())
                    .ok_or_else(|| {
                        format!("{curve} has no port probabilities in panel {p} (no QCN)")
                    })?;
                let (most, off) = reduced_at(rows, at as f64)
                    .ok_or_else(|| format!("{curve} has no probabilities before the change"))?;
                Ok(if c.metric == Metric::ReducedPorts {
                    most as f64
                } else {
                    off as f64
                })
            }
            Metric::ThroughputFall => {
                let windows = self
                    .throughput
                    .get(&key(p))
                    .filter(|v| v.len() >= 4)
                    .ok_or_else(|| {
                        format!("{curve} has too few throughput windows in panel {p}")
                    })?;
                Ok(throughput_fall(windows))
            }
            Metric::Completion | Metric::Reduction | Metric::MaxDifference => {
                super::collective::value(&self.collective, c, p, curve)
            }
            Metric::GroupRatio => {
                let routers = self
                    .injected
                    .get(&key(p))
                    .filter(|v| !v.is_empty())
                    .ok_or_else(|| format!("{curve} has no injection counts in panel {p}"))?;
                let (first, last) = (routers[0].0, routers[routers.len() - 1].0);
                let sum =
                    |g: u64| -> f64 { routers.iter().filter(|r| r.0 == g).map(|r| r.1).sum() };
                Ok(sum(last) / sum(first))
            }
            Metric::Unfairness => {
                let routers = self
                    .injected
                    .get(&key(p))
                    .filter(|v| !v.is_empty())
                    .ok_or_else(|| format!("{curve} has no injection counts in panel {p}"))?;
                Ok(unfairness(routers))
            }
            Metric::SoutGlobalCnms => {
                let routers = self
                    .cnms
                    .get(&key(p))
                    .filter(|v| !v.is_empty())
                    .ok_or_else(|| format!("{curve} has no CNM counts in panel {p} (no QCN)"))?;
                sout_global_cnms(routers)
                    .ok_or_else(|| format!("the first group received no CNM with {curve}"))
            }
            _ => super::flows::value(&self.flows, c, p, curve),
        }
    }
}

/// (mean latency after the change - mean before) / mean before; windows are
/// (cycle, latency, misrouted share).
fn change_rise(before: &[Point], after: &[Point]) -> f64 {
    let mean = |w: &[Point]| w.iter().map(|x| x.1).sum::<f64>() / w.len() as f64;
    (mean(after) - mean(before)) / mean(before)
}

/// (best window's accepted load - mean of the last quarter's) / best window's; windows are
/// (cycle, accepted load).
fn throughput_fall(windows: &[(f64, f64)]) -> f64 {
    let mut w = windows.to_vec();
    w.sort_by(|a, b| a.0.total_cmp(&b.0));
    let best = w.iter().map(|x| x.1).fold(f64::NAN, f64::max);
    let last = &w[w.len() - w.len() / 4..];
    let tail = last.iter().map(|x| x.1).sum::<f64>() / last.len() as f64;
    (best - tail) / best
}

/// The misrouted share's level over the second half of the windows after the change, less
/// its lowest value in the first half (at least 0).
fn misroute_dip(after: &[Point]) -> f64 {
    let mut w = after.to_vec();
    w.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (early, late) = w.split_at(w.len() / 2);
    let level = late.iter().map(|x| x.2).sum::<f64>() / late.len() as f64;
    let low = early.iter().map(|x| x.2).fold(f64::INFINITY, f64::min);
    (level - low).max(0.0)
}

/// A window's latency this far (relative) from the settled level has not settled.
const SETTLE_BAND: f64 = 0.1;

/// Fewer complete windows after the change than this: no settle time.
const SETTLE_MIN_WINDOWS: usize = 4;

/// Cycles from the change (`at`) to the end of the last window after it whose latency lies
/// more than `SETTLE_BAND` from the mean of the second half of the windows after the change
/// (0 when none does). A window's cycle is its start; windows are (cycle, latency,
/// misrouted share), in any order. A window missing between the change and the last window
/// (fewer than 99% of its packets delivered: the transient figure leaves it out) has not
/// settled either; one or two windows missing at the end (the run ended before their packets
/// arrived) do not count, but more before `last` (the run's last window, when known) mean the
/// latency never settled: infinite. Fewer than `SETTLE_MIN_WINDOWS` windows after the change:
/// an error saying so.
fn settle_time(after: &[Point], at: f64, last: Option<f64>) -> std::result::Result<f64, String> {
    let mut w = after.to_vec();
    w.sort_by(|a, b| a.0.total_cmp(&b.0));
    if w.len() < SETTLE_MIN_WINDOWS {
        return Err(format!(
            "only {} windows after the change have their packets delivered (saturated)",
            w.len()
        ));
    }
    let late = &w[w.len() / 2..];
    let level = late.iter().map(|x| x.1).sum::<f64>() / late.len() as f64;
    let width = w
        .windows(2)
        .map(|p| p[1].0 - p[0].0)
        .filter(|d| *d > 0.0)
        .fold(f64::INFINITY, f64::min);
    let mut settled = 0.0f64;
    let mut prev = at - width; // the window before the first one after the change
    for x in &w {
        if x.0 - prev > 1.5 * width {
            settled = settled.max(x.0 - at); // windows missing before this one
        }
        if (x.1 - level).abs() > SETTLE_BAND * level {
            settled = settled.max(x.0 + width - at);
        }
        prev = x.0;
    }
    if last.is_some_and(|l| l - prev > 2.5 * width) {
        return Ok(f64::INFINITY);
    }
    Ok(settled)
}

/// The mean latency of the windows after the change (`at`) that start in [`from`, `to`)
/// cycles after it (both optional); windows are (cycle, latency, misrouted share). None when
/// no window lies there.
fn latency_after(after: &[Point], at: f64, from: Option<u64>, to: Option<u64>) -> Option<f64> {
    let lo = at + from.unwrap_or(0) as f64;
    let hi = to.map_or(f64::INFINITY, |t| at + t as f64);
    let w: Vec<f64> = after
        .iter()
        .filter(|x| x.0 >= lo && x.0 < hi)
        .map(|x| x.1)
        .collect();
    (!w.is_empty()).then(|| w.iter().sum::<f64>() / w.len() as f64)
}

/// At the end of the last window ending at or before `at` (the change): the most ports of
/// one switch whose probability is below 100%, and the ports below 100% that are not towards
/// S_out. None when no window ends by then.
fn reduced_at(rows: &[PortRow], at: f64) -> Option<(usize, usize)> {
    let when = rows
        .iter()
        .map(|r| r.0)
        .filter(|&c| c <= at)
        .fold(f64::NAN, f64::max);
    if when.is_nan() {
        return None;
    }
    let reduced: Vec<&PortRow> = rows.iter().filter(|r| r.0 == when && r.3 < 100.0).collect();
    let mut per_switch: BTreeMap<u32, usize> = BTreeMap::new();
    for r in &reduced {
        *per_switch.entry(r.1).or_default() += 1;
    }
    let most = per_switch.values().copied().max().unwrap_or(0);
    let off = reduced.iter().filter(|r| !r.2).count();
    Some((most, off))
}

/// The misrouted share of the first window after the change.
fn misrouted_first(after: &[Point]) -> f64 {
    after
        .iter()
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .map_or(f64::NAN, |x| x.2)
}

/// The mean misrouted share of the last quarter (at least one) of the windows after the
/// change.
fn misrouted_last(after: &[Point]) -> f64 {
    let mut w = after.to_vec();
    w.sort_by(|a, b| a.0.total_cmp(&b.0));
    let last = &w[w.len() - (w.len() / 4).max(1)..];
    last.iter().map(|x| x.2).sum::<f64>() / last.len() as f64
}

/// The most packets injected by a router of the first group listed over the fewest;
/// `routers` are (group, injected) in file order. Infinite when a router injected none.
fn unfairness(routers: &[(u64, f64)]) -> f64 {
    let first = routers[0].0;
    let (lo, hi) = routers
        .iter()
        .filter(|r| r.0 == first)
        .fold((f64::INFINITY, 0.0f64), |(l, h), r| {
            (l.min(r.1), h.max(r.1))
        });
    if lo > 0.0 {
        hi / lo
    } else {
        f64::INFINITY
    }
}

/// The CNMs the last router of the first group listed received through global ports over
/// all the CNMs that group's routers received; `routers` are (group, local, global) in file
/// order (by router). None when the group received none.
fn sout_global_cnms(routers: &[CnmRow]) -> Option<f64> {
    let first = routers[0].0;
    let group: Vec<&CnmRow> = routers.iter().filter(|r| r.0 == first).collect();
    let total: f64 = group.iter().map(|r| r.1 + r.2).sum();
    let last = group.last()?;
    (total > 0.0).then(|| last.2 / total)
}

/// The lowest offered load whose latency is above `KNEE_FACTOR` times `base`; infinite if
/// there is none.
fn knee(points: &[Point], base: f64) -> f64 {
    if base.is_nan() {
        return f64::NAN;
    }
    points
        .iter()
        .filter(|x| x.2 > KNEE_FACTOR * base)
        .map(|x| x.0)
        .fold(f64::INFINITY, f64::min)
}

/// (peak - accepted at the highest offered load) / peak.
fn fall(points: &[Point]) -> f64 {
    let peak = points.iter().map(|x| x.1).fold(f64::NAN, f64::max);
    let last = points
        .iter()
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map_or(f64::NAN, |x| x.1);
    (peak - last) / peak
}

/// What a claim needs to know of a panel's simulations.
pub(super) struct PanelInfo {
    /// Global links per router, for values per global link and `h = ...` claims.
    pub h: usize,
    /// The cycle at which the traffic changes, for transient metrics.
    pub change: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Verdict {
    Holds,
    Differs,
    NotChecked,
}

impl Verdict {
    fn word(self) -> &'static str {
        match self {
            Verdict::Holds => "holds",
            Verdict::Differs => "differs",
            Verdict::NotChecked => "not checked",
        }
    }
}

/// One claim's outcome: the verdict and the numbers behind it.
pub(super) struct Outcome {
    pub verdict: Verdict,
    /// The claim's number (None when it was not checked).
    pub value: Option<f64>,
    pub detail: String,
}

/// Check one claim; `h` is the network's global links per router in its panel.
pub(super) fn check(plan: &Plan, t: &Tables, c: &Claim, info: &PanelInfo) -> Outcome {
    let h = info.h;
    let not_checked = |why: String| Outcome {
        verdict: Verdict::NotChecked,
        value: None,
        detail: why,
    };
    if let Some(want) = c.h {
        if want != h {
            return not_checked(format!("holds for h = {want}; this network has h = {h}"));
        }
    }
    let v = match t.value(plan, c, info, &c.curve) {
        Ok(v) if v.is_nan() => return not_checked(format!("{} has no number here", c.curve)),
        Ok(v) => v,
        Err(e) => return not_checked(e),
    };
    let num = |x: f64| c.metric.show(x);
    let what = format!("{} of {}: {}", c.metric.describe(c), c.curve, num(v));
    let others = |names: &[String]| -> std::result::Result<Vec<(String, f64)>, String> {
        names
            .iter()
            .map(|n| t.value(plan, c, info, n).map(|x| (n.clone(), x)))
            .collect()
    };
    let list = |o: &[(String, f64)]| {
        o.iter()
            .map(|(n, x)| format!("{n} {}", num(*x)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let test = c.tests().remove(0); // exactly one, checked by `validate`
    let (holds, against) = match test {
        Test::Near(value, tol) => {
            let x = value.resolve(h);
            (
                (v - x).abs() <= tol * x.abs(),
                format!(
                    "expected {} ± {:.0}% ({}–{})",
                    value.show(h),
                    tol * 100.0,
                    num(x * (1.0 - tol)),
                    num(x * (1.0 + tol))
                ),
            )
        }
        Test::NearCurve(n, tol) => match t.value(plan, c, info, n) {
            Ok(x) => (
                (v - x).abs() <= tol * x.abs(),
                format!("expected within {:.0}% of {n}'s {}", tol * 100.0, num(x)),
            ),
            Err(e) => return not_checked(e),
        },
        Test::AtLeast(x) => (
            v >= x.resolve(h),
            format!("expected at least {}", x.show(h)),
        ),
        Test::AtMost(x) => (v <= x.resolve(h), format!("expected at most {}", x.show(h))),
        Test::Above(names) => match others(names) {
            Ok(o) => (
                o.iter().all(|(_, x)| v > *x),
                format!("expected above {}", list(&o)),
            ),
            Err(e) => return not_checked(e),
        },
        Test::Below(names) => match others(names) {
            Ok(o) => (
                o.iter().all(|(_, x)| v < *x),
                format!("expected below {}", list(&o)),
            ),
            Err(e) => return not_checked(e),
        },
        Test::Best(b) => {
            // Curves without a number here (e.g. not run at this scale) are left out.
            let o: Vec<(String, f64)> = plan
                .spec
                .curve
                .iter()
                .filter(|k| k.label != c.curve)
                .filter_map(|k| Some((k.label.clone(), t.value(plan, c, info, &k.label).ok()?)))
                .filter(|(_, x)| !x.is_nan())
                .collect();
            let ok = match b {
                Best::Highest => o.iter().all(|(_, x)| v > *x),
                Best::Lowest => o.iter().all(|(_, x)| v < *x),
            };
            let word = if b == Best::Highest {
                "highest"
            } else {
                "lowest"
            };
            (ok, format!("expected the {word}; the others: {}", list(&o)))
        }
    };
    Outcome {
        verdict: if holds {
            Verdict::Holds
        } else {
            Verdict::Differs
        },
        value: Some(v),
        detail: format!("{what}; {against}"),
    }
}

/// Why a claim cannot be checked on a figure run with `--panel` or at a scale that runs
/// some curves only: it reads a curve or a panel left out, or averages over every panel.
fn left_out(plan: &Plan, c: &Claim) -> Option<String> {
    // A curve the scale does not run (`[scale.NAME] curves`).
    let named = std::iter::once(&c.curve)
        .chain(&c.near_curve)
        .chain(&c.above)
        .chain(&c.below)
        .chain(&c.versus);
    for n in named {
        if plan.omitted_curves.contains(n) {
            return Some(format!("curve {n} not run at this scale ([scale] curves)"));
        }
    }
    if plan.omitted.is_empty() {
        return None;
    }
    match (c.metric, &c.panel) {
        (Metric::MeanTime, _) => Some(format!(
            "averages over every panel; {} left out (--panel)",
            plan.omitted.join(", ")
        )),
        (_, Some(p)) if plan.omitted.contains(p) => Some(format!("panel {p} left out (--panel)")),
        _ => None,
    }
}

/// Check every claim of the spec against the tables under `out`, append them to the report
/// and write `claims.csv`. `panels` describes each panel's network and traffic (the first
/// one serves `mean-time`, which reads every panel).
pub(super) fn write(
    plan: &Plan,
    out: &Path,
    panels: &[PanelInfo],
    report: &mut String,
) -> Result<()> {
    let spec = &plan.spec;
    if spec.claim.is_empty() {
        return Ok(());
    }
    let tables = Tables::read(plan, out)?;
    let mut csv = crate::output::csv_file(out.join("claims.csv"));
    csv.write_record([
        "claim", "panel", "curve", "metric", "verdict", "value", "detail",
    ])?;
    writeln!(report, "\nthe paper's claims, checked on these results")?;
    let mut count = BTreeMap::new();
    for (i, c) in spec.claim.iter().enumerate() {
        let panel = c.panel_name(plan);
        let pi = panel
            .and_then(|p| plan.panels.iter().position(|q| q.0 == p))
            .unwrap_or(0);
        let o = match left_out(plan, c) {
            Some(why) => Outcome {
                verdict: Verdict::NotChecked,
                value: None,
                detail: why,
            },
            None => check(plan, &tables, c, &panels[pi]),
        };
        *count.entry(o.verdict.word()).or_insert(0) += 1;
        let paper = c.paper.split_whitespace().collect::<Vec<_>>().join(" ");
        writeln!(report, "{:>3}. {:<11} {paper}", i + 1, o.verdict.word())?;
        writeln!(report, "{:16}{}", "", o.detail)?;
        csv.write_record([
            paper,
            panel.unwrap_or("all panels").to_string(),
            c.curve.clone(),
            c.metric.describe(c),
            o.verdict.word().to_string(),
            o.value.map_or(String::new(), |v| format!("{v}")),
            o.detail,
        ])?;
    }
    csv.finish()?;
    let parts: Vec<String> = ["holds", "differs", "not checked"]
        .iter()
        .filter_map(|w| count.get(w).map(|n| format!("{w}: {n}")))
        .collect();
    writeln!(report, "{} claims; {}", spec.claim.len(), parts.join(", "))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knee_is_the_first_load_whose_latency_has_risen() {
        // Unsorted on purpose: the figure's CSV lists loads in order, a user's may not.
        let pts = [
            (0.3, 0.3, 300.0),
            (0.1, 0.1, 200.0),
            (0.2, 0.2, 259.0),
            (0.4, 0.35, 2000.0),
        ];
        // 1.3 x 200 = 260: 259 at 0.2 has not risen, 300 at 0.3 has.
        assert_eq!(knee(&pts, 200.0), 0.3);
        assert_eq!(knee(&pts[1..3], 200.0), f64::INFINITY, "never rises");
        assert_eq!(knee(&pts, 300.0), 0.4);
        assert!(knee(&pts, f64::NAN).is_nan());
    }

    #[test]
    fn fall_compares_the_highest_load_with_the_peak() {
        let collapse = [(0.2, 0.2, 1.0), (0.6, 0.6, 1.0), (1.0, 0.06, 1.0)];
        assert!((fall(&collapse) - 0.9).abs() < 1e-12);
        let holds = [(1.0, 0.5, 1.0), (0.5, 0.5, 1.0)];
        assert_eq!(fall(&holds), 0.0);
    }

    #[test]
    fn values_per_global_link() {
        let v = |s: &str| Value::PerH(s.to_string());
        assert_eq!(v("1/h").resolve(4), 0.25);
        assert_eq!(v(" 1.05 / h ").resolve(6), 1.05 / 6.0);
        assert_eq!(Value::Number(0.36).resolve(4), 0.36);
        for bad in ["h", "1/g", "-1/h", "0/h", "x/h"] {
            assert!(v(bad).per_h().is_err(), "{bad} accepted");
        }
    }
}

#[cfg(test)]
mod transient_tests {
    use super::*;

    #[test]
    fn change_rise_and_misroute_dip() {
        // (cycle, latency, misrouted share)
        let before = [(0.0, 200.0, 0.9), (100.0, 200.0, 0.9)];
        let after = [
            (300.0, 260.0, 0.9),
            (200.0, 240.0, 0.6),
            (400.0, 250.0, 0.9),
            (500.0, 250.0, 0.9),
        ];
        assert!((change_rise(&before, &after) - 0.25).abs() < 1e-12);
        // Sorted by cycle: the early half is 0.6, 0.9; the late half's level 0.9.
        assert!((misroute_dip(&after) - 0.3).abs() < 1e-12);
        let steady = [(200.0, 1.0, 0.6), (300.0, 1.0, 0.5), (400.0, 1.0, 0.5)];
        assert_eq!(
            misroute_dip(&steady),
            0.0,
            "a share above its level is no dip"
        );
    }
}

#[cfg(test)]
mod qcn_metric_tests {
    use super::*;

    #[test]
    fn sout_global_cnms_is_the_last_routers_global_share_of_the_first_group() {
        // (group, local, global): group 0 received 10 + 20 + 30 + 40 = 100 CNMs, its last
        // router 5 of them through a global port; group 1 is not counted.
        let routers = [
            (0, 10.0, 0.0),
            (0, 10.0, 10.0),
            (0, 30.0, 0.0),
            (0, 35.0, 5.0),
            (1, 0.0, 500.0),
        ];
        assert_eq!(sout_global_cnms(&routers), Some(0.05));
        // Its local CNMs do not count: the last router's global link alone.
        let only_local = [(0, 10.0, 0.0), (0, 90.0, 0.0)];
        assert_eq!(sout_global_cnms(&only_local), Some(0.0));
        assert_eq!(sout_global_cnms(&[(0, 0.0, 0.0), (0, 0.0, 0.0)]), None);
    }

    #[test]
    fn reduced_ports_are_counted_at_the_last_window_before_the_change() {
        // (cycle, switch, towards S_out, probability); the change at 2,000.
        let rows = [
            // Before the last window: ignored.
            (1000.0, 0, false, 50.0),
            (1000.0, 0, false, 50.0),
            // The window ending at the change: switch 0 has its port towards S_out cut,
            // switch 1 that one and another, switch 2 none.
            (2000.0, 0, true, 6.0),
            (2000.0, 0, false, 100.0),
            (2000.0, 1, true, 9.5),
            (2000.0, 1, false, 99.0),
            (2000.0, 2, true, 100.0),
            // After the change: ignored.
            (3000.0, 2, false, 10.0),
            (3000.0, 2, false, 10.0),
            (3000.0, 2, false, 10.0),
        ];
        assert_eq!(reduced_at(&rows, 2000.0), Some((2, 1)));
        assert_eq!(
            reduced_at(&rows, 2500.0),
            Some((2, 1)),
            "the last window by then"
        );
        assert_eq!(reduced_at(&rows, 1500.0), Some((2, 2)));
        assert_eq!(reduced_at(&rows, 500.0), None);
    }

    #[test]
    fn latency_after_averages_the_windows_in_the_interval_after_the_change() {
        // (cycle, latency, misrouted share); the change at cycle 1,000, windows of 100.
        let after = [
            (1000.0, 400.0, 0.0),
            (1100.0, 300.0, 0.0),
            (1200.0, 200.0, 0.0),
            (1300.0, 100.0, 0.0),
        ];
        assert_eq!(latency_after(&after, 1000.0, None, None), Some(250.0));
        // From 100 cycles after the change: the last three.
        assert_eq!(latency_after(&after, 1000.0, Some(100), None), Some(200.0));
        // [100, 300): the windows starting at 1,100 and 1,200.
        assert_eq!(
            latency_after(&after, 1000.0, Some(100), Some(300)),
            Some(250.0)
        );
        assert_eq!(latency_after(&after, 1000.0, Some(400), None), None);
    }

    #[test]
    fn settle_time_ends_with_the_last_window_off_the_settled_level() {
        // Change at 1000, windows of 100 cycles: 300, 200, 150, then 100 (the settled
        // level: the second half, 100 and 100, averages 100). The window at 1100 (150) is
        // the last one off it by more than 10%: settled at its end, 200 cycles after the
        // change.
        let after = [
            (1300.0, 100.0, 0.0),
            (1000.0, 300.0, 0.0),
            (1100.0, 150.0, 0.0),
            (1200.0, 100.0, 0.0),
        ];
        assert_eq!(settle_time(&after, 1000.0, None), Ok(200.0));
        // The run went on to 2000: windows 1400-2000 missing, never settled; one or two
        // missing windows at the end are the run's end.
        assert_eq!(settle_time(&after, 1000.0, Some(2000.0)), Ok(f64::INFINITY));
        assert_eq!(settle_time(&after, 1000.0, Some(1500.0)), Ok(200.0));
        let flat = [
            (1000.0, 100.0, 0.0),
            (1100.0, 105.0, 0.0),
            (1200.0, 100.0, 0.0),
            (1300.0, 100.0, 0.0),
        ];
        assert_eq!(settle_time(&flat, 1000.0, None), Ok(0.0));
        // Windows 1000-1200 missing (not delivered): settled only from 1300 on.
        let gap = [
            (1300.0, 100.0, 0.0),
            (1400.0, 100.0, 0.0),
            (1500.0, 100.0, 0.0),
            (1600.0, 100.0, 0.0),
        ];
        assert_eq!(settle_time(&gap, 1000.0, None), Ok(300.0));
        // Two windows after the change: saturated, no settle time.
        assert!(settle_time(&flat[..2], 1000.0, None).is_err());
        // The misrouted share: first window and last quarter.
        let mis = [
            (1100.0, 0.0, 0.5),
            (1000.0, 0.0, 0.9),
            (1200.0, 0.0, 0.2),
            (1300.0, 0.0, 0.1),
        ];
        assert_eq!(misrouted_first(&mis), 0.9);
        assert!((misrouted_last(&mis) - 0.1).abs() < 1e-12);
    }

    #[test]
    fn unfairness_is_the_first_groups_most_over_fewest() {
        let r = [(0, 100.0), (0, 50.0), (0, 80.0), (5, 1.0)];
        assert!((unfairness(&r) - 2.0).abs() < 1e-12);
        assert!(unfairness(&[(0, 3.0), (0, 0.0)]).is_infinite());
    }
}

#[cfg(test)]
mod throughput_tests {
    use super::*;

    #[test]
    fn throughput_fall_compares_the_last_quarter_with_the_best_window() {
        // A ramp, a peak of 0.6, a collapse to 0.06: the last quarter (2 of 8) averages 0.06.
        let collapse: Vec<(f64, f64)> = [0.3, 0.6, 0.5, 0.2, 0.1, 0.08, 0.06, 0.06]
            .iter()
            .enumerate()
            .map(|(k, &a)| (k as f64 * 100.0, a))
            .rev() // the order of the rows does not matter
            .collect();
        assert!((throughput_fall(&collapse) - 0.9).abs() < 1e-12);
        let holds = [(0.0, 0.4), (100.0, 0.7), (200.0, 0.69), (300.0, 0.7)];
        assert!(throughput_fall(&holds).abs() < 1e-12);
    }
}
