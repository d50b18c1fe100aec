//! Helpers shared by the integration tests (each test file includes this module with
//! `mod common;`, so not every helper is used by every file).
#![allow(dead_code)]

use arcsim::config::{
    apply_override, Config, PatternKind, RoutingAlgorithm, ValiantModel, DEFAULT_TOML,
};
use arcsim::topology::{Dragonfly, Network, PortClass, Topology};
use arcsim::RunResult;

/// The embedded default configuration with `--set`-style overrides applied, validated.
pub fn config(sets: &[&str]) -> Config {
    let mut tree: toml::Value = toml::from_str(DEFAULT_TOML).expect("default parses");
    for s in sets {
        apply_override(&mut tree, s).unwrap_or_else(|e| panic!("override {s}: {e}"));
    }
    let cfg = Config::from_value(tree).unwrap_or_else(|e| panic!("{sets:?}: {e}"));
    arcsim::validate(&cfg).unwrap_or_else(|e| panic!("{sets:?}: {e}"));
    cfg
}

/// The small balanced dragonfly p=2, a=4, h=2 (9 groups, 36 routers, 72 nodes) plus overrides.
pub fn small(sets: &[&str]) -> Config {
    let mut all = vec!["topology.p=2", "topology.a=4", "topology.h=2"];
    all.extend_from_slice(sets);
    config(&all)
}

/// Run and panic with the configuration on error.
pub fn run(cfg: &Config) -> RunResult {
    arcsim::run(cfg).unwrap_or_else(|e| {
        panic!(
            "run failed: {e}\nconfig:\n{}",
            cfg.to_toml_string().unwrap_or_default()
        )
    })
}

/// An independent model of the routes packets take, built only from the topology's wiring
/// and helper functions (not from the routing code), for analytic expectations.
///
/// Routes are lists of global port indices (`net.port_base[r] + port`) of the router-to-router
/// links traversed; the ejection link is not included.
pub struct Paths {
    pub df: Dragonfly,
    pub net: Network,
}

/// One way a packet may go: it leaves router `src`, follows `ports`; `weight` is the fraction
/// of the packets generated at a node of `src` that take it.
#[derive(Debug, Clone)]
pub struct Flow {
    pub src: usize,
    pub weight: f64,
    pub ports: Vec<usize>,
}

impl Paths {
    pub fn new(cfg: &Config) -> Paths {
        let df = Dragonfly::new(&cfg.topology);
        let net = df.network();
        Paths { df, net }
    }

    pub fn routers(&self) -> usize {
        self.df.num_routers()
    }

    fn gport(&self, r: usize, port: usize) -> usize {
        self.net.port_base[r] as usize + port
    }

    /// Router reached through global port index `gp`.
    pub fn peer(&self, gp: usize) -> usize {
        let info = self.net.ports[gp];
        assert!(
            matches!(info.class, PortClass::Local | PortClass::Global),
            "port {gp} is not a router-to-router link"
        );
        info.peer as usize
    }

    /// Port of router `r` on the minimal (l-g-l) path to router `to`, from the topology's
    /// definition: inside a group, the direct local link; otherwise the global link between
    /// the two groups, reached by a local hop when another router of the group holds it.
    pub fn minimal_port(&self, r: usize, to: usize) -> Option<usize> {
        let df = &self.df;
        if r == to {
            return None;
        }
        let (cg, tg, ci) = (df.group_of(r), df.group_of(to), df.index_in_group(r));
        if cg == tg {
            return Some(df.local_port(ci, df.index_in_group(to)));
        }
        let (ri, port) = df.global_link_port(df.global_link_to(cg, tg));
        Some(if ri == ci {
            port
        } else {
            df.local_port(ci, ri)
        })
    }

