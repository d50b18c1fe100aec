//! Zero-load latency against the analytic model.
//!
//! Model (seed paper convention): a packet granted an output at cycle t occupies the link
//! t..t+L-1 and its head reaches the next router after the link latency, where it may be
//! forwarded in the same cycle; generation puts it straight into the injection queue
//! (eligible the same cycle); its tail is received at t_grant + L - 1 + terminal_latency when
//! it is granted the ejection port. So an isolated packet has
//! latency = sum of router-to-router link latencies + L - 1 + terminal_latency.
//!
//! The latencies are distinct (local 7, global 53, terminal 2, L = 4) so that a wrong term
//! shows. Queueing at these loads is rare but not impossible, and it can only add latency:
//! the checks allow a small one-sided excess.

mod common;

use arcsim::config::RoutingAlgorithm;
use arcsim::RunResult;
use common::{config, run, Paths};

const LOCAL: u64 = 7;
const GLOBAL: u64 = 53;
const TERMINAL: u64 = 2;
const LEN: u64 = 4;
/// Mean queueing delay allowed at the low loads used here (cycles per packet).
const QUEUEING: f64 = 0.15;

fn low_load(extra: &[&str]) -> arcsim::Config {
    let mut sets = vec![
        "topology.p=2",
        "topology.a=4",
        "topology.h=2",
        "topology.local_latency=7",
        "topology.global_latency=53",
        "topology.terminal_latency=2",
        "router.packet_length=4",
        "traffic.load=0.004",
        "simulation.warmup_cycles=1000",
        "simulation.measure_cycles=1000000",
    ];
    sets.extend_from_slice(extra);
    config(&sets)
}

fn packets(r: &RunResult) -> u64 {
    r.hops.histogram.iter().sum()
}

fn describe(r: &RunResult) -> String {
    format!(
        "latency mean {:?} p50 {:?} p99 {:?} max {:?}; network mean {:?}; hops mean {:?} histogram {:?}",
        r.latency.mean,
        r.latency.p50,
        r.latency.p99,
        r.latency.max,
        r.network_latency.mean,
        r.hops.mean,
        r.hops.histogram
    )
}

/// Mean latency must exceed the no-queueing value `exact` by at most QUEUEING cycles.
fn assert_mean_close_above(what: &str, mean: f64, exact: f64, r: &RunResult) {
    assert!(
        mean >= exact - 1e-9 && mean <= exact + QUEUEING,
        "{what}: mean {mean:.4} but the zero-load value is {exact:.4} (queueing may add at most {QUEUEING}); {}",
        describe(r)
    );
}

#[test]
fn single_local_hop_is_exact() {
    // ADVL+1 under MIN: every packet goes one local hop.
    let cfg = low_load(&["traffic.pattern=adv-local", "traffic.offset=1"]);
    let r = run(&cfg);
    let exact = LOCAL + LEN - 1 + TERMINAL;
    eprintln!("ADVL+1 MIN: expected {exact}; {}", describe(&r));
    assert!(packets(&r) > 2000, "too few packets: {}", describe(&r));
    assert_eq!(r.hops.histogram, vec![0, packets(&r)], "{}", describe(&r));
    assert_eq!(r.latency.p50.unwrap(), exact as f64, "{}", describe(&r));
    assert_mean_close_above("latency", r.latency.mean.unwrap(), exact as f64, &r);
    assert_mean_close_above(
        "network latency",
        r.network_latency.mean.unwrap(),
        exact as f64,
        &r,
    );
}

#[test]
fn single_global_hop_is_exact() {
    // Groups of one router (p=1, a=1, h=2: 3 groups): ADVG+1 is a single global hop and no
    // two sources share a link.
    let cfg = config(&[
        "topology.p=1",
        "topology.a=1",
        "topology.h=2",
        "topology.local_latency=7",
        "topology.global_latency=53",
        "topology.terminal_latency=2",
        "router.packet_length=4",
        "traffic.pattern=adv-global",
        "traffic.offset=1",
        "traffic.load=0.01",
        "simulation.warmup_cycles=1000",
        "simulation.measure_cycles=1000000",
    ]);
    let r = run(&cfg);
    let exact = GLOBAL + LEN - 1 + TERMINAL;
    eprintln!("a=1 ADVG+1 MIN: expected {exact}; {}", describe(&r));
    assert!(packets(&r) > 500, "too few packets: {}", describe(&r));
    assert_eq!(r.hops.histogram, vec![0, packets(&r)], "{}", describe(&r));
    assert_eq!(r.latency.p50.unwrap(), exact as f64, "{}", describe(&r));
    assert_mean_close_above("latency", r.latency.mean.unwrap(), exact as f64, &r);
    assert_mean_close_above(
        "network latency",
        r.network_latency.mean.unwrap(),
        exact as f64,
        &r,
    );
}

