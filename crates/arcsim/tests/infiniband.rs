//! The InfiniBand adaptive-routing paper (Rocher-González et al., "Adaptive Routing in
//! InfiniBand Hardware"): its scenarios as configured in `experiments/infiniband/`, run on
//! the general kernel, against the shares the paper reports (the spec's claims). Shares are
//! fractions of a link's payload rate (188 Gbps): 1/2 is the paper's 94 Gbps, 2/3 its
//! 125 Gbps. Also the arbitration model's arithmetic for the parking lots (Figs. 1, 16, 17)
//! and the LAG and TREE groups built from a deterministic table.

use arcsim::config::Config;
use arcsim::RunResult;
use std::path::PathBuf;

fn experiments() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../experiments/infiniband")
}

/// The scenario file `name` with the overrides `sets`, its table made absolute.
fn config(name: &str, sets: &[&str]) -> Config {
    let path = experiments().join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut tree: toml::Value = toml::from_str(&text).unwrap();
    for s in sets {
        arcsim::config::apply_override(&mut tree, s).unwrap_or_else(|e| panic!("{s}: {e}"));
    }
    if let Some(t) = tree
        .get_mut("routing")
        .and_then(|r| r.get_mut("table"))
        .filter(|t| t.as_str().is_some_and(|s| !s.is_empty()))
    {
        let abs = experiments().join(t.as_str().unwrap());
        *t = toml::Value::String(abs.to_string_lossy().into_owned());
    }
    let c = Config::from_value(tree).unwrap_or_else(|e| panic!("{name}: {e}"));
    arcsim::validate(&c).unwrap_or_else(|e| panic!("{name}: {e}"));
    c
}

fn run(name: &str, sets: &[&str]) -> RunResult {
    arcsim::run(&config(name, sets)).unwrap_or_else(|e| panic!("{name} {sets:?}: {e}"))
}

const LAG: [&str; 2] = [
    "routing.groups=lag",
    "routing.selection=ingress-round-robin",
];
/// The spec's default selector: the least loaded port of the LAG group, ties round robin
/// (a pointer per switch, ingress port and group).
const LAG_LEAST: [&str; 2] = ["routing.groups=lag", "routing.selection=least-loaded"];
const TREE: [&str; 2] = [
    "routing.groups=tree",
    "routing.selection=ingress-round-robin",
];

fn near(x: f64, want: f64, tol: f64, what: &str) {
    assert!(
        (x - want).abs() <= tol,
        "{what}: {x:.4}, expected {want:.4} ± {tol}"
    );
}

fn shares(r: &RunResult) -> Vec<f64> {
    r.flows.iter().map(|f| f.throughput).collect()
}

/// Packets an output port sent over the measurement.
fn packets(r: &RunResult, switch: u32, port: u32) -> u64 {
    r.ports
        .iter()
        .find(|p| p.switch == switch && p.port == port)
        .unwrap_or_else(|| panic!("no port {port} at switch {switch}"))
        .packets
}

#[test]
fn s1_adaptive_routing_splits_one_flow_50_50_at_every_rate_deterministic_100_0() {
    // 20, 80 and 200 Gbps offered; 200 is above the link's 188 of payload: a greedy source.
    for (gbps, rate) in [(20.0, 20.0 / 188.0), (80.0, 80.0 / 188.0), (200.0, 1.0f64)] {
        let flows = format!("flows=[{{src = 0, dst = 3, message = 16, rate = {rate}}}]");
        let dr = run("c1_s1.toml", &[&flows]);
        let want = rate.min(1.0);
        near(
            dr.flows[0].throughput,
            want,
            0.02 * want,
            &format!("DR at {gbps} Gbps"),
        );
        // L1 and L2 are ports 3 and 4 of SW1 (switch 0).
        let (l1, l2) = (packets(&dr, 0, 3), packets(&dr, 0, 4));
        assert!(l1 > 0 && l2 == 0, "DR at {gbps}: L1 {l1}, L2 {l2}");
        // Both selectors: at 20 Gbps the links are idle at every packet, so least-loaded
        // alternates only through its round-robin tie-break.
        for sel in [LAG, LAG_LEAST] {
            let mut sets = sel.to_vec();
            sets.push(&flows);
            let ar = run("c1_s1.toml", &sets);
            let what = format!("AR ({}) at {gbps} Gbps", sel[1]);
            near(ar.flows[0].throughput, want, 0.02 * want, &what);
            let (l1, l2) = (packets(&ar, 0, 3), packets(&ar, 0, 4));
            assert!(l1.abs_diff(l2) <= 1 && l1 > 0, "{what}: L1 {l1}, L2 {l2}");
        }
    }
}