    /// Append the minimal path `from` -> `to` to `ports`.
    pub fn minimal_into(&self, from: usize, to: usize, ports: &mut Vec<usize>) {
        let mut r = from;
        while let Some(port) = self.minimal_port(r, to) {
            let gp = self.gport(r, port);
            ports.push(gp);
            r = self.peer(gp);
            assert!(
                ports.len() < 64,
                "minimal path {from}->{to} does not converge"
            );
        }
    }

    /// Destination routers of a packet generated at a node of router `s`, with probabilities.
    pub fn destinations(&self, pattern: PatternKind, offset: usize, s: usize) -> Vec<(usize, f64)> {
        let (p, a, g) = (self.df.p, self.df.a, self.df.g);
        let nodes = self.df.num_nodes();
        let sg = s / a;
        match pattern {
            PatternKind::Uniform => (0..self.routers())
                .map(|d| {
                    let n = if d == s { p - 1 } else { p };
                    (d, n as f64 / (nodes - 1) as f64)
                })
                .filter(|&(_, w)| w > 0.0)
                .collect(),
            PatternKind::AdvGlobal => {
                let dg = (sg + offset) % g;
                (0..a).map(|i| (dg * a + i, 1.0 / a as f64)).collect()
            }
            PatternKind::AdvLocal => vec![(sg * a + (s % a + offset) % a, 1.0)],
            // Each of the router's p nodes sends to the node `offset` further on.
            PatternKind::Shift => (0..p)
                .map(|k| (((s * p + k + offset) % nodes) / p, 1.0 / p as f64))
                .collect(),
            other => panic!("no analytic model for pattern {other:?}"),
        }
    }

    /// Routes from router `s` to router `d` under `alg` (MIN, VAL, VAL-any), with
    /// probabilities, following the algorithms' definitions: VAL goes minimally to the router of
    /// its own group holding the link to a random group other than the source and destination
    /// groups, crosses it, then minimally to `d`; VAL-any goes minimally to a random router
    /// (any router, uniformly), then minimally to `d`. With `fogsim` (FOGSim's Valiant node)
    /// the intermediate is a random router outside the source group: VAL takes its group, the
    /// destination's included (then the path is minimal), VAL-any the router itself.
    pub fn routes(
        &self,
        alg: RoutingAlgorithm,
        fogsim: bool,
        s: usize,
        d: usize,
    ) -> Vec<(f64, Vec<usize>)> {
        let (a, g) = (self.df.a, self.df.g);
        let sg = s / a;
        match alg {
            RoutingAlgorithm::Min => {
                let mut v = Vec::new();
                self.minimal_into(s, d, &mut v);
                vec![(1.0, v)]
            }
            RoutingAlgorithm::Val => {
                let dg = d / a;
                let inters: Vec<usize> =
                    (0..g).filter(|&i| i != sg && (fogsim || i != dg)).collect();
                assert!(!inters.is_empty(), "no Valiant group");
                inters
                    .iter()
                    .map(|&i| {
                        if i == dg {
                            let mut v = Vec::new();
                            self.minimal_into(s, d, &mut v);
                            return (1.0 / inters.len() as f64, v);
                        }
                        let link = self.df.global_link_to(sg, i);
                        let (ri, port) = self.df.global_link_port(link);
                        let gate = sg * a + ri;
                        let mut v = Vec::new();
                        self.minimal_into(s, gate, &mut v);
                        let gp = self.gport(gate, port);
                        v.push(gp);
                        self.minimal_into(self.peer(gp), d, &mut v);
                        (1.0 / inters.len() as f64, v)
                    })
                    .collect()
            }
            RoutingAlgorithm::ValAny => {
                let inters: Vec<usize> = (0..self.routers())
                    .filter(|&r| !fogsim || r / a != sg)
                    .collect();
                inters
                    .iter()
                    .map(|&r| {
                        let mut v = Vec::new();
                        self.minimal_into(s, r, &mut v);
                        self.minimal_into(r, d, &mut v);
                        (1.0 / inters.len() as f64, v)
                    })
                    .collect()
            }
            other => panic!("{other:?} is adaptive: no static route model"),
        }
    }