/// Under ADVG, MIN paths have exactly one global hop and VAL paths exactly two, so the hop
/// count determines the zero-load latency: the mean latency follows exactly from the measured
/// hop histogram (same packets), with no sampling noise. The histogram itself is compared
/// with the enumerated path distribution (binomial tolerance).
fn check_advg(alg: &str, global_hops: u64) {
    let a = format!("routing.algorithm={alg}");
    let cfg = low_load(&["traffic.pattern=adv-global", "traffic.offset=1", &a]);
    let r = run(&cfg);
    let n = packets(&r);
    assert!(n > 2000, "too few packets: {}", describe(&r));
    // Every packet crosses exactly `global_hops` global links: the reported mean is exact.
    assert_eq!(
        r.hops.global_mean.unwrap(),
        global_hops as f64,
        "{alg} ADVG+1: mean global hops; {}",
        describe(&r)
    );
    let lat_of_hops =
        |k: u64| global_hops * GLOBAL + (k - global_hops) * LOCAL + LEN - 1 + TERMINAL;
    let mut predicted = 0.0;
    for (k, &cnt) in r.hops.histogram.iter().enumerate() {
        if cnt == 0 {
            continue;
        }
        let k = k as u64;
        assert!(
            k >= global_hops && k <= global_hops + global_hops + 1,
            "{alg} ADVG+1: {cnt} packets took {k} hops, impossible with {global_hops} global hops and minimal segments; {}",
            describe(&r)
        );
        predicted += cnt as f64 * lat_of_hops(k) as f64;
    }
    predicted /= n as f64;
    eprintln!(
        "{alg} ADVG+1: latency predicted from hop histogram {predicted:.4}; {}",
        describe(&r)
    );
    assert_mean_close_above("latency", r.latency.mean.unwrap(), predicted, &r);
    assert_mean_close_above(
        "network latency",
        r.network_latency.mean.unwrap(),
        predicted,
        &r,
    );

    // Hop distribution against the enumeration (every source router generates equally).
    let paths = Paths::new(&cfg);
    let flows = paths.flows(&cfg);
    let routers = paths.routers() as f64;
    let mut expected = [0.0; 16];
    let mut expected_lat = 0.0;
    for f in &flows {
        expected[f.ports.len()] += f.weight / routers;
        expected_lat += f.weight / routers * paths.zero_load_latency(&cfg, &f.ports) as f64;
    }
    for (k, &e) in expected.iter().enumerate() {
        let got = r.hops.histogram.get(k).copied().unwrap_or(0) as f64 / n as f64;
        let sd = (e * (1.0 - e) / n as f64).sqrt();
        assert!(
            (got - e).abs() <= 4.0 * sd + 1e-9,
            "{alg} ADVG+1: fraction of {k}-hop packets {got:.4}, expected {e:.4} (4 sd = {:.4}); {}",
            4.0 * sd,
            describe(&r)
        );
    }
    // Both views agree on the most common latency.
    let mode = expected
        .iter()
        .enumerate()
        .max_by(|x, y| x.1.total_cmp(y.1))
        .map(|(k, _)| k as u64)
        .unwrap();
    if expected[mode as usize] > 0.55 {
        assert_eq!(
            r.latency.p50.unwrap(),
            lat_of_hops(mode) as f64,
            "{}",
            describe(&r)
        );
    }
    eprintln!("{alg} ADVG+1: enumerated mean latency {expected_lat:.4}");
}

#[test]
fn min_advg_latency_follows_path_shape() {
    check_advg("min", 1);
}

#[test]
fn val_advg_latency_follows_path_shape() {
    check_advg("val", 2);
}

/// Uniform traffic: mean latency and hops against the exact enumeration over all (source,
/// destination) pairs; the tolerance is the sampling error of the measured mean (4 standard
/// errors of the enumerated distribution) plus the queueing allowance.
fn check_uniform(alg: RoutingAlgorithm) {
    check_enumerated(alg, &["traffic.pattern=uniform"], "UN");
}

