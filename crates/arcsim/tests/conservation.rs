//! Packet conservation: every generated packet is delivered, sitting in a buffer, or on a
//! link; none is duplicated or lost, under every routing and past saturation (full buffers,
//! credits exhausted, injection queues refusing).

mod common;

use arcsim::engine::Audit;
use common::small;

const ROUTINGS: [&str; 4] = ["min", "val", "val-any", "ugal-l"];

fn check(audit: &Audit, what: &str) {
    assert!(
        audit.balanced(),
        "{what}: packets not conserved: {audit:?} (generated must equal delivered + in buffers + on links, live pool must equal in buffers + on links, no duplicates)"
    );
}

/// Step past saturation, auditing along the way, then finish with `run` and compare the
/// reported packet counters with an independent count of where the packets are.
fn step_and_audit(routing: &str, extra: &[&str]) {
    let alg = format!("routing.algorithm={routing}");
    let mut sets = vec![
        alg.as_str(),
        "traffic.load=0.8",
        "simulation.warmup_cycles=2000",
        "simulation.measure_cycles=2000",
    ];
    sets.extend_from_slice(extra);
    let cfg = small(&sets);
    let what = format!("{routing} {extra:?}");
    let mut sim = arcsim::build(&cfg).expect("valid configuration");
    assert_eq!(sim.now(), 0);
    check(&sim.audit(), &what);
    let checkpoints = [1u64, 2, 10, 57, 100, 333, 500, 1000, 1500, 2000, 2500, 3000];
    let mut last = None;
    for &c in &checkpoints {
        while sim.now() < c {
            sim.step()
                .unwrap_or_else(|e| panic!("{what}: step at {}: {e}", sim.now()));
        }
        assert_eq!(sim.now(), c, "{what}: one step is one cycle");
        let a = sim.audit();
        check(&a, &format!("{what} at cycle {c}"));
        last = Some(a);
    }
    let a = last.unwrap();
    // Past saturation the network must actually be loaded, or the test proves little.
    assert!(
        a.generated > a.delivered && a.in_buffers + a.on_links > 100,
        "{what}: expected a congested network at cycle 3000, got {a:?}"
    );
    assert!(
        a.on_links > 0,
        "{what}: nothing on links at cycle 3000: {a:?}"
    );

    let r = sim.run().unwrap_or_else(|e| panic!("{what}: run: {e}"));
    assert_eq!(
        r.cycles, 4000,
        "{what}: run must stop at warm-up + measurement"
    );
    assert_eq!(sim.now(), 4000);
    let end = sim.audit();
    check(&end, &format!("{what} at the end"));
    assert_eq!(r.packets.generated, end.generated, "{what}: {end:?}");
    assert_eq!(r.packets.delivered, end.delivered, "{what}: {end:?}");
    assert_eq!(
        r.packets.in_flight,
        end.in_buffers + end.on_links,
        "{what}: reported in-flight packets differ from those found in buffers and on links: {end:?}"
    );
    assert_eq!(
        r.packets.generated,
        r.packets.delivered + r.packets.in_flight,
        "{what}"
    );
    assert!(
        r.packets.refused_at_source > 0,
        "{what}: load 0.8 is past saturation, injection queues should have refused packets"
    );
}

#[test]
fn conservation_past_saturation_default_buffers() {
    for routing in ROUTINGS {
        step_and_audit(routing, &[]);
    }
}

#[test]
fn conservation_past_saturation_minimal_buffers() {
    // Buffers that hold exactly one packet: every credit matters.
    for routing in ROUTINGS {
        step_and_audit(
            routing,
            &[
                "router.buffer_local=8",
                "router.buffer_global=8",
                "router.buffer_injection=8",
            ],
        );
    }
}

#[test]
fn conservation_with_extra_vcs_and_other_policies() {
    for routing in ROUTINGS {
        step_and_audit(
            routing,
            &[
                "router.vcs_local=5",
                "router.vcs_global=3",
                "router.vcs_injection=2",
                "router.buffer_injection=32",
                "router.arbiter=age",
                "router.vc_selection=random",
                "router.allocator_iterations=1",
            ],
        );
    }
}

