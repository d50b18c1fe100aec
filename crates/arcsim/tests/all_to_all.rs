//! The all-to-all pattern: a burst of N - 1 packets per node is one MPI_Alltoall (every node
//! sends exactly one packet to every other node), in the staggered order where at step k node
//! n sends to (n + k) mod N; the burst is delivered in full under every routing.

mod common;

use arcsim::config::{AllToAllOrder, PatternKind, TrafficConfig};
use arcsim::rng::Rng;
use arcsim::traffic::pattern::{Pattern, Shape};
use common::small;

/// The small network of `common::small`: p=2, a=4, h=2, 9 groups, 72 nodes.
const SHAPE: Shape = Shape { p: 2, a: 4, g: 9 };
const N: usize = 72;

fn all_to_all(rng: &mut Rng) -> Pattern {
    Pattern::new(
        SHAPE,
        PatternKind::AllToAll,
        1,
        &[],
        &TrafficConfig::default(),
        rng,
    )
}

#[test]
fn all_to_all_burst_sends_one_packet_from_every_node_to_every_other() {
    let mut rng = Rng::new(1);
    let mut p = all_to_all(&mut rng);
    let mut count = vec![0u32; N * N];
    for step in 1..N {
        // Staggered: within one step every node is targeted exactly once.
        let mut targeted = [false; N];
        for src in 0..N {
            let d = p.destination(src, &mut rng);
            assert!(d < N, "destination {d} out of range");
            assert!(!targeted[d], "step {step}: node {d} targeted twice");
            targeted[d] = true;
            count[src * N + d] += 1;
        }
    }
    for src in 0..N {
        for dst in 0..N {
            let want = u32::from(src != dst);
            assert_eq!(
                count[src * N + dst],
                want,
                "packets {src} -> {dst} in one all-to-all"
            );
        }
    }
}

#[test]
fn all_to_all_destination_sequence_is_staggered_and_draws_no_random_numbers() {
    let mut rng = Rng::new(5);
    let mut p = all_to_all(&mut rng);
    for src in [0, 1, 35, 70, 71] {
        let seq: Vec<usize> = (0..2 * (N - 1))
            .map(|_| p.destination(src, &mut rng))
            .collect();
        // Step k = 1..N-1 goes to (src + k) mod N, then the schedule starts again.
        let want: Vec<usize> = (0..2 * (N - 1))
            .map(|i| (src + 1 + i % (N - 1)) % N)
            .collect();
        assert_eq!(seq, want, "node {src}");
    }
    // The schedule is deterministic: the generator is left where a fresh one would be.
    let mut fresh = Rng::new(5);
    assert_eq!(rng.below(1 << 40), fresh.below(1 << 40));
}

/// A full all-to-all burst (N - 1 = 71 packets per node) completes under minimal, oblivious,
/// source-adaptive and in-transit adaptive routing; every packet is delivered, nothing is
/// left in the network, and every router receives exactly p * (N - 1) packets (one from each
/// node to each of its p nodes). The last case queues packets in the injection VC of their
/// destination's range, with room for two packets per VC, so that packets often wait for
/// their VC: the burst must still send each destination exactly once.
#[test]
fn all_to_all_burst_completes_and_conserves_packets() {
    let cases: [&[&str]; 6] = [
        &["routing.algorithm=min"],
        &["routing.algorithm=val"],
        &["routing.algorithm=pb"],
        &[
            "routing.algorithm=ofar",
            "routing.escape=ring",
            "routing.congestion=bcm",
            "router.vcs_local=2",
            "router.vcs_global=1",
        ],
        &[
            "routing.algorithm=ofar",
            "routing.escape=tree",
            "routing.congestion=ecm",
            "router.vcs_local=2",
            "router.vcs_global=1",
        ],
        &[
            "routing.algorithm=min",
            "router.vcs_injection=3",
            "router.buffer_injection=16",
            "router.injection_vc=destination",
        ],
    ];
    let per_node = (N - 1) as u64;
    for extra in cases {
        let mut sets = vec![
            "traffic.pattern=all-to-all",
            "traffic.burst_packets=71",
            "simulation.max_cycles=200000",
        ];
        sets.extend_from_slice(extra);
        let cfg = small(&sets);
        let mut sim = arcsim::build(&cfg).expect("valid configuration");
        let r = sim.run().unwrap_or_else(|e| panic!("{extra:?}: {e}"));
        assert_eq!(r.pattern, "all-to-all");
        assert_eq!(r.packets.generated, per_node * N as u64, "{extra:?}");
        assert_eq!(r.packets.delivered, per_node * N as u64, "{extra:?}");
        assert_eq!(r.packets.in_flight, 0, "{extra:?}");
        let b = r.burst.as_ref().expect("burst summary");
        assert_eq!(b.packets_per_node, per_node);
        assert!(
            b.consumption_cycles >= per_node * 8,
            "{extra:?}: consumed in {} cycles, faster than the injection link allows",
            b.consumption_cycles
        );
        let a = sim.audit();
        assert!(a.balanced(), "{extra:?}: not conserved: {a:?}");
        assert_eq!((a.in_buffers, a.on_links, a.live), (0, 0, 0), "{extra:?}");
        // Each router's 2 nodes receive one 8-phit packet from each of the 71 other nodes.
        let phits = (2 * per_node * 8) as f64;
        let acc = &r.per_router.accepted;
        assert_eq!((acc.min, acc.max), (phits, phits), "{extra:?}: {acc:?}");
    }
}

