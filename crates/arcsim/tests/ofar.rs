//! OFAR (the OFAR paper, section 3): deadlock freedom through the escape subnetworks, misrouting
//! limits, throughput under ADVG+h, and injection-based congestion management.

use arcsim::config::{apply_override, Config, EscapeKind};
use arcsim::{RunResult, SimError};

/// The library's defaults before 2026-11-25, the baseline every test here starts from: the
/// paper's text where FOGSim, the simulator of the OFAR paper, reads it otherwise (misroute around
/// any unavailable minimal output, busy ones included, global links whatever their load; MM+L
/// decided again after its local hop and offered on escape VCs too; OFAR-L without local
/// misroutes) and injections arbitrated like transit packets. The defaults are now FOGSim's;
/// these tests vary one rule at a time from the literal reading.
const PAPER_TEXT: [&str; 7] = [
    "router.injection_priority=equal",
    "routing.misroute_trigger=unavailable",
    "routing.busy_minimal=misroute",
    "routing.misroute_congested_global=false",
    "routing.mml_commit=false",
    "routing.ofar_l_mml=false",
    "routing.mml_from_escape=true",
];

fn config(sets: &[&str]) -> Config {
    config_on(&PAPER_TEXT, sets)
}

/// The embedded default with `rules`, then `sets`, applied.
fn config_on(rules: &[&str], sets: &[&str]) -> Config {
    let mut tree = toml::Value::try_from(Config::embedded_default()).unwrap();
    for s in rules.iter().chain(sets) {
        apply_override(&mut tree, s).unwrap();
    }
    let mut cfg = Config::from_value(tree).unwrap();
    // Without an escape network the key has nothing to act on (and is refused).
    cfg.routing.mml_from_escape &= cfg.routing.escape != EscapeKind::None;
    arcsim::validate(&cfg).unwrap();
    cfg
}

/// h = 3 balanced dragonfly: 19 groups, 114 routers, 342 nodes.
const H3: [&str; 3] = ["topology.p=3", "topology.a=6", "topology.h=3"];

/// The readings of the OFAR paper that experiments/ofar/base.toml set until 2026-11-23 (transit-first
/// injection, waiting for a busy minimal output, committed MM+L hop, port occupancy); since
/// then it uses FOGSim's settings (`FOGSIM` below, plus transit-first and the committed hop).
const EXPERIMENT: [&str; 4] = [
    "router.injection_priority=transit-first",
    "routing.busy_minimal=wait",
    "routing.mml_commit=true",
    "routing.occupancy=port",
];

fn run(extra: &[&str]) -> Result<RunResult, SimError> {
    let mut sets: Vec<&str> = H3.to_vec();
    sets.extend_from_slice(extra);
    arcsim::run(&config(&sets))
}

fn must_run(extra: &[&str]) -> RunResult {
    run(extra).unwrap_or_else(|e| panic!("{extra:?}: {e}"))
}

#[test]
fn escape_subnetworks_prevent_deadlock_with_one_vc() {
    // 1/1(+1) VCs, saturating adversarial load: without the escape network this deadlocks
    // (next test); with each escape network the watchdog must stay silent. Also with seed
    // 001 §5.7's livelock counter at its strictest (`escape_entry_limit = 1`: a packet that
    // entered the escape network stays on it), which must not make it deadlock either.
    for escape in [
        &["routing.escape=\"ring\"", "routing.rings=[\"a\"]"][..],
        &["routing.escape=\"tree\""][..],
    ] {
        for pattern in ["traffic.offset=3", "traffic.offset=1"] {
            for limit in [
                "routing.escape_entry_limit=0",
                "routing.escape_entry_limit=1",
            ] {
                let mut sets = vec![
                    "routing.algorithm=ofar",
                    "router.vcs_local=1",
                    "router.vcs_global=1",
                    "traffic.pattern=adv-global",
                    pattern,
                    limit,
                    "traffic.load=1.0",
                    "simulation.warmup_cycles=2000",
                    "simulation.measure_cycles=6000",
                    "simulation.watchdog_cycles=1500",
                ];
                sets.extend_from_slice(escape);
                let what = format!("{escape:?} {pattern} {limit}");
                let r = run(&sets).unwrap_or_else(|e| panic!("{what}: {e}"));
                assert!(r.packets.delivered > 0, "{what}: nothing delivered");
                assert!(
                    r.escape.entered_fraction.unwrap() > 0.0,
                    "{what}: escape unused"
                );
                if limit.ends_with('1') {
                    assert_eq!(r.escape.entries_max, 1, "{what}");
                }
            }
        }
    }
}

/// OFAR with 1/1(+1) VCs on the balanced dragonfly with `h`, ADVG+h at full load: the
/// watchdog must stay silent with each of these ring sets, and packets must use them.
fn rings_prevent_deadlock(h: usize, ring_sets: &[&str]) {
    rings_prevent_deadlock_travelled(h, ring_sets, "ascending");
}

fn rings_prevent_deadlock_travelled(h: usize, ring_sets: &[&str], direction: &str) {
    let direction = format!("routing.ring_direction={direction}");
    let shape = [
        format!("topology.p={h}"),
        format!("topology.a={}", 2 * h),
        format!("topology.h={h}"),
        format!("traffic.offset={h}"),
    ];
    for rings in ring_sets {
        let mut sets: Vec<&str> = shape.iter().map(String::as_str).collect();
        let r = format!("routing.rings={rings}");
        sets.extend_from_slice(&[
            "routing.algorithm=ofar",
            "router.vcs_local=1",
            "router.vcs_global=1",
            &r,
            &direction,
            "traffic.pattern=adv-global",
            "traffic.load=1.0",
            "simulation.warmup_cycles=1000",
            "simulation.measure_cycles=3000",
            "simulation.watchdog_cycles=1500",
        ]);
        let r = arcsim::run(&config(&sets)).unwrap_or_else(|e| panic!("h {h}, rings {rings}: {e}"));
        assert!(r.packets.delivered > 0);
        assert!(
            r.escape.entered_fraction.unwrap() > 0.0,
            "h {h}, rings {rings}: no packet used the escape network, so nothing was tested"
        );
    }
}

#[test]
fn escape_rings_b_and_both_prevent_deadlock_on_h4() {
    // Ring B needs an even h > 2: p=4, a=8, h=4 (33 groups, 1,056 nodes).
    rings_prevent_deadlock(4, &["[\"b\"]", "[\"a\", \"b\"]"]);
}

#[test]
fn bidirectional_rings_prevent_deadlock_on_h4() {
    // FOGSim's rings: the escape VC in both directions of every ring link.
    rings_prevent_deadlock_travelled(4, &["[\"a\"]", "[\"b\"]", "[\"a\", \"b\"]"], "both");
}

#[test]
fn escape_ring_c_and_all_three_prevent_deadlock_on_h5() {
    // Ring C needs an odd h > 3: p=5, a=10, h=5 (51 groups, 2,550 nodes).
    rings_prevent_deadlock(5, &["[\"c\"]", "[\"a\", \"b\", \"c\"]"]);
}

#[test]
fn without_escape_the_watchdog_catches_ofar_deadlock() {
    let err = run(&[
        "routing.algorithm=ofar",
        "routing.escape=\"none\"",
        "router.vcs_local=1",
        "router.vcs_global=1",
        "traffic.pattern=uniform",
        "traffic.load=1.0",
        "simulation.warmup_cycles=2000",
        "simulation.measure_cycles=20000",
        "simulation.watchdog_cycles=1000",
    ])
    .expect_err("OFAR without an escape network must deadlock at full load");
    match err {
        SimError::Deadlock(report) => assert!(report.cyclic, "{report}"),
        other => panic!("expected a deadlock, got {other}"),
    }
}

#[test]
fn misroute_limits_hold_for_packets_that_never_escaped() {
    // At most one global misroute per packet and one local misroute per group: 8 hops
    // (6 local, 2 global) for OFAR. OFAR-L takes no non-minimal local hop (by default not
    // even MM+L's), so it misroutes only globally from an injection queue: g l g l, 4 hops;
    // with MM+L's local hop (l l g l g l), 6.
    for (alg, mml, limit) in [
        ("ofar", false, 8),
        ("ofar-l", false, 4),
        ("ofar-l", true, 6),
    ] {
        for pattern in [
            &["traffic.pattern=uniform"][..],
            &["traffic.pattern=adv-global", "traffic.offset=3"][..],
        ] {
            for load in ["0.3", "0.6"] {
                let mut sets = vec![
                    format!("routing.algorithm={alg}"),
                    format!("routing.ofar_l_mml={mml}"),
                    format!("traffic.load={load}"),
                    "routing.congestion=bcm".to_string(),
                    "simulation.warmup_cycles=2000".into(),
                    "simulation.measure_cycles=4000".into(),
                ];
                sets.extend(pattern.iter().map(|s| s.to_string()));
                let refs: Vec<&str> = sets.iter().map(String::as_str).collect();
                let r = must_run(&refs);
                assert!(r.packets.delivered > 0);
                assert!(
                    r.escape.max_hops_without_escape <= limit,
                    "{alg} (ofar_l_mml {mml}) {pattern:?} load {load}: a packet took {} hops without the escape network (limit {limit})",
                    r.escape.max_hops_without_escape
                );
            }
        }
    }
}

#[test]
fn ofar_exceeds_one_over_h_under_adversarial_h_traffic() {
    // ADVG+h: VAL and OFAR-L are limited by one local link per intermediate group (1/h at
    // best); OFAR's local misrouting in the intermediate group lifts the limit.
    let h = 3.0;
    let at = |alg: &str| {
        must_run(&[
            &format!("routing.algorithm={alg}"),
            "traffic.pattern=adv-global",
            "traffic.offset=3",
            "traffic.load=0.4",
            "simulation.warmup_cycles=3000",
            "simulation.measure_cycles=4000",
        ])
        .accepted_load
    };
    let (ofar, val) = (at("ofar"), at("val"));
    eprintln!(
        "ADVG+3 at load 0.4: OFAR {ofar:.3}, VAL {val:.3}, 1/h {:.3}",
        1.0 / h
    );
    assert!(
        ofar > 1.1 / h,
        "OFAR accepted {ofar:.3}, not clearly above 1/h"
    );
    assert!(val <= 1.0 / h, "VAL accepted {val:.3} above its 1/h bound");
    assert!(ofar > 1.5 * val, "OFAR {ofar:.3} vs VAL {val:.3}");
}

