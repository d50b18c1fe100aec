//! The deadlock watchdog: a deadlock-prone network must stop with `SimError::Deadlock` (not
//! hang, not panic), promptly, with a report of a genuine deadlock; the same network with
//! ordered VCs must not deadlock.

mod common;

use arcsim::engine::DeadlockReport;
use arcsim::topology::PortClass;
use arcsim::SimError;
use common::small;

/// VAL on the small dragonfly with one VC per link class used in any order, buffers holding
/// exactly one packet, and every node injecting at full rate: cyclic buffer dependencies
/// close within about a thousand cycles.
fn deadlock_prone(routing: &str, seed: u64, watchdog: u64) -> arcsim::Config {
    let alg = format!("routing.algorithm={routing}");
    let s = format!("simulation.seed={seed}");
    let w = format!("simulation.watchdog_cycles={watchdog}");
    small(&[
        &alg,
        &s,
        &w,
        "routing.ordered_vcs=false",
        "router.vcs_local=1",
        "router.vcs_global=1",
        "router.buffer_local=8",
        "router.buffer_global=8",
        "traffic.load=1.0",
        "simulation.warmup_cycles=5000",
        "simulation.measure_cycles=15000",
    ])
}

/// Whether `text` contains "router N" for some number N.
fn names_a_router(text: &str) -> bool {
    text.match_indices("router ").any(|(i, m)| {
        text[i + m.len()..]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit())
    })
}

fn expect_deadlock(cfg: &arcsim::Config, what: &str) -> Box<DeadlockReport> {
    match arcsim::run(cfg) {
        Err(SimError::Deadlock(report)) => report,
        Err(other) => panic!("{what}: expected a deadlock report, got another error: {other}"),
        Ok(r) => panic!(
            "{what}: expected a deadlock, but the run completed {} cycles (accepted {:.3})",
            r.cycles, r.accepted_load
        ),
    }
}

/// A report must describe a real deadlock: packets stuck, and no example head that could
/// move (a head waiting for ejection, or for an output VC with room for a packet, means the
/// watchdog fired on a network that was merely not being served).
fn check_report(report: &DeadlockReport, watchdog: u64, len: u32, what: &str) {
    let text = report.to_string();
    assert!(
        text.to_lowercase().contains("deadlock"),
        "{what}: message does not say deadlock:\n{text}"
    );
    assert!(
        names_a_router(&text),
        "{what}: message names no router:\n{text}"
    );
    assert!(
        report.cycle - report.last_move > watchdog
            && report.cycle - report.last_move <= watchdog + 1,
        "{what}: watchdog of {watchdog} cycles fired after {} idle cycles:\n{text}",
        report.cycle - report.last_move
    );
    assert!(
        report.in_flight > 0 && report.occupied_buffers > 0,
        "{what}:\n{text}"
    );
    assert!(
        !report.chain.is_empty(),
        "{what}: no blocked buffer listed:\n{text}"
    );
    // Following the waits from a blocked buffer must come back to it: a real deadlock is a
    // cycle of full buffers.
    assert!(
        report.cyclic,
        "{what}: the chain of waits does not close a cycle:\n{text}"
    );
    for b in &report.chain {
        assert!(b.packets > 0, "{what}: empty buffer listed:\n{text}");
        assert!(
            !b.wants.is_empty(),
            "{what}: blocked head with no candidate output:\n{text}"
        );
        for (port, class, _, _, credits) in &b.wants {
            assert_ne!(
                *class,
                PortClass::Terminal,
                "{what}: router {} port {} holds a packet that only needs ejection (output {port}), which can never block:\n{text}",
                b.router,
                b.port
            );
            assert!(
                credits.iter().all(|&c| c < len),
                "{what}: router {} port {} VC {} waits for output {port}, which has room for a packet (credits {credits:?}, packet {len} phits):\n{text}",
                b.router,
                b.port,
                b.vc
            );
        }
    }
}

#[test]
fn unordered_vcs_deadlock_is_reported() {
    for seed in 1..=3 {
        let cfg = deadlock_prone("val", seed, 500);
        let what = format!("VAL unordered seed {seed}");
        let report = expect_deadlock(&cfg, &what);
        eprintln!(
            "{what}: deadlock detected at cycle {} (last move {})",
            report.cycle, report.last_move
        );
        assert!(
            report.cycle < 10_000,
            "{what}: took {} cycles",
            report.cycle
        );
        check_report(&report, 500, 8, &what);
    }
}

#[test]
fn every_routing_deadlocks_without_vc_ordering() {
    for routing in ["min", "val-any", "ugal-l"] {
        let cfg = deadlock_prone(routing, 1, 500);
        let what = format!("{routing} unordered");
        let report = expect_deadlock(&cfg, &what);
        check_report(&report, 500, 8, &what);
    }
}

#[test]
fn watchdog_length_is_respected() {
    let cfg = deadlock_prone("val", 1, 2000);
    let report = expect_deadlock(&cfg, "VAL watchdog 2000");
    check_report(&report, 2000, 8, "VAL watchdog 2000");
}

/// Stepping also stops with the error, and the stuck packets are all accounted for.
#[test]
fn step_returns_deadlock_and_packets_are_conserved() {
    let cfg = deadlock_prone("val", 2, 500);
    let mut sim = arcsim::build(&cfg).unwrap();
    let err = loop {
        if let Err(e) = sim.step() {
            break e;
        }
        assert!(sim.now() < 20_000, "no deadlock within 20,000 cycles");
    };
    assert!(
        matches!(err, SimError::Deadlock(_)),
        "expected a deadlock, got {err}"
    );
    let audit = sim.audit();
    assert!(audit.balanced(), "{audit:?}");
    assert!(audit.in_buffers > 0, "{audit:?}");
}

#[test]
fn ordered_vcs_do_not_deadlock() {
    // The same network, load and tiny buffers, with the VCs the routing needs in order.
    for routing in ["val", "min", "val-any", "ugal-l"] {
        let alg = format!("routing.algorithm={routing}");
        let cfg = small(&[
            &alg,
            "router.buffer_local=8",
            "router.buffer_global=8",
            "traffic.load=1.0",
            "simulation.watchdog_cycles=500",
            "simulation.warmup_cycles=5000",
            "simulation.measure_cycles=15000",
        ]);
        let r = arcsim::run(&cfg).unwrap_or_else(|e| panic!("{routing} with ordered VCs: {e}"));
        eprintln!(
            "{routing} ordered, 1-packet buffers: accepted {:.3}, delivered {}",
            r.accepted_load, r.packets.delivered
        );
        assert_eq!(r.cycles, 20_000);
        // One-packet buffers behind 100-cycle global links are credit-starved (a packet per
        // round trip per VC), so throughput is low; what matters is that it keeps moving.
        assert!(
            r.accepted_load > 0.01 && r.packets.delivered > 2_000,
            "{routing}: accepted {:.3}, delivered {}: the network barely moves",
            r.accepted_load,
            r.packets.delivered
        );
    }
}