/// Mean latency and hops of `alg` under the pattern `sets` set against the exact
/// enumeration over all (source, destination) pairs. Returns the run and the tolerance of
/// its mean hops (4 standard errors).
fn check_enumerated(alg: RoutingAlgorithm, sets: &[&str], what: &str) -> (RunResult, f64) {
    let a = format!("routing.algorithm={}", alg.name());
    let mut all = sets.to_vec();
    all.push(&a);
    let cfg = low_load(&all);
    let r = run(&cfg);
    let n = packets(&r) as f64;
    assert!(n > 2000.0, "too few packets: {}", describe(&r));
    let paths = Paths::new(&cfg);
    let routers = paths.routers() as f64;
    let (mut m_lat, mut m2_lat, mut m_hops, mut m2_hops) = (0.0, 0.0, 0.0, 0.0);
    for f in paths.flows(&cfg) {
        let w = f.weight / routers;
        let lat = paths.zero_load_latency(&cfg, &f.ports) as f64;
        let hops = f.ports.len() as f64;
        m_lat += w * lat;
        m2_lat += w * lat * lat;
        m_hops += w * hops;
        m2_hops += w * hops * hops;
    }
    let se_lat = ((m2_lat - m_lat * m_lat) / n).sqrt();
    let se_hops = ((m2_hops - m_hops * m_hops) / n).sqrt();
    eprintln!(
        "{} {what}: enumerated latency {m_lat:.4} (se {se_lat:.4}), hops {m_hops:.4} (se {se_hops:.4}); {}",
        alg.name(),
        describe(&r)
    );
    assert!(
        (r.latency.mean.unwrap() - m_lat).abs() <= 4.0 * se_lat + QUEUEING,
        "{} {what}: mean latency {:.4}, enumerated {m_lat:.4} (tolerance {:.4}); {}",
        alg.name(),
        r.latency.mean.unwrap(),
        4.0 * se_lat + QUEUEING,
        describe(&r)
    );
    assert!(
        (r.hops.mean.unwrap() - m_hops).abs() <= 4.0 * se_hops,
        "{} {what}: mean hops {:.4}, enumerated {m_hops:.4} (tolerance {:.4}); {}",
        alg.name(),
        r.hops.mean.unwrap(),
        4.0 * se_hops,
        describe(&r)
    );
    // At zero load a packet leaves the injection queue in the cycle it is generated.
    assert!(
        (r.latency.mean.unwrap() - r.network_latency.mean.unwrap()).abs() <= QUEUEING,
        "{}",
        describe(&r)
    );
    (r, 4.0 * se_hops)
}

/// Mean hops of the enumerated paths of `cfg`'s workload.
fn enumerated_hops(cfg: &arcsim::Config) -> f64 {
    let paths = Paths::new(cfg);
    let routers = paths.routers() as f64;
    paths
        .flows(cfg)
        .iter()
        .map(|f| f.weight / routers * f.ports.len() as f64)
        .sum()
}

#[test]
fn min_uniform_mean_matches_enumeration() {
    check_uniform(RoutingAlgorithm::Min);
}

#[test]
fn val_any_uniform_mean_matches_enumeration() {
    check_uniform(RoutingAlgorithm::ValAny);
}

/// `routing.valiant_model = "fogsim"` draws the intermediate as FOGSim does, a random router
/// outside the source group: VAL under ADVG+1 (an eighth of its packets draw the destination
/// group and go minimally) and VAL-any under UN against their own enumeration, each run
/// told apart from the reference model's enumeration.
#[test]
fn fogsim_valiant_node_matches_enumeration() {
    for (alg, sets) in [
        (
            RoutingAlgorithm::Val,
            ["traffic.pattern=adv-global", "traffic.offset=1"].as_slice(),
        ),
        (
            RoutingAlgorithm::ValAny,
            ["traffic.pattern=uniform"].as_slice(),
        ),
    ] {
        let mut fog = sets.to_vec();
        fog.push("routing.valiant_model=fogsim");
        let (r, tol) = check_enumerated(alg, &fog, "FOGSim's Valiant node");
        let a = format!("routing.algorithm={}", alg.name());
        let mut reference = sets.to_vec();
        reference.push(&a);
        let other = enumerated_hops(&low_load(&reference));
        assert!(
            (r.hops.mean.unwrap() - other).abs() > tol,
            "{}: mean hops {:.4} with FOGSim's Valiant node, the reference model's enumeration {other:.4} is within the tolerance {tol:.4}",
            alg.name(),
            r.hops.mean.unwrap()
        );
    }
}