#[test]
fn all_to_all_burst_is_deterministic() {
    let cfg = small(&[
        "routing.algorithm=ofar",
        "traffic.pattern=all-to-all",
        "traffic.burst_packets=40",
    ]);
    let mut a = common::run(&cfg);
    let mut b = common::run(&cfg);
    for r in [&mut a, &mut b] {
        r.wall_seconds = 0.0;
        r.cycles_per_second = 0.0;
        r.packet_hops_per_second = 0.0;
    }
    assert_eq!(a, b, "two runs with the same seed differ");
    assert_eq!(a.packets.delivered, 40 * N as u64);
}

/// The ascending order (the naive loop): node n's i-th packet goes to the i-th
/// node other than n, so at each step nearly every node sends to the same node, and one
/// exchange still sends exactly one packet from every node to every other.
#[test]
fn ascending_all_to_all_visits_the_nodes_in_the_same_order_from_every_node() {
    let mut rng = Rng::new(2);
    let traffic = TrafficConfig {
        all_to_all_order: AllToAllOrder::Ascending,
        ..TrafficConfig::default()
    };
    let mut p = Pattern::new(SHAPE, PatternKind::AllToAll, 1, &[], &traffic, &mut rng);
    let mut count = vec![0u32; N * N];
    for step in 0..N - 1 {
        for src in 0..N {
            let d = p.destination(src, &mut rng);
            // Nodes before the target skip themselves later than the nodes after it.
            let want = if step < src { step } else { step + 1 };
            assert_eq!(d, want, "step {step}, node {src}");
            count[src * N + d] += 1;
        }
    }
    for src in 0..N {
        for dst in 0..N {
            assert_eq!(
                count[src * N + dst],
                u32::from(src != dst),
                "{src} -> {dst}"
            );
        }
    }
    // The second exchange starts again at node 0 (node 0 itself at node 1).
    assert_eq!(p.destination(5, &mut rng), 0);
    assert_eq!(p.destination(0, &mut rng), 1);
}

/// The ascending all-to-all as a burst: delivered in full and conserved under PB and OFAR
/// with a ring and ECM, named apart from the staggered one in the results, and slower than
/// the staggered one under PB on this small network (its moving hot spot serialises on one
/// ejection port at a time: 71 sources, one 8-phit packet per cycle at most).
#[test]
fn ascending_all_to_all_burst_completes_and_is_named_in_the_results() {
    let per_node = (N - 1) as u64;
    let mut staggered_pb = 0;
    for extra in [
        &["routing.algorithm=pb"][..],
        &[
            "routing.algorithm=ofar",
            "routing.escape=ring",
            "routing.congestion=ecm",
            "router.vcs_local=2",
            "router.vcs_global=1",
        ][..],
    ] {
        for order in ["staggered", "ascending"] {
            let mut sets = vec![
                "traffic.pattern=all-to-all",
                "traffic.burst_packets=71",
                "simulation.max_cycles=200000",
            ];
            let o = format!("traffic.all_to_all_order={order}");
            sets.push(&o);
            sets.extend_from_slice(extra);
            let cfg = small(&sets);
            let mut sim = arcsim::build(&cfg).expect("valid configuration");
            let r = sim.run().unwrap_or_else(|e| panic!("{extra:?}: {e}"));
            let name = if order == "ascending" {
                "all-to-all-ascending"
            } else {
                "all-to-all"
            };
            assert_eq!(r.pattern, name);
            assert_eq!(
                r.packets.delivered,
                per_node * N as u64,
                "{extra:?} {order}"
            );
            assert_eq!(r.packets.in_flight, 0, "{extra:?} {order}");
            assert!(sim.audit().balanced(), "{extra:?} {order}");
            let phits = (2 * per_node * 8) as f64;
            let acc = &r.per_router.accepted;
            assert_eq!((acc.min, acc.max), (phits, phits), "{extra:?} {order}");
            let cycles = r.burst.as_ref().expect("burst summary").consumption_cycles;
            if extra[0] == "routing.algorithm=pb" {
                if order == "staggered" {
                    staggered_pb = cycles;
                } else {
                    assert!(
                        cycles > staggered_pb,
                        "PB: ascending {cycles} cycles, staggered {staggered_pb}"
                    );
                }
            }
        }
    }
}
