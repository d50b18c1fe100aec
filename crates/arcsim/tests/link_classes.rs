//! `[link_classes]`: buffer sizes and latencies per link class on the general kernel. A
//! class's latency gives the analytic zero-load latency; a class's buffer sizes exactly the
//! input buffers its links feed, and a run with it is the run with the same sizes set by the
//! router's keys; a class the network lacks, or any class on the input-queued engine, is an
//! error naming the key.

use arcsim::config::Config;
use arcsim::kernel::mechanism::NoMechanism;
use arcsim::RunResult;

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

#[test]
fn class_keys_take_physical_units() {
    let text = "
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
[link_classes.up]
buffer = \"1 KB\"
latency = \"20 ns\"
";
    let c = cfg(text);
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