#[test]
fn conservation_with_each_input_vc_a_crossbar_input() {
    // router.crossbar_input = "vc": an input port sends packets of several VCs at once.
    for routing in ROUTINGS.into_iter().chain(["pb", "ofar"]) {
        step_and_audit(
            routing,
            &[
                "router.crossbar_input=vc",
                "router.vcs_injection=2",
                "router.buffer_injection=32",
                // Each VC reading on its own saturates later: load 1.0 keeps the network full.
                "traffic.load=1.0",
            ],
        );
    }
}

#[test]
fn conservation_with_credits_returned_per_packet() {
    // router.credit_return = "packet": whole packets' credits at once, never a ramp.
    for routing in ROUTINGS.into_iter().chain(["pb", "ofar"]) {
        step_and_audit(
            routing,
            &["router.credit_return=packet", "traffic.load=1.0"],
        );
    }
}

/// Burst mode: every node sends a fixed number of packets; the run ends when all are
/// delivered, so nothing may be left anywhere.
#[test]
fn burst_delivers_everything() {
    for routing in ROUTINGS {
        let alg = format!("routing.algorithm={routing}");
        let cfg = small(&[alg.as_str(), "traffic.burst_packets=30"]);
        let mut sim = arcsim::build(&cfg).unwrap();
        let r = sim.run().unwrap_or_else(|e| panic!("{routing}: {e}"));
        let nodes = 72;
        assert_eq!(
            r.packets.generated,
            30 * nodes,
            "{routing}: {:?}",
            r.packets
        );
        assert_eq!(
            r.packets.delivered,
            30 * nodes,
            "{routing}: {:?}",
            r.packets
        );
        assert_eq!(r.packets.in_flight, 0, "{routing}");
        let b = r.burst.as_ref().expect("burst summary");
        assert_eq!(b.packets_per_node, 30);
        // 30 packets of 8 phits leave each node at most one phit per cycle.
        assert!(
            b.consumption_cycles >= 30 * 8,
            "{routing}: burst consumed in {} cycles, faster than the injection link allows",
            b.consumption_cycles
        );
        // Every router's nodes finish, none before its own injection links allow, and the
        // burst ends with the last of them.
        let f = &b.finished_per_router;
        assert_eq!(f.len(), r.injected_per_router.len(), "{routing}");
        assert!(f.iter().all(|&c| c >= 30 * 8), "{routing}: {f:?}");
        assert_eq!(f.iter().max(), Some(&b.consumption_cycles), "{routing}");
        let a = sim.audit();
        check(&a, routing);
        assert_eq!(
            (a.in_buffers, a.on_links, a.live),
            (0, 0, 0),
            "{routing}: {a:?}"
        );
    }
}

/// A burst generated at a load (traffic.burst_generation = "load") is delivered in full,
/// and its generation, not the network, sets its length at a light load: 100 packets of 8
/// phits at load 0.2 take about 4,000 cycles to generate (a node's last packet comes after
/// 100 geometric gaps of mean 40 cycles: 4,000 ± 390, the latest of 72 nodes about 1.6
/// standard deviations above; 4,977 cycles with this seed), where with queues kept full the
/// network's saturation under uniform traffic sets it (1,482 cycles).
#[test]
fn burst_generated_at_a_load_is_paced_by_it() {
    let base = [
        "routing.algorithm=min",
        "traffic.burst_packets=100",
        "traffic.load=0.2",
    ];
    let run = |extra: &[&str]| {
        let cfg = small(&[&base[..], extra].concat());
        let mut sim = arcsim::build(&cfg).unwrap();
        let r = sim.run().unwrap_or_else(|e| panic!("{extra:?}: {e}"));
        assert_eq!(r.packets.generated, 100 * 72, "{extra:?}");
        assert_eq!(r.packets.delivered, 100 * 72, "{extra:?}");
        let a = sim.audit();
        check(&a, "min");
        assert_eq!((a.in_buffers, a.on_links, a.live), (0, 0, 0), "{a:?}");
        r.burst.expect("burst summary").consumption_cycles
    };
    let fill = run(&[]);
    let paced = run(&["traffic.burst_generation=load"]);
    assert!((800..1_600).contains(&fill), "filled queues: {fill} cycles");
    assert!(
        (4_000..6_000).contains(&paced),
        "at load 0.2: {paced} cycles"
    );
}

