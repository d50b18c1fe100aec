//! `[link_classes]`: buffer sizes and latencies per link class on the general kernel. A
//! class's latency gives the analytic zero-load latency; a class's buffer sizes exactly the
//! input buffers its links feed, and a run with it is the run with the same sizes set by the
//! router's keys; a class the network lacks, or any class on the input-queued engine, is an
//! error naming the key.

use arcsim::config::Config;
use arcsim::kernel::mechanism::NoMechanism;
use arcsim::RunResult;
use arcsim::Simulator;

fn cfg(text: &str) -> Config {
    let c = Config::from_toml_str(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    arcsim::validate(&c).unwrap_or_else(|e| panic!("{e}\n{text}"));
    c
}

/// A run's result without the fields that depend on the machine.
fn result(text: &str) -> String {
    let mut r: RunResult = arcsim::run(&cfg(text)).unwrap_or_else(|e| panic!("{e}\n{text}"));
    r.wall_seconds = 0.0;
    r.cycles_per_second = 0.0;
    r.packet_hops_per_second = 0.0;
    serde_json::to_string(&r).unwrap()
}

fn error(text: &str) -> String {
    match Config::from_toml_str(text) {
        Err(e) => e.to_string(),
        Ok(c) => match arcsim::build(&c) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("accepted:\n{text}"),
        },
    }
}

/// Three switches in a chain, node 0 on switch 0 and node 1 on switch 2, links of one
/// cycle unless a class says otherwise.
const CHAIN: &str = "
[topology]
kind = \"graph\"
terminal_latency = 1
[topology.graph]
switches = 3
hosts = [0, 2]
links = [{ a = 0, b = 1 }, { a = 1, b = 2 }]
[switch]
kind = \"cioq\"
speedup = 2.0
latency = 3
[router]
packet_length = 8
";

#[test]
fn class_latencies_give_the_analytic_zero_load_latency() {
    let text = format!(
        "{CHAIN}
[link_classes.local]
latency = 6
[link_classes.node]
latency = 2
[traffic]
load = 0.0
[[flows]]
src = 0
dst = 1
size = 8
start = 100
[simulation]
warmup_cycles = 0
measure_cycles = 1000
"
    );
    let r = arcsim::run(&cfg(&text)).unwrap();
    // Node links of 2, two switch links of 6, three switches of 8 + 3, the tail 7 behind.
    let want = 2.0 + 3.0 * (8.0 + 3.0) + 2.0 * 6.0 + 2.0 + 7.0;
    assert_eq!(r.flows[0].message_latency_mean, Some(want));
}

#[test]
fn a_class_buffer_is_the_same_run_as_the_router_key() {
    let tail = "[traffic]\nload = 0.9\n[simulation]\nwarmup_cycles = 500\nmeasure_cycles = 3000\n";
    let by_router = result(&format!(
        "{CHAIN}buffer_local = 24\nbuffer_injection = 40\n{tail}"
    ));
    let by_class = result(&format!(
        "{CHAIN}buffer_local = 96\n{tail}[link_classes.local]\nbuffer = 24\n[link_classes.node]\nbuffer = 40\n"
    ));
    let other = result(&format!("{CHAIN}buffer_local = 96\n{tail}"));
    assert_eq!(by_router, by_class);
    // The buffer size matters in this run, so the equality says the class's size was used.
    assert_ne!(by_router, other);
}