#[test]
fn bcm_and_ecm_keep_throughput_where_plain_ofar_collapses() {
    // The OFAR paper Fig. 5: with few VCs, 2/1(+1), plain OFAR hands the load to the escape network
    // and throughput collapses at full load; injection restriction keeps it up.
    for escape in ["tree", "ring"] {
        let at = |cm: &str| {
            must_run(&[
                "routing.algorithm=ofar",
                &format!("routing.escape={escape}"),
                &format!("routing.congestion={cm}"),
                "router.vcs_local=2",
                "router.vcs_global=1",
                "traffic.load=1.0",
                "simulation.warmup_cycles=3000",
                "simulation.measure_cycles=4000",
            ])
            .accepted_load
        };
        let (none, bcm, ecm) = (at("none"), at("bcm"), at("ecm"));
        eprintln!("OFAR {escape} 2/1(+1) UN load 1.0: none {none:.3}, BCM {bcm:.3}, ECM {ecm:.3}");
        assert!(
            bcm > 0.4 && ecm > 0.4,
            "{escape}: BCM {bcm:.3}, ECM {ecm:.3}"
        );
        assert!(
            none < 0.6 * bcm.min(ecm),
            "{escape}: plain OFAR {none:.3} did not collapse"
        );
    }
}

#[test]
fn ecm_any_rule_is_the_paper_rule_on_a_ring_and_stricter_on_a_tree() {
    // routing.ecm_rule = "any" stops injection while any escape buffer of the router is above
    // threshold, not all of them. A router of a one-way ring (the default direction) receives
    // on one escape buffer, so the two rules are the same; a tree router may receive on several, and "any" keeps more packets
    // out of the tree, at the price of starving the routers that gather the tree's traffic
    // (docs/configuration.md, routing.ecm_rule).
    let at = |escape: &str, rule: &str| {
        must_run(&[
            "routing.algorithm=ofar",
            &format!("routing.escape={escape}"),
            "routing.congestion=ecm",
            &format!("routing.ecm_rule={rule}"),
            "router.vcs_local=2",
            "router.vcs_global=1",
            "traffic.load=1.0",
            "simulation.warmup_cycles=3000",
            "simulation.measure_cycles=4000",
        ])
    };
    let (ring_all, ring_any) = (at("ring", "all"), at("ring", "any"));
    assert_eq!(
        (
            ring_all.packet_hops,
            &ring_all.packets,
            &ring_all.injected_per_router
        ),
        (
            ring_any.packet_hops,
            &ring_any.packets,
            &ring_any.injected_per_router
        ),
        "one escape buffer per ring router: the rules must agree"
    );
    let (all, any) = (at("tree", "all"), at("tree", "any"));
    let starved = |r: &arcsim::RunResult| r.injected_per_router.iter().filter(|&&n| n == 0).count();
    eprintln!(
        "OFAR tree ECM 2/1(+1) UN load 1.0: all {:.3} ({:.1}% enter the tree, {} routers inject nothing), any {:.3} ({:.1}%, {})",
        all.accepted_load,
        100.0 * all.escape.entered_fraction.unwrap(),
        starved(&all),
        any.accepted_load,
        100.0 * any.escape.entered_fraction.unwrap(),
        starved(&any)
    );
    assert!(
        any.escape.entered_fraction.unwrap() < 0.8 * all.escape.entered_fraction.unwrap(),
        "\"any\" should keep packets out of the tree"
    );
    assert!(any.accepted_load > 0.95 * all.accepted_load);
    assert_eq!(starved(&all), 0);
    assert!(
        starved(&any) > 0,
        "no router starves under \"any\" any more: update docs/configuration.md"
    );
}

#[test]
fn bcm_collapses_under_advg_h_unless_global_injections_keep_a_larger_bubble() {
    // Under ADVG+h at full load the canonical network of OFAR with 2/1(+1) VCs jams (a cycle
    // of full local buffers) and the escape ring carries everything. BCM's 2-packet bubble
    // hardly throttles injections straight into 32-packet global buffers, so it does not
    // prevent this; a 16-packet bubble for those injections does (docs/reproductions/ofar/README.md).
    let at = |extra: &[&str]| {
        let mut sets = vec![
            "routing.algorithm=ofar",
            "routing.congestion=bcm",
            "router.vcs_local=2",
            "router.vcs_global=1",
            "traffic.pattern=adv-global",
            "traffic.offset=3",
            "traffic.load=1.0",
            "simulation.warmup_cycles=10000",
            "simulation.measure_cycles=10000",
        ];
        sets.extend_from_slice(extra);
        must_run(&sets).accepted_load
    };
    let (plain, global) = (at(&[]), at(&["routing.bcm_bubble_global=16"]));
    // With a crossbar input per VC (FOGSim's router), a packet blocked at the head of one VC
    // no longer keeps the other VCs of its input port from sending for a packet time, and
    // the jam does not form either.
    let vc_inputs = at(&["router.crossbar_input=vc"]);
    eprintln!(
        "OFAR ring BCM 2/1(+1) ADVG+3 load 1.0: bubble 2 {plain:.3}, global bubble 16 {global:.3}, crossbar input per VC {vc_inputs:.3}"
    );
    assert!(
        plain < 0.15,
        "BCM no longer collapses ({plain:.3}): update the docs"
    );
    assert!(global > 0.3, "global bubble {global:.3}");
    assert!(vc_inputs > 0.3, "crossbar input per VC {vc_inputs:.3}");
}

#[test]
fn ecm_with_the_ring_holds_under_advg_h_where_bcm_collapses() {
    // The experiment settings (experiments/ofar/base.toml: port occupancy, waiting for a busy
    // minimal output, committed MM+L hop, transit first) with 2/1(+1) VCs and ring A under
    // ADVG+h at full load: BCM lets the canonical network jam and the ring carry everything,
    // ECM stops injections in time and holds (notes/ofar-history.md, Fig. 10 at
    // h = 6).
    let at = |cm: &str| {
        let c = format!("routing.congestion={cm}");
        let mut sets = EXPERIMENT.to_vec();
        sets.extend_from_slice(&[
            "routing.algorithm=ofar",
            &c,
            "router.vcs_local=2",
            "router.vcs_global=1",
            "traffic.pattern=adv-global",
            "traffic.offset=3",
            "traffic.load=1.0",
            "simulation.warmup_cycles=20000",
            "simulation.measure_cycles=10000",
        ]);
        must_run(&sets).accepted_load
    };
    let (ecm, bcm) = (at("ecm"), at("bcm"));
    eprintln!("OFAR ring 2/1(+1) ADVG+3 load 1.0, experiment settings: ECM {ecm:.3}, BCM {bcm:.3}");
    assert!(ecm > 0.3, "ECM collapsed ({ecm:.3}): update the docs");
    assert!(
        bcm < 0.15,
        "BCM no longer collapses ({bcm:.3}): update the docs"
    );
}

#[test]
fn transit_priority_prevents_plain_ofar_collapse() {
    // With injections competing equally, plain OFAR collapses past saturation (test above);
    // serving transit packets first keeps it at its saturation throughput, as in Fig. 6.
    let at = |prio: &str| {
        must_run(&[
            "routing.algorithm=ofar",
            &format!("router.injection_priority={prio}"),
            "traffic.load=1.0",
            "simulation.warmup_cycles=3000",
            "simulation.measure_cycles=4000",
        ])
    };
    let (equal, transit) = (at("equal"), at("transit-first"));
    eprintln!(
        "OFAR UN load 1.0, 3/2(+1), ring: equal {:.3}, transit-first {:.3}",
        equal.accepted_load, transit.accepted_load
    );
    assert!(transit.accepted_load > 0.45, "{:.3}", transit.accepted_load);
    assert!(equal.accepted_load < 0.5 * transit.accepted_load);
}

#[test]
fn the_library_defaults_keep_plain_ofar_up_where_the_literal_reading_congests() {
    // The defaults are FOGSim's rules with transit-first injection; `PAPER_TEXT` (the
    // defaults before 2026-11-25) congests past saturation. h = 3, 3/2(+1), ring A, no CM.
    let run_on = |literal: bool, sets: &[&str]| {
        let mut all = vec![
            "topology.p=3",
            "topology.a=6",
            "topology.h=3",
            "routing.algorithm=ofar",
            "simulation.warmup_cycles=3000",
            "simulation.measure_cycles=3000",
        ];
        all.extend_from_slice(sets);
        let rules: &[&str] = if literal { &PAPER_TEXT } else { &[] };
        arcsim::run(&config_on(rules, &all)).unwrap().accepted_load
    };
    const ADVG3: [&str; 3] = [
        "traffic.pattern=adv-global",
        "traffic.offset=3",
        "traffic.load=0.6",
    ];
    let (adv, adv_literal) = (run_on(false, &ADVG3), run_on(true, &ADVG3));
    let (un, un_literal) = (
        run_on(false, &["traffic.load=0.8"]),
        run_on(true, &["traffic.load=0.8"]),
    );
    eprintln!(
        "defaults: ADVG+3 at 0.6 {adv:.3}, UN at 0.8 {un:.3}; literal {adv_literal:.3}, {un_literal:.3}"
    );
    assert!(adv > 1.25 / 3.0, "ADVG+3: {adv} against 1/h = 0.333");
    assert!(un > 0.55, "UN: {un}");
    assert!(adv_literal < 0.1, "literal ADVG+3: {adv_literal}");
    assert!(un_literal < 0.3, "literal UN: {un_literal}");
}

#[test]
fn ofar_is_close_to_min_at_low_uniform_load_and_rarely_escapes() {
    let at = |alg: &str| {
        must_run(&[
            &format!("routing.algorithm={alg}"),
            "traffic.load=0.1",
            "simulation.warmup_cycles=2000",
            "simulation.measure_cycles=4000",
        ])
    };
    let (ofar, min) = (at("ofar"), at("min"));
    assert!(
        ofar.latency.mean.unwrap() < 1.1 * min.latency.mean.unwrap(),
        "OFAR latency {:.1} vs MIN {:.1}",
        ofar.latency.mean.unwrap(),
        min.latency.mean.unwrap()
    );
    assert!(
        ofar.escape.entered_fraction.unwrap() < 0.001,
        "{:?}",
        ofar.escape
    );
}