/// Below saturation, what is generated is delivered: accepted load equals the offered load
/// (within the sampling noise of a 20,000-cycle window).
#[test]
fn below_saturation_accepted_equals_offered() {
    for (routing, load) in [
        ("min", 0.3),
        ("val", 0.2),
        ("val-any", 0.2),
        ("ugal-l", 0.3),
    ] {
        let alg = format!("routing.algorithm={routing}");
        let l = format!("traffic.load={load}");
        let cfg = small(&[
            alg.as_str(),
            l.as_str(),
            "simulation.warmup_cycles=3000",
            "simulation.measure_cycles=20000",
        ]);
        let r = common::run(&cfg);
        eprintln!(
            "{routing} load {load}: generated {:.4} accepted {:.4}",
            r.generated_load, r.accepted_load
        );
        assert_eq!(r.packets.refused_at_source, 0, "{routing}");
        assert!(
            (r.accepted_load - load).abs() < 0.03 * load,
            "{routing}: accepted {:.4} at offered {load} (generated {:.4})",
            r.accepted_load,
            r.generated_load
        );
        assert!(
            (r.accepted_load - r.generated_load).abs() < 0.02 * load,
            "{routing}: accepted {:.4} but generated {:.4} in the window",
            r.accepted_load,
            r.generated_load
        );
    }
}

/// The time series covers the simulated cycles and nothing more, and its windows account for
/// every generated packet and every delivered phit (a delivery is stamped with its tail's
/// arrival, which can lie past the last cycle: those few tails are the only phits a window
/// may miss, at most one packet per node).
#[test]
fn series_windows_cover_the_run_and_add_up() {
    let cfg = small(&[
        "routing.algorithm=min",
        "traffic.load=0.8",
        "simulation.warmup_cycles=1000",
        "simulation.measure_cycles=3000",
        "simulation.series_window=250",
    ]);
    let r = common::run(&cfg);
    let s = r.series.as_ref().expect("series requested");
    let nodes = 72.0;
    let len = 8.0;
    assert_eq!(r.cycles, 4000);
    assert_eq!(
        s.points.len(),
        16,
        "4,000 cycles in 250-cycle windows; a window past the run's end is not a window"
    );
    for (i, p) in s.points.iter().enumerate() {
        assert_eq!(p.cycle, i as u64 * 250);
    }
    let per_window = |f: fn(&arcsim::stats::SeriesPoint) -> f64| -> f64 {
        s.points.iter().map(|p| f(p) * nodes * 250.0).sum()
    };
    let generated = per_window(|p| p.generated_load) / len;
    assert!(
        (generated - r.packets.generated as f64).abs() < 0.5,
        "series generated {generated} packets, the run {}",
        r.packets.generated
    );
    let delivered_phits = per_window(|p| p.accepted_load);
    let all = r.packets.delivered as f64 * len;
    assert!(
        delivered_phits <= all + 0.5 && delivered_phits >= all - nodes * len - 0.5,
        "series delivered {delivered_phits} phits, the run {all}"
    );
    // The latency of a window counts the packets generated in it that were delivered: all of
    // them but for the last few windows, whose packets are partly still in flight (at load
    // 0.8 some wait in the injection queues). Those and only those are not
    // `mostly_delivered`, so plots leave them out.
    let in_flight = r.packets.generated - r.packets.delivered;
    assert!(
        in_flight > 0,
        "load 0.8 leaves packets in flight at the end"
    );
    let missing: Vec<f64> = s
        .points
        .iter()
        .map(|p| p.generated_packets(72, 250, 8) - p.latency_samples as f64)
        .collect();
    assert!(
        (missing.iter().sum::<f64>() - in_flight as f64).abs() < 0.5,
        "windows miss {missing:?}, {in_flight} packets in flight"
    );
    let kept: Vec<bool> = s
        .points
        .iter()
        .map(|p| p.mostly_delivered(72, 250, 8))
        .collect();
    let first_dropped = kept
        .iter()
        .position(|&k| !k)
        .expect("the last window is dropped");
    assert!(
        first_dropped >= 12 && kept[first_dropped..].iter().all(|&k| !k),
        "kept {kept:?}, packets missing per window {missing:?}"
    );
    for (k, m) in kept.iter().zip(&missing) {
        assert!(
            *k || *m > 1.0,
            "kept {kept:?}, packets missing per window {missing:?}"
        );
    }
}