#[test]
fn up_and_down_buffers_size_the_inputs_their_links_feed() {
    let c = cfg("
[topology]
kind = \"tree\"
[topology.tree]
k = 2
n = 3
[switch]
kind = \"cioq\"
[router]
packet_length = 8
buffer_local = 32
buffer_injection = 64
[link_classes.up]
buffer = 48
[link_classes.down]
buffer = 16
");
    let sim = arcsim::kernel::build_with(&c, NoMechanism).unwrap();
    let k = &sim.k;
    let mut seen = std::collections::BTreeMap::new();
    for gp in 0..k.net.ports.len() {
        let feeding = match k.net.ports[gp].class {
            arcsim::topology::PortClass::Terminal => "node",
            arcsim::topology::PortClass::Unused => continue,
            _ => k.class_names[k.peer[gp] as usize],
        };
        let base = k.vc_base[gp] as usize;
        for vc in base..base + k.vc_count[gp] as usize {
            let want = match feeding {
                "node" => 64,
                "up" => 48,
                "down" => 16,
                other => panic!("class {other} on a fat tree"),
            };
            assert_eq!(k.fc.capacity[vc], want, "port {gp} fed by {feeding}");
            *seen.entry(feeding).or_insert(0) += 1;
        }
    }
    // 2-ary 3-tree: 8 nodes; 8 up links from level 1, 8 from level 2; as many down.
    assert_eq!(seen.get("node"), Some(&8));
    assert_eq!(seen.get("up"), Some(&16));
    assert_eq!(seen.get("down"), Some(&16));
}

/// A 2-ary 2-tree in physical units: 100 Gbps links, 1 ns cycles, 100-byte packets.
const UNITS_TREE: &str = "
[units]
link_rate = \"100 Gbps\"
cycle = \"1 ns\"
[topology]
kind = \"tree\"
[topology.tree]
k = 2
n = 2
[switch]
kind = \"cioq\"
[router]
packet_length = \"100 B\"
";

#[test]
fn class_keys_take_physical_units() {
    let text = format!(
        "{UNITS_TREE}[link_classes.up]
buffer = \"1 KB\"
latency = \"20 ns\"
"
    );
    let c = cfg(&text);
    let up = &c.link_classes["up"];
    assert_eq!((up.buffer, up.latency), (Some(80), Some(20)));
}

#[test]
fn a_class_the_network_lacks_or_the_iq_engine_is_refused() {
    let e = error(&format!("{CHAIN}[link_classes.up]\nbuffer = 64\n"));
    assert!(
        e.contains("link_classes.up") && e.contains("no up links"),
        "{e}"
    );
    assert!(e.contains("local, node"), "{e}");
    let e = error("[link_classes.global]\nbuffer = 64\n");
    assert!(
        e.contains("link_classes") && e.contains("switch.kind"),
        "{e}"
    );
    let e = error(&format!("{CHAIN}[link_classes.uplink]\nbuffer = 64\n"));
    assert!(e.contains("link_classes.uplink"), "{e}");
    let e = error(&format!("{CHAIN}[link_classes.local]\nbuffers = 64\n"));
    assert!(e.contains("buffers"), "{e}");
}

/// A 4-ary 2-tree (16 nodes, 8 switches) at load 1.0 under uniform traffic, with d-mod-k
/// routing and `extra` router keys.
fn tree_at_saturation(extra: &str) -> String {
    format!(
        "
[topology]
kind = \"tree\"
[topology.tree]
k = 4
n = 2
[routing]
selection = \"d-mod-k\"
[switch]
kind = \"cioq\"
[router]
packet_length = 8
buffer_injection = 64
{extra}
[traffic]
load = 1.0
[simulation]
warmup_cycles = 1000
measure_cycles = 4000
"
    )
}

#[test]
fn class_vcs_give_the_inputs_their_links_feed_that_many_vcs() {
    let c = cfg("
[topology]
kind = \"tree\"
[topology.tree]
k = 2
n = 3
[switch]
kind = \"cioq\"
[router]
packet_length = 8
vcs_local = 1
[link_classes.up]
vcs = 3
[link_classes.node]
vcs = 2
");
    let sim = arcsim::kernel::build_with(&c, NoMechanism).unwrap();
    let k = &sim.k;
    for gp in 0..k.net.ports.len() {
        let (want, set) = match k.net.ports[gp].class {
            arcsim::topology::PortClass::Terminal => (2, 1),
            arcsim::topology::PortClass::Unused => continue,
            _ => match k.class_names[k.peer[gp] as usize] {
                "up" => (3, 3),
                "down" => (1, 1),
                other => panic!("class {other} on a fat tree"),
            },
        };
        assert_eq!(k.vc_count[gp], want, "port {gp}");
        assert_eq!(k.vc_set[gp], set, "port {gp}");
    }
}

#[test]
fn every_vc_serves_up_down_routes_and_lifts_saturation() {
    // Under up*/down* order one VC is free of deadlock, so a port's VCs are one level and
    // a packet joins the one with the most room: four VCs of 16 phits block far less than
    // one (each VC is a FIFO). Before, every packet took VC 0 and the other three sat empty.
    let accepted = |extra: &str| {
        let r = arcsim::run(&cfg(&tree_at_saturation(extra))).unwrap();
        r.accepted_load
    };
    let one = accepted("buffer_local = 16\nvcs_local = 1");
    let four = accepted("buffer_local = 16\nvcs_local = 4");
    let by_class = accepted("buffer_local = 16\nvcs_local = 1\n[link_classes.up]\nvcs = 4\n[link_classes.down]\nvcs = 4");
    assert!(four > one + 0.1, "1 VC: {one}, 4 VCs: {four}");
    assert_eq!(four, by_class, "the class keys give the router key's run");
    // The VCs above 0 do hold packets.
    let c = cfg(&tree_at_saturation("buffer_local = 16\nvcs_local = 4"));
    let mut sim = arcsim::kernel::build_with(&c, NoMechanism).unwrap();
    let mut above_zero = 0u64;
    for _ in 0..2000 {
        sim.step().unwrap();
        let k = &sim.k;
        for gp in 0..k.net.ports.len() {
            if matches!(
                k.net.ports[gp].class,
                arcsim::topology::PortClass::Local | arcsim::topology::PortClass::Global
            ) {
                let base = k.vc_base[gp] as usize;
                above_zero += (1..k.vc_count[gp] as usize)
                    .map(|v| k.fc.occupancy((base + v) as u32) as u64)
                    .sum::<u64>();
            }
        }
    }
    assert!(above_zero > 0);
}

/// A ring of five switches, a node on each: shortest paths of up to two hops, whose VC
/// order (VC = hops so far) needs two VCs on the ring's links.
const RING: &str = "
[topology]
kind = \"graph\"
[topology.graph]
switches = 5
hosts = [0, 1, 2, 3, 4]
links = [{ a = 0, b = 1 }, { a = 1, b = 2 }, { a = 2, b = 3 }, { a = 3, b = 4 }, { a = 4, b = 0 }]
[switch]
kind = \"cioq\"
[router]
packet_length = 8
buffer_local = 16
";

#[test]
fn more_vcs_than_levels_are_shared_out_and_stay_free_of_deadlock() {
    let tail = "[traffic]\nload = 1.0\n[simulation]\nwarmup_cycles = 1000\nmeasure_cycles = 4000\nwatchdog_cycles = 500\n";
    let c = cfg(&format!("{RING}{tail}[link_classes.local]\nvcs = 4\n"));
    let mut sim = arcsim::kernel::build_with(&c, NoMechanism).unwrap();
    for gp in 0..sim.k.net.ports.len() {
        if sim.k.net.ports[gp].class == arcsim::topology::PortClass::Local {
            assert_eq!((sim.k.vc_count[gp], sim.k.vc_set[gp]), (4, 2), "port {gp}");
        }
    }
    // Saturated, every packet still arrives (the watchdog would stop a deadlock).
    for _ in 0..5000 {
        sim.step().unwrap();
    }
    let two = arcsim::run(&cfg(&format!("{RING}{tail}"))).unwrap();
    let four = arcsim::run(&c).unwrap();
    assert!(
        four.accepted_load > two.accepted_load,
        "2 VCs: {}, 4 VCs: {}",
        two.accepted_load,
        four.accepted_load
    );
}

#[test]
fn class_vcs_that_do_not_fit_the_order_or_the_queues_are_refused() {
    let e = error(&format!("{RING}[link_classes.local]\nvcs = 3\n"));
    assert!(
        e.contains("link_classes.local.vcs") && e.contains("multiple of 2"),
        "{e}"
    );
    let e = error(&format!("{RING}[link_classes.local]\nvcs = 1\n"));
    assert!(e.contains("link_classes.local.vcs"), "{e}");
    let e = error(&format!(
        "{}[link_classes.up]\nvcs = 2\n",
        tree_at_saturation("buffer_local = 64")
            .replace("kind = \"cioq\"", "kind = \"cioq\"\nqueues = \"four-q\"")
    ));
    assert!(
        e.contains("link_classes.up.vcs") && e.contains("four-q"),
        "{e}"
    );
}

#[test]
fn a_slower_class_stretches_each_packet_by_its_phit_time() {
    // The chain's switch links at a quarter of the base rate: a phit every 4 cycles, so
    // the 8-phit packet's tail reaches switches 1 and 2 32 cycles after its head.
    let text = format!(
        "{CHAIN}
[link_classes.local]
rate = 0.25
[traffic]
load = 0.0
[[flows]]
src = 0
dst = 1
size = 8
start = 100
[simulation]
warmup_cycles = 0
measure_cycles = 1000
"
    );
    let r = arcsim::run(&cfg(&text)).unwrap();
    // Node links of 1; switch 0 takes the packet in 8 cycles, switches 1 and 2 in 32; a
    // switch latency of 3 each; two switch links of 1; the tail 7 behind on the node link.
    let want = 1.0 + (8.0 + 3.0) + 2.0 * (32.0 + 3.0) + 2.0 * 1.0 + 1.0 + 7.0;
    assert_eq!(r.flows[0].message_latency_mean, Some(want));
    // The same with the node links slowed instead: 8 phits of 2 cycles in and out.
    let text = text.replace(
        "[link_classes.local]\nrate = 0.25",
        "[link_classes.node]\nrate = 0.5",
    );
    let r = arcsim::run(&cfg(&text)).unwrap();
    let want = 1.0 + (16.0 + 3.0) + 2.0 * (8.0 + 3.0) + 2.0 * 1.0 + 1.0 + 15.0;
    assert_eq!(r.flows[0].message_latency_mean, Some(want));
}

#[test]
fn a_slower_class_caps_what_crosses_it() {
    // A greedy flow over the chain: its middle links at half the rate carry half a phit
    // per cycle, and the flow gets that, no more.
    let tail = "[traffic]\nload = 0.0\n[[flows]]\nsrc = 0\ndst = 1\nrate = 1.0\n[simulation]\nwarmup_cycles = 2000\nmeasure_cycles = 8000\n";
    let full = arcsim::run(&cfg(&format!("{CHAIN}{tail}"))).unwrap();
    let half = arcsim::run(&cfg(&format!(
        "{CHAIN}{tail}[link_classes.local]\nrate = 0.5\n"
    )))
    .unwrap();
    let got = |r: &RunResult| r.flows[0].throughput;
    assert!((got(&full) - 1.0).abs() < 0.01, "full rate: {}", got(&full));
    assert!((got(&half) - 0.5).abs() < 0.01, "half rate: {}", got(&half));
}

#[test]
fn class_rates_take_units_and_must_divide_the_base_rate() {
    let text = format!(
        "{UNITS_TREE}[link_classes.node]
rate = \"25 Gbps\"
"
    );
    assert_eq!(cfg(&text).link_classes["node"].phit_cycles(), 4);
    let e = error(&text.replace("25 Gbps", "30 Gbps"));
    assert!(e.contains("link_classes.node.rate"), "{e}");
    let e = error(&text.replace("[link_classes.node]", "[link_classes.up]"));
    assert!(e.contains("link_classes.down.rate"), "{e}");
}
