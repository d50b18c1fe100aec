//! Simulation configuration: TOML schema, defaults (the OFAR paper, Table 1) and validation.
//!
//! Every struct rejects unknown keys, and [`Config::validate`] checks the cross-field rules
//! (topology feasibility, loads, buffer sizes, VC counts) so that a bad file stops before the
//! simulation starts, with a message naming the field and what is allowed.

pub mod collective;
mod flow_control;
pub mod flow_file;
mod graph;
pub mod import;
pub mod limits;
pub mod link_classes;
mod nic;
mod overrides;
mod qcn;
mod router;
mod routing;
mod simulation;
mod suggest;
mod switch;
mod topology;
mod traffic;
mod trees;
pub mod units;

pub use collective::{CollectiveFlows, CollectiveKind, CollectiveSpec};
pub use flow_control::*;
pub use graph::*;
pub use link_classes::{LinkClassConfig, LinkClasses, LINK_CLASS_NAMES};
pub use nic::*;
pub use overrides::apply_override;
pub use qcn::*;
pub use router::*;
pub use routing::*;
pub use simulation::*;
pub use switch::*;
pub use topology::*;
pub use traffic::*;
pub use trees::*;
pub use units::{Units, UnitsConfig};

use crate::error::ConfigError;
use serde::{Deserialize, Serialize};

/// The embedded default configuration: the OFAR paper's network (Table 1), uniform traffic, MIN.
pub const DEFAULT_TOML: &str = include_str!("default.toml");

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    pub topology: TopologyConfig,
    pub router: RouterConfig,
    pub routing: RoutingConfig,
    pub traffic: TrafficConfig,
    pub simulation: SimulationConfig,
    /// The sections below drive the general kernel ([`crate::kernel`]); each is left out of
    /// a written configuration while at its default, so that the dragonfly engine's
    /// configurations (and the identities of stored runs) stay as they were.
    #[serde(skip_serializing_if = "skip_switch")]
    pub switch: SwitchConfig,
    #[serde(skip_serializing_if = "skip_flow_control")]
    pub flow_control: FlowControlConfig,
    #[serde(skip_serializing_if = "skip_nic")]
    pub nic: NicConfig,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub flows: Vec<FlowSpec>,
    /// Collective operations, each run as flows with dependencies after `flows`
    /// ([`collective`]; general kernel).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub collectives: Vec<CollectiveSpec>,
    /// Physical units: what a cycle and a phit are ([`units`]).
    #[serde(skip_serializing_if = "UnitsConfig::is_default")]
    pub units: UnitsConfig,
    /// Buffer sizes and latencies per link class, for the general kernel
    /// ([`link_classes`]).
    #[serde(skip_serializing_if = "LinkClasses::is_empty")]
    pub link_classes: LinkClasses,
    /// QCN congestion points and QCN-Switch's routing probabilities (general kernel);
    /// absent: no congestion mechanism.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub qcn: Option<QcnConfig>,
}

impl Config {
    /// Parse a TOML document. Unknown keys and wrong types are reported with their path.
    pub fn from_toml_str(text: &str) -> Result<Config, ConfigError> {
        let value: toml::Value =
            toml::from_str(text).map_err(|e| ConfigError::Syntax(e.to_string()))?;
        Config::from_value(value)
    }

    /// Build from an already-parsed TOML tree (after `--set` overrides were applied).
    pub fn from_value(mut value: toml::Value) -> Result<Config, ConfigError> {
        // Flows in a CSV file join [[flows]] first (relative to the working directory when
        // no loader has already read them relative to the configuration file).
        flow_file::expand(&mut value, None)?;
        units::convert(&mut value)?;
        let (field, message) = match Config::deserialize_tree(value.clone()) {
            Ok(cfg) => return Ok(cfg),
            Err(e) => e,
        };
        // A number, boolean or table where a name is expected gets the TOML deserialiser's
        // "invalid type: unit variant, expected string only", which lists no names. Asking
        // again with a string that is no name gets serde's list of the allowed ones.
        if message.contains("expected string only") {
            let mut probe = value;
            if let Some(slot) = value_at(&mut probe, &field) {
                let given = slot.to_string();
                *slot = toml::Value::String("\u{1}".into());
                if let Err((f, m)) = Config::deserialize_tree(probe) {
                    if let (true, Some(i)) = (f == field, m.find("expected one of")) {
                        return Err(ConfigError::Field {
                            field,
                            message: format!("{given} is not a name: {}", &m[i..]),
                        });
                    }
                }
            }
        }
        Err(ConfigError::Field { field, message })
    }