#[test]
fn committed_mml_gives_ofar_the_lowest_light_adversarial_latency() {
    // h = 4, ADVG+4 at 0.12 (light: no routing saturates). With re-evaluation after the MM+L
    // local hop, packets return to the gateway and wait for its saturated global link; with
    // the hop committed (and a minimum minimal-queue occupancy to start it) OFAR beats
    // VAL-any and PB (the OFAR paper, Figs. 6 and 7) and stays close to MIN under UN.
    let h4 = |extra: &[&str]| {
        let mut sets = vec![
            "topology.p=4",
            "topology.a=8",
            "topology.h=4",
            "simulation.warmup_cycles=3000",
            "simulation.measure_cycles=3000",
        ];
        sets.extend_from_slice(extra);
        arcsim::run(&config(&sets)).unwrap_or_else(|e| panic!("{extra:?}: {e}"))
    };
    let commit = ["routing.mml_commit=true", "routing.mml_min_occupancy=0.2"];
    let advg = |alg: &str, more: &[&str]| {
        let alg = format!("routing.algorithm={alg}");
        let mut sets = vec![
            alg.as_str(),
            "traffic.pattern=adv-global",
            "traffic.offset=4",
            "traffic.load=0.12",
        ];
        sets.extend_from_slice(more);
        h4(&sets).latency.mean.unwrap()
    };
    let (plain, committed) = (advg("ofar", &[]), advg("ofar", &commit));
    let (val_any, pb) = (advg("val-any", &[]), advg("pb", &[]));
    assert!(
        committed < 0.85 * plain && committed < val_any && committed < pb,
        "ADVG+4 latency: committed OFAR {committed:.1}, plain {plain:.1}, VAL-any {val_any:.1}, PB {pb:.1}"
    );
    let un = |alg: &str, more: &[&str]| {
        let alg = format!("routing.algorithm={alg}");
        let mut sets = vec![alg.as_str(), "traffic.load=0.2"];
        sets.extend_from_slice(more);
        h4(&sets)
    };
    let (ofar, min) = (un("ofar", &commit), un("min", &[]));
    assert!(
        ofar.latency.mean.unwrap() < 1.04 * min.latency.mean.unwrap()
            && ofar.misrouted_fraction.unwrap() < 0.1,
        "UN 0.2: OFAR {:.1} ({:.3} misrouted) vs MIN {:.1}",
        ofar.latency.mean.unwrap(),
        ofar.misrouted_fraction.unwrap(),
        min.latency.mean.unwrap()
    );
}

#[test]
fn pb_adapts_to_a_pattern_change_later_than_ofar() {
    // The OFAR paper, Fig. 7: after a change from ADVG+2 to ADVG+h, OFAR adapts "almost
    // instantaneously" while PB "suffers a clear adaptation period while congestion
    // information propagates". Measured here as the share of packets sent non-minimally,
    // per 25-cycle window of generation time (h = 4, ADVG+2 -> ADVG+4, load 0.12, three
    // seeds): OFAR's share is back at its new level one window after the change, PB's needs
    // several (its flags must first see the new minimal global link saturate).
    const CHANGE: u64 = 2500;
    const W: u64 = 25;
    let shares = |alg: &str, more: &[&str]| -> Vec<f64> {
        let mut sum = vec![0.0; 28];
        for seed in 1..=3 {
            let alg = format!("routing.algorithm={alg}");
            let seed = format!("simulation.seed={seed}");
            let at = format!("traffic.change.at_cycle={CHANGE}");
            let mut sets = vec![
                "topology.p=4",
                "topology.a=8",
                "topology.h=4",
                alg.as_str(),
                seed.as_str(),
                at.as_str(),
                "traffic.pattern=adv-global",
                "traffic.offset=2",
                "traffic.change.offset=4",
                "traffic.load=0.12",
                "simulation.warmup_cycles=1500",
                "simulation.measure_cycles=2500",
                "simulation.series_window=25",
            ];
            sets.extend_from_slice(more);
            let r = arcsim::run(&config(&sets)).unwrap_or_else(|e| panic!("{sets:?}: {e}"));
            let pts = &r.series.expect("series").points;
            // Windows 0..28 after the change (up to +700 cycles; the run goes on to +1,500
            // so that the packets generated in them have been delivered).
            for (k, s) in sum.iter_mut().enumerate() {
                let p = &pts[(CHANGE / W) as usize + k];
                assert_eq!(p.cycle, CHANGE + k as u64 * W);
                *s += p.misrouted_fraction.unwrap_or(0.0) / 3.0;
            }
        }
        sum
    };
    // How far the non-minimal share stays below its new level (its mean over +300..+700)
    // in the first 150 cycles, summed over windows; window 0 is left out, as it mixes
    // packets generated just before the change.
    let deficit = |s: &[f64]| -> f64 {
        let level = s[12..].iter().sum::<f64>() / (s.len() - 12) as f64;
        s[1..=6].iter().map(|&x| (level - x).max(0.0)).sum()
    };
    let ofar = shares(
        "ofar",
        &["routing.mml_commit=true", "routing.mml_min_occupancy=0.2"],
    );
    let pb = shares("pb", &[]);
    // Measured: OFAR about 0.04 (one window slightly low), PB about 0.5 (four windows).
    let (d_ofar, d_pb) = (deficit(&ofar), deficit(&pb));
    assert!(
        d_ofar <= 0.15 && d_pb >= 0.25,
        "adaptation deficit OFAR {d_ofar:.2}, PB {d_pb:.2}\nOFAR {ofar:.2?}\nPB {pb:.2?}"
    );
}

#[test]
fn waiting_for_a_busy_minimal_output_keeps_uniform_misrouting_low() {
    // The OFAR paper section 3.2 allows misrouting when the minimal output "is already assigned to
    // another input or Q_min = 100%". Counting an output that is merely busy sending an earlier
    // packet as unavailable (the literal reading these tests start from) misroutes most uniform packets at moderate load;
    // `busy_minimal = "wait"` misroutes only on contention and stays close to MIN, as the
    // paper's Fig. 6 has it.
    let at = |alg: &str, busy: &str| {
        must_run(&[
            &format!("routing.algorithm={alg}"),
            &format!("routing.busy_minimal={busy}"),
            "traffic.load=0.4",
            "simulation.warmup_cycles=3000",
            "simulation.measure_cycles=4000",
        ])
    };
    let (min, misroute, wait) = (
        at("min", "misroute"),
        at("ofar", "misroute"),
        at("ofar", "wait"),
    );
    eprintln!(
        "UN 0.4, h = 3: MIN {:.1} cycles; OFAR misroute {:.1} cycles, {:.1}% misrouted; wait {:.1} cycles, {:.1}% misrouted",
        min.latency.mean.unwrap(),
        misroute.latency.mean.unwrap(),
        100.0 * misroute.misrouted_fraction.unwrap(),
        wait.latency.mean.unwrap(),
        100.0 * wait.misrouted_fraction.unwrap()
    );
    assert!(
        wait.misrouted_fraction.unwrap() < 0.25,
        "{}",
        wait.misrouted_fraction.unwrap()
    );
    assert!(
        misroute.misrouted_fraction.unwrap() > 0.4,
        "{}",
        misroute.misrouted_fraction.unwrap()
    );
    assert!(wait.latency.mean.unwrap() < 1.05 * min.latency.mean.unwrap());
    assert!(misroute.latency.mean.unwrap() > 1.1 * min.latency.mean.unwrap());
}

#[test]
fn always_waiting_lets_light_advg2_latency_drift_and_a_cap_holds_it() {
    // With `busy_minimal = "wait"` the saturated minimal global link of ADVG+2 runs at 99.5%
    // of its capacity, slightly faster than the input at its far end forwards, so that input's
    // queue fills over tens of thousands of cycles and latency climbs while throughput and
    // the misrouted share stay put. `busy_wait_max` stops waiting once the minimal output's
    // queue is half full. h = 4 (the h = 3 network drains fast enough to show no drift).
    let windows = |cap: &str| -> (Vec<f64>, f64) {
        let cfg = config(&[
            "topology.p=4",
            "topology.a=8",
            "topology.h=4",
            "routing.algorithm=ofar",
            EXPERIMENT[0],
            EXPERIMENT[1],
            EXPERIMENT[2],
            EXPERIMENT[3],
            &format!("routing.busy_wait_max={cap}"),
            "traffic.pattern=adv-global",
            "traffic.offset=2",
            "traffic.load=0.12",
            "simulation.warmup_cycles=0",
            "simulation.measure_cycles=30000",
            "simulation.series_window=5000",
        ]);
        let r = arcsim::run(&cfg).unwrap();
        let s = r.series.expect("series requested");
        // The last window holds only the packets delivered before the end: left out.
        let lat = s.points[..5]
            .iter()
            .map(|p| p.latency_mean.unwrap_or(0.0))
            .collect();
        (lat, r.misrouted_fraction.unwrap())
    };
    let (always, mis_always) = windows("1.0");
    let (capped, mis_capped) = windows("0.5");
    eprintln!("latency per 5,000 cycles: always wait {always:.0?}, capped {capped:.0?}");
    // Measured: always 222 → 247 by the fifth window; capped flat at 222–227.
    assert!(always[4] > always[0] + 15.0, "{always:?}");
    assert!(always.windows(2).all(|w| w[1] > w[0]), "{always:?}");
    assert!(capped[4] < capped[0] + 8.0, "{capped:?}");
    assert!((mis_always - mis_capped).abs() < 0.01);
}

#[test]
fn ofar_consumes_bursts_faster_than_pb_with_the_experiment_settings() {
    // The OFAR paper Fig. 8 with the settings of experiments/ofar (transit-first injection,
    // busy_minimal = "wait", committed MM+L hop, port occupancy): OFAR consumes bursts in
    // clearly less time than PB (paper: 0.431-0.815 of PB's time). h = 3, 100 packets per node.
    for (pattern, offset) in [("uniform", 0), ("adv-global", 2), ("adv-global", 3)] {
        let time = |alg: &str| {
            let mut sets = EXPERIMENT.to_vec();
            sets.push("traffic.burst_packets=100");
            let (a, p, o) = (
                format!("routing.algorithm={alg}"),
                format!("traffic.pattern={pattern}"),
                format!("traffic.offset={offset}"),
            );
            sets.extend_from_slice(&[&a, &p, &o]);
            must_run(&sets).burst.expect("burst run").consumption_cycles as f64
        };
        let (ofar, pb) = (time("ofar"), time("pb"));
        eprintln!(
            "{pattern}+{offset}: OFAR {ofar} cycles, PB {pb} cycles ({:.3})",
            ofar / pb
        );
        assert!(
            ofar < 0.9 * pb,
            "{pattern}+{offset}: OFAR {ofar} vs PB {pb}"
        );
    }
}

/// Plain OFAR with the settings of experiments/ofar but the given extra keys, under a random
/// permutation at full load (h = 3, 5,000 + 5,000 cycles).
fn permutation_at_full_load(seed: u64, extra: &str) -> RunResult {
    must_run(&[
        "routing.algorithm=ofar",
        extra,
        "router.injection_priority=transit-first",
        "routing.busy_minimal=wait",
        "routing.mml_commit=true",
        "traffic.pattern=permutation",
        "traffic.load=1.0",
        &format!("simulation.seed={seed}"),
        "simulation.warmup_cycles=5000",
        "simulation.measure_cycles=5000",
    ])
}