/// Below saturation the links of each class send, over the window, the phits of the hops of
/// that class the delivered packets took (within 2%: packets on their way at the window's
/// edges), for OFAR too, whose misroutes and escape hops use both classes. Each directed link
/// counts once: 36 routers with 3 local and 2 global links each.
#[test]
fn link_use_adds_up_to_the_hops_taken() {
    for routing in ["min", "val", "ofar"] {
        let cfg = small(&[
            &format!("routing.algorithm={routing}"),
            "traffic.pattern=adv-global",
            "traffic.offset=2",
            "traffic.load=0.1",
            "simulation.warmup_cycles=2000",
            "simulation.measure_cycles=8000",
        ]);
        let r = common::run(&cfg);
        let l = &r.links;
        assert_eq!((l.local.links, l.global.links), (36 * 3, 36 * 2), "{l:?}");
        common::check_link_use(&r, 0.02, 1.0, routing);
    }
}

/// ADVG+2 at load 0.8 on the 72-node network, past saturation: 1,000 + 2,000 cycles.
fn past_saturation(routing: &str, extra: &[&str]) -> arcsim::Config {
    let alg = format!("routing.algorithm={routing}");
    let mut sets = vec![
        alg.as_str(),
        "traffic.pattern=adv-global",
        "traffic.offset=2",
        "traffic.load=0.8",
        "simulation.warmup_cycles=1000",
        "simulation.measure_cycles=2000",
    ];
    sets.extend_from_slice(extra);
    small(&sets)
}

/// Packets that MIN's buffers hold at these occupancies: 72 injection buffers of 256 phits
/// (32 packets); 36 routers with 3 local ports of 32 phits (4 packets) and 2 global ports of
/// 256 phits, per canonical VC (MIN: 2 local, 1 global).
fn min_packets(o: &arcsim::stats::summary::Occupancy) -> f64 {
    o.injection * (72.0 * 32.0)
        + o.local * (36.0 * 3.0 * 2.0 * 4.0)
        + o.global * (36.0 * 2.0 * 32.0)
}

/// The buffers sampled at the end of each series window are where an audit at that cycle
/// finds the packets: `in_flight` is generated minus delivered, `buffered` the packets in
/// buffers, and each class's occupancy times its packet slots adds up to `buffered`. With
/// OFAR past saturation the escape ring fills too; without an escape network it stays 0.
#[test]
fn series_buffer_samples_match_an_audit_at_each_window_end() {
    for (routing, escape) in [("min", false), ("ofar", true)] {
        let cfg = past_saturation(routing, &["simulation.series_window=250"]);
        let r = common::run(&cfg);
        let s = r.series.as_ref().expect("series requested");
        assert_eq!(s.points.len(), 12, "{routing}");
        let mut sim = arcsim::build(&cfg).unwrap();
        for p in &s.points {
            let end = p.cycle + 250;
            while sim.now() < end {
                sim.step().unwrap();
            }
            let a = sim.audit();
            check(&a, routing);
            let at = format!("{routing}, window ending at {end}");
            assert_eq!(p.in_flight, a.generated - a.delivered, "{at}: {a:?}");
            assert_eq!(p.buffered, a.in_buffers, "{at}: {a:?}");
        }
        if !escape {
            for p in &s.points {
                assert!(
                    (min_packets(&p.occupancy) - p.buffered as f64).abs() < 1e-6,
                    "{routing} at {}: {:?} against {} buffered",
                    p.cycle,
                    p.occupancy,
                    p.buffered
                );
                assert_eq!(p.occupancy.escape, 0.0);
            }
        }
        let last = s.points.last().unwrap();
        // Past saturation under ADVG+2 the sources back up; OFAR's blocked packets take the
        // escape ring.
        assert!(last.occupancy.injection > 0.5, "{routing}: {last:?}");
        let escape_max = s
            .points
            .iter()
            .map(|p| p.occupancy.escape)
            .fold(0.0, f64::max);
        assert_eq!(
            escape_max > 0.0,
            escape,
            "{routing}: escape occupancy {escape_max}"
        );
        assert!(s.points.iter().all(|p| {
            let o = &p.occupancy;
            [o.injection, o.local, o.global, o.escape]
                .iter()
                .all(|f| (0.0..=1.0).contains(f))
        }));
    }
}

