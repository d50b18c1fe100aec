//! QCN congestion points and QCN-Switch's probabilities on the general kernel (`[qcn]`):
//! no notification where nothing congests, notifications and cuts under a hot spot with
//! either sampling, conservation with notifications in flight, determinism, and the
//! section's errors naming their key.

use arcsim::config::Config;
use arcsim::kernel::qcn::Qcn;
use arcsim::{RunResult, Simulator};

fn cfg(text: &str) -> Config {
    let c = Config::from_toml_str(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    arcsim::validate(&c).unwrap_or_else(|e| panic!("{e}\n{text}"));
    c
}

/// A small dragonfly (p = 2, a = 4, h = 2: 9 groups, 72 nodes) in the QCN-Switch paper's
/// units at k = 20 (packets of 10 phits, 1000-phit buffers and output queues, speedup 2,
/// 200 ns switch latency), with `[qcn]` given by `qcn`.
fn dragonfly(pattern: &str, load: f64, qcn: &str) -> String {
    format!(
        "[topology]
p = 2
a = 4
h = 2
local_latency = 2
global_latency = 20
terminal_latency = 1
[switch]
kind = \"cioq\"
speedup = 2.0
latency = 10
output_buffer = 1000
[router]
packet_length = 10
buffer_injection = 2000
buffer_local = 1000
buffer_global = 1000
[traffic]
pattern = \"{pattern}\"
load = {load}
[simulation]
warmup_cycles = 2000
measure_cycles = 8000
series_window = 1000
[qcn]
{qcn}
"
    )
}

fn run(text: &str) -> RunResult {
    arcsim::run(&cfg(text)).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

#[test]
fn no_notification_where_nothing_congests() {
    for sampling in ["output", "input"] {
        let r = run(&dragonfly(
            "uniform",
            0.2,
            &format!("sampling = \"{sampling}\""),
        ));
        let q = r.qcn.expect("QCN statistics");
        assert!(q.samples > 0, "{sampling}: {q:?}");
        assert_eq!(q.congested_samples, 0, "{sampling}: {q:?}");
        assert_eq!(q.cnms_sent + q.local_reactions, 0, "{sampling}: {q:?}");
        assert_eq!(q.ports_below_100, 0, "{sampling}: {q:?}");
        // No control packet: no control statistics at all.
        assert!(r.control.is_none());
        assert!((r.accepted_load - 0.2).abs() < 0.02, "{}", r.accepted_load);
        // With no notification sent the data move as without the mechanism (its random
        // draws are its own): the same packets, latencies and paths.
        let text = dragonfly("uniform", 0.2, "");
        let without = run(&text[..text.find("[qcn]").unwrap()]);
        assert!(without.qcn.is_none());
        assert_eq!(
            (r.accepted_load, &r.latency, &r.hops, &r.packets),
            (
                without.accepted_load,
                &without.latency,
                &without.hops,
                &without.packets
            )
        );
        assert_eq!(r.injected_per_router, without.injected_per_router);
    }
}

/// Two groups of three fully connected switches (0-2, 3-5), two nodes each, joined by one
/// long link between switches 2 and 3 (a dragonfly's single global link between two
/// groups, on a graph: its hop-ordered VCs are free of deadlock): every node sends to the
/// other group (node n to n + 6), 1.8 phits per cycle of demand each way over that link.
/// The paper's units at k = 20, as examples/qcn_hotspot.toml.
fn dumbbell(load: f64, qcn: &str) -> String {
    format!(
        "[topology]
kind = \"graph\"
terminal_latency = 1
[topology.graph]
switches = 6
hosts = [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]
links = [
    {{ a = 0, b = 1, latency = 2 }},
    {{ a = 0, b = 2, latency = 2 }},
    {{ a = 1, b = 2, latency = 2 }},
    {{ a = 3, b = 4, latency = 2 }},
    {{ a = 3, b = 5, latency = 2 }},
    {{ a = 4, b = 5, latency = 2 }},
    {{ a = 2, b = 3, latency = 20 }},
]
[switch]
kind = \"cioq\"
speedup = 2.0
latency = 10
output_buffer = 1000
[router]
packet_length = 10
buffer_injection = 2000
buffer_local = 1000
[traffic]
pattern = \"shift\"
offset = 6
load = {load}
[simulation]
warmup_cycles = 5000
measure_cycles = 25000
series_window = 5000
[qcn]
{qcn}
"
    )
}

#[test]
fn a_hot_spot_sends_notifications_with_either_sampling() {
    for (sampling, extra) in [
        ("output", ""),
        ("output", "feedback_comparison = false"),
        ("input", "feedback_comparison = false"),
        ("input", "source_processing = true"),
    ] {
        let what = format!("{sampling} {extra}");
        let text = dumbbell(0.3, &format!("sampling = \"{sampling}\"\n{extra}"));
        let r = run(&text);
        // The long link is the bottleneck: 2 phits per cycle over 12 nodes.
        assert!(
            (r.accepted_load - 2.0 / 12.0).abs() < 0.01,
            "{what}: {}",
            r.accepted_load
        );
        let q = r.qcn.clone().expect("QCN statistics");
        let c = r.control.clone().expect("control statistics");
        assert!(q.congested_samples > 0, "{what}: {q:?}");
        assert!(q.cnms_sent > 0 && q.cnms_received > 0, "{what}: {q:?}");
        assert_eq!(c.sent, q.cnms_sent);
        assert_eq!(c.dropped, 0);
        // Full-size notifications take link bandwidth: ten phits per link crossed, at least
        // one link each.
        assert!(c.link_phits >= 10 * q.cnms_received, "{c:?} {q:?}");
        assert!(c.link_share > 0.0 && c.link_share < 0.05, "{c:?}");
        assert!(q.decreases > 0 && q.ports_below_100 > 0, "{what}: {q:?}");
        assert!(q.min_probability < 100.0);
        // Every transit port of every switch is traced: 2 + 2 + 3 + 3 + 2 + 2.
        let s = q.probabilities.clone().expect("probability series");
        assert_eq!(
            (s.window_cycles, s.ports.len(), s.points.len()),
            (5000, 14, 6)
        );
        assert!(s.points.iter().all(|p| p.values.len() == 14));
        assert!(s.points[5].values.iter().any(|&v| v < 100.0));
        // Only the ports towards the long link are cut: (0, 3), (1, 3), (2, 4) and their
        // mirror images; those of switches 2 and 3 towards their own group never.
        let at = |sw: u32, port: u32| {
            let i = s.ports.iter().position(|&x| x == (sw, port)).unwrap();
            s.points.iter().map(|p| p.values[i]).fold(100.0, f64::min)
        };
        for (sw, port) in [(2, 2), (2, 3), (3, 2), (3, 3), (0, 2), (1, 2)] {
            assert_eq!(at(sw, port), 100.0, "{what}: switch {sw} port {port}");
        }
        assert!(at(0, 3) < 100.0 || at(1, 3) < 100.0, "{what}");
        if extra.contains("source_processing") {
            assert!(q.source_processing > 0, "{q:?}");
        } else {
            assert_eq!(q.source_processing, 0, "{q:?}");
        }
        if sampling == "input" {
            // The culprit waits in a transit buffer: it came from another switch.
            assert_eq!(q.local_reactions, 0, "{q:?}");
        } else {
            // Switch 2's own nodes' packets are sampled at its output: applied there.
            assert!(q.local_reactions > 0 && at(2, 4) < 100.0, "{q:?}");
        }
        // A run is a function of its seed.
        assert_eq!(
            serde_json::to_string(&strip(run(&text))).unwrap(),
            serde_json::to_string(&strip(r)).unwrap()
        );
    }
}

fn strip(mut r: RunResult) -> RunResult {
    r.wall_seconds = 0.0;
    r.cycles_per_second = 0.0;
    r.packet_hops_per_second = 0.0;
    r
}

/// Line of three switches; switch 1's link to switch 2 carries what four nodes send as
/// fast as they can (two on switch 0, two on switch 1): its output queue fills.
const LINE: &str = "
[topology]
kind = \"graph\"
terminal_latency = 1
[topology.graph]
switches = 3
hosts = [0, 0, 1, 1, 2, 2]
links = [
    { a = 0, b = 1, latency = 4 },
    { a = 1, b = 2, latency = 4 },
]
[switch]
kind = \"cioq\"
speedup = 2.0
latency = 4
output_buffer = 400
[router]
packet_length = 10
buffer_local = 400
buffer_injection = 400
[traffic]
load = 0.0
[simulation]
warmup_cycles = 1000
measure_cycles = 20000
series_window = 5000
[[flows]]
src = 0
dst = 4
[[flows]]
src = 1
dst = 5
[[flows]]
src = 2
dst = 4
[[flows]]
src = 3
dst = 5
[qcn]
feedback_comparison = false
";

#[test]
fn an_incast_cuts_the_minimal_probabilities_towards_it() {
    let c = cfg(LINE);
    let mut sim = arcsim::kernel::build_with(&c, Qcn::new(c.qcn.as_ref().unwrap(), &c)).unwrap();
    let r = sim.run().unwrap();
    let q = r.qcn.expect("QCN statistics");
    // The link from switch 1 to switch 2 carries all four flows, at its full rate.
    let through: f64 = r.flows.iter().map(|f| f.throughput).sum();
    assert!((through - 1.0).abs() < 0.03, "{through}");
    // Culprits from switch 0's nodes: CNMs back to switch 0; from switch 1's: applied there.
    assert!(q.cnms_received > 0 && q.local_reactions > 0, "{q:?}");
    // Ports: switch 0 has its nodes on 0-1 and switch 1 on port 2; switch 1 has its two
    // nodes, then switch 0 (port 2) and switch 2 (port 3).
    let to_1 = sim.mech.probability(0, 2);
    let to_2 = sim.mech.probability(1, 3);
    assert!(to_1 < 100.0 && to_2 < 100.0, "{to_1} {to_2}");
    // Nothing congests towards switch 0 (switch 1's port 2) or on switch 2.
    assert_eq!(sim.mech.probability(1, 2), 100.0);
    assert_eq!(sim.mech.minimal_probability(2, 2), 100);
    assert_eq!(sim.mech.minimal_probability(0, 0), 100, "a node's port");
    assert_eq!(sim.mech.minimal_probability(0, 2), to_1 as u8);
}

#[test]
fn notifications_in_flight_are_accounted_for() {
    for sampling in ["output", "input"] {
        let c = cfg(&dumbbell(
            0.5,
            &format!("sampling = \"{sampling}\"\ncpc = 20\ncnm_percent = 100"),
        ));
        let mut sim =
            arcsim::kernel::build_with(&c, Qcn::new(c.qcn.as_ref().unwrap(), &c)).unwrap();
        for step in 0..12000 {
            sim.step().unwrap();
            if step % 200 == 0 {
                let a = sim.audit();
                assert!(a.balanced(), "cycle {step}: {a:?}");
            }
        }
        assert!(sim.k.control.sent > 0 && sim.k.control.consumed > 0);
        assert!(sim.audit().balanced());
    }
}

fn error(text: &str) -> String {
    match Config::from_toml_str(text) {
        Err(e) => e.to_string(),
        Ok(c) => arcsim::validate(&c).unwrap_err().to_string(),
    }
}

#[test]
fn a_bad_qcn_key_is_named() {
    let base = dragonfly("uniform", 0.2, "");
    let e = error(&format!("{base}lff = 0.1\n"));
    assert!(e.contains("qcn.lff") || e.contains("lff"), "{e}");
    for (key, value, field) in [
        ("lf", "0.5", "qcn.lf"),
        ("cnm_percent", "0", "qcn.cnm_percent"),
        ("q_eq", "0.8", "qcn.q_eq"),
        ("th2", "64", "qcn.th2"),
        ("cpc", "0", "qcn.cpc"),
        ("cpc", "200000", "qcn.cpc"),
        ("source_processing", "true", "qcn.source_processing"),
        ("sampling", "\"middle\"", "qcn.sampling"),
    ] {
        let e = error(&format!("{base}{key} = {value}\n"));
        assert!(e.contains(field), "{key} = {value}: {e}");
    }
    // The IQ engine has no mechanism: [qcn] there is refused, naming the section.
    let e = error("[qcn]\n");
    assert!(e.contains("qcn") && e.contains("cioq"), "{e}");
}

#[test]
fn qcn_switch_routing_takes_the_non_minimal_path_under_adversarial_traffic() {
    // Under ADV+1 minimal routing is held to 1/(a·p) = 0.125 by the one global link from
    // each group to the next. QCN-Switch's notifications cut the probability of the
    // congested minimal outputs at the sources' switches, and packets then leave through
    // the global port their node's index names: more is accepted, and misrouted.
    let adv = |qcn: &str| {
        dragonfly("uniform", 0.4, qcn).replace(
            "pattern = \"uniform\"",
            "pattern = \"adv-global\"\noffset = 1",
        )
    };
    let min = run(&adv("routing = false"));
    let qcn = run(&adv("cpc = 10"));
    assert!(
        (min.accepted_load - 0.125).abs() < 0.01,
        "{}",
        min.accepted_load
    );
    assert_eq!(min.misrouted_fraction, Some(0.0));
    // Measured: 0.427 accepted of 0.4 offered (the backlog drains), 84% misrouted.
    assert!(
        qcn.accepted_load > 0.35,
        "QCN-Switch accepted {}",
        qcn.accepted_load
    );
    let misrouted = qcn.misrouted_fraction.unwrap();
    assert!(misrouted > 0.2, "{misrouted}");
    // Under uniform traffic below saturation nothing congests: every packet goes minimally.
    let un = run(&dragonfly("uniform", 0.2, "cpc = 10"));
    assert_eq!(un.misrouted_fraction, Some(0.0));
    // The node-indexed global port needs as many nodes as global ports per switch.
    let e = error(&dragonfly("uniform", 0.2, "").replace("h = 2", "h = 3"));
    assert!(e.contains("qcn.routing"), "{e}");
}

/// The CNMs received in the measurement window, per switch and by the class of the port they
/// arrive on. In the incast every CNM goes back to switch 0 (switch 1's own culprits are
/// handled there, without a CNM), through its link to switch 1: counted as local, or as
/// global when that link is declared a global one; no other switch receives any.
#[test]
fn cnms_received_are_counted_per_switch_and_port_class() {
    for class in ["local", "global"] {
        let text = LINE.replace(
            "{ a = 0, b = 1, latency = 4 }",
            &format!("{{ a = 0, b = 1, latency = 4, class = \"{class}\" }}"),
        );
        assert_ne!(text, LINE);
        let c = cfg(&text);
        let mut sim =
            arcsim::kernel::build_with(&c, Qcn::new(c.qcn.as_ref().unwrap(), &c)).unwrap();
        let q = sim.run().unwrap().qcn.expect("QCN statistics");
        let (local, global) = (&q.cnms_received_local, &q.cnms_received_global);
        assert_eq!((local.len(), global.len()), (3, 3), "{q:?}");
        let total: u64 = local.iter().chain(global).sum();
        // Those received before the measurement window are not counted.
        assert!(total > 0 && total <= q.cnms_received, "{q:?}");
        let (at_0, other) = if class == "global" {
            (global, local)
        } else {
            (local, global)
        };
        assert_eq!(at_0[0], total, "{class}: {q:?}");
        assert!(other.iter().all(|&x| x == 0), "{class}: {q:?}");
    }
}