#[test]
fn s2_deterministic_188_94_94_adaptive_125_each_same_total() {
    let dr = shares(&run("c1_s2.toml", &[]));
    for (x, want) in dr.iter().zip([1.0, 0.5, 0.5]) {
        near(*x, want, 0.02, "DR");
    }
    for sel in [LAG, LAG_LEAST] {
        let ar = shares(&run("c1_s2.toml", &sel));
        for x in &ar {
            near(*x, 2.0 / 3.0, 0.02, &format!("AR ({})", sel[1]));
        }
        let (td, ta) = (dr.iter().sum::<f64>(), ar.iter().sum::<f64>());
        near(ta / td, 1.0, 0.01, "AR total over DR total");
    }
}

#[test]
fn s3_adaptive_uses_75_percent_under_every_table_deterministic_100_75_50() {
    // Two links: 2.0 is 100% of the inter-switch bandwidth.
    let case1 = run("c1_s3.toml", &[]);
    let case2 = run(
        "c1_s3.toml",
        &[
            "routing.paths=shortest",
            "routing.table=",
            "routing.selection=s-mod-k",
        ],
    );
    let case3 = run("c1_s3.toml", &["routing.table=c1_s3_dr_case3.txt"]);
    let total = |r: &RunResult| shares(r).iter().sum::<f64>();
    near(total(&case1), 2.0, 0.04, "DR case 1 (100%)");
    for (x, want) in shares(&case1).iter().zip([1.0, 0.5, 0.5]) {
        near(*x, want, 0.02, "DR case 1");
    }
    near(total(&case2), 1.5, 0.03, "DR case 2 (75%)");
    near(total(&case3), 1.0, 0.02, "DR case 3 (50%)");
    for (table, sel) in [
        ("c1_dr.txt", LAG),
        ("c1_s3_dr_case3.txt", LAG),
        ("c1_dr.txt", LAG_LEAST),
        ("c1_s3_dr_case3.txt", LAG_LEAST),
    ] {
        let t = format!("routing.table={table}");
        let ar = run("c1_s3.toml", &[sel[0], sel[1], &t]);
        let what = format!("AR ({}) on {table}", sel[1]);
        near(total(&ar), 1.5, 0.03, &format!("{what} (75%)"));
        for x in shares(&ar) {
            near(x, 0.5, 0.02, &format!("{what}, each flow"));
        }
    }
}

/// Each flow's mean share over the series windows inside [from, to) cycles.
fn phase(r: &RunResult, window: u64, from: u64, to: u64) -> Vec<f64> {
    r.flows
        .iter()
        .map(|f| {
            let ks: Vec<usize> = (0..f.series.len())
                .filter(|&k| k as u64 * window >= from && (k as u64 + 1) * window <= to)
                .collect();
            ks.iter().map(|&k| f.series[k]).sum::<f64>() / ks.len() as f64
        })
        .collect()
}