/// In burst mode every packet is measured, so the windows' hop and escape means, weighted by
/// their packets, give the run's.
#[test]
fn series_hops_and_escape_use_add_up_to_the_runs() {
    let cfg = small(&[
        "routing.algorithm=ofar",
        "traffic.pattern=adv-global",
        "traffic.offset=2",
        "traffic.burst_packets=200",
        "simulation.series_window=200",
    ]);
    let r = common::run(&cfg);
    let s = r.series.as_ref().expect("series requested");
    let n: u64 = s.points.iter().map(|p| p.latency_samples).sum();
    assert_eq!(n, r.packets.delivered);
    let weighted = |f: fn(&arcsim::stats::SeriesPoint) -> f64| -> f64 {
        s.points
            .iter()
            .map(|p| f(p) * p.latency_samples as f64)
            .sum::<f64>()
            / n as f64
    };
    // A window without packets has no mean (None) and weighs nothing.
    let hops = weighted(|p| p.hops_mean.unwrap_or(0.0));
    let escaped = weighted(|p| p.escaped_fraction.unwrap_or(0.0));
    assert!(
        (hops - r.hops.mean.unwrap()).abs() < 1e-9,
        "{hops} against {}",
        r.hops.mean.unwrap()
    );
    assert!(
        (escaped - r.escape.entered_fraction.unwrap()).abs() < 1e-9,
        "{escaped} against {}",
        r.escape.entered_fraction.unwrap()
    );
    assert!(
        r.escape.entered_fraction.unwrap() > 0.0,
        "the burst should use the escape ring"
    );
    // A burst ends with nothing left anywhere.
    let last = s.points.last().unwrap();
    assert_eq!((last.in_flight, last.buffered), (0, 0), "{last:?}");
}

/// The run's buffer means are those of audits taken every 100 cycles inside the window (the
/// state after cycles 1,099, 1,199, ..., 2,999: 20 samples), and each class's occupancy is
/// its mean packets over its packet slots (MIN, 2/1 VCs, on the 72-node network).
#[test]
fn buffer_means_are_the_means_of_audits_every_100_cycles() {
    for routing in ["min", "ofar"] {
        let cfg = past_saturation(routing, &[]);
        let r = common::run(&cfg);
        let b = &r.buffers;
        assert_eq!(b.samples, 20, "{routing}: {b:?}");
        let mut sim = arcsim::build(&cfg).unwrap();
        let (mut fly, mut buffered) = (0u64, 0u64);
        for k in 11..=30u64 {
            while sim.now() < 100 * k {
                sim.step().unwrap();
            }
            let a = sim.audit();
            fly += a.generated - a.delivered;
            buffered += a.in_buffers;
        }
        assert!(
            (b.in_flight_mean - fly as f64 / 20.0).abs() < 1e-9,
            "{routing}: {b:?}"
        );
        assert!(
            (b.buffered_mean - buffered as f64 / 20.0).abs() < 1e-9,
            "{routing}: {b:?}"
        );
        let o = &b.occupancy;
        if routing == "min" {
            assert!((min_packets(o) - b.buffered_mean).abs() < 1e-6, "{b:?}");
            assert_eq!(o.escape, 0.0);
        } else {
            assert!(o.escape > 0.0, "{b:?}");
        }
        // Past saturation the sources back up.
        assert!(o.injection > 0.5, "{routing}: {b:?}");
    }
}
