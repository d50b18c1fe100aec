//! Routing tables on the general kernel other than every shortest path: forwarding tables
//! read from a file (errors with file and line, cycles of channel dependencies named), port
//! groups with per-packet selection, up*/down* on random graphs and per-destination DAGs.

use arcsim::config::Config;
use arcsim::kernel::mechanism::NoMechanism;
use arcsim::Simulator;
use std::path::PathBuf;

/// A file of `text` in a directory of this test run's own.
fn file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("arcsim-tables-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn cfg(text: &str) -> Config {
    let c = Config::from_toml_str(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    arcsim::validate(&c).unwrap_or_else(|e| panic!("{e}\n{text}"));
    c
}

fn error(text: &str) -> String {
    let c = match Config::from_toml_str(text) {
        Ok(c) => c,
        Err(e) => return e.to_string(),
    };
    match arcsim::validate(&c) {
        Err(e) => e.to_string(),
        Ok(()) => match arcsim::run(&c) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("no error for\n{text}"),
        },
    }
}

/// Two switches joined by two parallel links, node 0 on switch 0 and node 1 on switch 1;
/// one greedy flow from node 0 to node 1. Switch 0's ports: 0 its node, 1 and 2 the links.
fn two_links(routing: &str) -> String {
    format!(
        "[topology]
kind = \"graph\"
[topology.graph]
switches = 2
hosts = [0, 1]
[[topology.graph.links]]
a = 0
b = 1
latency = 4
[[topology.graph.links]]
a = 0
b = 1
latency = 4
[switch]
kind = \"cioq\"
[router]
packet_length = 4
buffer_local = 16
[traffic]
load = 0.0
[simulation]
warmup_cycles = 1000
measure_cycles = 10000
[[flows]]
src = 0
dst = 1
[routing]
{routing}
"
    )
}

/// Phits sent on switch 0's two links, and the flow's throughput.
fn split(routing: &str) -> (u64, u64, f64) {
    let c = cfg(&two_links(routing));
    let mut sim = arcsim::kernel::build_with(&c, NoMechanism).unwrap();
    let r = sim.run_with(&mut |_| true).unwrap();
    let base = sim.k.net.port_base[0] as usize;
    (
        sim.k.sent[base + 1],
        sim.k.sent[base + 2],
        r.flows[0].throughput,
    )
}

#[test]
fn a_group_of_two_parallel_links_splits_a_flow_and_a_single_port_does_not() {
    let both = file("both.txt", "switch 0\n1 1 2\nswitch 1\n0 1 2\n");
    let one = file("one.txt", "switch 0\n1 2\nswitch 1\n0 1\n");
    for (routing, lo, hi) in [
        (
            format!("paths = \"table\"\ntable = {both:?}\nselection = \"round-robin\""),
            0.49,
            0.51,
        ),
        (
            format!("paths = \"table\"\ntable = {both:?}\nselection = \"least-loaded\""),
            0.4,
            0.6,
        ),
        // Shortest paths hold both links too.
        ("selection = \"round-robin\"".to_string(), 0.49, 0.51),
        ("selection = \"least-loaded\"".to_string(), 0.4, 0.6),
        (
            format!("paths = \"table\"\ntable = {one:?}\nselection = \"round-robin\""),
            0.0,
            0.0,
        ),
        (format!("paths = \"table\"\ntable = {one:?}"), 0.0, 0.0),
    ] {
        let (a, b, thr) = split(&routing);
        let share = a as f64 / (a + b) as f64;
        assert!((lo..=hi).contains(&share), "{routing}: {a} and {b} phits");
        assert!(thr > 0.95, "{routing}: throughput {thr}");
    }
}

#[test]
fn a_table_file_with_a_bad_line_names_the_file_and_line() {
    let bad = file("bad.txt", "switch 0\n1 1\nswitch 1\n0 one\n");
    let e = error(&two_links(&format!("paths = \"table\"\ntable = {bad:?}")));
    assert!(e.contains("routing.table"), "{e}");
    assert!(e.contains("bad.txt:4: \"one\" is not a port number"), "{e}");
    let e = error(&two_links(
        "paths = \"table\"\ntable = \"/nonexistent/t.txt\"",
    ));
    assert!(e.contains("cannot read \"/nonexistent/t.txt\""), "{e}");
    let e = error(&two_links("paths = \"table\""));
    assert!(e.contains("routing.table"), "{e}");
    let missing = file("missing.txt", "switch 0\n1 1\n");
    let e = error(&two_links(&format!(
        "paths = \"table\"\ntable = {missing:?}"
    )));
    assert!(e.contains("switch 1 has no route to node 0"), "{e}");
    let e = error(&two_links("up_down_root = 1"));
    assert!(e.contains("routing.up_down_root"), "{e}");
    let e = error(&two_links("paths = \"up-down\"\nup_down_root = 5"));
    assert!(e.contains("switch 5 does not exist"), "{e}");
}