    /// Deserialise and validate, finding every error rather than the first: after each
    /// error the offending key is put back to its default (an unknown key removed) and the
    /// tree checked again, until it passes, the same key fails twice or
    /// [`MAX_REPORTED_ERRORS`] are found. The errors come in the order found; all are
    /// [`ConfigError::Field`]s naming their key.
    ///
    /// `check` is the validation to pass: [`crate::validate()`] for everything a simulation
    /// needs, or [`Config::validate`] for the configuration's own rules.
    pub fn from_value_all(
        mut value: toml::Value,
        check: impl Fn(&Config) -> Result<(), ConfigError>,
    ) -> Result<Config, Vec<ConfigError>> {
        let defaults: toml::Value = toml::from_str(DEFAULT_TOML).expect("embedded default parses");
        if let Err(e) = flow_file::expand(&mut value, None) {
            return Err(vec![e]);
        }
        let mut tree = value;
        let mut errors: Vec<ConfigError> = Vec::new();
        while errors.len() < MAX_REPORTED_ERRORS {
            let err = match Config::from_value(tree.clone()) {
                Ok(cfg) => match check(&cfg) {
                    Ok(()) if errors.is_empty() => return Ok(cfg),
                    Ok(()) => break,
                    Err(e) => e,
                },
                Err(e) => e,
            };
            let Some(field) = err.field().map(str::to_string) else {
                errors.push(err);
                break;
            };
            if errors.iter().any(|e| e.field() == Some(field.as_str())) {
                // Its default fails too, given the rest: a consequence of the earlier error.
                break;
            }
            errors.push(err);
            if !reset_to_default(&mut tree, &defaults, &field) {
                break;
            }
        }
        Err(errors)
    }

    /// Deserialise, or the path of the offending field and the first line of the message.
    fn deserialize_tree(value: toml::Value) -> Result<Config, (String, String)> {
        serde_path_to_error::deserialize(value).map_err(|e| {
            let path = e.path().to_string();
            // The TOML deserialiser appends "in `path`" on a line of its own: the field is
            // already named, keep the first line.
            let message = e.into_inner().to_string();
            let first = message.lines().next().unwrap_or_default().trim();
            (path, explain(first))
        })
    }

    /// The embedded default (the OFAR paper network, UN, MIN).
    pub fn embedded_default() -> Config {
        Config::from_toml_str(DEFAULT_TOML).expect("embedded default configuration is valid")
    }

    /// The configuration as TOML, leaving out keys added late at their default (so that the
    /// figure store, which keys simulations by this text, keeps the identity of runs stored
    /// before they existed). For a complete record, [`Config::to_complete_toml_string`].
    pub fn to_toml_string(&self) -> Result<String, ConfigError> {
        toml::to_string_pretty(self)
            .map_err(|e| ConfigError::Syntax(format!("serialising the configuration: {e}")))
    }

    /// The configuration as TOML with every key, defaults included (those absent by nature
    /// aside: `routing.bcm_bubble_global` and `traffic.change` when unset), so that a change
    /// of a default does not change what a rerun from it simulates.
    pub fn to_complete_toml_string(&self) -> Result<String, ConfigError> {
        every_key(|| self.to_toml_string())
    }

    /// The configuration as JSON with every key, as [`Config::to_complete_toml_string`].
    pub fn to_complete_json(&self) -> serde_json::Value {
        every_key(|| serde_json::to_value(self)).expect("a configuration serialises to JSON")
    }

    /// Keys set to something other than their default that this configuration does not read,
    /// each with the reason: the routing's ([`RoutingConfig::unused_keys`]), then the
    /// traffic's ([`TrafficConfig::unused_keys`]).
    pub fn unused_keys(&self) -> Vec<(&'static str, String)> {
        let mut keys = self.routing.unused_keys();
        keys.extend(self.traffic.unused_keys());
        keys
    }

    /// Valid settings that often surprise: each is a note for the user (what happens, and
    /// what the paper's experiments set instead), not an error.
    pub fn advisories(&self) -> Vec<String> {
        let mut notes = Vec::new();
        let ofar = matches!(
            self.routing.algorithm,
            RoutingAlgorithm::Ofar | RoutingAlgorithm::OfarL
        );
        let equal = self.router.injection_priority == InjectionPriority::Equal;
        if ofar && equal && self.routing.congestion == CongestionKind::None {
            notes.push(
                "plain OFAR (routing.congestion = \"none\") with router.injection_priority = \"equal\" \
                 congests past saturation, as in the OFAR paper's Fig. 5 (h = 6, ADVG+6: OFAR-L accepts \
                 about 0.008 at load 0.3, OFAR 0.017 at 0.5); Fig. 6's curves need the default \
                 \"transit-first\", or routing.congestion = \"bcm\" or \"ecm\""
                    .to_string(),
            );
        }
        // With BCM or ECM, equal priority still holds with either of FOGSim's misrouting
        // rules; the paper's literal reading of both takes it down.
        if ofar
            && equal
            && self.routing.congestion != CongestionKind::None
            && self.routing.misroute_trigger == MisrouteTrigger::Unavailable
            && self.routing.misroute_congested_global.is_none()
        {
            notes.push(
                "OFAR with BCM or ECM congests past saturation with router.injection_priority = \
                 \"equal\", routing.misroute_trigger = \"unavailable\" and no \
                 routing.misroute_congested_global together (h = 6, ring A, 2/1(+1) VCs and BCM \
                 under ADVG+6: 0.004 accepted at load 0.5), which the OFAR paper's figures do not show; any one of \
                 the defaults (\"transit-first\", \"granted\", the restriction) keeps it up"
                    .to_string(),
            );
        }
        notes
    }