#[test]
fn ecm_keeps_ofar_up_under_a_permutation_at_full_load() {
    // With the earlier experiment settings (Q per VC, the default), plain OFAR jams past
    // saturation under traffic whose flows persist (a random permutation here; notes/ofar-history.md, "Figs. 10 and 11 with
    // the earlier settings"), while ECM keeps it above PB. Three seeds: the depth of the jam varies with the permutation.
    let at = |cm: &str, seed: u64| {
        permutation_at_full_load(seed, &format!("routing.congestion={cm}")).accepted_load
    };
    let (mut none, mut ecm) = (0.0, 0.0);
    for seed in 1..=3 {
        let (n, e) = (at("none", seed), at("ecm", seed));
        eprintln!("permutation, load 1.0, seed {seed}: plain {n:.3}, ECM {e:.3}");
        assert!(e > 0.5, "seed {seed}: ECM {e:.3}");
        none += n / 3.0;
        ecm += e / 3.0;
    }
    assert!(
        none < 0.75 * ecm,
        "plain OFAR {none:.3} no longer jams (ECM {ecm:.3}): update the docs"
    );
}

#[test]
fn port_occupancy_keeps_plain_ofar_up_under_a_permutation_at_full_load() {
    // The jam above comes from comparing the emptiest VC of each output: a port whose other
    // VCs are full still looks empty, packets misroute into it, and local misroutes close
    // cycles of full local buffers. Comparing whole ports (routing.occupancy = "port")
    // keeps plain OFAR, without congestion management, at the level ECM reaches.
    let at = |occupancy: &str, seed: u64| {
        permutation_at_full_load(seed, &format!("routing.occupancy={occupancy}"))
    };
    for seed in 1..=3 {
        let (vc, port) = (at("vc", seed), at("port", seed));
        eprintln!(
            "permutation, load 1.0, seed {seed}: vc {:.3}, port {:.3} ({:.1}% entered the escape ring)",
            vc.accepted_load,
            port.accepted_load,
            100.0 * port.escape.entered_fraction.unwrap()
        );
        assert!(
            port.accepted_load > 0.5,
            "seed {seed}: {:.3}",
            port.accepted_load
        );
        assert!(
            port.accepted_load > 1.08 * vc.accepted_load,
            "seed {seed}: port {:.3} vs vc {:.3}",
            port.accepted_load,
            vc.accepted_load
        );
        assert!(port.escape.entered_fraction.unwrap() < 0.25);
    }
}

#[test]
fn a_descending_ring_holds_ofar_l_to_one_over_h_under_advg_h() {
    // The OFAR paper Fig. 6f: OFAR-L, without local misrouting, is limited to about 1/h under
    // ADVG+h by one local channel per intermediate group (R_k -> R_{k-1} here). A descending
    // ring A shares that channel; an ascending one (R_k -> R_{k+1}) leads around it, and
    // packets diverted to the ring reach the exit router over other local links, so OFAR-L
    // goes above 1/h. h = 4 (1/h = 0.25), the settings of experiments/ofar.
    let h = 4.0;
    let at = |direction: &str| {
        let mut sets = EXPERIMENT.to_vec();
        sets.extend_from_slice(&[
            "topology.p=4",
            "topology.a=8",
            "topology.h=4",
            "routing.algorithm=ofar-l",
            // The ring's effect as measured with MM+L's local hop (the hop's own effect is
            // the next test's).
            "routing.ofar_l_mml=true",
            "traffic.pattern=adv-global",
            "traffic.offset=4",
            "traffic.load=0.5",
            "simulation.warmup_cycles=3000",
            "simulation.measure_cycles=4000",
        ]);
        let d = format!("routing.ring_direction={direction}");
        sets.push(&d);
        arcsim::run(&config(&sets))
            .unwrap_or_else(|e| panic!("{direction}: {e}"))
            .accepted_load
    };
    let (up, down) = (at("ascending"), at("descending"));
    eprintln!("OFAR-L, ADVG+4, load 0.5: ascending ring {up:.3}, descending {down:.3}");
    assert!(down <= 1.0 / h, "descending: {down:.3} above 1/h");
    assert!(down > 0.7 / h, "descending: {down:.3} far below 1/h");
    assert!(up > 1.1 / h, "ascending: {up:.3} no longer above 1/h");
}

#[test]
fn ofar_l_without_the_mml_local_hop_does_not_clog_at_h6() {
    // At h = 6 under ADVG+6 with a descending ring and the committed MM+L hop, OFAR-L clogs
    // past saturation: source-group misroutes taken from local queues compete as transit
    // traffic for the global links, fill the intermediate groups' global input buffers with
    // packets for the R_k -> R_{k-1} bottleneck and block the exit routers' global outputs
    // (notes/ofar-history.md, "Why OFAR-L clogs with the committed MM+L hop"). With
    // `routing.ofar_l_mml = false` (no non-minimal local hop at all, the OFAR paper §4) it holds
    // about 1/h. The h = 6 network of the paper, 5,000 + 5,000 cycles.
    let at = |mml: bool| {
        let m = format!("routing.ofar_l_mml={mml}");
        let mut sets = EXPERIMENT.to_vec();
        sets.extend_from_slice(&[
            "routing.algorithm=ofar-l",
            "routing.ring_direction=descending",
            "traffic.pattern=adv-global",
            "traffic.offset=6",
            "traffic.load=0.4",
            "simulation.warmup_cycles=5000",
            "simulation.measure_cycles=5000",
            &m,
        ]);
        arcsim::run(&config(&sets))
            .unwrap_or_else(|e| panic!("ofar_l_mml={mml}: {e}"))
            .accepted_load
    };
    let (with, without) = (at(true), at(false));
    eprintln!("OFAR-L, h = 6, ADVG+6, load 0.4: with the MM+L hop {with:.3}, without {without:.3}");
    assert!(without > 0.8 / 6.0, "without the MM+L hop: {without:.3}");
    assert!(
        with < 0.6 / 6.0,
        "with the MM+L hop: {with:.3} no longer clogs"
    );
}

#[test]
fn escape_patience_delays_entering_the_escape_network() {
    // `routing.escape_patience` (not in the OFAR paper): a blocked head enters the escape network
    // only after asking for that many cycles at its router. Saturating ADVG+h with 2/1(+1)
    // VCs sends packets to the ring at once with 0; with a patience, fewer enter it, and
    // with one longer than the run none does.
    let at = |patience: u32| {
        let p = format!("routing.escape_patience={patience}");
        let mut sets = EXPERIMENT.to_vec();
        sets.extend_from_slice(&[
            "routing.algorithm=ofar",
            "router.vcs_local=2",
            "router.vcs_global=1",
            "traffic.pattern=adv-global",
            "traffic.offset=3",
            "traffic.load=1.0",
            "simulation.warmup_cycles=2000",
            "simulation.measure_cycles=4000",
            "simulation.watchdog_cycles=2000",
            &p,
        ]);
        run(&sets)
    };
    let now = at(0).expect("patience 0");
    let patient = at(64).expect("patience 64");
    eprintln!(
        "ADVG+3, 2/1(+1), load 1.0: entered the ring {:.4} (patience 0) {:.4} (64); accepted {:.3} {:.3}",
        now.escape.entered_fraction.unwrap(),
        patient.escape.entered_fraction.unwrap(),
        now.accepted_load,
        patient.accepted_load
    );
    assert!(
        now.escape.entered_fraction.unwrap() > 0.01,
        "patience 0: {:.4} entered the ring, too few to test a delay",
        now.escape.entered_fraction.unwrap()
    );
    assert!(
        patient.escape.entered_fraction.unwrap() < 0.5 * now.escape.entered_fraction.unwrap(),
        "patience 64 did not delay entries: {:.4} against {:.4}",
        patient.escape.entered_fraction.unwrap(),
        now.escape.entered_fraction.unwrap()
    );
    // Longer than the run: no packet may enter the escape network. Without it OFAR may
    // deadlock, which the watchdog then reports; either outcome shows the ring unused.
    match at(1_000_000) {
        Ok(r) => assert_eq!(
            r.escape.entered_fraction.unwrap(),
            0.0,
            "entered despite patience"
        ),
        Err(SimError::Deadlock(_)) => {}
        Err(e) => panic!("patience beyond the run: {e}"),
    }
}

#[test]
fn bcm_without_a_bubble_only_keeps_injected_packets_out_of_the_escape_network() {
    // BCM with bcm_bubble = 0 differs from no CM only in that a packet in an injection queue
    // waits instead of entering the escape network (docs/configuration.md), which is what
    // `escape_from_injection = false` does without CM. That alone lifts Fig. 5's collapse
    // part of the way at h = 3; the paper's 2-packet bubble does the rest.
    let run_with = |cm: &str, bubble: &str, from_injection: &str| {
        let r = must_run(&[
            "routing.algorithm=ofar",
            "routing.escape=tree",
            &format!("routing.congestion={cm}"),
            &format!("routing.bcm_bubble={bubble}"),
            &format!("routing.escape_from_injection={from_injection}"),
            "router.vcs_local=2",
            "router.vcs_global=1",
            "traffic.load=1.0",
            "simulation.warmup_cycles=3000",
            "simulation.measure_cycles=4000",
        ]);
        (r.accepted_load, r.escape.entered_fraction.unwrap())
    };
    let at = |cm: &str, bubble: &str| run_with(cm, bubble, "true");
    let (none, bcm0, bcm2) = (at("none", "2"), at("bcm", "0"), at("bcm", "2"));
    assert_eq!(
        run_with("none", "2", "false"),
        bcm0,
        "no CM with escape_from_injection = false must be BCM with bubble 0"
    );
    eprintln!("tree 2/1(+1) UN load 1.0 (accepted, entered the tree): none {none:?}, BCM bubble 0 {bcm0:?}, bubble 2 {bcm2:?}");
    assert!(
        none.0 + 0.05 < bcm0.0 && bcm0.0 + 0.05 < bcm2.0,
        "expected none < BCM bubble 0 < BCM bubble 2: {none:?} {bcm0:?} {bcm2:?}"
    );
    // Without the bubble the canonical network still fills, so packets in transit still
    // take the tree; with it they hardly ever do.
    assert!(bcm0.1 > 0.05 && bcm2.1 < 0.01, "{bcm0:?} {bcm2:?}");
}