/// SHIFT+k: every node sends to the node k further on. On the small network (2 nodes per
/// router, 8 per group, 72 in all) k = 1 keeps half the packets on their router and sends
/// the other half to the next one, k = 9 leaves the group, k = 37 crosses to the far side.
#[test]
fn shift_mean_matches_enumeration() {
    for (alg, k) in [
        (RoutingAlgorithm::Min, 1),
        (RoutingAlgorithm::Min, 9),
        (RoutingAlgorithm::Min, 37),
        (RoutingAlgorithm::ValAny, 9),
    ] {
        let off = format!("traffic.offset={k}");
        check_enumerated(alg, &["traffic.pattern=shift", &off], &format!("SHIFT+{k}"));
    }
}

/// Contention: in burst mode every node generates its packets at cycle 0. Under ADVL+1 all
/// 2p packets of a router need the same local output, which serializes them: the link is
/// granted at cycles 0, L, 2L, ... (occupancy t..t+L-1, no idle cycle while a packet waits).
/// The destination spreads them over p ejection ports, which never delay them further.
/// (Throughput alone cannot see a link that is released early, because the downstream
/// crossbar input also takes L cycles per packet; the injection times do.)
#[test]
fn contention_serializes_packets_on_a_link() {
    for (topo, pattern, link) in [
        (
            ["topology.p=2", "topology.a=4", "topology.h=2"],
            "adv-local",
            LOCAL,
        ),
        // Groups of one router: ADVG+1 crosses the one global link to the next group.
        (
            ["topology.p=2", "topology.a=1", "topology.h=2"],
            "adv-global",
            GLOBAL,
        ),
    ] {
        let pat = format!("traffic.pattern={pattern}");
        let mut sets = topo.to_vec();
        sets.extend_from_slice(&[
            "topology.local_latency=7",
            "topology.global_latency=53",
            "topology.terminal_latency=2",
            "router.packet_length=4",
            &pat,
            "traffic.offset=1",
            "traffic.burst_packets=2",
        ]);
        let cfg = config(&sets);
        let r = run(&cfg);
        let k = 2 * 2; // p nodes x 2 packets share the link
        let base = link + LEN - 1 + TERMINAL;
        let mean = base as f64 + (LEN * (k - 1)) as f64 / 2.0;
        let last = base + LEN * (k - 1);
        eprintln!(
            "{pattern} burst: expected mean {mean}, max {last}; {}",
            describe(&r)
        );
        assert_eq!(r.hops.histogram, vec![0, packets(&r)], "{}", describe(&r));
        assert_eq!(r.latency.mean.unwrap(), mean, "{pattern}: {}", describe(&r));
        assert_eq!(
            r.latency.max.unwrap(),
            last as f64,
            "{pattern}: {}",
            describe(&r)
        );
        // They wait in the injection queues, not on the way: once injected, each one flies
        // at the zero-load latency.
        assert_eq!(
            r.network_latency.mean.unwrap(),
            base as f64,
            "{pattern}: {}",
            describe(&r)
        );
        assert_eq!(
            r.network_latency.max.unwrap(),
            base as f64,
            "{pattern}: {}",
            describe(&r)
        );
        let b = r.burst.as_ref().expect("burst summary");
        assert_eq!(b.consumption_cycles, last + 1, "{pattern}: {b:?}");
    }
}

#[test]
fn vanishing_load_generates_nothing() {
    // A load so small that 1 - load/L rounds to 1 used to make every generation gap one
    // cycle: load 1e-300 injected at full speed. Here it must generate (next to) nothing,
    // before and after a change to it.
    let cfg = common::small(&[
        "traffic.load=1e-300",
        "simulation.warmup_cycles=200",
        "simulation.measure_cycles=2000",
    ]);
    let r = run(&cfg);
    assert_eq!(r.packets.generated, 0, "load 1e-300 generated packets");
    let cfg = common::small(&[
        "traffic.load=0.2",
        "traffic.change.at_cycle=200",
        "traffic.change.load=5e-324",
        "simulation.warmup_cycles=1000",
        "simulation.measure_cycles=2000",
    ]);
    let r = run(&cfg);
    assert!(
        r.generated_load < 0.01,
        "after a change to load 5e-324 the generated load is {}",
        r.generated_load
    );
}