/// A ring of four switches, one node each, links i -> i+1 listed in order: switch s's
/// port to s+1 is 1 on switch 0 and 2 on the others.
fn ring(routing: &str, vcs: u32) -> String {
    let mut t = String::from(
        "[topology]\nkind = \"graph\"\n[topology.graph]\nswitches = 4\nhosts = [0, 1, 2, 3]\n",
    );
    for i in 0..4 {
        t += &format!("[[topology.graph.links]]\na = {i}\nb = {}\n", (i + 1) % 4);
    }
    t + &format!(
        "[switch]\nkind = \"cioq\"\n[router]\npacket_length = 4\nvcs_local = {vcs}\n\
         [simulation]\nwarmup_cycles = 500\nmeasure_cycles = 2000\n[routing]\n{routing}\n"
    )
}

#[test]
fn clockwise_tables_on_a_ring_are_refused_on_one_vc_with_the_cycle_named() {
    let mut text = String::new();
    for s in 0..4 {
        text += &format!("switch {s}\n");
        for d in (0..4).filter(|&d| d != s) {
            text += &format!("{d} {}\n", if s == 0 { 1 } else { 2 });
        }
    }
    let path = file("clockwise.txt", &text);
    let routing = format!("paths = \"table\"\ntable = {path:?}");
    let e = error(&ring(&routing, 1));
    assert!(e.contains("router.vcs_local"), "{e}");
    assert!(
        e.contains("switch 0 port 1 (VC 0) -> switch 1 port 2 (VC 0)"),
        "{e}"
    );
    // As many VCs as the longest route has hops (0: that many) run it.
    let r = arcsim::run(&cfg(&ring(&routing, 0))).unwrap();
    assert!(r.accepted_load > 0.1, "{}", r.accepted_load);
}

/// A connected random graph of `switches` switches (a random spanning tree plus `extra`
/// random links, parallel ones allowed), two nodes per switch, from `seed`.
fn random_graph(seed: u64, switches: u32, extra: u32) -> String {
    let mut rng = arcsim::rng::Rng::new(seed);
    let mut t = format!(
        "[topology]\nkind = \"graph\"\n[topology.graph]\nswitches = {switches}\nhosts = {:?}\n",
        (0..2 * switches).map(|n| n / 2).collect::<Vec<_>>()
    );
    let mut link = |a: u64, b: u64| {
        t += &format!("[[topology.graph.links]]\na = {a}\nb = {b}\nlatency = 2\n");
    };
    for s in 1..switches as u64 {
        link(s, rng.below(s));
    }
    let mut added = 0;
    while added < extra {
        let (a, b) = (rng.below(switches as u64), rng.below(switches as u64));
        if a != b {
            link(a, b);
            added += 1;
        }
    }
    t
}

#[test]
fn up_down_on_random_graphs_saturates_on_one_vc_without_deadlock() {
    for seed in 1..=6u64 {
        let mut rng = arcsim::rng::Rng::new(100 + seed);
        let switches = 16 + rng.below(17) as u32;
        // Mean degree from 2 to about 5.
        let extra = rng.below(2 * switches as u64) as u32 + 1;
        let text = random_graph(seed, switches, extra)
            + &format!(
                "[switch]\nkind = \"cioq\"\n[router]\npacket_length = 4\nvcs_local = 1\n\
                 [traffic]\nload = 1.0\n[simulation]\nseed = {seed}\nwarmup_cycles = 0\n\
                 measure_cycles = 3000\nwatchdog_cycles = 500\n[routing]\npaths = \"up-down\"\n\
                 root = {}\nselection = \"least-loaded\"\n",
                rng.below(switches as u64)
            )
            .replace("root = ", "up_down_root = ");
        let c = cfg(&text);
        let mut sim = arcsim::kernel::build_with(&c, NoMechanism).unwrap();
        for step in 0..3000 {
            // The watchdog (500 cycles without a move) would stop the run with an error.
            sim.step()
                .unwrap_or_else(|e| panic!("seed {seed}, {switches} switches: {e}"));
            if step % 500 == 499 {
                let a = sim.audit();
                assert!(a.balanced(), "seed {seed} at cycle {step}: {a:?}");
            }
        }
        let a = sim.audit();
        assert!(a.balanced() && a.duplicates == 0, "seed {seed}: {a:?}");
        assert!(a.delivered > 1000, "seed {seed}: {a:?}");
        // One VC: the routes' channel dependencies form no cycle.
        assert_eq!(sim.k.route.policy, arcsim::kernel::route::VcPolicy::UpDown);
    }
}