#[test]
fn misrouting_only_after_a_lost_allocation_misroutes_less_and_still_beats_one_over_h() {
    // routing.misroute_trigger = "granted": only a minimal output granted to
    // another input earlier in the same allocation starts a misroute; one that is merely
    // busy or full does not (a full one sends the packet to the escape network).
    let un = |trigger: &str| {
        let t = format!("routing.misroute_trigger={trigger}");
        must_run(&[
            "routing.algorithm=ofar",
            &t,
            "traffic.load=0.3",
            "simulation.warmup_cycles=3000",
            "simulation.measure_cycles=3000",
        ])
    };
    let (any, granted) = (un("unavailable"), un("granted"));
    eprintln!(
        "OFAR UN 0.3: misrouted {:.3} (any unavailable output) vs {:.3} (granted only)",
        any.misrouted_fraction.unwrap(),
        granted.misrouted_fraction.unwrap()
    );
    assert!(
        granted.misrouted_fraction.unwrap() < any.misrouted_fraction.unwrap() / 2.0,
        "granted {:.3} vs unavailable {:.3}",
        granted.misrouted_fraction.unwrap(),
        any.misrouted_fraction.unwrap()
    );
    // Contention at the minimal global output is enough to spread ADVG+h traffic.
    let adv = must_run(&[
        "routing.algorithm=ofar",
        "routing.misroute_trigger=granted",
        "router.crossbar_input=vc",
        "traffic.pattern=adv-global",
        "traffic.offset=3",
        "traffic.load=1.0",
        "simulation.warmup_cycles=3000",
        "simulation.measure_cycles=3000",
    ]);
    eprintln!(
        "OFAR ADVG+3 load 1.0, granted only: {:.3}",
        adv.accepted_load
    );
    assert!(
        adv.accepted_load > 1.25 / 3.0,
        "accepted {:.3} against 1/h = 0.333",
        adv.accepted_load
    );
}

/// FOGSim's router and OFAR readings (notes/ofar-history.md, "What FOGSim's source
/// says").
/// Its 2015 misrouting trigger (minimal output granted, full or busy; `CGA` with `ThMin = 0`)
/// is `misroute_trigger = "unavailable"` (these tests' baseline, `PAPER_TEXT`); its 2014
/// code's, the library default, is `misroute_trigger = "granted"` with `busy_minimal = "wait"`.
const FOGSIM: [&str; 4] = [
    "router.crossbar_input=vc",
    "routing.occupancy=vc",
    "routing.ofar_l_mml=true",
    "routing.mml_commit=true",
];

/// Congestion management as the BCM and ECM curves of experiments/ofar's figure specs set it.
const SPEC_BCM: [&str; 2] = ["routing.congestion=bcm", "routing.bcm_escape=true"];
const SPEC_ECM: [&str; 2] = ["routing.congestion=ecm", "routing.ecm_buffers=downstream"];

#[test]
fn misrouting_only_around_congested_global_links_lifts_ofar_above_min_under_uniform_load() {
    // The OFAR paper Fig. 6: under UN both OFARs saturate later than MIN. With FOGSim's settings
    // and the misroute-on-busy trigger, OFAR misroutes around every momentarily busy minimal
    // global link and saturates below MIN. FOGSim's restriction
    // (`routing.misroute_congested_global`: only around a minimal global link that holds
    // clearly more than its router's others) lifts it above MIN, and under ADVG+h the one
    // minimal link stands out, so OFAR still spreads the load well beyond 1/h. FOGSim checks
    // it only for hops on VC 0 (the default): with two global VCs it lifts OFAR less.
    let sets = |alg: &str, pattern: &str, restrict: Option<&'static str>| -> RunResult {
        let mut sets = FOGSIM.to_vec();
        let (a, p) = (
            format!("routing.algorithm={alg}"),
            format!("traffic.pattern={pattern}"),
        );
        sets.extend_from_slice(&[
            "router.injection_priority=transit-first",
            "router.vcs_injection=3",
            &a,
            &p,
            "traffic.offset=3",
            "traffic.load=1.0",
            "simulation.warmup_cycles=4000",
            "simulation.measure_cycles=4000",
        ]);
        sets.extend(restrict);
        must_run(&sets)
    };
    const ALL_VCS: &str = "routing.misroute_congested_global={all_vcs=true,packets=5}";
    const VC0: &str = "routing.misroute_congested_global={packets=5}";
    let min = sets("min", "uniform", None).accepted_load;
    let (plain, restricted, vc0) = (
        sets("ofar", "uniform", None),
        sets("ofar", "uniform", Some(ALL_VCS)),
        sets("ofar", "uniform", Some(VC0)).accepted_load,
    );
    let adv = sets("ofar", "adv-global", Some(ALL_VCS)).accepted_load;
    eprintln!(
        "UN 1.0: MIN {min:.3}, OFAR {:.3} ({:.0}% misrouted), with the restriction {:.3} ({:.0}%), on VC 0 only {vc0:.3}; ADVG+3 with it {adv:.3}",
        plain.accepted_load,
        100.0 * plain.misrouted_fraction.unwrap(),
        restricted.accepted_load,
        100.0 * restricted.misrouted_fraction.unwrap()
    );
    assert!(vc0 > plain.accepted_load + 0.03, "VC 0 only: {vc0}");
    assert!(vc0 < restricted.accepted_load - 0.03, "VC 0 only: {vc0}");
    assert!(
        plain.accepted_load < min,
        "{} vs MIN {min}",
        plain.accepted_load
    );
    assert!(
        restricted.accepted_load > 1.05 * min,
        "{} vs MIN {min}",
        restricted.accepted_load
    );
    assert!(restricted.misrouted_fraction.unwrap() < plain.misrouted_fraction.unwrap() - 0.1);
    assert!(adv > 1.25 / 3.0, "ADVG+3: {adv} against 1/h = 0.333");
}

#[test]
fn a_congested_global_restriction_without_margin_changes_nothing() {
    // With factor = 0 and packets = 0 a minimal global link counts as congested as soon as
    // its VC 0 holds anything, and with `occupancy = "vc"` an output whose VC 0 is empty has
    // Q_min = 0 and is never misrouted around anyway: the run must be the same, packet for
    // packet (experiments/ofar/README.md gives this as the way to switch it off).
    const UN: [&str; 6] = [
        "routing.algorithm=ofar",
        "routing.busy_minimal=wait",
        "router.injection_priority=transit-first",
        "traffic.load=0.7",
        "simulation.warmup_cycles=2000",
        "simulation.measure_cycles=2000",
    ];
    let un = |extra: &[&str]| must_run(&[&UN[..], extra].concat());
    let (none, zero, fogsim) = (
        un(&[]),
        un(&["routing.misroute_congested_global={ factor = 0, packets = 0 }"]),
        un(&["routing.misroute_congested_global={packets=5}"]),
    );
    assert_eq!(none.packets, zero.packets);
    assert_eq!(none.latency, zero.latency);
    assert_eq!(
        none.misrouted_fraction.unwrap(),
        zero.misrouted_fraction.unwrap()
    );
    // FOGSim's margin does change the run: fewer packets misroute.
    assert!(
        fogsim.misrouted_fraction.unwrap() < none.misrouted_fraction.unwrap() - 0.05,
        "{} vs {}",
        fogsim.misrouted_fraction.unwrap(),
        none.misrouted_fraction.unwrap()
    );
}

#[test]
fn ecm_reading_downstream_escape_buffers_holds_fig5_where_ecm_on_inputs_collapses() {
    // The OFAR paper Fig. 5 with FOGSim's settings: tree, 2/1(+1), UN at full load, three
    // injection VCs with equal priority. Plain OFAR collapses, and ECM watching the router's
    // own escape inputs loses much of the load; ECM watching the escape buffers its outputs
    // feed (what FOGSim reads) holds, as BCM does. (On the h = 6 network ECM collapses
    // either way: docs/reproductions/ofar/README.md.)
    let at = |cm: &[&str]| {
        let mut sets = FOGSIM.to_vec();
        sets.extend_from_slice(&[
            "routing.algorithm=ofar",
            "routing.escape=tree",
            "router.vcs_local=2",
            "router.vcs_global=1",
            "router.vcs_injection=3",
            "router.injection_priority=equal",
            "traffic.load=1.0",
            "simulation.warmup_cycles=3000",
            "simulation.measure_cycles=4000",
        ]);
        sets.extend_from_slice(cm);
        must_run(&sets).accepted_load
    };
    let none = at(&[]);
    let bcm = at(&["routing.congestion=bcm"]);
    let ecm_in = at(&["routing.congestion=ecm"]);
    let ecm_down = at(&SPEC_ECM);
    eprintln!("Fig. 5, FOGSim settings, h = 3: none {none:.3}, BCM {bcm:.3}, ECM inputs {ecm_in:.3}, ECM downstream {ecm_down:.3}");
    assert!(
        bcm > 0.4 && ecm_down > 0.4,
        "BCM {bcm:.3}, ECM downstream {ecm_down:.3}"
    );
    assert!(none < 0.5 * bcm, "plain OFAR {none:.3} did not collapse");
    assert!(
        ecm_in < 0.75 * ecm_down,
        "ECM on inputs {ecm_in:.3} held as well"
    );
}

#[test]
fn bcm_escape_lets_injected_packets_enter_the_escape_network() {
    // routing.bcm_escape (FOGSim): under BCM a packet in an injection queue whose minimal
    // output has no room for it may enter the escape network if the escape VC keeps BCM's
    // bubble (room for the packet but not for the bubble: it waits). ADVG+1 at full load
    // fills the minimal outputs, 2/1(+1), equal injection priority: with either escape
    // network more packets enter it than when BCM keeps injected packets out, and nothing
    // deadlocks.
    for escape in ["ring", "tree"] {
        let at = |bcm_escape: bool| {
            let e = format!("routing.escape={escape}");
            let b = format!("routing.bcm_escape={bcm_escape}");
            must_run(&[
                "routing.algorithm=ofar",
                "routing.congestion=bcm",
                &e,
                &b,
                "router.vcs_local=2",
                "router.vcs_global=1",
                "router.injection_priority=equal",
                "traffic.pattern=adv-global",
                "traffic.offset=1",
                "traffic.load=1.0",
                "simulation.warmup_cycles=2000",
                "simulation.measure_cycles=4000",
                "simulation.watchdog_cycles=1500",
            ])
        };
        let (out, enter) = (at(false), at(true));
        eprintln!(
            "{escape}, BCM, 2/1(+1), ADVG+1 1.0: entered the escape network {:.3} (kept out) vs {:.3} (bcm_escape)",
            out.escape.entered_fraction.unwrap(), enter.escape.entered_fraction.unwrap()
        );
        assert!(enter.packets.delivered > 0);
        // Measured: ring 0.097 kept out vs 0.153; tree 0.096 vs 0.108 (the tree's few
        // links fill less often than the ring's). Without the key both runs are identical.
        let (ratio, margin) = if escape == "ring" {
            (1.3, 0.01)
        } else {
            (1.0, 0.005)
        };
        assert!(
            enter.escape.entered_fraction.unwrap()
                > ratio * out.escape.entered_fraction.unwrap() + margin,
            "{escape}: {:.3} vs {:.3}",
            enter.escape.entered_fraction.unwrap(),
            out.escape.entered_fraction.unwrap()
        );
    }
}

