//! Generated topologies on the general kernel: fat trees (k-ary n-trees, XGFTs), two-level
//! real-life fat trees, bidirectional multistage networks. Builders (counts, degrees,
//! symmetric wiring, reachability, the multistage network's hop counts), table routing
//! (d-mod-k's down-trees, a shift permutation against a colliding one), deadlock freedom
//! on one VC, and zero-load latency against the sum of the hops.

use arcsim::config::{
    Config, MultistageConfig, RlftConfig, RoutingConfig, Selection, TopologyConfig, TopologyKind,
};
use arcsim::kernel::route::{RouteTable, VcPolicy};
use arcsim::topology::{generated, Generated, Multistage, Network, PortClass, Rlft, Xgft};
use std::collections::{HashMap, VecDeque};

fn cfg(text: &str) -> Config {
    let c = Config::from_toml_str(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    arcsim::validate(&c).unwrap_or_else(|e| panic!("{e}\n{text}"));
    c
}

fn run(text: &str) -> arcsim::RunResult {
    arcsim::run(&cfg(text)).unwrap_or_else(|e| panic!("{e}\n{text}"))
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

/// Switch-to-switch links (each counted once) and the switches' degrees.
fn links_and_degrees(net: &Network) -> (usize, Vec<usize>) {
    let mut links = 0;
    let mut degree = Vec::new();
    for s in 0..net.num_routers() {
        degree.push(net.radix(s));
        for p in 0..net.radix(s) {
            if net.port(s, p).class == PortClass::Local {
                links += 1;
            }
        }
    }
    (links / 2, degree)
}

/// Switch distances from every switch (breadth-first).
fn distances(net: &Network) -> Vec<Vec<u32>> {
    let n = net.num_routers();
    (0..n)
        .map(|from| {
            let mut d = vec![u32::MAX; n];
            d[from] = 0;
            let mut q = VecDeque::from([from]);
            while let Some(s) = q.pop_front() {
                for p in 0..net.radix(s) {
                    let i = net.port(s, p);
                    let link = matches!(i.class, PortClass::Local | PortClass::Global);
                    if link && d[i.peer as usize] == u32::MAX {
                        d[i.peer as usize] = d[s] + 1;
                        q.push_back(i.peer as usize);
                    }
                }
            }
            d
        })
        .collect()
}

/// Symmetric wiring, and every node reaches every node.
fn check(g: &Generated) -> Network {
    g.graph.validate().unwrap();
    let net = g.network();
    net.check_wiring().unwrap();
    let d = distances(&net);
    for a in 0..net.num_terminals() {
        for b in 0..net.num_terminals() {
            let reach = net.node_links(a).iter().any(|&(x, _)| {
                net.node_links(b)
                    .iter()
                    .any(|&(y, _)| d[x as usize][y as usize] != u32::MAX)
            });
            assert!(reach, "node {a} does not reach node {b}");
        }
    }
    net
}

fn topo(kind: TopologyKind, f: impl FnOnce(&mut TopologyConfig)) -> Generated {
    let mut t = TopologyConfig {
        kind,
        ..Default::default()
    };
    f(&mut t);
    t.validate_generated().unwrap();
    generated(&t).unwrap()
}

#[test]
fn xgft_3_322_223_has_levels_of_12_8_8_12_64_links_and_12_top_paths() {
    let t = Xgft::new(&[3, 2, 2], &[2, 2, 3], 1, 1);
    let levels: Vec<u64> = (0..=3).map(|i| t.level_size(i)).collect();
    assert_eq!(levels, [12, 8, 8, 12]);
    let links: u64 = (0..3).map(|i| t.links_between(i)).sum();
    assert_eq!(links, 64);
    // Nodes 0 and 11 differ in x_3: their common ancestors are at the top only.
    for (a, b) in [(0, 11), (1, 6)] {
        let (ta, tb) = (t.ancestors(0, a, 3), t.ancestors(0, b, 3));
        let common = ta.iter().filter(|x| tb.contains(x)).count();
        assert_eq!(common, 12, "nodes {a} and {b}");
        let (ma, mb) = (t.ancestors(0, a, 2), t.ancestors(0, b, 2));
        assert!(!ma.iter().any(|x| mb.contains(x)));
    }
    // Built: every node has two links (rails), one in each of two disjoint planes; 40
    // switch-to-switch links and 24 node links.
    let g = topo(TopologyKind::Xgft, |c| {
        c.xgft.m = vec![3, 2, 2];
        c.xgft.w = vec![2, 2, 3];
    });
    let net = check(&g);
    assert_eq!(net.num_terminals(), 12);
    assert_eq!(net.num_routers(), 28);
    assert!(net.multi_rail());
    let (links, _) = links_and_degrees(&net);
    assert_eq!(links + net.all_node_links().len(), 64);
    for n in 0..12 {
        let l = net.node_links(n);
        assert_eq!(l.len(), 2, "node {n}");
        assert_ne!(l[0].0, l[1].0, "node {n}");
        for &(s, p) in l {
            assert_eq!(net.port_to_node(s as usize, n), Some(p));
        }
    }
    // Two planes: no switch path joins node 0's two leaves.
    let d = distances(&net);
    let l0 = net.node_links(0);
    assert_eq!(d[l0[0].0 as usize][l0[1].0 as usize], u32::MAX);
}

#[test]
fn xgft_2_16_8_1_16_and_a_4_ary_3_tree() {
    let g = topo(TopologyKind::Xgft, |t| {
        t.xgft.m = vec![16, 8];
        t.xgft.w = vec![1, 16];
    });
    let net = check(&g);
    assert_eq!(net.num_terminals(), 128);
    assert_eq!(net.num_routers(), 24);
    let (links, degree) = links_and_degrees(&net);
    assert_eq!(links, 128);
    assert!(degree[..8].iter().all(|&d| d == 32));
    assert!(degree[8..].iter().all(|&d| d == 8));

    let g = topo(TopologyKind::Tree, |t| {
        t.tree.k = 4;
        t.tree.n = 3;
    });
    let net = check(&g);
    assert_eq!(net.num_terminals(), 64);
    assert_eq!(net.num_routers(), 48);
    let (links, degree) = links_and_degrees(&net);
    assert_eq!(links, 2 * 16 * 4);
    assert!(degree[..32].iter().all(|&d| d == 8));
    assert!(degree[32..].iter().all(|&d| d == 4));
    // Nodes of different halves of the tree meet at the top: 2·3 - 1 = 5 switches apart,
    // with k^(n-1) = 16 shortest paths.
    let d = distances(&net);
    assert_eq!(d[0][15], 4);
    assert_eq!(d[0][1], 2);
}

#[test]
fn real_life_fat_trees_k_ary_c1_c2_and_4l() {
    for k in 2..=4u32 {
        let g = Rlft::new(&Rlft::k_ary(k), 1, 1).generate();
        let net = check(&g);
        assert_eq!(net.num_terminals() as u32, 2 * k * k);
        assert_eq!(net.num_routers() as u32, 3 * k);
        let (links, degree) = links_and_degrees(&net);
        assert_eq!(links as u32, 2 * k * k);
        assert!(
            degree.iter().all(|&d| d as u32 == 2 * k),
            "K = {k}: {degree:?}"
        );
    }
    let net = check(&Rlft::new(&Rlft::c1(), 1, 1).generate());
    assert_eq!((net.num_terminals(), net.num_routers()), (6, 2));
    assert_eq!(links_and_degrees(&net), (2, vec![5, 5]));
    let net = check(&Rlft::new(&Rlft::c2(1), 1, 1).generate());
    assert_eq!((net.num_terminals(), net.num_routers()), (12, 6));
    assert_eq!(links_and_degrees(&net), (8, vec![5, 5, 5, 5, 4, 4]));
    let net = check(&Rlft::new(&Rlft::c2(2), 1, 1).generate());
    assert_eq!(links_and_degrees(&net), (16, vec![7, 7, 7, 7, 8, 8]));
    // C2 4L: a leaf's four uplinks are all on shortest paths to another leaf.
    let t = RouteTable::new(&net, VcPolicy::UpDown);
    assert_eq!(t.ports_towards(0, 1), &[3, 4, 5, 6]);
    assert_eq!(t.ports_towards(4, 1).len(), 2);
    let e = error("[switch]\nkind = \"cioq\"\n[topology]\nkind = \"rlft\"\n[topology.rlft]\nleaves = 3\nhosts = 2\nroots = 0\n");
    assert!(e.contains("topology.rlft.roots"), "{e}");
}

#[test]
fn multistage_networks_of_the_recn_paper_and_their_hop_counts() {
    let want: [(u32, usize, u32, &[u64]); 3] = [
        (64, 48, 3, &[192, 768, 3072]),
        (256, 256, 4, &[768, 3072, 12288, 49152]),
        (512, 640, 5, &[1536, 6144, 24576, 98304, 131072]),
    ];
    for (hosts, switches, stages, hops) in want {
        let m = Multistage::new(&MultistageConfig { hosts, radix: 8 }, 1, 1);
        assert_eq!(m.stages(), stages);
        let g = m.generate();
        let net = check(&g);
        assert_eq!(net.num_routers(), switches, "{hosts} nodes");
        let per = switches / stages as usize;
        let (_, degree) = links_and_degrees(&net);
        for (s, &d) in degree.iter().enumerate() {
            // The last stage's up ports are not wired.
            let want = if s >= switches - per { 4 } else { 8 };
            assert_eq!(d, want, "{hosts} nodes, switch {s}");
        }
        // Switches crossed by the shortest route, over all ordered pairs of nodes.
        let d = distances(&net);
        let mut count = vec![0u64; hops.len()];
        for a in 0..hosts as usize {
            for b in (0..hosts as usize).filter(|&b| b != a) {
                let crossed = d[net.attach[a].0 as usize][net.attach[b].0 as usize] + 1;
                count[(crossed as usize - 1) / 2] += 1;
            }
        }
        assert_eq!(count, hops, "{hosts} nodes");
    }
}

/// The path a deterministic table routing gives from node `src` to node `dst`: the
/// (switch, output port) of each hop.
fn path(net: &Network, t: &RouteTable, src: u32, dst: u32) -> Vec<(usize, u16)> {
    let target = net.attach[dst as usize].0 as usize;
    let mut at = net.attach[src as usize].0 as usize;
    let mut out = Vec::new();
    while at != target {
        let ports = t.ports_towards(at, target);
        let p = ports[t.first_choice(at, src, dst, ports.len())];
        out.push((at, p));
        at = net.port(at, p as usize).peer as usize;
        assert!(out.len() < 64, "routing loop");
    }
    out
}

fn table(g: &Generated, net: &Network, selection: Selection) -> RouteTable {
    let r = RoutingConfig {
        selection,
        ..Default::default()
    };
    RouteTable::new(net, VcPolicy::UpDown)
        .with_selection(&r, 1, Some(g))
        .unwrap()
}

#[test]
fn d_mod_k_routes_every_destination_through_a_single_down_tree() {
    let gens = [
        topo(TopologyKind::Tree, |t| {
            t.tree.k = 4;
            t.tree.n = 3;
        }),
        topo(TopologyKind::Xgft, |t| {
            t.xgft.m = vec![16, 8];
            t.xgft.w = vec![1, 16];
        }),
        topo(TopologyKind::Xgft, |t| {
            t.xgft.m = vec![2, 3, 4];
            t.xgft.w = vec![1, 2, 3];
        }),
        Rlft::new(&Rlft::k_ary(3), 1, 1).generate(),
        Rlft::new(&Rlft::c2(2), 1, 1).generate(),
        Multistage::new(
            &MultistageConfig {
                hosts: 64,
                radix: 8,
            },
            1,
            1,
        )
        .generate(),
        Multistage::new(
            &MultistageConfig {
                hosts: 256,
                radix: 8,
            },
            1,
            1,
        )
        .generate(),
        Multistage::new(
            &MultistageConfig {
                hosts: 512,
                radix: 8,
            },
            1,
            1,
        )
        .generate(),
    ];
    for g in &gens {
        let net = g.network();
        let n = net.num_terminals() as u32;
        for sel in [Selection::DModK, Selection::DModM] {
            let t = table(g, &net, sel);
            // Per destination, the one port each switch forwards it on.
            let mut out: HashMap<(u32, usize), u16> = HashMap::new();
            // Load on each (switch, port) under all-to-all traffic.
            let mut load: HashMap<(usize, u16), u64> = HashMap::new();
            for dst in 0..n {
                for src in (0..n).filter(|&s| s != dst) {
                    for (s, p) in path(&net, &t, src, dst) {
                        let prev = out.insert((dst, s), p);
                        assert!(
                            prev.is_none() || prev == Some(p),
                            "{} {sel:?}: destination {dst} leaves switch {s} on two ports",
                            g.describe
                        );
                        *load.entry((s, p)).or_default() += 1;
                    }
                }
            }
            if g.describe.contains("multistage") && sel == Selection::DModK {
                // The RECN spec's balance: every link of a stage and direction carries the
                // same number of pairs.
                let mut by_level: HashMap<(u32, bool), Vec<u64>> = HashMap::new();
                for (&(s, p), &c) in &load {
                    let up = p >= 4;
                    by_level.entry((g.level[s], up)).or_default().push(c);
                }
                for (k, v) in by_level {
                    assert!(v.iter().all(|&c| c == v[0]), "{}: {k:?} {v:?}", g.describe);
                }
            }
        }
        // s-mod-k and random reach every destination too.
        for sel in [Selection::SModK, Selection::SModM, Selection::Random] {
            let t = table(g, &net, sel);
            for dst in (0..n).step_by(7) {
                for src in (0..n).filter(|&s| s != dst).step_by(5) {
                    path(&net, &t, src, dst);
                }
            }
        }
    }
}

/// A 4-ary n-tree on the kernel, links of 1 cycle, packets of 4 phits.
fn tree_run(n: u32, selection: &str, rest: &str) -> arcsim::RunResult {
    run(&format!(
        "[switch]
kind = \"cioq\"
[topology]
kind = \"tree\"
local_latency = 1
[topology.tree]
k = 4
n = {n}
[routing]
selection = \"{selection}\"
[router]
packet_length = 4
buffer_local = 32
buffer_injection = 32
vcs_local = 1
[simulation]
warmup_cycles = 2000
measure_cycles = 10000
{rest}"
    ))
}

#[test]
fn a_shift_runs_at_full_throughput_under_d_mod_k_and_a_colliding_permutation_does_not() {
    // A shift by 20 on a 4-ary 3-tree: d-mod-k gives every flow its own links.
    let r = tree_run(
        3,
        "d-mod-k",
        "[traffic]\npattern = \"shift\"\noffset = 20\nload = 1.0\n",
    );
    assert!(r.accepted_load > 0.97, "shift: {}", r.accepted_load);
    // Fairness counts the leaves only (the upper switches have no nodes to be starved).
    assert_eq!(
        r.per_router.injected.min,
        r.per_router.injected.min.max(1.0)
    );
    assert!(
        r.per_router.injected.jain.is_some_and(|j| j > 0.99),
        "{:?}",
        r.per_router.injected
    );
    // Nodes 0..3 (one leaf) to 16, 32, 48 and 20: every destination is 0 mod 4, so d-mod-k
    // sends all four up the leaf's first up link, a quarter each.
    let flows = "[traffic]\nload = 0.0\n[[flows]]\nsrc = 0\ndst = 16\n[[flows]]\nsrc = 1\ndst = 32\n[[flows]]\nsrc = 2\ndst = 48\n[[flows]]\nsrc = 3\ndst = 20\n";
    let r = tree_run(3, "d-mod-k", flows);
    for f in &r.flows {
        assert!(
            (f.throughput - 0.25).abs() < 0.02,
            "collide: {}",
            f.throughput
        );
    }
    // Taking the first up port free spreads them over the four up links.
    let r = tree_run(3, "first-free", flows);
    for f in &r.flows {
        assert!(f.throughput > 0.95, "first-free: {}", f.throughput);
    }
    // The reference adaptive routing leaves d-mod-k's port only for one loaded two packets
    // less: with these 1-cycle links the queues stay short, and it spreads them only in
    // part (0.750 each, measured on 2026-11-29), three times d-mod-k.
    let r = tree_run(3, "adaptive", flows);
    for f in &r.flows {
        assert!(f.throughput > 0.6, "adaptive: {}", f.throughput);
    }
}

/// `examples/fat_tree_dmodk.toml` (4-ary 3-tree, 8-phit packets, 64-phit buffers, one VC,
/// one FIFO per input) at load 1 under uniform traffic, shortened, with `selection` and
/// `rest` (switch settings).
fn saturated_tree(selection: &str, rest: &str) -> f64 {
    run(&format!(
        "[switch]
kind = \"cioq\"
{rest}
[topology]
kind = \"tree\"
terminal_latency = 1
local_latency = 1
[topology.tree]
k = 4
n = 3
[routing]
selection = \"{selection}\"
[router]
packet_length = 8
buffer_injection = 64
buffer_local = 64
vcs_local = 1
[traffic]
load = 1.0
[simulation]
warmup_cycles = 2000
measure_cycles = 8000
"
    ))
    .accepted_load
}

#[test]
fn uniform_traffic_saturates_high_with_d_mod_k_and_higher_with_adaptive_routing() {
    // Measured on 2026-11-29 at 5,000 + 20,000 cycles (docs/topologies.md): speedup 1,
    // d-mod-k 0.657, adaptive 0.759, first-free 0.612; speedup 2, 0.911 against 0.914.
    // The deterministic routing is high (uniform traffic on a full-bisection tree, each
    // destination reached through its own down-tree), the adaptive one higher: it leaves
    // d-mod-k's up port only for one loaded two packets less. Taking the first port free
    // this cycle does worse than d-mod-k (a port busy for a few cycles is no reason to
    // leave the best path).
    let d_mod_k = saturated_tree("d-mod-k", "");
    let adaptive = saturated_tree("adaptive", "");
    let first_free = saturated_tree("first-free", "");
    assert!(d_mod_k > 0.62, "d-mod-k {d_mod_k}");
    assert!(
        adaptive > d_mod_k + 0.05,
        "adaptive {adaptive}, d-mod-k {d_mod_k}"
    );
    assert!(
        first_free < d_mod_k,
        "first-free {first_free}, d-mod-k {d_mod_k}"
    );
    // With the crossbar's speedup both are near full load, adaptive still not below.
    let speedup = "speedup = 2.0";
    let d_mod_k = saturated_tree("d-mod-k", speedup);
    let adaptive = saturated_tree("adaptive", speedup);
    assert!(d_mod_k > 0.85, "speedup 2: d-mod-k {d_mod_k}");
    assert!(
        adaptive > d_mod_k - 0.01,
        "speedup 2: adaptive {adaptive}, d-mod-k {d_mod_k}"
    );
}

#[test]
fn saturating_uniform_traffic_on_one_vc_does_not_deadlock() {
    // Shortest paths on these networks go up, then down: one VC is enough, although their
    // switches form cycles (the general rule would ask for as many VCs as hops).
    for topology in [
        "kind = \"tree\"\n[topology.tree]\nk = 4\nn = 3\n",
        "kind = \"xgft\"\n[topology.xgft]\nm = [4, 4, 4]\nw = [1, 2, 4]\n",
        "kind = \"rlft\"\n[topology.rlft]\nleaves = 4\nhosts = 3\nroots = 2\nparallel = 2\n",
        "kind = \"multistage\"\n[topology.multistage]\nhosts = 64\n",
    ] {
        for selection in ["adaptive", "d-mod-k", "random"] {
            let text = format!(
                "[switch]
kind = \"cioq\"
[topology]
local_latency = 2
{topology}
[routing]
selection = \"{selection}\"
[router]
packet_length = 4
buffer_local = 16
buffer_injection = 16
vcs_local = 1
[traffic]
load = 1.0
[simulation]
warmup_cycles = 1000
measure_cycles = 5000
watchdog_cycles = 500
"
            );
            let r = run(&text);
            assert!(
                r.accepted_load > 0.2,
                "{topology} {selection}: {}",
                r.accepted_load
            );
        }
    }
    // 4Q queues (the RECN paper's) are accepted on the multistage network too.
    let r = run("[switch]\nkind = \"cioq\"\nqueues = \"four-q\"\n[topology]\nkind = \"multistage\"\n[topology.multistage]\nhosts = 64\n[router]\npacket_length = 4\nbuffer_local = 64\nbuffer_injection = 64\n[traffic]\nload = 1.0\n[simulation]\nwarmup_cycles = 1000\nmeasure_cycles = 3000\nwatchdog_cycles = 500\n");
    assert!(r.accepted_load > 0.2);
}

#[test]
fn zero_load_latency_is_the_sum_of_the_hops_on_every_topology() {
    // One packet of 8 phits between the two nodes farthest apart: node links of 2 cycles,
    // switch links of 5, switch latency 3 (docs/kernel.md's formula).
    let (len, sw, term, link) = (8u64, 3u64, 2u64, 5u64);
    for (topology, src, dst, switches) in [
        ("kind = \"tree\"\n[topology.tree]\nk = 4\nn = 3\n", 0, 63, 5),
        (
            "kind = \"xgft\"\n[topology.xgft]\nm = [16, 8]\nw = [1, 16]\n",
            0,
            127,
            3,
        ),
        // Nodes of two links: nodes 0 and 11 meet only at the top (leaf, 2, 3, 2, leaf).
        (
            "kind = \"xgft\"\n[topology.xgft]\nm = [3, 2, 2]\nw = [2, 2, 3]\n",
            0,
            11,
            5,
        ),
        (
            "kind = \"xgft\"\n[topology.xgft]\nm = [3, 2, 2]\nw = [2, 2, 3]\n",
            0,
            1,
            1,
        ),
        (
            "kind = \"rlft\"\n[topology.rlft]\nleaves = 2\nhosts = 3\nroots = 0\nparallel = 2\n",
            0,
            5,
            2,
        ),
        (
            "kind = \"rlft\"\n[topology.rlft]\nleaves = 4\nhosts = 3\nroots = 2\n",
            0,
            11,
            3,
        ),
        (
            "kind = \"multistage\"\n[topology.multistage]\nhosts = 512\n",
            0,
            511,
            9,
        ),
        (
            "kind = \"multistage\"\n[topology.multistage]\nhosts = 64\n",
            0,
            1,
            1,
        ),
    ] {
        let text = format!(
            "[switch]
kind = \"cioq\"
latency = {sw}
[topology]
terminal_latency = {term}
local_latency = {link}
{topology}
[router]
packet_length = {len}
[traffic]
load = 0.0
[[flows]]
src = {src}
dst = {dst}
size = {len}
start = 100
[simulation]
warmup_cycles = 0
measure_cycles = 2000
"
        );
        let r = run(&text);
        let want = term + switches * (len + sw) + (switches - 1) * link + term + len - 1;
        assert_eq!(
            r.flows[0].message_latency_mean,
            Some(want as f64),
            "{topology}"
        );
        assert_eq!(r.hops.mean, Some((switches - 1) as f64), "{topology}");
    }
}

#[test]
fn bad_topology_keys_name_the_field() {
    let base = "[switch]\nkind = \"cioq\"\n[topology]\n";
    for (text, field) in [
        ("kind = \"tree\"\n[topology.tree]\nk = 1\nn = 2\n", "topology.tree.k"),
        ("kind = \"tree\"\n[topology.tree]\nk = 4\nn = 0\n", "topology.tree.n"),
        ("kind = \"xgft\"\n[topology.xgft]\nm = [2, 2]\nw = [1]\n", "topology.xgft.w"),
        ("kind = \"xgft\"\n[topology.xgft]\nm = [2, 0]\nw = [1, 2]\n", "topology.xgft.m[1]"),
        ("kind = \"rlft\"\n[topology.rlft]\nleaves = 4\nhosts = 0\nroots = 2\n", "topology.rlft.hosts"),
        ("kind = \"multistage\"\n[topology.multistage]\nhosts = 100\n", "topology.multistage.hosts"),
        ("kind = \"multistage\"\n[topology.multistage]\nhosts = 64\nradix = 6\n", "topology.multistage.radix"),
        ("kind = \"graph\"\n[topology.graph]\nswitches = 1\nhosts = [0, 0]\n[routing]\nselection = \"d-mod-k\"\n", "routing.selection"),
    ] {
        let e = error(&format!("{base}{text}"));
        assert!(e.contains(field), "{field}: {e}");
    }
    let e = error("[switch]\nkind = \"cioq\"\n[routing]\nselection = \"random\"\n");
    assert!(e.contains("routing.selection"), "{e}");
    // The input-queued engine refuses them.
    let e = error("[topology]\nkind = \"tree\"\n[topology.tree]\nk = 2\nn = 2\n");
    assert!(e.contains("topology.kind"), "{e}");
    let _ = RlftConfig::default();
}

#[test]
fn the_example_files_run() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    for name in [
        "fat_tree_dmodk.toml",
        "fat_tree_cables.toml",
        "fat_tree_rates.toml",
        "rlft_c2_hotspot.toml",
        "multistage_recn.toml",
        "dragonfly_plus.toml",
        "xgft_rails.toml",
    ] {
        let text = std::fs::read_to_string(root.join(name)).unwrap();
        let mut c = cfg(&text);
        c.simulation.warmup_cycles = 500;
        c.simulation.measure_cycles = 2000;
        let r = arcsim::run(&c).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(r.packets.delivered > 0, "{name}");
    }
}

#[test]
fn dragonfly_plus_counts_wiring_latency_and_one_vc() {
    use arcsim::config::DragonflyPlusConfig;
    use arcsim::topology::DragonflyPlus;
    for (groups, pairs) in [(0, 1), (9, 2), (5, 4)] {
        let c = DragonflyPlusConfig {
            leaves: 4,
            spines: 4,
            hosts: 3,
            global: 4,
            groups,
        };
        let g = DragonflyPlus::new(&c, 1, 10, 1).generate();
        let net = check(&g);
        let ng = c.num_groups() as usize;
        assert_eq!(net.num_terminals(), ng * 12);
        assert_eq!(net.num_routers(), ng * 8);
        let mut global = 0;
        let mut between = HashMap::new();
        for s in 0..net.num_routers() {
            for p in 0..net.radix(s) {
                let i = net.port(s, p);
                if i.class == PortClass::Global {
                    global += 1;
                    *between.entry((s / 8, i.peer as usize / 8)).or_insert(0) += 1;
                }
            }
        }
        // Every pair of groups is joined by the same number of global links.
        assert_eq!(global / 2, ng * (ng - 1) / 2 * pairs, "{groups} groups");
        assert!(between.values().all(|&n| n == pairs));
        // Leaves of different groups are 3 switch hops apart.
        let d = distances(&net);
        assert_eq!(d[0][8], 3);
        assert_eq!(d[0][1], 2);
    }
    let topology = "kind = \"dragonfly-plus\"\n[topology.dragonfly_plus]\nleaves = 4\nspines = 4\nhosts = 3\nglobal = 4\ngroups = 9\n";
    // Zero load: node 0 (group 0) to node 107 (group 8): leaf, spine, spine, leaf.
    let r = run(&format!(
        "[switch]\nkind = \"cioq\"\nlatency = 3\n[topology]\nterminal_latency = 2\nlocal_latency = 5\nglobal_latency = 20\n{topology}[router]\npacket_length = 8\n[traffic]\nload = 0.0\n[[flows]]\nsrc = 0\ndst = 107\nsize = 8\nstart = 100\n[simulation]\nwarmup_cycles = 0\nmeasure_cycles = 2000\n"
    ));
    let want = 2 + 4 * (8 + 3) + (5 + 20 + 5) + 2 + 7;
    assert_eq!(r.flows[0].message_latency_mean, Some(want as f64));
    // Saturating uniform traffic on one VC: no deadlock.
    for selection in ["adaptive", "random"] {
        let r = run(&format!(
            "[switch]\nkind = \"cioq\"\n[topology]\nlocal_latency = 2\nglobal_latency = 5\n{topology}[routing]\nselection = \"{selection}\"\n[router]\npacket_length = 4\nbuffer_local = 16\nbuffer_global = 32\nbuffer_injection = 16\nvcs_local = 1\nvcs_global = 1\n[traffic]\nload = 1.0\n[simulation]\nwarmup_cycles = 1000\nmeasure_cycles = 5000\nwatchdog_cycles = 500\n"
        ));
        assert!(r.accepted_load > 0.2, "{selection}: {}", r.accepted_load);
    }
    let e = error("[switch]\nkind = \"cioq\"\n[topology]\nkind = \"dragonfly-plus\"\n[topology.dragonfly_plus]\nleaves = 4\nspines = 2\nhosts = 3\nglobal = 2\ngroups = 6\n");
    assert!(e.contains("topology.dragonfly_plus.groups"), "{e}");
}

/// Table II of the InfiniBand adaptive-routing paper: on the K-ary two-level RLFT, the
/// ingress ports whose packets may leave by each egress port (shortest paths only), split
/// into ports on links from above (uplinks) and from below (downlinks: nodes, or leaves at
/// a root), for deterministic routing (d-mod-k) and adaptive routing (every shortest path).
#[test]
fn ingress_ports_per_egress_on_a_k_ary_rlft_give_the_infiniband_papers_table_ii() {
    use std::collections::{BTreeMap, BTreeSet};
    for k in 2..=4u32 {
        let g = Rlft::new(&Rlft::k_ary(k), 1, 1).generate();
        let net = g.network();
        let leaves = 2 * k as usize;
        let det = table(&g, &net, Selection::DModK);
        for adaptive in [false, true] {
            // (switch, egress) -> the ingress ports that feed it.
            let mut feeds: BTreeMap<(usize, usize), BTreeSet<usize>> = BTreeMap::new();
            let n = net.num_terminals() as u32;
            for src in 0..n {
                for dst in (0..n).filter(|&d| d != src) {
                    let (s0, p0) = net.attach[src as usize];
                    let target = net.attach[dst as usize].0 as usize;
                    // Depth-first over the paths: (switch, ingress port).
                    let mut stack = vec![(s0 as usize, p0 as usize)];
                    while let Some((s, inp)) = stack.pop() {
                        if s == target {
                            let out = net.attach[dst as usize].1 as usize;
                            feeds.entry((s, out)).or_default().insert(inp);
                            continue;
                        }
                        let ports = det.ports_towards(s, target);
                        let take: Vec<u16> = if adaptive {
                            ports.to_vec()
                        } else {
                            vec![ports[det.first_choice(s, src, dst, ports.len())]]
                        };
                        for p in take {
                            feeds.entry((s, p as usize)).or_default().insert(inp);
                            let i = net.port(s, p as usize);
                            stack.push((i.peer as usize, i.peer_port as usize));
                        }
                    }
                }
            }
            // Per egress kind: the set of (total, uplinks, downlinks) over its ports.
            let mut rows: BTreeMap<&str, BTreeSet<(usize, usize, usize)>> = BTreeMap::new();
            for (&(s, out), ins) in &feeds {
                let leaf = s < leaves;
                let kind = match (leaf, net.port(s, out).class) {
                    (true, PortClass::Terminal) => "S1D",
                    (true, _) => "S1U",
                    (false, _) => "S2D",
                };
                // At a leaf, ports from roots are uplinks; at a root every port is from below.
                let up = ins
                    .iter()
                    .filter(|&&i| leaf && net.port(s, i).class == PortClass::Local)
                    .count();
                rows.entry(kind)
                    .or_default()
                    .insert((ins.len(), up, ins.len() - up));
            }
            let k = k as usize;
            let want: [(&str, (usize, usize, usize)); 3] = if adaptive {
                [
                    ("S1D", (2 * k - 1, k, k - 1)),
                    ("S1U", (k, 0, k)),
                    ("S2D", (2 * k - 1, 0, 2 * k - 1)),
                ]
            } else {
                [
                    ("S1D", (k, 1, k - 1)),
                    ("S1U", (k, 0, k)),
                    ("S2D", (2 * k - 1, 0, 2 * k - 1)),
                ]
            };
            for (kind, row) in want {
                assert_eq!(
                    rows[kind],
                    BTreeSet::from([row]),
                    "K = {k}, adaptive {adaptive}, {kind}"
                );
            }
        }
    }
}

#[test]
fn bit_permutation_patterns_run_on_flat_topologies_only() {
    // Bit complement on a 4-ary 3-tree under d-mod-k: each leaf's four destinations differ
    // in their low base-4 digit, each level-2 subtree's in the next: no link carries two
    // flows, full throughput.
    let r = tree_run(
        3,
        "d-mod-k",
        "[traffic]\npattern = \"bit-complement\"\nload = 1.0\n",
    );
    assert!(
        r.accepted_load > 0.97,
        "bit-complement: {}",
        r.accepted_load
    );
    for pattern in ["bit-reverse", "transpose", "shuffle"] {
        let r = tree_run(
            3,
            "adaptive",
            &format!("[traffic]\npattern = \"{pattern}\"\nload = 0.3\n"),
        );
        assert!(
            (r.accepted_load - 0.3).abs() < 0.02,
            "{pattern}: {}",
            r.accepted_load
        );
    }
    // 9 nodes: not a power of two; 8 nodes: not a power of 4 for the transpose.
    let tree = |k: u32, n: u32, p: &str| {
        error(&format!("[switch]\nkind = \"cioq\"\n[topology]\nkind = \"tree\"\n[topology.tree]\nk = {k}\nn = {n}\n[traffic]\npattern = \"{p}\"\n"))
    };
    let e = tree(3, 2, "bit-reverse");
    assert!(
        e.contains("traffic.pattern") && e.contains("power of 2"),
        "{e}"
    );
    let e = tree(2, 3, "transpose");
    assert!(
        e.contains("traffic.pattern") && e.contains("power of 4"),
        "{e}"
    );
    let e = error("[switch]\nkind = \"cioq\"\n[traffic]\npattern = \"shuffle\"\n");
    assert!(
        e.contains("traffic.pattern") && e.contains("dragonfly"),
        "{e}"
    );
}

#[test]
fn a_per_packet_choice_under_output_queues_chosen_upstream_is_refused() {
    // With a queue per output of the next switch, the switch before it fixes the output
    // from the deterministic first choice: an adaptive selection would silently route
    // deterministically (measured: 0.29 accepted against d-mod-k's 0.94 on this tree).
    let tree = "[topology]\nkind = \"tree\"\n[topology.tree]\nk = 4\nn = 2\n[switch]\nkind = \"cioq\"\nqueues = \"voq-switch\"\n[router]\nbuffer_local = 512\nbuffer_injection = 512\nvcs_local = 1\n[simulation]\nwarmup_cycles = 100\nmeasure_cycles = 200\n";
    for sel in ["adaptive", "least-loaded", "round-robin"] {
        let e = error(&format!("{tree}[routing]\nselection = \"{sel}\"\n"));
        assert!(
            e.contains("routing.selection") && e.contains("voq-switch"),
            "{sel}: {e}"
        );
    }
    run(&format!("{tree}[routing]\nselection = \"d-mod-k\"\n"));
}

/// XGFT(3; 3,2,2; 2,2,3): every node has two links (rails).
const XGFT_RAILS: &str = "[switch]
kind = \"cioq\"
[topology]
kind = \"xgft\"
[topology.xgft]
m = [3, 2, 2]
w = [2, 2, 3]
[router]
packet_length = 8
";

/// One greedy flow from node 0 to node 1 (`topology`: the `[topology]` table and what
/// follows it): its throughput in phits per cycle, and the run.
fn greedy(topology: &str, nic: &str) -> (f64, arcsim::RunResult) {
    let r = run(&format!(
        "[switch]\nkind = \"cioq\"\n[router]\npacket_length = 8\n[nic]\n{nic}\n[traffic]\nload = 0.0\n[[flows]]\nsrc = 0\ndst = 1\n[simulation]\nwarmup_cycles = 1000\nmeasure_cycles = 4000\n{topology}"
    ));
    (r.flows[0].throughput, r)
}

#[test]
fn a_node_with_two_rails_sends_and_receives_at_two_link_rates() {
    // XGFT(1; 4; w): 4 nodes on w switches, every node linked to each.
    let tree =
        |w: u32| format!("[topology]\nkind = \"xgft\"\n[topology.xgft]\nm = [4]\nw = [{w}]\n");
    let (one, _) = greedy(&tree(1), "");
    assert!((one - 1.0).abs() < 0.01, "one link: {one}");
    for sel in ["least-loaded", "round-robin"] {
        let (two, r) = greedy(&tree(2), &format!("rail_selection = \"{sel}\""));
        assert!((two - 2.0).abs() < 0.02, "{sel}: {two}");
        // The node class: both directions of every node link, 16 in all; the four that
        // carry the flow (node 0's two rails in, node 1's two out) are busy.
        let node = r
            .link_classes
            .iter()
            .find(|c| c.class == "node" && c.level.is_none())
            .expect("a node class with rails");
        assert_eq!(node.utilisation.links, 16, "{sel}");
        assert!(node.utilisation.max > 0.99, "{sel}: {:?}", node.utilisation);
        assert!(
            (node.utilisation.mean * 16.0 - 4.0).abs() < 0.1,
            "{sel}: {:?}",
            node.utilisation
        );
    }
    // d-mod-k: every packet to node 1 takes rail 1 mod 2, one link's rate.
    let (dmodk, _) = greedy(&tree(2), "rail_selection = \"d-mod-k\"");
    assert!((dmodk - 1.0).abs() < 0.01, "d-mod-k: {dmodk}");
    // On a graph whose nodes each have a link to both of two linked switches, the
    // destination's nearest link is taken: rail 0 lands on switch 0, rail 1 on switch 1.
    let graph = "[topology]\nkind = \"graph\"\n[topology.graph]\nswitches = 2\nhosts = [0, 0]\nrails = [{ node = 0, switch = 1 }, { node = 1, switch = 1 }]\nlinks = [{ a = 0, b = 1 }]\n";
    let (two, r) = greedy(graph, "");
    assert!((two - 2.0).abs() < 0.02, "graph: {two}");
    assert_eq!(r.hops.mean, Some(0.0));
}

#[test]
fn nodes_with_rails_reach_every_node_conserve_packets_and_repeat() {
    // Every node sends a message to every other (132 flows): all complete, under each
    // rail selection, and the adaptive and deterministic routings.
    for (sel, routing) in [
        ("least-loaded", "adaptive"),
        ("round-robin", "d-mod-k"),
        ("d-mod-k", "d-mod-k"),
    ] {
        let mut text = format!(
            "{XGFT_RAILS}[nic]\nrail_selection = \"{sel}\"\n[routing]\nselection = \"{routing}\"\n[traffic]\nload = 0.0\n[simulation]\nwarmup_cycles = 0\nmeasure_cycles = 20000\n"
        );
        for a in 0..12 {
            for b in (0..12).filter(|&b| b != a) {
                text += &format!("[[flows]]\nsrc = {a}\ndst = {b}\nsize = 24\nmessage = 24\n");
            }
        }
        let r = run(&text);
        for f in &r.flows {
            assert!(
                f.completed.is_some(),
                "{sel}: {} -> {} did not complete",
                f.src,
                f.dst
            );
            assert_eq!(f.delivered_phits, 24);
        }
    }
    // Uniform traffic past saturation: packets conserved at every step, and the same
    // results twice.
    let text = format!(
        "{XGFT_RAILS}[traffic]\nload = 1.0\n[simulation]\nwarmup_cycles = 500\nmeasure_cycles = 2000\n"
    );
    let c = cfg(&text);
    let mut sim = arcsim::build(&c).unwrap();
    for step in 0..2500 {
        sim.step().unwrap();
        if step % 97 == 0 {
            let a = sim.audit();
            assert!(a.balanced(), "cycle {step}: {a:?}");
        }
    }
    let (a, b) = (arcsim::run(&c).unwrap(), arcsim::run(&c).unwrap());
    assert!(a.accepted_load > 0.5, "{}", a.accepted_load);
    assert_eq!(a.accepted_load, b.accepted_load);
    assert_eq!(a.latency, b.latency);
    assert_eq!(a.packets, b.packets);
    assert_eq!(a.link_classes, b.link_classes);
}

#[test]
fn what_nodes_with_rails_do_not_run_with_is_refused_naming_the_key() {
    for (extra, key) in [
        ("[routing]\npaths = \"up-down\"\n", "routing.paths"),
        ("[nic]\nadmittance = true\n", "nic.admittance"),
        ("[qcn]\nrouting = false\n", "qcn"),
    ] {
        let e = error(&format!("{XGFT_RAILS}{extra}"));
        assert!(e.contains(key), "{key}: {e}");
    }
    // The selection of rails on a network whose nodes have one link each.
    let e = error("[switch]\nkind = \"cioq\"\n[nic]\nrail_selection = \"round-robin\"\n[topology]\nkind = \"tree\"\n[topology.tree]\nk = 2\nn = 2\n");
    assert!(e.contains("nic.rail_selection"), "{e}");
    let e = error("[switch]\nkind = \"cioq\"\n[nic]\nrail_selection = \"fastest\"\n");
    assert!(e.contains("rail_selection"), "{e}");
    // A graph's rails: a node that does not exist, a second link to the same switch.
    let graph = "[switch]\nkind = \"cioq\"\n[topology]\nkind = \"graph\"\n[topology.graph]\nswitches = 2\nhosts = [0, 1]\nlinks = [{ a = 0, b = 1 }]\n";
    let e = error(&format!("{graph}rails = [{{ node = 2, switch = 1 }}]\n"));
    assert!(e.contains("topology.graph.rails[0].node"), "{e}");
    let e = error(&format!(
        "{graph}rails = [{{ node = 0, switch = 1 }}, {{ node = 0, switch = 1 }}]\n"
    ));
    assert!(e.contains("topology.graph.rails[1]"), "{e}");
    let e = error(&format!("{graph}rails = [{{ node = 0, switch = 0 }}]\n"));
    assert!(e.contains("topology.graph.rails[0]"), "{e}");
}