#[test]
fn scenario_3_parking_lot_under_deterministic_routing_reverse_then_fair_under_adaptive() {
    // Flows: 0 local 5 -> 4, 1 remote 2 -> 4, 2 remote 1 -> 4 from 40,000, 3 remote 3 -> 4
    // from 80,000 cycles. The first window of each phase is left out.
    let (w, p) = (4000, 40000);
    let dr = run("c2_sc3.toml", &[]);
    let ar = run("c2_sc3.toml", &TREE);
    let want_dr = [
        [0.5, 0.5, 0.0, 0.0],
        [0.5, 0.25, 0.25, 0.0],
        [0.5, 1.0 / 6.0, 1.0 / 6.0, 1.0 / 6.0],
    ];
    let want_ar = [
        [1.0 / 3.0, 2.0 / 3.0, 0.0, 0.0],
        [1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0, 0.0],
        [1.0 / 3.0, 2.0 / 9.0, 2.0 / 9.0, 2.0 / 9.0],
    ];
    for k in 0..3u64 {
        let (a, b) = (k * p + w, (k + 1) * p);
        for (r, want, what) in [(&dr, &want_dr, "DR"), (&ar, &want_ar, "AR")] {
            let got = phase(r, w, a, b);
            for (f, (x, y)) in got.iter().zip(want[k as usize]).enumerate() {
                near(*x, y, 0.03, &format!("{what} phase {k} flow {f}"));
            }
        }
    }
}

#[test]
fn scenario_5_adaptive_routing_costs_a_quarter_of_the_total() {
    let dr = shares(&run("c2_sc5.toml", &[]));
    let ar = shares(&run("c2_sc5.toml", &TREE));
    // DR: 1 -> 4 and 37 -> 4 share node 4's link, 39 -> 28 at full rate.
    for (x, want) in dr.iter().zip([0.5, 0.5, 1.0]) {
        near(*x, want, 0.03, "DR");
    }
    // AR: the victim 39 -> 28 waits behind hot packets at the roots.
    for x in &ar {
        near(*x, 0.5, 0.04, "AR");
    }
    let (td, ta) = (dr.iter().sum::<f64>(), ar.iter().sum::<f64>());
    near(ta / td, 0.75, 0.03, "AR total over DR total");
}

#[test]
fn parking_lot_and_reverse_parking_lot_on_networks() {
    // Fig. 1: red, blue, yellow, green from the far end of the chain to the exit's switch.
    let r = shares(&run("parking_lot.toml", &[]));
    for (x, want) in r.iter().zip([0.125, 0.125, 0.25, 0.5]) {
        near(*x, want, 0.01, "parking lot");
    }
    // Fig. 16: blue on three lanes (an AR group of three), green on one.
    let ar = shares(&run("reverse_parking_lot.toml", &[]));
    near(ar[0], 0.75, 0.01, "reverse parking lot, blue");
    near(ar[1], 0.25, 0.01, "reverse parking lot, green");
    let dr = shares(&run(
        "reverse_parking_lot.toml",
        &[
            "routing.paths=table",
            "routing.table=reverse_parking_lot_dr.txt",
        ],
    ));
    near(dr[0], 0.5, 0.01, "one lane each, blue");
    near(dr[1], 0.5, 0.01, "one lane each, green");
}

/// The arbitration model of §II-A and §V as arithmetic: an egress shared round robin by its
/// ingress lanes gives each busy lane an equal part; a lane's part is shared the same way by
/// what feeds it.
enum Lane {
    Flow(usize),
    Merge(Vec<Lane>),
}

fn lane_shares(lane: &Lane, part: f64, out: &mut [f64]) {
    match lane {
        Lane::Flow(f) => out[*f] += part,
        Lane::Merge(v) => v
            .iter()
            .for_each(|l| lane_shares(l, part / v.len() as f64, out)),
    }
}