/// FOGSim's 2014 example configuration on h = 4 (1,056 nodes), 5,000 + 5,000 cycles, plus
/// `extra`: the settings of the FOGSim reference runs
/// (docs/reproductions/ofar/data/fogsim/fogsim-oracle-h4.txt), without an escape ring, which
/// FOGSim's one-way embedded ring does not provide.
fn fogsim_example(extra: &[&str]) -> RunResult {
    let mut sets = FOGSIM.to_vec();
    sets.extend_from_slice(&[
        "topology.p=4",
        "topology.a=8",
        "topology.h=4",
        "router.injection_priority=transit-first",
        "router.vcs_injection=3",
        "router.buffer_injection=1000",
        "router.injection_vc=destination",
        "router.allocator_iterations=2",
        "routing.escape=none",
        "routing.misroute_threshold=0.7",
        "routing.misroute_trigger=granted",
        "routing.busy_minimal=wait",
        "routing.misroute_congested_global={packets=5}",
        "simulation.warmup_cycles=5000",
        "simulation.measure_cycles=5000",
    ]);
    sets.extend_from_slice(extra);
    arcsim::run(&config(&sets)).unwrap_or_else(|e| panic!("{extra:?}: {e}"))
}

#[test]
fn light_advg2_latency_matches_fogsim_only_with_credits_returned_per_packet() {
    // FOGSim itself (2014 source, its example configuration: 2 allocator iterations,
    // threshold 70%, the 2014 trigger, the congested-global restriction with its 5-packet
    // margin, no usable escape ring) gives 224.0 cycles under ADVG+2 at load 0.12. Its
    // restriction applies to hops on VC 0, the VC with the most credits and the first on
    // ties; FOGSim moves a packet as one flit and returns its credits at once, so the two
    // global VCs tie often, VC 0 takes the packet granted first and VC 1 is left emptier for
    // the rest: the restriction seldom holds packets back. With credits coming back phit by
    // phit the tie is rare and packets wait for the minimal link about 50 cycles longer.
    let at = |credits: &str| {
        let ret = format!("router.credit_return={credits}");
        fogsim_example(&[
            &ret,
            "routing.algorithm=ofar",
            "traffic.pattern=adv-global",
            "traffic.offset=2",
            "traffic.load=0.12",
        ])
    };
    let (packet, phit) = (at("packet"), at("phit"));
    let fogsim = 224.0;
    eprintln!(
        "ADVG+2 0.12, FOGSim's settings: credits per packet {:.1} cycles ({:.4} accepted), per phit {:.1} ({:.4}); FOGSim {fogsim}",
        packet.latency.mean.unwrap(), packet.accepted_load, phit.latency.mean.unwrap(), phit.accepted_load
    );
    assert!(
        (packet.latency.mean.unwrap() - fogsim).abs() < 0.03 * fogsim,
        "credits per packet: {:.1} cycles against FOGSim's {fogsim}",
        packet.latency.mean.unwrap()
    );
    assert!(
        phit.latency.mean.unwrap() > packet.latency.mean.unwrap() + 30.0,
        "credits per phit: {:.1} cycles, not clearly above per packet {:.1}",
        phit.latency.mean.unwrap(),
        packet.latency.mean.unwrap()
    );
    for r in [&packet, &phit] {
        assert!(
            (r.accepted_load - 0.12).abs() < 0.003,
            "{}",
            r.accepted_load
        );
    }
}

#[test]
fn ring_bcm_under_light_advg2_matches_fogsim_and_starves_no_router() {
    // The OFAR paper Fig. 10's Ring+BCM, 2/1(+1), ADVG+2 at load 0.2, on FOGSim's settings with
    // its two-way ring (ringDirs = 2) and its BCM (an injection may enter the ring when its
    // minimal output is full). FOGSim accepts 0.1957 at 423 cycles, 79.4% misrouted. Its
    // switches put 494-503 packets per router position into the network in the 5,000
    // measured cycles, except position 0 (442.9 on average) and 7 (481.1), the fewest 386
    // (a counter added to FOGSim's servePort; FOGSim's own `packetsInj` counts packets
    // entering the injection queues, which at this load is the generated traffic). Its
    // allocator asks every unserved input again at each iteration, so an injection whose
    // minimal output was just granted to a transit packet misroutes in the next iteration;
    // when only the inputs that lost a request were asked again, the gateways of every
    // group starved (0.145 accepted, a router injecting nothing; with BCM's escape 0.165).
    let r = fogsim_example(&[
        "router.credit_return=packet",
        "router.vcs_local=2",
        "router.vcs_global=1",
        "routing.algorithm=ofar",
        "routing.escape=ring",
        "routing.ring_direction=both",
        "routing.congestion=bcm",
        "routing.bcm_escape=true",
        "traffic.pattern=adv-global",
        "traffic.offset=2",
        "traffic.load=0.2",
    ]);
    let fewest = *r.injected_per_router.iter().min().unwrap();
    eprintln!(
        "Ring+BCM ADVG+2 0.2, FOGSim's settings: {:.4} accepted, {:.1} cycles, {:.3} misrouted, fewest injections {fewest}; FOGSim 0.1957, 423, 0.794, 446",
        r.accepted_load, r.latency.mean.unwrap(), r.misrouted_fraction.unwrap()
    );
    assert!(
        (r.accepted_load - 0.1957).abs() < 0.004,
        "{}",
        r.accepted_load
    );
    assert!(
        (r.latency.mean.unwrap() - 423.0).abs() < 0.1 * 423.0,
        "{}",
        r.latency.mean.unwrap()
    );
    assert!(
        (r.misrouted_fraction.unwrap() - 0.794).abs() < 0.03,
        "{}",
        r.misrouted_fraction.unwrap()
    );
    assert!(fewest > 300, "a router injected only {fewest} packets");
    // Per router position (8 per group), as FOGSim: position 0 injects about 11% less.
    let at = by_position(&r.injected_per_router, 8);
    let fogsim = [442.9, 501.0, 500.9, 495.7, 498.2, 494.4, 497.2, 481.1];
    for (k, f) in fogsim.iter().enumerate() {
        assert!(
            (at[k] - f).abs() < 0.04 * f,
            "position {k}: {:.1} packets injected, FOGSim {f}",
            at[k]
        );
    }
}

/// Mean of a per-router quantity over the groups, for each router position in a group of `a`.
fn by_position(per_router: &[u64], a: usize) -> Vec<f64> {
    (0..a)
        .map(|k| {
            let v: Vec<u64> = per_router.iter().copied().skip(k).step_by(a).collect();
            v.iter().sum::<u64>() as f64 / v.len() as f64
        })
        .collect()
}

#[test]
fn pb_with_fogsims_flags_matches_fogsim_under_advg2() {
    // FOGSim's PB flags a global channel when its VC 0 holds more than 125% of the mean of
    // its router's global channels (plus 5 packets); it has no utilisation test. Under ADVG+2
    // at full load FOGSim's PB accepts 0.334 and no switch starves (its fewest injections:
    // 495 packets in the window). arcsim's default flags (twice the mean, or busy 90% of the
    // time) flag the gateway's other global channels too, and a router starves.
    let at = |flags: &[&str]| {
        fogsim_example(
            &[
                &[
                    "router.credit_return=packet",
                    "routing.algorithm=pb",
                    "traffic.pattern=adv-global",
                    "traffic.offset=2",
                    "traffic.load=1.0",
                ],
                flags,
            ]
            .concat(),
        )
    };
    let fogsim_flags = at(&["routing.pb_factor=1.25", "routing.pb_utilisation=false"]);
    let default_flags = at(&[]);
    let fewest = |r: &RunResult| r.injected_per_router.iter().copied().min().unwrap_or(0);
    eprintln!(
        "PB ADVG+2 1.0: FOGSim's flags {:.4} (fewest injections {}), default {:.4} ({}); FOGSim 0.334 (495)",
        fogsim_flags.accepted_load,
        fewest(&fogsim_flags),
        default_flags.accepted_load,
        fewest(&default_flags)
    );
    assert!(
        (fogsim_flags.accepted_load - 0.334).abs() < 0.03 * 0.334,
        "{}",
        fogsim_flags.accepted_load
    );
    assert!(fewest(&fogsim_flags) > 300);
    assert!(default_flags.accepted_load < 0.92 * fogsim_flags.accepted_load);
}

#[test]
fn pb_fogsim_model_matches_fogsim_under_uniform_and_adversarial_load() {
    // FOGSim's PB (2014 source, piggybacking = 1) on its example settings, seed 1, h = 4,
    // load 1.0: UN 0.5772 (seeds 2, 3: 0.5798, 0.5789; mean 3.395 hops), ADVG+2 0.3342
    // (4.135 hops), ADVG+4 0.2155 (4.556 hops). `pb_model = "fogsim"` with FOGSim's margin
    // matches all three; the reference PB accepts 8% more under UN, because it prices
    // paths by all their hops and keeps minimal packets on the VCs above the Valiant path's
    // first phase, where FOGSim's minimal packets share VC 0 with Valiant ones and FOGSim's
    // estimate of the local hops (written for the consecutive arrangement) sends more of
    // them the long way.
    // PB with FOGSim's flags on FOGSim's example settings, plus `extra`.
    let pb = |extra: &[&str]| {
        let mut sets = vec![
            "router.credit_return=packet",
            "routing.algorithm=pb",
            "routing.pb_factor=1.25",
            "routing.pb_utilisation=false",
        ];
        sets.extend_from_slice(extra);
        fogsim_example(&sets)
    };
    let at = |pattern: &str, offset: &str, model: &[&str]| {
        let pat = format!("traffic.pattern={pattern}");
        let off = format!("traffic.offset={offset}");
        pb(&[&["traffic.load=1.0", &pat, &off][..], model].concat())
    };
    let fogsim_model = ["routing.pb_model=fogsim", "routing.pb_margin=5"];
    for (pattern, offset, accepted, hops) in [
        ("uniform", "0", 0.578, 3.395),
        ("adv-global", "2", 0.3342, 4.135),
        ("adv-global", "4", 0.2155, 4.556),
    ] {
        let r = at(pattern, offset, &fogsim_model);
        eprintln!(
            "PB fogsim model {pattern}+{offset}: accepted {:.4} (FOGSim {accepted}), hops {:.3} ({hops})",
            r.accepted_load, r.hops.mean.unwrap()
        );
        assert!(
            (r.accepted_load - accepted).abs() < 0.02 * accepted,
            "{pattern}+{offset}: {:.4} against FOGSim's {accepted}",
            r.accepted_load
        );
        assert!(
            (r.hops.mean.unwrap() - hops).abs() < 0.01 * hops,
            "{pattern}+{offset}: {:.3} hops against FOGSim's {hops}",
            r.hops.mean.unwrap()
        );
    }
    let reference = at("uniform", "0", &["routing.pb_margin=5"]);
    assert!(
        reference.accepted_load > 1.05 * 0.578,
        "reference PB under UN {:.4}: no longer above FOGSim's",
        reference.accepted_load
    );
    // Light UN load (0.1): FOGSim's PB 145.4 cycles (MIN 125.1). The reference PB flags a
    // channel holding one packet when the mean is lower, and misroutes 42% of the packets.
    let light = |model: &[&str]| {
        pb(&[&["traffic.load=0.1"][..], model].concat())
            .latency
            .mean
            .unwrap()
    };
    let (model, reference) = (light(&fogsim_model), light(&[]));
    eprintln!("PB UN 0.1: fogsim model {model:.1} cycles, reference {reference:.1}; FOGSim 145.4");
    assert!((model - 145.4).abs() < 0.03 * 145.4, "{model:.1}");
    assert!(reference > 160.0, "{reference:.1}");
}