    /// Every (source router, route) of the workload, weighted per source router.
    pub fn flows(&self, cfg: &Config) -> Vec<Flow> {
        let mut out = Vec::new();
        for s in 0..self.routers() {
            for (d, pd) in self.destinations(cfg.traffic.pattern, cfg.traffic.offset, s) {
                let fogsim = cfg.routing.valiant_model == ValiantModel::Fogsim;
                for (pr, ports) in self.routes(cfg.routing.algorithm, fogsim, s, d) {
                    out.push(Flow {
                        src: s,
                        weight: pd * pr,
                        ports,
                    });
                }
            }
        }
        out
    }

    /// Zero-load latency of a route: link latencies, plus the tail (L - 1 cycles) and the
    /// ejection link.
    pub fn zero_load_latency(&self, cfg: &Config, ports: &[usize]) -> u64 {
        let links: u64 = ports
            .iter()
            .map(|&gp| self.net.ports[gp].latency as u64)
            .sum();
        links + cfg.router.packet_length as u64 - 1 + cfg.topology.terminal_latency as u64
    }

    /// Load on every router-to-router link (phits/cycle) when every node offers `load`, in
    /// the fluid model; indexed by global port.
    pub fn link_loads(&self, cfg: &Config, load: f64) -> Vec<f64> {
        let mut l = vec![0.0; self.net.ports.len()];
        let p = self.df.p as f64;
        for f in self.flows(cfg) {
            for &gp in &f.ports {
                l[gp] += p * load * f.weight;
            }
        }
        l
    }

    /// Fluid-model saturation throughput: the offered load at which the most loaded link
    /// reaches 1 phit/cycle (at most 1, the injection/ejection limit).
    pub fn fluid_bound(&self, cfg: &Config) -> f64 {
        let max = self.link_loads(cfg, 1.0).into_iter().fold(0.0, f64::max);
        (1.0 / max).min(1.0)
    }

    /// The best fluid bound of any workload that sends a share f of every node's packets on
    /// the path distribution of `a` and the rest on that of `b` (f searched in steps of
    /// 0.001): the ceiling of routings that choose per packet between two oblivious routings,
    /// such as UGAL and Piggyback between MIN and VAL. Returns (best f, bound).
    pub fn mixture_bound(&self, a: &Config, b: &Config) -> (f64, f64) {
        let (la, lb) = (self.link_loads(a, 1.0), self.link_loads(b, 1.0));
        let mut best = (0.0, 0.0);
        for i in 0..=1000 {
            let f = i as f64 / 1000.0;
            let max = la
                .iter()
                .zip(&lb)
                .map(|(x, y)| f * x + (1.0 - f) * y)
                .fold(0.0, f64::max);
            let bound = (1.0 / max).min(1.0);
            if bound > best.1 {
                best = (f, bound);
            }
        }
        best
    }
}

/// The phits the links of each class sent over the window against the hops of that class
/// the delivered packets took: equal within `tolerance` (relative) in steady state. Every
/// link's use also lies between the class's min and max, and the max is at most `max_use`.
pub fn check_link_use(r: &RunResult, tolerance: f64, max_use: f64, what: &str) {
    let l = &r.links;
    let local_hops = r.hops.mean.unwrap() - r.hops.global_mean.unwrap();
    for (class, u, hops) in [
        ("local", &l.local, local_hops),
        ("global", &l.global, r.hops.global_mean.unwrap()),
    ] {
        let sent = u.mean * u.links as f64;
        let carried = r.accepted_load * r.nodes as f64 * hops;
        assert!(
            (sent - carried).abs() <= tolerance * carried.max(1e-9),
            "{what}: {class} links sent {sent:.3} phits/cycle, the delivered packets' hops need {carried:.3}"
        );
        assert!(
            u.min <= u.mean && u.mean <= u.max && u.max <= max_use,
            "{what}: {class}: {u:?}"
        );
    }
}