#[test]
fn the_lane_model_gives_figs_1_16_and_17() {
    use Lane::*;
    let shares = |l: Lane, n: usize| {
        let mut out = vec![0.0; n];
        lane_shares(&l, 1.0, &mut out);
        out
    };
    // Fig. 1 (0 red, 1 blue, 2 yellow, 3 green): 1/8, 1/8, 1/4, 1/2.
    let chain = Merge(vec![
        Flow(3),
        Merge(vec![Flow(2), Merge(vec![Flow(1), Flow(0)])]),
    ]);
    assert_eq!(shares(chain, 4), [0.125, 0.125, 0.25, 0.5]);
    // Fig. 16 (0 blue on lanes 1-3, 1 green on lane 4): 3/4, 1/4.
    let case1 = Merge(vec![Flow(0), Flow(0), Flow(0), Flow(1)]);
    assert_eq!(shares(case1, 2), [0.75, 0.25]);
    // Fig. 17 as the spec's E.12 reconstructs it (0 blue, 1 red, 2 yellow, 3 green): lane 1
    // blue; lane 2 red and blue; lane 3 yellow and the traffic from the left (blue, red);
    // lane 4 green: 7/16, 3/16, 1/8, 1/4.
    let case2 = Merge(vec![
        Flow(0),
        Merge(vec![Flow(1), Flow(0)]),
        Merge(vec![Flow(2), Merge(vec![Flow(0), Flow(1)])]),
        Flow(3),
    ]);
    assert_eq!(shares(case2, 4), [7.0 / 16.0, 3.0 / 16.0, 0.125, 0.25]);
}

#[test]
fn lag_and_tree_groups_widen_a_deterministic_table() {
    // C1: LAG puts both inter-switch links in every remote entry (S2's 2/3 each above); on
    // C2, TREE groups both uplinks of a leaf: scenario 1's hot flows then use both.
    let ar = run("c2_sc1.toml", &TREE);
    // LID 8 (switch 1) uplinks are ports 3 and 4: both carry packets under TREE.
    let (u1, u2) = (packets(&ar, 1, 3), packets(&ar, 1, 4));
    assert!(u1.abs_diff(u2) * 20 <= u1 + u2, "TREE uplinks {u1} / {u2}");
    let dr = run("c2_sc1.toml", &[]);
    assert_eq!(packets(&dr, 1, 4), 0, "DR sends node 4 by LID 6 only");
    for x in shares(&dr).iter().chain(&shares(&ar)) {
        near(
            *x,
            1.0 / 3.0,
            0.02,
            "scenario 1: a third of node 4's link each",
        );
    }
    // groups on every shortest path is refused, naming the key.
    let c = Config::from_toml_str(
        "[switch]\nkind = \"cioq\"\n[topology]\nkind = \"rlft\"\n[topology.rlft]\nleaves = 2\nhosts = 1\n[routing]\ngroups = \"lag\"\n",
    )
    .unwrap();
    let e = arcsim::validate(&c).unwrap_err().to_string();
    assert!(e.contains("routing.groups"), "{e}");
}

#[test]
fn scenario_1_adaptive_roots_form_at_lid_8s_uplinks_then_one_becomes_a_branch() {
    // Claim 14, time-resolved: 250-cycle windows of every output port's root and branch
    // time from cycle 0 (simulation.port_series_window). LID 8 is switch 1, its uplinks
    // ports 3 (to LID 6) and 4 (to R2); LID 7's egress to node 4 is switch 0 port 0.
    let r = run(
        "c2_sc1.toml",
        &[
            TREE[0],
            TREE[1],
            "simulation.warmup_cycles=8000",
            "simulation.port_series_window=250",
        ],
    );
    let series = |s: u32, p: u32| {
        &r.ports
            .iter()
            .find(|x| x.switch == s && x.port == p)
            .unwrap()
            .series
    };
    // (root, branch) shares of the windows in [from, to).
    let share = |s: u32, p: u32, from: u64, to: u64| {
        let w: Vec<_> = series(s, p)
            .iter()
            .filter(|w| w.start >= from && w.end <= to)
            .collect();
        let cycles: u64 = w.iter().map(|w| w.end - w.start).sum();
        let root: u64 = w.iter().map(|w| w.queued_with_credits).sum();
        let branch: u64 = w.iter().map(|w| w.queued_without_credits).sum();
        (root as f64 / cycles as f64, branch as f64 / cycles as f64)
    };
    for up in [3, 4] {
        let (root, branch) = share(1, up, 0, 750);
        assert!(
            root > 0.9 && branch == 0.0,
            "early, uplink {up}: {root} {branch}"
        );
    }
    let (_, branch) = share(1, 3, 2000, 48000);
    assert!(branch > 0.4, "later, uplink to LID 6: branch {branch}");
    let (root, _) = share(0, 0, 250, 48000);
    assert!(root > 0.99, "LID 7's egress to node 4: root {root}");
    // The windows cover the run from cycle 0, and those inside the measurement add up to
    // the port's counters over it.
    for p in &r.ports {
        assert_eq!(p.series.len(), 48000 / 250, "{p:?}");
        let inside = p.series.iter().filter(|w| w.start >= 8000);
        let (mut root, mut branch, mut phits) = (0, 0, 0);
        for w in inside {
            root += w.queued_with_credits;
            branch += w.queued_without_credits;
            phits += w.phits;
        }
        assert_eq!(
            (root, branch, phits),
            (p.queued_with_credits, p.queued_without_credits, p.phits),
            "switch {} port {}",
            p.switch,
            p.port
        );
    }
    // Without the key, no windows.
    let plain = run(
        "c2_sc1.toml",
        &[TREE[0], TREE[1], "simulation.warmup_cycles=8000"],
    );
    assert!(plain.ports.iter().all(|p| p.series.is_empty()));
    assert_eq!(
        shares(&plain),
        shares(&r),
        "the windows change nothing simulated"
    );
}