#[test]
fn lrs_update_on_request_brings_uniform_saturation_to_fogsims() {
    // FOGSim's input arbiter moves a VC to the back of its input's LRS order whenever the VC
    // makes a request (`switchModule::tryNextVC`), granted or not; arcsim's default does so
    // when it is granted. On FOGSim's example settings at UN 1.0 (FOGSim: OFAR 0.7953; PB
    // 0.5772, 0.5798, 0.5789 over seeds 1-3) the request rule closes the remaining gap:
    // OFAR 0.7925 -> 0.7950, PB 0.5858 -> 0.5802 (seed 1).
    let un = |alg: &[&str], update: &str| {
        let upd = format!("router.lrs_update={update}");
        let mut sets = vec![
            "router.credit_return=packet",
            "traffic.load=1.0",
            upd.as_str(),
        ];
        sets.extend_from_slice(alg);
        fogsim_example(&sets).accepted_load
    };
    let ofar = ["routing.algorithm=ofar"];
    let pb = [
        "routing.algorithm=pb",
        "routing.pb_factor=1.25",
        "routing.pb_utilisation=false",
        "routing.pb_model=fogsim",
        "routing.pb_margin=5",
    ];
    let (ofar_grant, ofar_request) = (un(&ofar, "grant"), un(&ofar, "request"));
    let (pb_grant, pb_request) = (un(&pb, "grant"), un(&pb, "request"));
    eprintln!(
        "UN 1.0, LRS on grant / on request: OFAR {ofar_grant:.4} / {ofar_request:.4} (FOGSim 0.7953), PB {pb_grant:.4} / {pb_request:.4} (FOGSim 0.5786)"
    );
    assert!(
        (ofar_request - 0.7953).abs() < 0.002,
        "OFAR {ofar_request:.4}"
    );
    assert!((pb_request - 0.5786).abs() < 0.005, "PB {pb_request:.4}");
    assert!(
        pb_grant > 0.5786 + 0.005,
        "PB on grant {pb_grant:.4}: now as close to FOGSim"
    );
}

#[test]
fn ecm_on_a_two_way_ring_matches_fogsim_and_seldom_throttles_under_advg2() {
    // The OFAR paper Fig. 10's Ring+ECM, 2/1(+1), ADVG+2 at full load, on FOGSim's settings.
    // FOGSim's one-way embedded ring has no escape buffers, so its working ring (and the
    // paper's) is the two-way one: FOGSim accepts 0.3234 there. Under ADVG nearly every
    // escape hop goes one way round; ECM waits for *every* escape buffer of the router to pass
    // 20%, and the other direction's stay nearly empty, so ECM seldom stops an injection and
    // Ring+ECM stays well above Ring+BCM (FOGSim 0.2723). With a one-way ring ECM watches one
    // buffer, which fills, and throttles.
    let at = |cm: &[&str], direction: &str| {
        let dir = format!("routing.ring_direction={direction}");
        let mut sets = vec![
            "router.credit_return=packet",
            "router.vcs_local=2",
            "router.vcs_global=1",
            "routing.algorithm=ofar",
            "routing.escape=ring",
            dir.as_str(),
            "traffic.pattern=adv-global",
            "traffic.offset=2",
            "traffic.load=1.0",
        ];
        sets.extend_from_slice(cm);
        fogsim_example(&sets)
    };
    let (two_way, one_way, bcm) = (
        at(&SPEC_ECM, "both"),
        at(&SPEC_ECM, "ascending"),
        at(&SPEC_BCM, "both"),
    );
    eprintln!(
        "Ring+ECM ADVG+2 1.0, FOGSim's settings: two-way {:.4}, one-way {:.4}; Ring+BCM {:.4}; FOGSim 0.3234 and 0.2723",
        two_way.accepted_load, one_way.accepted_load, bcm.accepted_load
    );
    for (what, got, fogsim) in [
        ("two-way Ring+ECM", two_way.accepted_load, 0.3234),
        ("Ring+BCM", bcm.accepted_load, 0.2723),
    ] {
        assert!(
            (got - fogsim).abs() < 0.02 * fogsim,
            "{what} {got:.4} against FOGSim's {fogsim}"
        );
    }
    assert!(
        two_way.accepted_load > 1.1 * one_way.accepted_load,
        "two-way {:.4} not clearly above one-way {:.4}",
        two_way.accepted_load,
        one_way.accepted_load
    );
}

#[test]
fn advg4_bursts_match_fogsim_and_end_with_the_same_routers() {
    // The OFAR paper Fig. 8's bursts (h = 4, ADVG+4, 200 packets per node) on FOGSim's settings,
    // OFAR and OFAR-L with FOGSim's two-way ring. FOGSim (2014 source, burst=1) consumes them
    // in 6,215 (OFAR), 8,223 (OFAR-L) and 9,176 cycles (PB). Its last network injections, by
    // router position in a group, show which routers the burst waits for: OFAR's position 7
    // (5,766 on average; the exit to groups +1..+4), OFAR-L's position 0 (7,799; the entry
    // from groups -1..-4, whose injections lose to transit packets; position 1 is done at
    // 3,259), PB's position 7 (7,753).
    let burst = |sets: &[&str]| {
        let mut all = vec![
            "traffic.burst_packets=200",
            "traffic.pattern=adv-global",
            "traffic.offset=4",
            "simulation.max_cycles=100000",
            "router.credit_return=packet",
        ];
        all.extend_from_slice(sets);
        let r = fogsim_example(&all);
        let b = r.burst.expect("a burst");
        (
            b.consumption_cycles as f64,
            by_position(&b.finished_per_router, 8),
        )
    };
    let ring = ["routing.escape=ring", "routing.ring_direction=both"];
    for (alg, extra, fogsim, last) in [
        ("ofar", &ring[..], 6215.0, 7),
        ("ofar-l", &ring[..], 8223.0, 0),
        (
            "pb",
            &["routing.pb_factor=1.25", "routing.pb_utilisation=false"][..],
            9176.0,
            7,
        ),
    ] {
        let a = format!("routing.algorithm={alg}");
        let mut sets = vec![a.as_str()];
        sets.extend_from_slice(extra);
        let (cycles, pos) = burst(&sets);
        eprintln!("{alg}: {cycles} cycles (FOGSim {fogsim}), finish by position {pos:.0?}");
        assert!(
            (cycles - fogsim).abs() < 0.03 * fogsim,
            "{alg}: {cycles} cycles, FOGSim {fogsim}"
        );
        let slowest = (0..8).max_by(|&i, &j| pos[i].total_cmp(&pos[j])).unwrap();
        assert_eq!(
            slowest, last,
            "{alg}: the burst waits for position {slowest}"
        );
    }
}

/// OFAR with the tree and 2/1(+1) VCs consuming ADVG+4 bursts of 500 packets per node (h = 4):
/// FOGSim's example settings with the experiments' threshold, allocator iterations and
/// congested-global restriction, plus `extra` (later overrides win).
fn tree_bursts_at_h4(extra: &[&str]) -> RunResult {
    let mut sets = vec![
        "router.allocator_iterations=3",
        "router.credit_return=packet",
        "router.vcs_local=2",
        "router.vcs_global=1",
        "routing.algorithm=ofar",
        "routing.misroute_threshold=0.9",
        "routing.escape=tree",
        "routing.misroute_congested_global={ factor = 1.5, packets = 0.0 }",
        "traffic.pattern=adv-global",
        "traffic.offset=4",
        "traffic.burst_packets=500",
        "simulation.max_cycles=200000",
    ];
    sets.extend_from_slice(extra);
    fogsim_example(&sets)
}

#[test]
fn packets_on_the_tree_take_no_mml_hop_with_fogsims_rule_and_use_the_tree_as_fogsim() {
    // FOGSim (2014 source) offers MM+L's local hop only to packets on canonical VCs
    // (`misrouteTypeOFAR`: LOCAL_MM needs an input VC outside the ring and the tree). On the
    // experiments' settings (threshold 90%, 3 iterations, its congested-global restriction
    // without margin) its ADVG+4 burst (h = 4, 500 packets per node, the tree rooted at router
    // 31, 2/1(+1) VCs, no CM) takes 0.109 tree entries and 0.139 tree hops per packet, counted
    // by an instrumented copy (docs/reproductions/ofar/data/fogsim/s22-probes.txt). With
    // `mml_from_escape = false` arcsim takes 0.107 and 0.138. Allowing the hop (the paper's
    // text makes no exception) lets packets leave the tree after about one hop and enter it
    // again: 0.170 and 0.179.
    let burst = |mml_from_escape: bool| {
        let flag = format!("routing.mml_from_escape={mml_from_escape}");
        let r = tree_bursts_at_h4(&["routing.tree_root=31", &flag]);
        assert_eq!(r.packets.in_flight, 0, "{flag}: the burst is consumed");
        (r.escape.entries_mean.unwrap(), r.escape.hops_mean.unwrap())
    };
    let (fog_entries, fog_hops) = (0.109, 0.139);
    let (entries, hops) = burst(false);
    let (entries_any, hops_any) = burst(true);
    eprintln!(
        "tree entries / hops per packet: FOGSim {fog_entries} / {fog_hops}, \
         mml_from_escape = false {entries:.3} / {hops:.3}, true {entries_any:.3} / {hops_any:.3}"
    );
    assert!(
        (entries - fog_entries).abs() < 0.1 * fog_entries
            && (hops - fog_hops).abs() < 0.1 * fog_hops,
        "FOGSim's rule: {entries:.3} entries and {hops:.3} tree hops per packet"
    );
    assert!(
        entries_any > 1.4 * entries && hops_any / entries_any < 0.9 * hops / entries,
        "with the MM+L hop from the tree packets enter it more often ({entries_any:.3}) and \
         stay fewer hops ({:.2} against {:.2})",
        hops_any / entries_any,
        hops / entries
    );
}

