//! `[[collectives]]` on the general kernel: completion time on an idle network against its
//! analytic value, conservation on the InfiniBand paper's fat tree, the run's end, units and
//! configuration errors.

use arcsim::config::Config;
use arcsim::RunResult;

fn cfg(text: &str) -> Config {
    let c = Config::from_toml_str(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    arcsim::validate(&c).unwrap_or_else(|e| panic!("{e}\n{text}"));
    c
}

fn run(text: &str) -> RunResult {
    arcsim::run(&cfg(text)).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// `n` nodes on one switch, packets of `L` = 8 phits, switch latency `S` = 3, node links
/// of latency `Lt` = 2, and one collective.
fn one_switch(n: usize, collective: &str) -> String {
    format!(
        "[topology]
kind = \"graph\"
terminal_latency = 2
[topology.graph]
switches = 1
hosts = [{}]
[switch]
kind = \"cioq\"
latency = 3
[router]
packet_length = 8
buffer_injection = 256
buffer_local = 256
[traffic]
load = 0.0
[simulation]
warmup_cycles = 0
measure_cycles = 100000
[[collectives]]
{collective}
",
        vec!["0"; n].join(", ")
    )
}

const L: u64 = 8;
const S: u64 = 3;
const LT: u64 = 2;

/// Latency of a message of `m` phits (at most a packet, or whole packets) through one idle
/// switch: the kernel's zero-load latency (docs/kernel.md) of its first packet, `2 Lt + S +
/// 2 len - 1`, plus the `m - len` phits behind it.
fn message(m: u64) -> u64 {
    let len = m.min(L);
    2 * LT + S + len + m - 1
}

/// A collective's completion time on an idle network whose steps are each a permutation
/// (no two messages share a link): the sum of its steps' message latencies, and one cycle
/// per step after the first (a flow waiting with `after` starts the cycle after the last
/// phit it waits for has arrived).
fn analytic(step_sizes: &[u64], gap: u64) -> u64 {
    step_sizes.iter().map(|&m| message(m) + gap).sum::<u64>() + step_sizes.len() as u64 - 1
}

fn completion(r: &RunResult) -> u64 {
    r.collectives[0]
        .completion_cycles
        .unwrap_or_else(|| panic!("did not complete: {:?}", r.collectives))
}

#[test]
fn an_idle_collective_takes_its_steps_times_a_message_latency() {
    let cases: &[(usize, &str, Vec<u64>)] = &[
        // Pairwise all-to-all: n - 1 steps of the message.
        (4, "kind = \"all-to-all\"\nsize = 5", vec![5; 3]),
        (8, "kind = \"all-to-all\"\nsize = 24", vec![24; 7]),
        // Ring allgather: n - 1 steps of one block.
        (4, "kind = \"allgather\"\nsize = 16", vec![16; 3]),
        // Recursive-doubling allgather: 2^k blocks at step k.
        (
            8,
            "kind = \"allgather\"\nalgorithm = \"recursive-doubling\"\nsize = 2",
            vec![2, 4, 8],
        ),
        // Recursive-doubling allreduce: log2 n steps of the vector.
        (8, "kind = \"allreduce\"\nsize = 8", vec![8; 3]),
        // Rabenseifner: halves, then doubles back.
        (
            4,
            "kind = \"allreduce\"\nalgorithm = \"rabenseifner\"\nsize = 32",
            vec![16, 8, 8, 16],
        ),
        // Ring allreduce: 2(n - 1) steps of a block of size / n.
        (
            4,
            "kind = \"allreduce\"\nalgorithm = \"ring\"\nsize = 32",
            vec![8; 6],
        ),
    ];
    for (n, text, steps) in cases {
        let r = run(&one_switch(*n, text));
        assert_eq!(r.collectives[0].steps, steps.len() as u64, "{text}");
        assert_eq!(completion(&r), analytic(steps, 0), "{n} nodes, {text}");
        assert_eq!(r.collectives[0].started, Some(0));
    }
    // A start and a per-step software overhead (gap): the first message leaves at start +
    // gap, every later one gap cycles after its rank is ready.
    let r = run(&one_switch(
        4,
        "kind = \"all-to-all\"\nsize = 8\nstart = 100\ngap = 10",
    ));
    assert_eq!(r.collectives[0].started, Some(110));
    assert_eq!(completion(&r), analytic(&[8; 3], 10) - 10);
}

#[test]
fn collectives_conserve_packets_and_end_the_run_when_complete() {
    // The InfiniBand paper's C2 (3:2 oversubscribed), adaptive routing: every phit of every
    // flow arrives, every packet is accounted for, and the run stops once all are in.
    for (kind, selection) in [
        ("all-to-all", "least-loaded"),
        ("allreduce\"\nalgorithm = \"rabenseifner", "adaptive"),
        ("allgather", "d-mod-k"),
    ] {
        let text = format!(
            "[topology]
kind = \"rlft\"
[topology.rlft]
leaves = 4
hosts = 3
roots = 2
[routing]
selection = \"{selection}\"
[switch]
kind = \"cioq\"
[router]
packet_length = 8
buffer_injection = 64
buffer_local = 64
[traffic]
load = 0.0
[simulation]
warmup_cycles = 0
measure_cycles = 1000000
[[collectives]]
kind = \"{kind}\"
size = 100
[[collectives]]
kind = \"all-to-all\"
nodes = [0, 4, 8, 11]
size = 3
start = 50
"
        );
        let c = cfg(&text);
        let mut sim = arcsim::build(&c).unwrap();
        let r = sim.run().unwrap();
        let a = sim.audit();
        assert!(a.balanced() && a.live == 0, "{kind}: {a:?}");
        assert_eq!(r.packets.generated, r.packets.delivered, "{kind}");
        for f in &r.flows {
            assert_eq!(f.delivered_phits, f.created_phits, "{kind}: {f:?}");
            assert!(f.completed.is_some(), "{kind}: {f:?}");
        }
        let last = r.flows.iter().filter_map(|f| f.completed).max().unwrap();
        // The run ends the cycle its last phit arrived.
        assert_eq!(r.cycles, last + 1, "{kind}");
        assert!(r.cycles < 1_000_000);
        assert_eq!(r.collectives.len(), 2);
        let second = &r.collectives[1];
        assert_eq!((second.ranks, second.flow_count), (4, 12));
        assert_eq!(second.first_flow, r.collectives[0].flow_count);
        assert_eq!(second.started, Some(50));
        for c in &r.collectives {
            let t = c.completion_cycles.unwrap();
            assert_eq!(t, c.completed.unwrap() - c.started.unwrap());
        }
    }
}

#[test]
fn a_collective_that_does_not_finish_is_missing_not_zero() {
    let mut c = cfg(&one_switch(4, "kind = \"all-to-all\"\nsize = 4000"));
    c.simulation.measure_cycles = 2000;
    let r = arcsim::run(&c).unwrap();
    let col = &r.collectives[0];
    assert_eq!(col.started, Some(0));
    assert_eq!((col.completed, col.completion_cycles), (None, None));
    assert_eq!(r.cycles, 2000);
    let json = serde_json::to_value(&r).unwrap();
    assert!(json["collectives"][0]["completion_cycles"].is_null());
}

#[test]
fn sizes_take_units_rounded_up_to_whole_phits() {
    let base = one_switch(4, "kind = \"allgather\"\nsize = \"1 B\"\nstart = \"1 us\"");
    let text = format!("{base}[units]\nlink_rate = \"200 Gbps\"\nphit = \"128 B\"\n");
    // 128 B at 200 Gbps: a cycle of 5.12 ns; 1 us is not whole cycles.
    let e = Config::from_toml_str(&text).unwrap_err().to_string();
    assert!(e.contains("collectives[0].start"), "{e}");
    let ok = text.replace("\"1 us\"", "\"512 ns\"");
    let c = cfg(&ok);
    assert_eq!(c.collectives[0].size, 1);
    assert_eq!(c.collectives[0].start, 100);
    for (size, phits) in [("\"129 B\"", 2), ("\"1 MiB\"", 8192), ("\"256 B\"", 2)] {
        let t = ok.replace("\"1 B\"", size);
        assert_eq!(cfg(&t).collectives[0].size, phits, "{size}");
    }
    // The configuration a run writes reads back to the same collectives.
    let again = Config::from_toml_str(&c.to_toml_string().unwrap()).unwrap();
    assert_eq!(again.collectives, c.collectives);
}

#[test]
fn bad_collectives_name_the_key() {
    let err = |collective: &str| {
        let text = one_switch(4, collective);
        match Config::from_toml_str(&text) {
            Err(e) => e.to_string(),
            Ok(c) => arcsim::validate(&c).unwrap_err().to_string(),
        }
    };
    let e = err("kind = \"all-to-all\"\nsise = 4");
    assert!(e.contains("collectives[0]") && e.contains("sise"), "{e}");
    let e = err("kind = \"allreduse\"\nsize = 4");
    assert!(
        e.contains("collectives[0].kind") && e.contains("allreduce"),
        "{e}"
    );
    let e = err("kind = \"all-to-all\"\nalgorithm = \"ring\"\nsize = 4");
    assert!(
        e.contains("collectives[0].algorithm") && e.contains("pairwise"),
        "{e}"
    );
    let e = err("kind = \"all-to-all\"\nsize = 4\nnodes = [0, 7]");
    assert!(
        e.contains("collectives[0].nodes") && e.contains("node 7"),
        "{e}"
    );
    let e = err("kind = \"all-to-all\"\nsize = 0");
    assert!(e.contains("collectives[0].size"), "{e}");
    // Three nodes: recursive-doubling allgather is refused, allreduce pairs ranks up.
    let three = one_switch(
        3,
        "kind = \"allgather\"\nalgorithm = \"recursive-doubling\"\nsize = 4",
    );
    let e = arcsim::validate(&Config::from_toml_str(&three).unwrap())
        .unwrap_err()
        .to_string();
    assert!(e.contains("power of two") && e.contains("ring"), "{e}");
    let r = run(&one_switch(3, "kind = \"allreduce\"\nsize = 4"));
    assert_eq!(r.collectives[0].steps, 3);
    assert!(r.collectives[0].completion_cycles.is_some());
    // Built without validation first: an error naming the key, not a panic.
    let mut c = Config::from_toml_str(&one_switch(4, "kind = \"all-to-all\"\nsize = 4")).unwrap();
    c.collectives[0].nodes = vec![0, 99];
    let e = arcsim::build(&c)
        .err()
        .expect("node 99 does not exist")
        .to_string();
    assert!(e.contains("collectives[0].nodes"), "{e}");
    // The dragonfly engine reads no collectives.
    let e = Config::from_toml_str("[[collectives]]\nkind = \"all-to-all\"\nsize = 4\n")
        .unwrap()
        .validate()
        .unwrap_err()
        .to_string();
    assert!(e.contains("collectives") && e.contains("cioq"), "{e}");
}