    /// Whether this configuration runs on the general kernel ([`crate::kernel`]) rather
    /// than the input-queued dragonfly engine.
    pub fn uses_kernel(&self) -> bool {
        self.switch.kind == SwitchKind::Cioq
    }

    /// Cross-field validation. Call before building a simulation.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.units.resolve()?;
        if self.uses_kernel() {
            return self.validate_kernel();
        }
        self.validate_iq_only()?;
        self.topology.validate()?;
        self.router.validate()?;
        self.traffic.validate(&self.topology)?;
        self.simulation.validate()?;
        self.routing.validate(&self.router)?;
        let burst = self.traffic.burst_packets;
        let len = u64::from(self.router.packet_length);
        let inject_cycles = u128::from(burst) * u128::from(len);
        if burst > 0 && self.traffic.burst_generation == BurstGeneration::Load {
            // Generated at traffic.load, the burst takes burst * len / load cycles on average.
            let mean = inject_cycles as f64 / self.traffic.load;
            if mean > self.simulation.max_cycles as f64 {
                return Err(field_err(
                    "traffic.burst_packets",
                    format!(
                        "{burst} packets of {len} phits per node, generated at traffic.load = {} (traffic.burst_generation = \"load\"), take {mean:.0} cycles on average, more than simulation.max_cycles = {}: raise traffic.load or simulation.max_cycles, or send fewer packets",
                        self.traffic.load, self.simulation.max_cycles
                    ),
                ));
            }
        }
        if burst > 0 && inject_cycles > u128::from(self.simulation.max_cycles) {
            // An injection port sends one phit per cycle, so the burst cannot be consumed in
            // time: the run would only stop at max_cycles (and the packet count overflows).
            return Err(field_err(
                "traffic.burst_packets",
                format!(
                    "{burst} packets of {len} phits per node need at least {inject_cycles} cycles to inject (one phit per cycle), more than simulation.max_cycles = {}: allowed up to {} packets, or raise simulation.max_cycles (at most {MAX_CYCLES})",
                    self.simulation.max_cycles,
                    self.simulation.max_cycles / len
                ),
            ));
        }
        if self.router.lrs_update == LrsUpdate::Request {
            let sim = &self.simulation;
            for (field, cycles) in [
                ("simulation.max_cycles", sim.max_cycles),
                (
                    "simulation.measure_cycles",
                    sim.warmup_cycles.saturating_add(sim.measure_cycles),
                ),
            ] {
                if cycles > LRS_REQUEST_MAX_CYCLES {
                    return Err(field_err(
                        field,
                        format!("{cycles} cycles is too long with router.lrs_update = \"request\": allowed up to {LRS_REQUEST_MAX_CYCLES} (warm-up plus measurement, and max_cycles)"),
                    ));
                }
            }
        }
        self.check_change_time()?;
        let t = &self.topology;
        let longest = t
            .local_latency
            .max(t.global_latency)
            .max(t.terminal_latency) as u64
            + self.router.packet_length as u64;
        if self.simulation.watchdog_cycles <= longest {
            return Err(field_err(
                "simulation.watchdog_cycles",
                format!("{} cycles is shorter than one hop ({longest} cycles: longest link latency plus a packet); use more", self.simulation.watchdog_cycles),
            ));
        }
        Ok(())
    }
}