#[test]
fn shortest_paths_on_one_vc_are_refused_where_up_down_is_not() {
    // A ring of four: shortest paths need two VCs; up*/down* needs one.
    let e = error(&ring("", 1));
    assert!(e.contains("router.vcs_local"), "{e}");
    let r = arcsim::run(&cfg(&ring("paths = \"up-down\"", 1))).unwrap();
    assert!(r.accepted_load > 0.1);
}

#[test]
fn dags_on_random_graphs_run_with_the_vcs_they_need_and_every_packet_accounted_for() {
    for seed in 1..=3u64 {
        let text = random_graph(seed, 20, 15)
            + &format!(
                "[switch]\nkind = \"cioq\"\n[router]\npacket_length = 4\n\
                 [traffic]\nload = 1.0\n[simulation]\nseed = {seed}\nwarmup_cycles = 0\n\
                 measure_cycles = 2000\nwatchdog_cycles = 500\n[routing]\npaths = \"dag\"\n\
                 selection = \"least-loaded\"\n"
            );
        let c = cfg(&text);
        let mut sim = arcsim::kernel::build_with(&c, NoMechanism).unwrap();
        for _ in 0..2000 {
            sim.step().unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        }
        let a = sim.audit();
        assert!(a.balanced() && a.delivered > 1000, "seed {seed}: {a:?}");
        assert!(sim.k.route.diameter >= 1);
    }
}

fn graph_file(name: &str, text: &str, format: &str, rest: &str) -> String {
    let path = file(name, text);
    format!(
        "[topology]\nkind = \"graph\"\n[topology.graph]\nfile = {path:?}\nformat = \"{format}\"\n\
         [switch]\nkind = \"cioq\"\n[router]\npacket_length = 4\n\
         [simulation]\nwarmup_cycles = 200\nmeasure_cycles = 1000\n{rest}"
    )
}

#[test]
fn an_anynet_file_is_imported_and_runs() {
    let text = "router 0 node 0 node 1 node 2 router 1\nrouter 1 node 3 node 4 node 5\nrouter 2 node 6 node 7 node 8 router 1 router 0 4\n";
    let c = cfg(&graph_file("three.anynet", text, "auto", ""));
    let g = c.topology.graph().unwrap();
    assert_eq!(g.switches, 3);
    assert_eq!(g.hosts, vec![0, 0, 0, 1, 1, 1, 2, 2, 2]);
    let links: Vec<(u32, u32, u32)> = g.links.iter().map(|l| (l.a, l.b, l.latency)).collect();
    assert_eq!(links, vec![(0, 1, 1), (0, 2, 4), (1, 2, 1)]);
    let r = arcsim::run(&c).unwrap();
    assert!(r.packets.delivered > 0);
    assert!(
        r.topology.contains("graph of 3 switches, 9 nodes, 3 links"),
        "{}",
        r.topology
    );
    // A malformed file: its line and what is wrong.
    let e = error(&graph_file(
        "bad.anynet",
        "router 0 node 0\nrouter 1 node 1 router 0 fast\n",
        "anynet",
        "",
    ));
    assert!(e.contains("topology.graph.file"), "{e}");
    assert!(e.contains("bad.anynet:2: \"fast\" is not a latency"), "{e}");
    // A file and a graph given together, and a file that cannot be read.
    let e = error(
        &(graph_file("three.anynet", text, "anynet", "") + "").replace(
            "format = \"anynet\"\n",
            "format = \"anynet\"\nswitches = 3\n",
        ),
    );
    assert!(e.contains("leave switches, hosts and links out"), "{e}");
    let e = error(
        &graph_file("three.anynet", text, "anynet", "")
            .replace("three.anynet", "no-such-file.anynet"),
    );
    assert!(e.contains("cannot read"), "{e}");
    // A disconnected graph.
    let e = error(&graph_file(
        "apart.anynet",
        "router 0 node 0\nrouter 1 node 1\n",
        "anynet",
        "",
    ));
    assert!(
        e.contains("apart.anynet") && e.contains("cannot be reached"),
        "{e}"
    );
}

