//! The general kernel with the CIOQ switch: analytic results it must reproduce (zero-load
//! latency, head-of-line blocking's saturation throughput, parking-lot shares), priority flow
//! control (lossless incast, congestion spreading), conservation, determinism, messages and
//! configuration errors.

use arcsim::config::Config;
use arcsim::RunResult;

/// A configuration from TOML text on top of the embedded default.
fn cfg(text: &str) -> Config {
    let c = Config::from_toml_str(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    arcsim::validate(&c).unwrap_or_else(|e| panic!("{e}\n{text}"));
    c
}

fn run(text: &str) -> RunResult {
    arcsim::run(&cfg(text)).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// One switch with `n` nodes.
fn one_switch(n: usize) -> String {
    format!(
        "[topology]\nkind = \"graph\"\n[topology.graph]\nswitches = 1\nhosts = [{}]\n",
        vec!["0"; n].join(", ")
    )
}

/// Head-of-line blocking on one N×N switch with one FIFO per input (Karol, Hluchyj and
/// Morgan 1987): at saturation, uniform destinations (the source included), packets of one
/// phit so that the switch works in slots.
fn hol(n: usize, tune: impl Fn(&mut Config)) -> f64 {
    let text = format!(
        "{}
[switch]
kind = \"cioq\"
output_buffer = 2
[router]
packet_length = 1
buffer_injection = 64
vcs_injection = 1
[traffic]
load = 1.0
allow_self = true
[simulation]
warmup_cycles = 2000
measure_cycles = 30000
",
        one_switch(n)
    );
    let mut c = cfg(&text);
    tune(&mut c);
    arcsim::run(&c)
        .unwrap_or_else(|e| panic!("{e}"))
        .accepted_load
}

#[test]
fn head_of_line_blocking_limits_a_fifo_switch_to_karols_throughput() {
    // Karol et al., Table I: 0.6184 for N = 8, 0.5858 as N grows (0.5900 at N = 32).
    let n8 = hol(8, |_| {});
    assert!((n8 - 0.618).abs() < 0.01, "N = 8: {n8}");
    let n32 = hol(32, |_| {});
    assert!((n32 - 0.590).abs() < 0.01, "N = 32: {n32}");
}

#[test]
fn speedup_two_and_output_queues_remove_head_of_line_blocking() {
    // Packets of two phits cross in one cycle at speedup 2; output queues of 32 packets.
    let text = format!(
        "{}
[switch]
kind = \"cioq\"
speedup = 2.0
output_buffer = 64
[router]
packet_length = 2
buffer_injection = 32
vcs_injection = 1
[traffic]
load = 1.0
allow_self = true
[simulation]
warmup_cycles = 2000
measure_cycles = 30000
",
        one_switch(8)
    );
    let r = run(&text);
    assert!(r.accepted_load >= 0.95, "{}", r.accepted_load);
    // The same switch without speedup stays near the FIFO limit.
    let slow = run(&text.replace("speedup = 2.0", "speedup = 1.0"));
    assert!(slow.accepted_load < 0.75, "{}", slow.accepted_load);
}

/// A chain of switches 0 - 1 - ... - (n-1), links of the given latencies, `hosts` listing
/// the switch of each node.
fn chain(latencies: &[u32], hosts: &[u32], terminal: u32) -> String {
    let mut s = format!(
        "[topology]\nkind = \"graph\"\nterminal_latency = {terminal}\n[topology.graph]\nswitches = {}\nhosts = {:?}\n",
        latencies.len() + 1,
        hosts
    );
    for (i, l) in latencies.iter().enumerate() {
        s += &format!(
            "[[topology.graph.links]]\na = {i}\nb = {}\nlatency = {l}\n",
            i + 1
        );
    }
    s
}

#[test]
fn zero_load_latency_is_links_plus_transfers_plus_switch_latency() {
    // One packet of 8 phits from node 0 (switch 0) to node 1 (switch 2), links of 5 and 7
    // cycles, node links of 2, switch latency 3, speedup 2. At each switch the transfer
    // lasts until the tail has arrived (8 cycles: cut-through in, whole into the output
    // queue), then the switch latency; the last tail arrives len - 1 after its head.
    let text = format!(
        "{}
[switch]
kind = \"cioq\"
speedup = 2.0
latency = 3
[router]
packet_length = 8
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
",
        chain(&[5, 7], &[0, 2], 2)
    );
    let r = run(&text);
    let f = &r.flows[0];
    let (len, sw, term) = (8.0, 3.0, 2.0);
    let want = term + 3.0 * (len + sw) + (5.0 + 7.0) + term + (len - 1.0);
    assert_eq!(f.message_latency_mean, Some(want));
    assert_eq!(f.completed, Some(100 + want as u64));
    assert_eq!(r.latency.mean, Some(want));
    assert_eq!(r.hops.mean, Some(2.0));
}

#[test]
fn parking_lot_shares_halve_at_every_switch() {
    // Four switches in a chain, a greedy source on each, all to one node on the last switch;
    // each switch serves its two inputs in turn: 1/2 to the last switch's own source, then
    // 1/4, 1/8 and 1/8 (the RECN and InfiniBand papers' parking lot).
    let mut text = chain(&[1, 1, 1], &[0, 1, 2, 3, 3], 1);
    text += "
[switch]
kind = \"cioq\"
[router]
packet_length = 4
[traffic]
load = 0.0
[simulation]
warmup_cycles = 5000
measure_cycles = 40000
";
    for src in 0..4 {
        text += &format!("[[flows]]\nsrc = {src}\ndst = 4\n");
    }
    let r = run(&text);
    let got: Vec<f64> = r.flows.iter().map(|f| f.throughput).collect();
    let want = [0.125, 0.125, 0.25, 0.5];
    for (g, w) in got.iter().zip(want) {
        assert!((g - w).abs() < 0.01, "{got:?} against {want:?}");
    }
}

/// The incast of the PFC tests: nodes 0, 1 (switch 0) and 3, 4 (switch 2) send to node 5
/// (switch 1); node 2 (switch 0) sends to node 6 (switch 1), sharing the link from switch 0
/// to switch 1 with nodes 0 and 1.
fn incast(flow_control: &str) -> RunResult {
    let mut text = "[topology]
kind = \"graph\"
[topology.graph]
switches = 3
hosts = [0, 0, 0, 2, 2, 1, 1]
links = [{ a = 0, b = 1, latency = 4 }, { a = 2, b = 1, latency = 4 }]
[switch]
kind = \"cioq\"
speedup = 2.0
output_buffer = 32
[router]
packet_length = 4
buffer_local = 64
buffer_injection = 64
[traffic]
load = 0.0
[simulation]
warmup_cycles = 5000
measure_cycles = 40000
"
    .to_string();
    text += flow_control;
    for (s, d) in [(0, 5), (1, 5), (3, 5), (4, 5), (2, 6)] {
        text += &format!("[[flows]]\nsrc = {s}\ndst = {d}\n");
    }
    run(&text)
}

#[test]
fn pfc_incast_is_lossless_and_spreads_congestion_to_a_victim() {
    let pfc = incast("[flow_control]\nkind = \"pfc\"\nxoff = 32\nxon = 16\n");
    // Nothing lost (an overflow stops the run with an error) and the receiver's link full.
    let into_5: f64 = pfc.flows[..4].iter().map(|f| f.throughput).sum();
    assert!((into_5 - 1.0).abs() < 0.01, "{into_5}: {:?}", pfc.flows);
    assert!(pfc.pauses > 0);
    assert!(pfc.pauses_at_nodes > 0, "pauses never reached a sender");
    // The victim waits behind the incast in switch 1's input buffer: it gets its quarter
    // of the shared link (the link runs at 3/4, two thirds of it for the incast's half of
    // node 5) instead of a third.
    let victim = pfc.flows[4].throughput;
    assert!((victim - 0.25).abs() < 0.02, "victim under PFC: {victim}");
    // With unbounded output queues instead (the crossbar, twice as fast as a link, empties
    // every input buffer), nothing holds the link back: a third.
    let open = incast("[flow_control]\nkind = \"none\"\n");
    let victim = open.flows[4].throughput;
    assert!(
        (victim - 1.0 / 3.0).abs() < 0.01,
        "victim without flow control: {victim}"
    );
    assert_eq!(open.pauses, 0);
}

#[test]
fn out_of_order_packets_still_make_whole_messages() {
    // Two parallel links of different latency: the packets of a message take both (the
    // allocator uses whichever is free) and arrive out of order.
    let text = "[topology]
kind = \"graph\"
[topology.graph]
switches = 2
hosts = [0, 1]
links = [{ a = 0, b = 1, latency = 1 }, { a = 0, b = 1, latency = 40 }]
[switch]
kind = \"cioq\"
speedup = 2.0
[router]
packet_length = 4
[traffic]
load = 0.0
[[flows]]
src = 0
dst = 1
size = 4000
message = 400
[simulation]
warmup_cycles = 0
measure_cycles = 20000
";
    let r = run(text);
    let f = &r.flows[0];
    assert!(f.reordered_packets > 0, "no packet overtook another");
    assert_eq!(f.delivered_phits, 4000);
    assert_eq!(f.messages_delivered, 10);
    assert!(f.completed.is_some());
    assert_eq!(r.packets.generated, 1000);
    assert_eq!(r.packets.delivered, 1000);
}

#[test]
fn a_flow_waits_for_the_flows_it_comes_after() {
    let text = format!(
        "{}
[switch]
kind = \"cioq\"
[traffic]
load = 0.0
[[flows]]
src = 0
dst = 1
size = 800
[[flows]]
src = 2
dst = 1
size = 80
start = 10
after = [0]
[simulation]
warmup_cycles = 0
measure_cycles = 5000
",
        one_switch(3)
    );
    let r = run(&text);
    let (a, b) = (&r.flows[0], &r.flows[1]);
    let done = a.completed.expect("first flow completes");
    assert_eq!(b.started, Some(done + 1 + 10));
    assert!(b.completed.is_some());
}

/// A small dragonfly on CIOQ switches at the given load.
fn dragonfly(load: f64, seed: u64) -> Config {
    cfg(&format!(
        "[topology]
p = 2
a = 4
h = 2
[switch]
kind = \"cioq\"
speedup = 2.0
latency = 4
[traffic]
load = {load}
[simulation]
seed = {seed}
warmup_cycles = 500
measure_cycles = 3000
"
    ))
}

#[test]
fn every_packet_is_delivered_once_or_still_in_flight() {
    for (load, fc) in [
        (0.3, "credits"),
        (0.9, "credits"),
        (0.9, "pfc"),
        (0.9, "none"),
    ] {
        let mut c = dragonfly(load, 7);
        c.flow_control.kind = match fc {
            "pfc" => arcsim::config::FlowControlKind::Pfc,
            "none" => arcsim::config::FlowControlKind::None,
            _ => arcsim::config::FlowControlKind::Credits,
        };
        if fc == "pfc" {
            c.flow_control.xoff = 64;
            c.flow_control.xon = 32;
            c.router.buffer_local = 256;
            c.router.buffer_global = 1024;
        }
        arcsim::validate(&c).unwrap();
        let mut sim = arcsim::build(&c).unwrap();
        for step in 0..3000 {
            sim.step().unwrap();
            if step % 250 == 0 {
                let a = sim.audit();
                assert!(a.balanced(), "{fc} at {load}, cycle {step}: {a:?}");
            }
        }
        let a = sim.audit();
        assert!(a.balanced() && a.delivered > 0, "{fc} at {load}: {a:?}");
    }
}

#[test]
fn a_run_is_a_pure_function_of_its_seed() {
    let strip = |mut r: RunResult| {
        r.wall_seconds = 0.0;
        r.cycles_per_second = 0.0;
        r.packet_hops_per_second = 0.0;
        serde_json::to_string(&r).unwrap()
    };
    let a = strip(arcsim::run(&dragonfly(0.6, 3)).unwrap());
    let b = strip(arcsim::run(&dragonfly(0.6, 3)).unwrap());
    let c = strip(arcsim::run(&dragonfly(0.6, 4)).unwrap());
    assert_eq!(a, b);
    assert_ne!(a, c);
}

#[test]
fn dragonfly_minimal_routing_on_cioq_accepts_uniform_load_below_saturation() {
    let r = arcsim::run(&dragonfly(0.4, 1)).unwrap();
    assert!((r.accepted_load - 0.4).abs() < 0.02, "{}", r.accepted_load);
    assert!(r.hops.max <= 3);
    assert!(r.latency.mean.is_some_and(|l| l > 0.0));
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

#[test]
fn bad_configurations_name_the_field() {
    let base = format!("{}[switch]\nkind = \"cioq\"\n", one_switch(4));
    let cases = [
        (
            format!("{base}[traffic]\nload = 0.0\n[[flows]]\nsrc = 0\ndst = 9\n"),
            "flows[0].dst",
        ),
        (format!("{base}speedup = 0.0\n"), "switch.speedup"),
        (
            format!("{base}[flow_control]\nkind = \"pfc\"\nxoff = 250\nxon = 8\n"),
            "flow_control.xoff",
        ),
        (
            format!("{base}[flow_control]\nkind = \"pfc\"\nxoff = 16\nxon = 16\n"),
            "flow_control.xon",
        ),
        (one_switch(4), "topology.kind"),
        (
            "[switch]\nspeedup = 2.0\n".to_string(),
            "switch.kind",
        ),
        (
            format!("{base}[routing]\nalgorithm = \"val\"\n"),
            "routing.algorithm",
        ),
        (
            format!("{base}[traffic]\npattern = \"adv-global\"\n"),
            "traffic.pattern",
        ),
        (
            "[topology]\nkind = \"graph\"\n[topology.graph]\nswitches = 2\nhosts = [0, 1]\n[switch]\nkind = \"cioq\"\n"
                .to_string(),
            "cannot be reached",
        ),
        (
            "[[flows]]\nsrc = 0\ndst = 1\n".to_string(),
            "flows",
        ),
    ];
    for (text, want) in cases {
        let e = error(&text);
        assert!(e.contains(want), "{want}: {e}\n{text}");
    }
}

#[test]
fn too_few_vcs_for_a_cyclic_graph_are_refused() {
    let text = "[topology]
kind = \"graph\"
[topology.graph]
switches = 4
hosts = [0, 1, 2, 3]
links = [{ a = 0, b = 1 }, { a = 1, b = 2 }, { a = 2, b = 3 }, { a = 3, b = 0 }]
[switch]
kind = \"cioq\"
[router]
vcs_local = 1
";
    let e = error(text);
    assert!(
        e.contains("router.vcs_local") && e.contains("need 2"),
        "{e}"
    );
}

#[test]
fn virtual_output_queues_remove_head_of_line_blocking_and_4q_halves_it() {
    // Each input port's 512 phits split into one queue per output (VOQsw) or per node
    // (VOQnet, the same here): 64 packets each; the iterative allocator matches what its
    // first iteration left. 4Q's four queues, chosen by the most room, sit in between.
    use arcsim::config::QueueScheme as Q;
    let with = |scheme: Q| {
        hol(8, |c| {
            c.switch.queues = scheme;
            c.router.buffer_injection = 512;
        })
    };
    let fifo = hol(8, |c| c.router.buffer_injection = 512);
    let (sw, net, four) = (with(Q::VoqSwitch), with(Q::VoqNet), with(Q::FourQ));
    assert!(sw >= 0.95 && net >= 0.95, "VOQsw {sw}, VOQnet {net}");
    assert!(
        four > fifo + 0.1 && four < sw - 0.05,
        "FIFO {fifo}, 4Q {four}, VOQsw {sw}"
    );
}

#[test]
fn more_queues_than_the_port_memory_holds_packets_is_refused() {
    let text = format!(
        "{}[switch]\nkind = \"cioq\"\nqueues = \"voq-net\"\n[router]\nbuffer_injection = 32\npacket_length = 8\n",
        one_switch(8)
    );
    let e = error(&text);
    assert!(
        e.contains("router.buffer_injection") && e.contains("8 queues"),
        "{e}"
    );
    // Queues without an order need a network without cycles.
    let ring = "[topology]
kind = \"graph\"
[topology.graph]
switches = 3
hosts = [0, 1, 2]
links = [{ a = 0, b = 1 }, { a = 1, b = 2 }, { a = 2, b = 0 }]
[switch]
kind = \"cioq\"
queues = \"four-q\"
";
    assert!(error(ring).contains("switch.queues"), "{}", error(ring));
    // Xon/Xoff per queue above the port's memory would never fire.
    let text = format!(
        "{}[switch]\nkind = \"cioq\"\nqueues = \"voq-net\"\n[flow_control]\nkind = \"port-credits\"\nxoff = 80\nxon = 8\n[router]\nbuffer_injection = 64\npacket_length = 8\n",
        one_switch(8)
    );
    let e = error(&text);
    assert!(
        e.contains("flow_control.xoff") && e.contains("64-phit port memory"),
        "{e}"
    );
    // And thresholds mean nothing under credits per VC.
    let text = format!(
        "{}[switch]\nkind = \"cioq\"\n[flow_control]\nxoff = 16\n",
        one_switch(2)
    );
    assert!(
        error(&text).contains("flow_control.xoff"),
        "{}",
        error(&text)
    );
}

#[test]
fn a_configuration_in_physical_units_runs_as_the_same_one_in_cycles_and_phits() {
    // The QCN-Switch paper's quantities at FOGSim's time scale k = 20: 40 Gbps links,
    // 20 ns cycles, 100-byte phits.
    let physical = "[units]
link_rate = \"40 Gbps\"
cycle = \"20 ns\"
[topology]
p = 2
a = 4
h = 2
local_latency = \"40 ns\"
global_latency = \"400 ns\"
terminal_latency = \"20 ns\"
[switch]
kind = \"cioq\"
speedup = 2.0
latency = \"200 ns\"
output_buffer = \"100 KB\"
[router]
packet_length = \"1000 B\"
buffer_injection = \"200 KB\"
buffer_local = \"100 KB\"
buffer_global = \"100 KB\"
[traffic]
load = \"16 Gbps\"
[simulation]
warmup_cycles = \"20 us\"
measure_cycles = \"60 us\"
";
    let engine = "[topology]
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
load = 0.4
[simulation]
warmup_cycles = 1000
measure_cycles = 3000
";
    let strip = |mut r: RunResult| {
        r.wall_seconds = 0.0;
        r.cycles_per_second = 0.0;
        r.packet_hops_per_second = 0.0;
        r.units = None;
        serde_json::to_string(&r).unwrap()
    };
    let a = arcsim::run(&cfg(physical)).unwrap();
    let units = a.units.expect("the result names its units");
    assert_eq!(
        (units.cycle_ns, units.phit_bytes, units.link_gbps),
        (20.0, 100.0, 40.0)
    );
    assert!(a.packets.delivered > 0);
    assert_eq!(strip(a), strip(run(engine)));
    // A quantity that is not whole cycles is refused, naming the key.
    let e = error(&physical.replace("\"200 ns\"", "\"210 ns\""));
    assert!(
        e.contains("switch.latency") && e.contains("10.5 cycles"),
        "{e}"
    );
}

/// A mechanism for the tests: every data packet delivered sends a control packet of 4
/// phits from its destination's switch back to its source's switch, carrying the source.
#[derive(Default)]
struct Echo {
    consumed: u64,
    at_the_wrong_switch: u64,
}

impl arcsim::kernel::mechanism::Mechanism for Echo {
    fn sends_control(&self) -> bool {
        true
    }
    fn on_deliver(&mut self, k: &mut arcsim::kernel::Kernel, pkt: u32) {
        let p = *k.pool.get(pkt);
        let back = k.net.attach[p.src as usize].0 as usize;
        k.send_control(p.dst_switch as usize, back, 4, p.src);
    }
    fn on_control(
        &mut self,
        k: &mut arcsim::kernel::Kernel,
        s: usize,
        _port: Option<usize>,
        pkt: u32,
    ) {
        let p = k.pool.get(pkt);
        if k.net.attach[p.msg as usize].0 as usize != s {
            self.at_the_wrong_switch += 1;
        }
        self.consumed += 1;
    }
}

#[test]
fn control_packets_cross_the_network_take_bandwidth_and_are_all_accounted_for() {
    use arcsim::Simulator;
    let c = dragonfly(0.5, 11);
    let mut sim = arcsim::kernel::build_with(&c, Echo::default()).unwrap();
    for step in 0..3500 {
        sim.step().unwrap();
        if step % 250 == 0 {
            let a = sim.audit();
            assert!(a.balanced(), "cycle {step}: {a:?}");
        }
    }
    let a = sim.audit();
    assert!(a.balanced(), "{a:?}");
    let ctl = sim.k.control;
    // Every delivered packet sent one echo; each echo reached the switch of the node that
    // sent the data (or is still on its way), none was dropped.
    assert_eq!(ctl.sent, sim.k.delivered);
    assert!(ctl.consumed > 0 && ctl.consumed <= ctl.sent, "{ctl:?}");
    assert_eq!(sim.mech.consumed, ctl.consumed);
    assert_eq!(sim.mech.at_the_wrong_switch, 0);
    assert_eq!(ctl.dropped, 0);
    assert!(ctl.link_phits > 0);
    // The echoes take a share of the links' phits, and the data still gets through.
    let r = sim.run().unwrap();
    let control = r.control.expect("control statistics");
    assert!(
        control.link_share > 0.05 && control.link_share < 0.5,
        "{control:?}"
    );
    assert!((r.accepted_load - 0.5).abs() < 0.03, "{}", r.accepted_load);
}

/// Node 0 sends to node 1, which three senders share, and to node 2, which nobody else
/// uses; the switch keeps one queue per destination at every port (VOQnet).
fn blocked_destination(admittance: bool) -> RunResult {
    let mut text = format!(
        "{}
[switch]
kind = \"cioq\"
queues = \"voq-net\"
[router]
packet_length = 4
buffer_injection = 64
[nic]
admittance = {admittance}
[traffic]
load = 0.0
[simulation]
warmup_cycles = 2000
measure_cycles = 20000
",
        one_switch(4)
    );
    for (s, d) in [(0, 1), (2, 1), (3, 1), (0, 2)] {
        text += &format!("[[flows]]\nsrc = {s}\ndst = {d}\n");
    }
    run(&text)
}

#[test]
fn admittance_queues_keep_a_blocked_destination_from_stopping_a_nics_other_flows() {
    // With one injection queue, node 0's packets to node 2 wait behind those to node 1: its
    // two flows alternate at the pace node 1 gives it (0.2 each, node 1's other senders
    // taking 0.4). With a queue per destination, node 0 gets its third of node 1 and sends
    // to node 2 whenever node 1's queue is full: the other two thirds of its link.
    let fifo = blocked_destination(false);
    let voq = blocked_destination(true);
    let shares = |r: &RunResult| r.flows.iter().map(|f| f.throughput).collect::<Vec<_>>();
    let (to1, to2) = (fifo.flows[0].throughput, fifo.flows[3].throughput);
    assert!(
        (to1 - to2).abs() < 0.01 && to2 < 0.25,
        "{:?}",
        shares(&fifo)
    );
    let (to1, to2) = (voq.flows[0].throughput, voq.flows[3].throughput);
    assert!((to1 - 1.0 / 3.0).abs() < 0.01, "{:?}", shares(&voq));
    assert!((to2 - 2.0 / 3.0).abs() < 0.01, "{:?}", shares(&voq));
}

/// One switch of 8 nodes under saturation, a queue per destination at every port (VOQnet),
/// the port's 64 phits shared by its 8 queues under port-level credits, with the given
/// `[flow_control]` thresholds: the run's result and its flow control afterwards.
fn voq_net_port_credits(
    thresholds: &str,
) -> (RunResult, arcsim::kernel::flow_control::FlowControl) {
    use arcsim::Simulator;
    let text = format!(
        "{}
[switch]
kind = \"cioq\"
output_buffer = 2
queues = \"voq-net\"
[flow_control]
kind = \"port-credits\"
{thresholds}
[router]
packet_length = 1
buffer_injection = 64
[traffic]
load = 1.0
allow_self = true
[simulation]
warmup_cycles = 1000
measure_cycles = 10000
",
        one_switch(8)
    );
    let c = cfg(&text);
    let mut sim = arcsim::kernel::build_with(&c, arcsim::kernel::mechanism::NoMechanism).unwrap();
    let r = sim.run().unwrap();
    (r, sim.k.fc)
}

#[test]
fn port_level_credits_share_a_port_memory_without_overflowing_it() {
    // A queue may take more than its eighth of the port's memory, the port never more than
    // its memory (an overflow would stop the run).
    let (r, fc) = voq_net_port_credits("");
    assert!(fc.peak_port <= 64, "{}", fc.peak_port);
    assert!(
        fc.peak_queue > 8,
        "queues never went past their eighth: {}",
        fc.peak_queue
    );
    assert!(r.accepted_load > 0.9, "{}", r.accepted_load);
}

#[test]
fn xon_xoff_per_queue_keeps_each_queue_below_its_threshold() {
    // The setting above with Xon/Xoff per queue on top of the port's credits (the hook the
    // RECN paper's set-aside queues need): a queue that reaches xoff stops its sender for that
    // queue only, so it never holds more than xoff plus what was already on its way (two
    // link latencies of one cycle and two one-phit packets), while without thresholds the
    // same queues grow far past it; the stopped queues resume and the switch keeps moving.
    let (_, free) = voq_net_port_credits("");
    let (r, fc) = voq_net_port_credits("xoff = 6\nxon = 2");
    let (free_peak, free_pauses) = (free.peak_queue, free.pauses_sent);
    let (peak, pauses, accepted) = (fc.peak_queue, fc.pauses_sent, r.accepted_load);
    assert_eq!(free_pauses, 0);
    assert!(
        free_peak > 12,
        "without thresholds the queues peaked at {free_peak}"
    );
    assert!(peak <= 6 + 2 + 2, "a queue held {peak} phits past xoff = 6");
    assert!(pauses > 100, "only {pauses} Xoff frames");
    assert!(accepted > 0.8, "{accepted}");
}

#[test]
fn credit_frames_that_take_link_time_lower_a_saturated_links_data_throughput() {
    // Two nodes on two switches send to each other as fast as they can: every link carries
    // data one way and the other way's credits. A credit frame of 2 phits per 16-phit
    // packet leaves 16/18 of every link to data.
    let both_ways = |frame: u32| {
        let text = format!(
            "{}
[switch]
kind = \"cioq\"
[flow_control]
frame_phits = {frame}
[router]
packet_length = 16
buffer_local = 256
buffer_injection = 256
[traffic]
load = 0.0
[[flows]]
src = 0
dst = 1
[[flows]]
src = 1
dst = 0
[simulation]
warmup_cycles = 2000
measure_cycles = 20000
",
            chain(&[1], &[0, 1], 1)
        );
        run(&text)
    };
    let free = both_ways(0);
    let framed = both_ways(2);
    for f in 0..2 {
        assert!(
            (free.flows[f].throughput - 1.0).abs() < 0.01,
            "{:?}",
            free.flows
        );
        let want = 16.0 / 18.0;
        assert!(
            (framed.flows[f].throughput - want).abs() < 0.01,
            "{} against {want}",
            framed.flows[f].throughput
        );
    }
}

/// A rate limiter for the tests: node 0 may start a packet only every `period` cycles.
struct Limiter {
    period: u64,
    next: u64,
}

impl arcsim::kernel::mechanism::Mechanism for Limiter {
    fn may_inject(&mut self, k: &arcsim::kernel::Kernel, node: usize, _pkt: u32) -> bool {
        if node != 0 {
            return true;
        }
        if k.now < self.next {
            return false;
        }
        self.next = k.now + self.period;
        true
    }
}

#[test]
fn a_rate_limiter_holds_a_flow_to_its_rate_and_the_others_take_the_rest() {
    use arcsim::Simulator;
    let text = format!(
        "{}
[switch]
kind = \"cioq\"
[router]
packet_length = 4
[traffic]
load = 0.0
[[flows]]
src = 0
dst = 2
[[flows]]
src = 1
dst = 2
[simulation]
warmup_cycles = 2000
measure_cycles = 20000
",
        one_switch(3)
    );
    let c = cfg(&text);
    let limiter = Limiter {
        period: 16,
        next: 0,
    };
    let mut sim = arcsim::kernel::build_with(&c, limiter).unwrap();
    let r = sim.run().unwrap();
    // One 4-phit packet every 16 cycles: a quarter of the link.
    assert!((r.flows[0].throughput - 0.25).abs() < 0.01, "{:?}", r.flows);
    assert!((r.flows[1].throughput - 0.75).abs() < 0.01, "{:?}", r.flows);
}

/// The small dragonfly of `dragonfly` at load 0.1 under uniform traffic, changing at
/// `change` (TOML of `[traffic.change]`'s keys).
fn transient(change: &str) -> RunResult {
    run(&format!(
        "[topology]
p = 2
a = 4
h = 2
[switch]
kind = \"cioq\"
speedup = 2.0
[traffic]
load = 0.1
[traffic.change]
{change}
[simulation]
warmup_cycles = 3000
measure_cycles = 4000
"
    ))
}

#[test]
fn a_traffic_change_switches_pattern_and_load_on_the_kernel() {
    // Uniform traffic keeps some packets in their group; after a change to ADVG+1 (long
    // before the measured window) every packet takes exactly one global hop under MIN.
    let before = transient("at_cycle = 6999\nload = 0.1");
    let after = transient("at_cycle = 1000\npattern = \"adv-global\"\noffset = 1");
    let g = |r: &RunResult| r.hops.global_mean.unwrap();
    assert!(g(&before) < 0.95, "uniform: {}", g(&before));
    assert_eq!(g(&after), 1.0);
    // A change of load only: the measured window runs at the new load.
    let r = transient("at_cycle = 1000\nload = 0.3");
    assert!((r.accepted_load - 0.3).abs() < 0.02, "{}", r.accepted_load);
    assert!(
        (before.accepted_load - 0.1).abs() < 0.01,
        "{}",
        before.accepted_load
    );
    // Flows alone at first, synthetic traffic from the change on.
    let text = format!(
        "{}[switch]\nkind = \"cioq\"\n[traffic]\nload = 0.0\n[traffic.change]\nat_cycle = 1000\nload = 0.2\n\
         [[flows]]\nsrc = 0\ndst = 1\nrate = 0.1\n[simulation]\nwarmup_cycles = 2000\nmeasure_cycles = 4000\n",
        one_switch(4)
    );
    let r = run(&text);
    // Three nodes at 0.2 and node 0 at 0.2 + 0.1 of flow: 0.225 per node on average.
    assert!(
        (r.accepted_load - 0.225).abs() < 0.02,
        "{}",
        r.accepted_load
    );
    // A graph has no groups to be adversarial to.
    let e = error(&format!(
        "{}[switch]\nkind = \"cioq\"\n[traffic.change]\nat_cycle = 10\npattern = \"adv-global\"\n",
        one_switch(4)
    ));
    assert!(e.contains("traffic.change.pattern"), "{e}");
}

#[test]
fn a_deadlock_is_reported_as_its_cycle_of_full_buffers() {
    use arcsim::Simulator;
    // A ring of five switches with two nodes each; every node sends to the node two
    // switches on, clockwise. Shortest paths need two VCs here (one per hop); with every
    // hop forced onto VC 0 the ring's buffers fill in a cycle.
    let mut text = String::from(
        "[topology]\nkind = \"graph\"\n[topology.graph]\nswitches = 5\nhosts = [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]\n",
    );
    for i in 0..5 {
        text += &format!("[[topology.graph.links]]\na = {i}\nb = {}\n", (i + 1) % 5);
    }
    text += "[switch]\nkind = \"cioq\"\n[router]\npacket_length = 4\nbuffer_local = 8\n\
             [traffic]\npattern = \"shift\"\noffset = 4\nload = 1.0\n\
             [simulation]\nwarmup_cycles = 0\nmeasure_cycles = 20000\nwatchdog_cycles = 500\n";
    let c = cfg(&text);
    // As built, the VC order keeps it free of deadlock.
    let mut sim = arcsim::kernel::build_with(&c, arcsim::kernel::mechanism::NoMechanism).unwrap();
    sim.run().unwrap();
    let mut sim = arcsim::kernel::build_with(&c, arcsim::kernel::mechanism::NoMechanism).unwrap();
    sim.k.route.policy = arcsim::kernel::route::VcPolicy::UpDown;
    let e = sim.run().unwrap_err().to_string();
    assert!(e.contains("no packet has moved for 501 cycles"), "{e}");
    assert!(e.contains("a cycle of 5 buffers closing on itself"), "{e}");
    // Each buffer of the cycle: a switch's input from the switch before it, VC 0, its head
    // waiting for room at the next switch.
    for s in 0..5 {
        let line = e
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("switch {s} port")))
            .unwrap_or_else(|| panic!("switch {s} missing:\n{e}"));
        assert!(line.contains("input (local) VC 0"), "{line}");
        assert!(line.contains("no room"), "{line}");
        assert!(
            line.contains(&format!("next buffer switch {}", (s + 1) % 5)),
            "{line}"
        );
    }
    assert!(e.contains("VC order does not break this cycle"), "{e}");
}

#[test]
fn a_nic_shares_its_link_among_the_flows_with_a_backlog_past_64_flows() {
    // Node 0 holds 70 flows to node 1; only flows 3, 64 and 69 ever have a message (the
    // others start after the run), so the NIC's round robin, which visits only flows with
    // a backlog, must wrap across bit words and give each a third of the link; a sized flow
    // that waits for another starts once that one completes.
    let mut flows = String::new();
    for f in 0..70 {
        let start = if [3, 64, 69].contains(&f) {
            0
        } else {
            1_000_000
        };
        flows.push_str(&format!("[[flows]]\nsrc = 0\ndst = 1\nstart = {start}\n"));
    }
    flows.push_str("[[flows]]\nsrc = 0\ndst = 1\nsize = 40\n[[flows]]\nsrc = 0\ndst = 1\nsize = 40\nafter = [70]\n");
    let r = run(&format!(
        "{}
[switch]
kind = \"cioq\"
[router]
packet_length = 4
[traffic]
load = 0.0
{flows}
[simulation]
warmup_cycles = 2000
measure_cycles = 20000
",
        one_switch(2)
    ));
    for f in [3, 64, 69] {
        assert!(
            (r.flows[f].throughput - 1.0 / 3.0).abs() < 0.01,
            "flow {f}: {:?}",
            r.flows[f]
        );
    }
    for f in (0..70).filter(|f| ![3, 64, 69].contains(f)) {
        assert_eq!(r.flows[f].created_phits, 0, "flow {f}");
    }
    let (first, second) = (&r.flows[70], &r.flows[71]);
    assert_eq!((first.delivered_phits, second.delivered_phits), (40, 40));
    assert!(second.started.unwrap() > first.completed.unwrap());
}