impl Config {
    /// A traffic change must come before the run ends.
    fn check_change_time(&self) -> Result<(), ConfigError> {
        if let Some(ch) = &self.traffic.change {
            let end = self
                .simulation
                .warmup_cycles
                .saturating_add(self.simulation.measure_cycles);
            if ch.at_cycle >= end {
                // The run's last cycle is end - 1: the change would never happen.
                return Err(field_err(
                    "traffic.change.at_cycle",
                    format!(
                        "cycle {} is not before the end of the run ({end} cycles: simulation.warmup_cycles + measure_cycles), so the change would never happen: use at most {}, or run longer",
                        ch.at_cycle,
                        end - 1
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Whether the run generates synthetic traffic (`[traffic]` at some phase): not when it
    /// has flows and a load of 0 before and after any change.
    pub fn synthetic_traffic(&self) -> bool {
        let change_load = self.traffic.change.as_ref().and_then(|c| c.load);
        !self.has_flows() || self.traffic.load != 0.0 || change_load.unwrap_or(0.0) != 0.0
    }

    /// The IQ dragonfly engine reads none of the kernel's sections: each set is an error
    /// naming the switch kind that reads it.
    fn validate_iq_only(&self) -> Result<(), ConfigError> {
        let cioq =
            "is read only by the general kernel: set switch.kind = \"cioq\", or leave it out";
        if self.topology.kind != TopologyKind::Dragonfly {
            return Err(field_err(
                "topology.kind",
                "this topology needs the general kernel: set switch.kind = \"cioq\" (the input-queued engine models the dragonfly only)",
            ));
        }
        if self.routing.algorithm == RoutingAlgorithm::Dfp {
            return Err(field_err(
                "routing.algorithm",
                "\"dfp\" is Dragonfly+'s routing and runs on the general kernel: set switch.kind = \"cioq\" and topology.kind = \"dragonfly-plus\"",
            ));
        }
        self.switch.validate(self.router.packet_length)?;
        if !self.flow_control.is_default() {
            return Err(field_err("flow_control", cioq));
        }
        if !self.nic.is_default() {
            return Err(field_err("nic", cioq));
        }
        if !self.flows.is_empty() {
            return Err(field_err("flows", cioq));
        }
        if !self.collectives.is_empty() {
            return Err(field_err("collectives", cioq));
        }
        if !self.routing.selection.is_adaptive() {
            return Err(field_err("routing.selection", cioq));
        }
        if let Some(key) = self.routing.kernel_paths_key() {
            return Err(field_err(key, cioq));
        }
        if self.traffic.allow_self {
            return Err(field_err("traffic.allow_self", cioq));
        }
        if !self.link_classes.is_empty() {
            return Err(field_err(
                "link_classes",
                format!("{cioq} (the input-queued engine sizes its buffers with router.buffer_local and buffer_global, and its links with topology.local_latency and global_latency)"),
            ));
        }
        if self.qcn.is_some() {
            return Err(field_err("qcn", cioq));
        }
        if self.simulation.port_series_window != 0 {
            return Err(field_err("simulation.port_series_window", cioq));
        }
        if self.routing.pb_global_threshold != RoutingConfig::default().pb_global_threshold {
            return Err(field_err(
                "routing.pb_global_threshold",
                "is read only by the general kernel's PB (FOGSim v5's, switch.kind = \"cioq\"): the input-queued engine's PB adds routing.pb_margin packets to its flag threshold",
            ));
        }
        Ok(())
    }

    /// PB on the general kernel (FOGSim v5's): it reads the credits of every VC, and none
    /// of the input-queued engine's PB keys.
    fn validate_kernel_pb(&self) -> Result<(), ConfigError> {
        let d = RoutingConfig::default();
        let r = &self.routing;
        check_finite_at_least(
            "routing.pb_global_threshold",
            r.pb_global_threshold,
            0.0,
            " of packets",
        )?;
        if r.ugal_threshold.is_nan() {
            return Err(field_err(
                "routing.ugal_threshold",
                "NaN is not a threshold: give a number (phits; inf and -inf are allowed)",
            ));
        }
        check_finite_at_least("routing.pb_factor", r.pb_factor, 0.0, "")?;
        let iq_only = [
            ("routing.pb_period", r.pb_period != d.pb_period, "its flags are computed every cycle"),
            (
                "routing.pb_utilisation",
                r.pb_utilisation != d.pb_utilisation,
                "it flags by occupancy only",
            ),
            (
                "routing.pb_margin",
                r.pb_margin != d.pb_margin,
                "its margin is routing.pb_global_threshold (packets, FOGSim's ugal_global_threshold, default 5)",
            ),
            ("routing.pb_model", r.pb_model != d.pb_model, "it is FOGSim v5's reading"),
        ];
        for (key, set, why) in iq_only {
            if set {
                return Err(field_err(
                    key,
                    format!("is read only by the input-queued engine's PB; the general kernel's PB (FOGSim v5's) does not read it: {why}. Leave it out"),
                ));
            }
        }
        if self.flow_control.kind != FlowControlKind::Credits {
            return Err(field_err(
                "flow_control.kind",
                "PB weighs its paths and flags its global links by the credits of each VC: use kind = \"credits\" (the default) with routing.algorithm = \"pb\"",
            ));
        }
        if self.switch.queues != QueueScheme::Vc {
            return Err(field_err(
                "switch.queues",
                "PB reads the credits of each VC: use queues = \"vc\" with routing.algorithm = \"pb\"",
            ));
        }
        Ok(())
    }

    /// Validation for the general kernel: every section it reads, then what needs several of
    /// them. What needs the built network (PFC headroom against link latencies, VCs against
    /// path lengths) is checked when the kernel is built.
    fn validate_kernel(&self) -> Result<(), ConfigError> {
        let len = self.router.packet_length;
        match self.topology.kind {
            TopologyKind::Dragonfly => self.topology.validate()?,
            TopologyKind::Graph => self.topology.graph()?.validate()?,
            _ => self.topology.validate_generated()?,
        }
        if self.topology.terminal_latency == 0 {
            return Err(field_err(
                "topology.terminal_latency",
                "0 cycles: the general kernel models the link between a node and its switch; use at least 1",
            ));
        }
        self.router.validate()?;
        link_classes::validate(&self.link_classes, len)?;
        self.switch.validate(len)?;
        self.flow_control.validate(len)?;
        self.nic.validate(len)?;
        if let Some(q) = &self.qcn {
            q.validate()?;
            let interval = q.cpc as u64 * len as u64;
            if interval > QCN_MAX_INTERVAL {
                return Err(field_err(
                    "qcn.cpc",
                    format!(
                        "{} packets of {len} phits is a sampling interval of {interval} cycles: \
                         allowed up to {QCN_MAX_INTERVAL} (cpc at most {})",
                        q.cpc,
                        QCN_MAX_INTERVAL / len.max(1) as u64
                    ),
                ));
            }
            if self.switch.queues != QueueScheme::Vc {
                return Err(field_err(
                    "switch.queues",
                    "QCN's notifications travel on VCs of their own: use queues = \"vc\" with [qcn]",
                ));
            }
        }
        self.simulation.validate()?;
        match (self.routing.algorithm, self.topology.kind) {
            (RoutingAlgorithm::Min, _)
            | (RoutingAlgorithm::Val, TopologyKind::Dragonfly)
            | (RoutingAlgorithm::Dfp, TopologyKind::DragonflyPlus) => {}
            (RoutingAlgorithm::Pb, TopologyKind::Dragonfly) => self.validate_kernel_pb()?,
            (RoutingAlgorithm::Pb, _) => {
                return Err(field_err(
                    "routing.algorithm",
                    "\"pb\" on the general kernel needs topology.kind = \"dragonfly\" (its flags are those of a dragonfly group's global links; elsewhere use \"min\")",
                ))
            }
            (RoutingAlgorithm::Val, _) => {
                return Err(field_err(
                    "routing.algorithm",
                    "\"val\" on the general kernel needs topology.kind = \"dragonfly\" (on Dragonfly+ use \"dfp\", elsewhere \"min\")",
                ))
            }
            (RoutingAlgorithm::Dfp, _) => {
                return Err(field_err(
                    "routing.algorithm",
                    "\"dfp\" is Dragonfly+'s routing: it needs topology.kind = \"dragonfly-plus\" (on the dragonfly use \"val\", elsewhere \"min\")",
                ))
            }
            (a, _) => {
                return Err(field_err(
                    "routing.algorithm",
                    format!(
                        "\"{}\" is not available on the general kernel yet: use \"min\" (shortest paths), \"val\" or \"pb\" (dragonfly) or \"dfp\" (Dragonfly+)",
                        a.name()
                    ),
                ))
            }
        }
        if self.routing.algorithm != RoutingAlgorithm::Min
            && self.routing.paths != crate::config::Paths::Shortest
        {
            return Err(field_err(
                "routing.paths",
                format!(
                    "\"{}\" orders the VCs of its own paths: leave routing.paths at \"shortest\" with it",
                    self.routing.algorithm.name()
                ),
            ));
        }
        let sel = self.routing.selection;
        if !sel.is_adaptive() && self.topology.kind == TopologyKind::Dragonfly {
            return Err(field_err(
                "routing.selection",
                format!(
                    "\"{}\": the dragonfly's minimal path between two routers is unique, there is nothing to select; leave it out",
                    sel.name()
                ),
            ));
        }
        if !sel.any_topology() && !self.topology.kind.is_generated() {
            return Err(field_err(
                "routing.selection",
                format!(
                    "\"{}\" needs a generated topology (topology.kind = \"tree\", \"xgft\", \"rlft\", \"multistage\" or \"dragonfly-plus\"); use \"adaptive\", \"random\", \"least-loaded\" or \"round-robin\" here",
                    sel.name()
                ),
            ));
        }
        if let Some(q) = &self.qcn {
            let t = &self.topology;
            if q.routing && t.kind == TopologyKind::Dragonfly && t.p != t.h {
                return Err(field_err(
                    "qcn.routing",
                    format!(
                        "QCN-Switch's non-minimal rule sends the packets of node i through global port i of its switch, so it needs as many nodes as global ports per switch (topology.p = {} but h = {}): use p = h, or qcn.routing = false to measure the probabilities only",
                        t.p, t.h
                    ),
                ));
            }
        }
        self.routing.validate_paths(self.topology.kind)?;
        if self.synthetic_traffic() {
            self.check_change_time()?;
            if self.traffic.burst_packets > 0 {
                return Err(field_err(
                    "traffic.burst_packets",
                    "bursts are not available on the general kernel yet: use [[flows]] with a size",
                ));
            }
            // Flows alone until a change of load: the first phase generates nothing, so its
            // load of 0 is checked as any valid load would be.
            let mut traffic = std::borrow::Cow::Borrowed(&self.traffic);
            if self.traffic.load == 0.0 && self.has_flows() {
                traffic.to_mut().load = 1.0;
            }
            match self.topology.kind {
                TopologyKind::Dragonfly => traffic.validate(&self.topology)?,
                _ => traffic.validate_flat(self.topology.flat_nodes().unwrap_or(0))?,
            }
        }
        let nodes = self.node_count();
        let (flows, _) = self.kernel_flows_checked(nodes)?;
        validate_flows(&flows, nodes)?;
        Ok(())
    }

    /// Whether the run has explicit flows: `[[flows]]` or `[[collectives]]`.
    pub fn has_flows(&self) -> bool {
        !self.flows.is_empty() || !self.collectives.is_empty()
    }

    /// The number of nodes of the network (0 when its topology is not valid).
    fn node_count(&self) -> u64 {
        match self.topology.kind {
            TopologyKind::Dragonfly => {
                (self.topology.p * self.topology.a * self.topology.num_groups()) as u64
            }
            _ => self.topology.flat_nodes().unwrap_or(0) as u64,
        }
    }

    /// The flows the general kernel runs: `[[flows]]`, then the flows of every collective,
    /// with where each collective's flows are; an error names the collective's key.
    pub fn kernel_flows(&self) -> Result<KernelFlows<'_>, ConfigError> {
        if self.collectives.is_empty() {
            return Ok((std::borrow::Cow::Borrowed(&self.flows), Vec::new()));
        }
        let (flows, layout) = self.kernel_flows_checked(self.node_count())?;
        Ok((std::borrow::Cow::Owned(flows), layout))
    }

    fn kernel_flows_checked(
        &self,
        nodes: u64,
    ) -> Result<(Vec<FlowSpec>, Vec<CollectiveFlows>), ConfigError> {
        let (mut flows, layout) = collective::expand(&self.collectives, self.flows.len(), nodes)?;
        let mut all = self.flows.clone();
        all.append(&mut flows);
        Ok((all, layout))
    }
}

/// The flows of a kernel run and where each collective's are ([`Config::kernel_flows`]).
pub type KernelFlows<'a> = (std::borrow::Cow<'a, [FlowSpec]>, Vec<CollectiveFlows>);

/// At most this many errors are reported for one configuration.
pub const MAX_REPORTED_ERRORS: usize = 20;

/// Put the key at `path` (as serde_path_to_error writes it) back to its value in `defaults`,
/// or remove it where the default has none (an unknown key, an optional one). A path into an
/// array (`traffic.mix[1].pattern`) resets the whole array. False when nothing changed.
fn reset_to_default(tree: &mut toml::Value, defaults: &toml::Value, path: &str) -> bool {
    // A key of one entry of an array of tables (`flows[1].dst`): remove it from that entry,
    // which then takes the key's default, rather than the whole array (the other entries,
    // and the keys that depend on them, stay as written).
    if let Some((array, rest)) = path.split_once('[') {
        if let Some((index, key)) = rest.split_once("].") {
            if !key.contains('[') && !key.contains('.') {
                let entry = array
                    .split('.')
                    .try_fold(&mut *tree, |node, part| node.get_mut(part))
                    .and_then(|a| a.get_mut(index.parse::<usize>().ok()?))
                    .and_then(|e| e.as_table_mut());
                if let Some(entry) = entry {
                    return entry.remove(key).is_some();
                }
            }
        }
    }
    let path = path.split('[').next().unwrap_or(path);
    let parts: Vec<&str> = path.split('.').filter(|p| !p.is_empty()).collect();
    let Some((last, parents)) = parts.split_last() else {
        return false;
    };
    let default = parts
        .iter()
        .try_fold(defaults, |node, part| node.get(part))
        .cloned();
    let Some(table) = parents
        .iter()
        .try_fold(&mut *tree, |node, part| node.get_mut(part))
        .and_then(|node| node.as_table_mut())
    else {
        return false;
    };
    match default {
        Some(d) => table.insert(last.to_string(), d.clone()).as_ref() != Some(&d),
        None => table.remove(*last).is_some(),
    }
}

/// serde's one-line message about a TOML value, as a user of the configuration should read
/// it: TOML kinds instead of Rust types, and the key or name probably meant.
pub fn explain(message: &str) -> String {
    suggest::with_hint(&plain_type_names(message))
}

/// serde names the Rust type it wanted (`expected usize`); a user wrote TOML, so say what
/// kind of TOML value that is.
fn plain_type_names(message: &str) -> String {
    let kind = |rust: &str| match rust {
        "usize" | "u64" | "u32" | "u16" | "u8" => Some("a whole number, 0 or more".to_string()),
        "i64" => Some("a whole number".to_string()),
        "f64" => Some("a number".to_string()),
        "a sequence" => Some("an array".to_string()),
        "a map" => Some("a table".to_string()),
        // `expected struct TopologyConfig`, `expected struct MixEntry`.
        r if r.starts_with("struct ") => Some("a table".to_string()),
        _ => None,
    };
    // What was found, in TOML's words too (`invalid type: sequence` is an array).
    let message = message
        .replace("invalid type: sequence,", "invalid type: array,")
        .replace("invalid type: map,", "invalid type: table,")
        .replace("invalid type: floating point `", "invalid type: number `");
    match message.rsplit_once("expected ") {
        Some((head, rust)) => match kind(rust) {
            Some(toml) => format!("{head}expected {toml}"),
            None => message.to_string(),
        },
        None => message.to_string(),
    }
}

/// The value at a path as serde_path_to_error writes it (`traffic.mix[1].pattern`).
fn value_at<'a>(root: &'a mut toml::Value, path: &str) -> Option<&'a mut toml::Value> {
    let mut node = root;
    for part in path.split('.') {
        let (name, indices) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        node = node.get_mut(name)?;
        for index in indices.split(']').filter(|s| !s.is_empty()) {
            node = node.get_mut(index.strip_prefix('[')?.parse::<usize>().ok()?)?;
        }
    }
    Some(node)
}

thread_local! {
    /// Set while [`every_key`] serialises: the `skip_serializing_if` tests of keys left out at
    /// their default then keep them.
    static EVERY_KEY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

fn skip_switch(v: &SwitchConfig) -> bool {
    !writing_every_key() && v.is_default()
}
fn skip_flow_control(v: &FlowControlConfig) -> bool {
    !writing_every_key() && v.is_default()
}
fn skip_nic(v: &NicConfig) -> bool {
    !writing_every_key() && v.is_default()
}

/// Whether a serialisation writes every key ([`Config::to_complete_toml_string`]).
fn writing_every_key() -> bool {
    EVERY_KEY.with(|k| k.get())
}

/// Run `f` (a serialisation) with every key written.
fn every_key<T>(f: impl FnOnce() -> T) -> T {
    EVERY_KEY.with(|k| k.set(true));
    let out = f();
    EVERY_KEY.with(|k| k.set(false));
    out
}

pub(crate) fn field_err(field: &str, message: impl Into<String>) -> ConfigError {
    ConfigError::Field {
        field: field.to_string(),
        message: message.into(),
    }
}

/// `value` must be finite and at least `min` (NaN fails too); `unit` follows "number" in
/// the message (e.g. " of packets").
fn check_finite_at_least(field: &str, value: f64, min: f64, unit: &str) -> Result<(), ConfigError> {
    if value >= min && value.is_finite() {
        return Ok(());
    }
    Err(field_err(
        field,
        format!("{value} is not allowed: must be a finite number{unit} >= {min}"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_default_equals_struct_defaults() {
        // The file users see (`arcsim config`) and the library defaults must not drift apart.
        assert_eq!(Config::embedded_default(), Config::default());
        Config::default().validate().unwrap();
    }

    #[test]
    fn ofar_with_equal_injection_priority_gets_one_advisory() {
        let config = |alg: RoutingAlgorithm, cm: CongestionKind, prio: InjectionPriority| {
            let mut c = Config::default();
            c.routing.algorithm = alg;
            c.routing.congestion = cm;
            c.router.injection_priority = prio;
            c
        };
        let with = |alg, cm, prio| config(alg, cm, prio).advisories().len();
        // The paper's literal misrouting rules.
        let literal = |alg, cm, prio| {
            let mut c = config(alg, cm, prio);
            c.routing.misroute_trigger = MisrouteTrigger::Unavailable;
            c.routing.misroute_congested_global = None;
            c.advisories().len()
        };
        use CongestionKind as C;
        use InjectionPriority as P;
        use RoutingAlgorithm as A;
        assert_eq!(with(A::Ofar, C::None, P::Equal), 1);
        assert_eq!(with(A::OfarL, C::None, P::Equal), 1);
        assert_eq!(with(A::Ofar, C::None, P::TransitFirst), 0);
        assert_eq!(with(A::Ofar, C::Bcm, P::Equal), 0);
        assert_eq!(with(A::OfarL, C::Ecm, P::Equal), 0);
        assert_eq!(literal(A::Ofar, C::Bcm, P::Equal), 1);
        assert_eq!(literal(A::OfarL, C::Ecm, P::Equal), 1);
        assert_eq!(literal(A::Ofar, C::None, P::Equal), 1);
        assert_eq!(literal(A::Ofar, C::Bcm, P::TransitFirst), 0);
        assert_eq!(literal(A::Min, C::None, P::Equal), 0);
        // Either of FOGSim's rules alone keeps BCM and ECM up: no note.
        let mut half = config(A::Ofar, C::Bcm, P::Equal);
        half.routing.misroute_trigger = MisrouteTrigger::Unavailable;
        assert!(half.advisories().is_empty());
        assert_eq!(with(A::Min, C::None, P::Equal), 0);
        assert_eq!(with(A::Pb, C::None, P::Equal), 0);
        assert!(Config::default().advisories().is_empty());
    }

    /// Every key the complete configuration has is in the embedded default that `arcsim
    /// config` prints, and the complete text reads back to the same configuration.
    #[test]
    fn the_embedded_default_lists_every_key() {
        fn keys(v: &toml::Value, prefix: &str, out: &mut Vec<String>) {
            if let toml::Value::Table(t) = v {
                for (k, x) in t {
                    let path = format!("{prefix}{k}");
                    keys(x, &format!("{path}."), out);
                    out.push(path);
                }
            }
        }
        let complete = Config::default().to_complete_toml_string().unwrap();
        let short = Config::default().to_toml_string().unwrap();
        assert!(complete.contains("crossbar_input") && !short.contains("crossbar_input"));
        let (mut all, mut listed) = (Vec::new(), Vec::new());
        keys(&toml::from_str(&complete).unwrap(), "", &mut all);
        keys(&toml::from_str(DEFAULT_TOML).unwrap(), "", &mut listed);
        let missing: Vec<_> = all.iter().filter(|k| !listed.contains(k)).collect();
        assert!(missing.is_empty(), "default.toml lacks {missing:?}");
        assert_eq!(Config::from_toml_str(&complete).unwrap(), Config::default());
        assert!(Config::default().to_complete_json()["router"]["lrs_update"].is_string());
    }

    #[test]
    fn every_error_is_found_not_only_the_first() {
        let tree: toml::Value = toml::from_str(
            "[topology]\nhh = 3\np = \"x\"\n[traffic]\nload = 2.0\n[router]\npacket_length = 0\n",
        )
        .unwrap();
        let errors = Config::from_value_all(tree, crate::validate).unwrap_err();
        let fields: Vec<&str> = errors.iter().filter_map(|e| e.field()).collect();
        for f in [
            "topology.hh",
            "topology.p",
            "traffic.load",
            "router.packet_length",
        ] {
            assert!(fields.contains(&f), "{f} not reported: {errors:?}");
        }
        assert_eq!(fields.len(), 4, "{errors:?}");
        let valid = toml::from_str(DEFAULT_TOML).unwrap();
        assert_eq!(
            Config::from_value_all(valid, crate::validate).unwrap(),
            Config::default()
        );
    }

    #[test]
    fn toml_types_are_named_as_a_user_writes_them() {
        let err = |text: &str| Config::from_toml_str(text).unwrap_err().to_string();
        let e = err("topology = 3");
        assert!(
            e.contains("expected a table") && !e.contains("struct"),
            "{e}"
        );
        let e = err("[traffic]\nmix = 3");
        assert!(e.contains("expected an array"), "{e}");
        let e = err("[topology]\nh = [1]");
        assert!(
            e.contains("invalid type: array, expected a whole number"),
            "{e}"
        );
    }

    #[test]
    fn round_trips_through_toml() {
        let c = Config::embedded_default();
        assert_eq!(
            Config::from_toml_str(&c.to_toml_string().unwrap()).unwrap(),
            c
        );
    }
}