const IB: &str = r#"# Two switches, two parallel cables, three HCAs
Switch	36 "S-00000000000000a0"		# "leaf-a" enhanced port 0 lid 1 lmc 0
[1]	"S-00000000000000b0"[1]		# "leaf-b" lid 2 4xHDR
[2]	"S-00000000000000b0"[2]		# "leaf-b" lid 2 4xHDR
[3]	"H-0000000000000001"[1](2) 		# "n1 HCA-1" lid 3 4xHDR
[4]	"H-0000000000000011"[1](12) 		# "n2 HCA-1" lid 4 4xHDR

Switch	36 "S-00000000000000b0"		# "leaf-b" enhanced port 0 lid 2 lmc 0
[1]	"S-00000000000000a0"[1]		# "leaf-a" lid 1 4xHDR
[2]	"S-00000000000000a0"[2]		# "leaf-a" lid 1 4xHDR
[3]	"H-0000000000000021"[1](22) 		# "n3 HCA-1" lid 5 4xHDR

Ca	1 "H-0000000000000001"		# "n1 HCA-1"
[1](2) 	"S-00000000000000a0"[3]		# lid 3 lmc 0 "leaf-a" lid 1 4xHDR
Ca	1 "H-0000000000000011"		# "n2 HCA-1"
[1](12) 	"S-00000000000000a0"[4]		# lid 4 lmc 0 "leaf-a" lid 1 4xHDR
Ca	1 "H-0000000000000021"		# "n3 HCA-1"
[1](22) 	"S-00000000000000b0"[3]		# lid 5 lmc 0 "leaf-b" lid 2 4xHDR
"#;

#[test]
fn an_ibnetdiscover_file_and_its_opensm_tables_run() {
    let base = graph_file("fabric.ibnet", IB, "ibnetdiscover", "[topology]\n");
    // The "[topology]" table cannot be opened twice: latency goes in the first one.
    let base = base
        .replace("[topology]\nkind", "[topology]\nlocal_latency = 3\nkind")
        .replace("\n[topology]\n", "\n");
    let c = cfg(&base);
    let g = c.topology.graph().unwrap();
    assert_eq!((g.switches, g.hosts.clone()), (2, vec![0, 0, 1]));
    assert_eq!(g.links.len(), 2);
    assert!(g.links.iter().all(|l| (l.a, l.b, l.latency) == (0, 1, 3)));
    // OpenSM's tables: everything from leaf-a to n3 over cable 2 only.
    let lfts = file(
        "lfts.dump",
        "Unicast lids [0x0-0x5] of switch Lid 1 guid 0x00000000000000a0 (leaf-a):\n\
         0x0003 003 : (Channel Adapter portguid 0x2: 'n1 HCA-1')\n\
         0x0004 004 : (Channel Adapter portguid 0x12: 'n2 HCA-1')\n\
         0x0005 002 : (Channel Adapter portguid 0x22: 'n3 HCA-1')\n\
         Unicast lids [0x0-0x5] of switch Lid 2 guid 0x00000000000000b0 (leaf-b):\n\
         0x0003 001 : (Channel Adapter portguid 0x2: 'n1 HCA-1')\n\
         0x0004 001 : (Channel Adapter portguid 0x12: 'n2 HCA-1')\n\
         0x0005 003 : (Channel Adapter portguid 0x22: 'n3 HCA-1')\n",
    );
    let text = format!(
        "{base}[traffic]\nload = 0.0\n[[flows]]\nsrc = 0\ndst = 2\n[routing]\npaths = \"table\"\ntable = {lfts:?}\n"
    );
    let c = cfg(&text);
    let mut sim = arcsim::kernel::build_with(&c, NoMechanism).unwrap();
    sim.run_with(&mut |_| true).unwrap();
    // leaf-a's arcsim ports: n1, n2, cable 1, cable 2.
    let b = sim.k.net.port_base[0] as usize;
    assert_eq!(sim.k.sent[b + 2], 0);
    assert!(sim.k.sent[b + 3] > 500);
    // A malformed fabric file stops with its line.
    let bad = graph_file(
        "bad.ibnet",
        &IB.replace(
            "[2]\t\"S-00000000000000b0\"[2]",
            "[2]\t\"S-00000000000000b0\"",
        ),
        "auto",
        "",
    );
    let e = error(&bad);
    assert!(
        e.contains("bad.ibnet:4: the peer \"S-00000000000000b0\" needs its port"),
        "{e}"
    );
    // An OpenSM dump without an ibnetdiscover fabric.
    let e = error(&two_links(&format!("paths = \"table\"\ntable = {lfts:?}")));
    assert!(e.contains("OpenSM forwarding table dump"), "{e}");
}