#[test]
fn with_fogsims_last_two_rules_the_tree_is_faster_with_ecm_than_with_bcm_as_in_fogsim() {
    // The OFAR paper Fig. 11: the paper has the tree faster with ECM than with BCM. On the
    // experiments' settings (h = 4, ADVG+4 bursts of 500 packets per node, 2/1(+1) VCs, the
    // tree rooted where FOGSim roots it for each seed) FOGSim (2014 source) consumes them in
    // these cycles, BCM / ECM: ECM is 1.1% faster over the five seeds, slower only with seed 2
    // (docs/reproductions/ofar/data/fogsim/s21-probes.txt). With FOGSim's input arbiter
    // (`router.lrs_update = "request"`) and its rule that a packet on the tree takes no MM+L
    // hop (`routing.mml_from_escape = false`), as experiments/ofar sets them, arcsim's runs are
    // within 1% of FOGSim's and ECM is faster with the same four seeds (0.6% on average).
    // With the paper's reading of MM+L and the arbiter on grant packets enter the tree more
    // often and ECM is 2.3% slower.
    let fogsim = [
        (1, 31, 18_672.0, 18_261.0),
        (2, 40, 18_314.0, 18_540.0),
        (3, 16, 18_423.0, 18_291.0),
        (4, 3, 18_751.0, 18_677.0),
        (5, 46, 18_747.0, 18_152.0),
    ];
    let burst = |seed: u64, root: usize, cm: &[&str], fogsims: bool| {
        let (s, r) = (
            format!("simulation.seed={seed}"),
            format!("routing.tree_root={root}"),
        );
        let rules: [&str; 2] = if fogsims {
            ["router.lrs_update=request", "routing.mml_from_escape=false"]
        } else {
            ["router.lrs_update=grant", "routing.mml_from_escape=true"]
        };
        let mut sets = vec![s.as_str(), r.as_str()];
        sets.extend_from_slice(cm);
        sets.extend_from_slice(&rules);
        let b = tree_bursts_at_h4(&sets).burst.expect("a burst");
        b.consumption_cycles as f64
    };
    let (mut sum_bcm, mut sum_ecm) = (0.0, 0.0);
    let mut faster_with_ecm = Vec::new();
    for (seed, root, fog_bcm, fog_ecm) in fogsim {
        let (b, e) = (
            burst(seed, root, &SPEC_BCM, true),
            burst(seed, root, &SPEC_ECM, true),
        );
        eprintln!(
            "seed {seed} (root {root}): BCM {b} (FOGSim {fog_bcm}), ECM {e} (FOGSim {fog_ecm})"
        );
        for (what, got, want) in [("BCM", b, fog_bcm), ("ECM", e, fog_ecm)] {
            assert!(
                (got - want).abs() < 0.01 * want,
                "seed {seed}, {what}: {got} cycles against FOGSim's {want}"
            );
        }
        sum_bcm += b;
        sum_ecm += e;
        if e < b {
            faster_with_ecm.push(seed);
        }
    }
    assert!(
        sum_ecm < 0.997 * sum_bcm,
        "FOGSim's rules: ECM {} against BCM {} cycles over five seeds (FOGSim 0.989)",
        sum_ecm / 5.0,
        sum_bcm / 5.0
    );
    // FOGSim: four seeds of five (seed 4 by 0.4%); arcsim's seed 4 is within 0.1%, so ask
    // for three.
    assert!(
        faster_with_ecm.len() >= 3,
        "ECM faster only with seeds {faster_with_ecm:?}"
    );
    let (mut any_bcm, mut any_ecm) = (0.0, 0.0);
    for (seed, root, ..) in fogsim {
        any_bcm += burst(seed, root, &SPEC_BCM, false);
        any_ecm += burst(seed, root, &SPEC_ECM, false);
    }
    assert!(
        any_ecm > 1.01 * any_bcm,
        "the paper's MM+L and the arbiter on grant: ECM {} against BCM {} cycles",
        any_ecm / 5.0,
        any_bcm / 5.0
    );
}

/// `routing.misroute_inclusive = true` qualifies a non-minimal output at occupancy
/// `<= threshold × Q_min` (the OFAR paper's text, FOGSim's code): with FOGSim's trigger a packet
/// whose minimal output, with an empty VC, was just granted to another input may then take
/// any output with an empty VC, so OFAR misroutes locally more often and its paths grow (on the
/// paper's network under ADVG+6 at 0.25: 44.7% of packets misrouted locally against 43.0%,
/// FOGSim 44.7%; docs/reproductions/ofar/data/fogsim/s33-probes.txt).
#[test]
fn inclusive_threshold_misroutes_more_than_the_strict_one() {
    let at = |inclusive: bool| {
        let inc = format!("routing.misroute_inclusive={inclusive}");
        must_run(&[
            "routing.algorithm=ofar",
            "routing.misroute_trigger=granted",
            "routing.busy_minimal=wait",
            "router.injection_priority=transit-first",
            "router.allocator_iterations=3",
            "router.crossbar_input=vc",
            "routing.occupancy=vc",
            "traffic.pattern=adv-global",
            "traffic.offset=3",
            "traffic.load=0.2",
            "simulation.warmup_cycles=2000",
            "simulation.measure_cycles=4000",
            &inc,
        ])
    };
    let (strict, inclusive) = (at(false), at(true));
    for r in [&strict, &inclusive] {
        assert!((r.accepted_load - 0.2).abs() < 0.01, "{r:?}");
    }
    assert!(
        inclusive.hops.mean.unwrap() - inclusive.hops.global_mean.unwrap()
            > strict.hops.mean.unwrap() - strict.hops.global_mean.unwrap() + 0.01,
        "local hops: inclusive {:.4} (mean {:.4}), strict {:.4} (mean {:.4})",
        inclusive.hops.mean.unwrap() - inclusive.hops.global_mean.unwrap(),
        inclusive.hops.mean.unwrap(),
        strict.hops.mean.unwrap() - strict.hops.global_mean.unwrap(),
        strict.hops.mean.unwrap()
    );
}

/// A burst as experiments/ofar/fig13-counter.toml runs it at its quick scale: Fig. 13's tree
/// without CM, ADVG+4 bursts of 500 packets per node (h = 4), 2/1(+1) VCs, on the
/// experiments' burst settings (burst.toml), plus `extra`.
fn fig13_tree_burst_at_h4(extra: &[&str]) -> RunResult {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../experiments/ofar/burst.toml"
    ))
    .unwrap();
    let mut tree: toml::Value = toml::from_str(&text).unwrap();
    let sets = [
        "router.vcs_local=2",
        "router.vcs_global=1",
        "routing.algorithm=ofar",
        "routing.escape=tree",
        "routing.congestion=none",
        "traffic.mix=[]",
        "traffic.pattern=adv-global",
        "traffic.offset=4",
        "topology.p=4",
        "topology.a=8",
        "topology.h=4",
        "traffic.burst_packets=500",
        "simulation.repetitions=1",
        "simulation.max_cycles=100000",
        "simulation.series_window=0",
    ];
    for s in sets.iter().chain(extra) {
        apply_override(&mut tree, s).unwrap();
    }
    let cfg = Config::from_value(tree).unwrap();
    arcsim::validate(&cfg).unwrap();
    arcsim::run(&cfg).unwrap_or_else(|e| panic!("{extra:?}: {e}"))
}

#[test]
fn the_escape_entry_limit_bounds_the_longest_path_at_little_cost() {
    // The OFAR paper §5.7: against livelock, "a counter of injections into the escape path; after
    // the counter exceeds a given threshold (for example, 15 for a 4-bit counter) the packet
    // is not allowed to leave the escape subnetwork again ... this would not have a
    // significant impact in performance". Fig. 13's worst case, the tree without CM under
    // ADVG+h (here h = 4, 500 packets per node): without a limit some packets enter the tree
    // more than 15 times and travel tens of hops. With a limit no packet enters it more often,
    // the longest path shrinks, every packet is delivered (no deadlock: the watchdog is
    // silent), and the burst takes about as long.
    let unlimited = fig13_tree_burst_at_h4(&[]);
    let generated = unlimited.packets.generated;
    // The entries histogram adds up to the packets measured and gives the run's escape means.
    let check_entries = |r: &RunResult, what: &str| {
        let h = &r.escape.entries_histogram;
        let n: u64 = r.hops.histogram.iter().sum();
        assert_eq!(h.iter().sum::<u64>(), n, "{what}: {h:?}");
        assert_eq!(h.len() as u64, r.escape.entries_max + 1, "{what}: {h:?}");
        let entries: u64 = h.iter().enumerate().map(|(k, &c)| k as u64 * c).sum();
        assert!((entries as f64 / n as f64 - r.escape.entries_mean.unwrap()).abs() < 1e-12);
        assert!((1.0 - h[0] as f64 / n as f64 - r.escape.entered_fraction.unwrap()).abs() < 1e-12);
    };
    check_entries(&unlimited, "no limit");
    // "the amount of packets with such a high number of injections is very low"
    let often: u64 = unlimited.escape.entries_histogram[15..].iter().sum();
    eprintln!("no limit: {often} of {generated} packets entered the tree 15 times or more");
    assert!(often > 0 && (often as f64) < 1e-3 * generated as f64);
    let mut longest = unlimited.hops.max;
    eprintln!(
        "no limit: {} cycles, longest path {longest}, at most {} entries",
        unlimited.burst.as_ref().unwrap().consumption_cycles,
        unlimited.escape.entries_max
    );
    assert!(unlimited.escape.entries_max > 15 && longest > 40);
    for limit in [15, 4] {
        let set = format!("routing.escape_entry_limit={limit}");
        let r = fig13_tree_burst_at_h4(&[&set]);
        let cycles = r.burst.as_ref().expect("burst run").consumption_cycles as f64;
        let base = unlimited.burst.as_ref().unwrap().consumption_cycles as f64;
        eprintln!(
            "limit {limit}: {cycles} cycles ({:.3}), longest path {}, at most {} entries",
            cycles / base,
            r.hops.max,
            r.escape.entries_max
        );
        assert_eq!(
            (
                r.packets.generated,
                r.packets.delivered,
                r.packets.in_flight
            ),
            (generated, generated, 0),
            "{set}: every packet delivered"
        );
        assert_eq!(r.escape.entries_max, limit, "{set}");
        check_entries(&r, &set);
        assert!(r.hops.max < longest, "{set}: longest path {}", r.hops.max);
        longest = r.hops.max;
        assert!(
            (cycles / base - 1.0).abs() < 0.05,
            "{set}: {cycles} against {base}"
        );
    }
}