#[test]
fn fig_17_network_gives_the_lane_models_7_16_3_16_1_8_1_4() {
    // Blue, red, yellow, green (flows 0-3) on the reverse parking lot of case 2, the spec's
    // lane model (E.12) built as a network, least-loaded selection.
    let r = run("reverse_parking_lot_2.toml", &[]);
    for (x, want) in shares(&r)
        .iter()
        .zip([7.0 / 16.0, 3.0 / 16.0, 1.0 / 8.0, 0.25])
    {
        near(*x, want, 0.02 * want, "share of the exit link");
    }
}

#[test]
fn drr_arbitration_is_fair_in_phits_where_round_robin_is_fair_in_packets() {
    // C1 with every destination on L1 (c1_s3_dr_case3.txt): A -> D in full packets of 16
    // phits and B -> E in packets of 6 share L1's egress at SW1.
    let flows = "flows=[{src = 0, dst = 3, message = 16}, {src = 1, dst = 4, message = 6}]";
    let table = "routing.table=c1_s3_dr_case3.txt";
    let rr = shares(&run("c1_s1.toml", &[table, flows]));
    near(rr[0], 16.0 / 22.0, 0.01, "round robin, A's 16-phit packets");
    near(rr[1], 6.0 / 22.0, 0.01, "round robin, B's 6-phit packets");
    let drr = shares(&run(
        "c1_s1.toml",
        &[table, flows, "switch.arbitration=drr"],
    ));
    near(drr[0], 0.5, 0.01, "DRR, A");
    near(drr[1], 0.5, 0.01, "DRR, B");
    // With packets of one length DRR grants as round robin: S2 under LAG, the same run.
    let a = run("c1_s2.toml", &LAG);
    let b = run("c1_s2.toml", &[LAG[0], LAG[1], "switch.arbitration=drr"]);
    assert_eq!(shares(&a), shares(&b));
    assert_eq!(
        a.ports.iter().map(|p| p.packets).collect::<Vec<_>>(),
        b.ports.iter().map(|p| p.packets).collect::<Vec<_>>()
    );
    // The IQ engine refuses the key; a value other than the two is an error naming it.
    let iq = Config::from_toml_str("[switch]\narbitration = \"drr\"\n").unwrap();
    let e = arcsim::validate(&iq).unwrap_err().to_string();
    assert!(e.contains("arbitration") && e.contains("cioq"), "{e}");
    let e = Config::from_toml_str("[switch]\nkind = \"cioq\"\narbitration = \"fair\"\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("arbitration") && e.contains("drr"), "{e}");
}
