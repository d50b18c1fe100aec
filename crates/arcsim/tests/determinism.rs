//! A run is a pure function of its configuration and seed: everything in the result except
//! the wall-clock fields must repeat bit for bit, and a different seed must change it.

mod common;

use arcsim::RunResult;
use common::small;

/// JSON of a result with the machine-dependent fields zeroed.
fn canonical(r: &RunResult) -> String {
    let mut r = r.clone();
    r.wall_seconds = 0.0;
    r.cycles_per_second = 0.0;
    r.packet_hops_per_second = 0.0;
    serde_json::to_string(&r).expect("serialise")
}

fn cfg(routing: &str, seed: u64) -> arcsim::Config {
    let alg = format!("routing.algorithm={routing}");
    let s = format!("simulation.seed={seed}");
    small(&[
        &alg,
        &s,
        "traffic.load=0.5",
        "simulation.warmup_cycles=1000",
        "simulation.measure_cycles=3000",
        "simulation.series_window=250",
    ])
}

#[test]
fn same_seed_same_result() {
    for routing in ["min", "val", "val-any", "ugal-l"] {
        let c = cfg(routing, 7);
        let a = common::run(&c);
        let b = common::run(&c);
        assert!(a.packets.delivered > 1000, "{routing}: nothing measured");
        assert!(a.series.is_some(), "{routing}: series requested");
        assert_eq!(
            canonical(&a),
            canonical(&b),
            "{routing}: two runs with the same seed differ"
        );
    }
}

#[test]
fn different_seed_different_result() {
    for routing in ["min", "val", "val-any", "ugal-l"] {
        let a = common::run(&cfg(routing, 7));
        let b = common::run(&cfg(routing, 8));
        assert_ne!(
            canonical(&a),
            canonical(&b),
            "{routing}: seeds 7 and 8 give identical results"
        );
        assert_ne!(
            (a.packets.generated, a.latency.mean),
            (b.packets.generated, b.latency.mean),
            "{routing}: seeds 7 and 8 generate identical traffic"
        );
        assert_eq!(b.seed, 8);
    }
}

/// Stepping cycle by cycle (with audits in between) and then finishing with `run` gives the
/// same result as one `run`: observation does not perturb the simulation.
#[test]
fn stepping_matches_running() {
    for routing in ["min", "ugal-l"] {
        let c = cfg(routing, 3);
        let whole = common::run(&c);
        let mut sim = arcsim::build(&c).unwrap();
        for _ in 0..1777 {
            sim.step().unwrap();
            if sim.now() % 100 == 0 {
                assert!(sim.audit().balanced());
            }
        }
        let stepped = sim.run().unwrap();
        assert_eq!(
            canonical(&whole),
            canonical(&stepped),
            "{routing}: step + run differs from run"
        );
    }
}

/// Repetitions use seeds seed, seed+1, ...: each repetition equals the single run with that
/// seed, and the aggregate is their mean.
#[test]
fn repetitions_are_the_runs_of_consecutive_seeds() {
    let mut c = cfg("ugal-l", 11);
    c.simulation.repetitions = 3;
    let rep = arcsim::run_repeated(&c).unwrap();
    assert_eq!(rep.repetitions, 3);
    assert_eq!(rep.runs.len(), 3);
    let mut sum = 0.0;
    for (k, run) in rep.runs.iter().enumerate() {
        let single = common::run(&cfg("ugal-l", 11 + k as u64));
        assert_eq!(
            canonical(run),
            canonical(&single),
            "repetition {k} is not the run with seed {}",
            11 + k
        );
        sum += run.accepted_load;
    }
    assert!((rep.accepted_load.mean - sum / 3.0).abs() < 1e-12);
    assert!(
        rep.accepted_load.ci95 > 0.0,
        "three different seeds, zero spread"
    );
    let again = arcsim::run_repeated(&c).unwrap();
    let strip =
        |r: &arcsim::stats::summary::Repeated| r.runs.iter().map(canonical).collect::<Vec<_>>();
    assert_eq!(strip(&rep), strip(&again));
}
