//! Saturation throughput against analytic bounds on the balanced dragonfly p=4, a=8, h=4
//! (33 groups, 264 routers, 1,056 nodes), offered load 1.0.
//!
//! Two kinds of bound are used:
//! * hard bounds, which hold whatever the arbitration does because every accepted packet
//!   must cross a link of a given set (MIN under ADVG+1: the one global link between two
//!   consecutive groups; VAL under ADVG+h: one of the local links k -> k-1 of its
//!   intermediate group, see `val_and_val_any_under_advg_h`);
//! * the fluid bound of `common::Paths`: the offered load at which the most loaded link
//!   reaches one phit per cycle when every packet follows the routing's path distribution.
//!
//! Measured values are printed (`cargo test --release --test throughput -- --nocapture`).

mod common;

use arcsim::{Config, RunResult};
use common::{config, run, Paths};

const P: usize = 4;
const A: usize = 8;
const H: usize = 4;

/// The network of this file with `routing` and the pattern, at offered load 1.0.
fn network(routing: &str, pattern: &str, offset: usize) -> Config {
    network_with(routing, pattern, offset, &[])
}

/// [`network`] with further overrides.
fn network_with(routing: &str, pattern: &str, offset: usize, extra: &[&str]) -> Config {
    let alg = format!("routing.algorithm={routing}");
    let pat = format!("traffic.pattern={pattern}");
    let off = format!("traffic.offset={offset}");
    let mut sets = vec![
        "topology.p=4",
        "topology.a=8",
        "topology.h=4",
        &alg,
        &pat,
        &off,
        "traffic.load=1.0",
        "simulation.warmup_cycles=2000",
        "simulation.measure_cycles=5000",
    ];
    sets.extend_from_slice(extra);
    config(&sets)
}

fn saturated(routing: &str, pattern: &str, offset: usize) -> (Config, RunResult) {
    let cfg = network(routing, pattern, offset);
    let t = std::time::Instant::now();
    let r = run(&cfg);
    eprintln!(
        "{routing:8} {:8}: accepted {:.4}  (latency {:.0}, hops {:.2}, misrouted {:.2}; {:.2} s)",
        r.pattern,
        r.accepted_load,
        r.latency.mean.unwrap(),
        r.hops.mean.unwrap(),
        r.misrouted_fraction.unwrap(),
        t.elapsed().as_secs_f64()
    );
    (cfg, r)
}

/// Slack for phits counted at the window edges (a packet per link) and rounding.
const EDGE: f64 = 1.003;

/// Link utilisation against the hops of the delivered packets: in steady state the phits the
/// links of a class sent in the window are those of the packets delivered in it times their
/// hops of that class. Within 5%: past saturation, packets take thousands of cycles, so many
/// of those delivered in the 5,000-cycle window made hops before it (VAL and PB: 2.5% fewer
/// phits sent than their hops). A link class miscounted (ejection links as local ones, each
/// direction twice) would be off by a third or more. Every directed link is counted once.
fn check_link_use(r: &RunResult) {
    let l = &r.links;
    assert_eq!(l.local.links as usize, 264 * (A - 1), "{l:?}");
    assert_eq!(l.global.links as usize, 264 * H, "{l:?}");
    common::check_link_use(r, 0.05, EDGE, &r.routing);
}

#[test]
fn min_under_advg1_is_limited_by_one_global_link() {
    let (cfg, r) = saturated("min", "adv-global", 1);
    let hard = 1.0 / (A * P) as f64;
    let fluid = Paths::new(&cfg).fluid_bound(&cfg);
    eprintln!(
        "MIN ADVG+1: accepted {:.5}, bound 1/(a*p) = {hard:.5} ({:.1}%)",
        r.accepted_load,
        100.0 * r.accepted_load / hard
    );
    assert!(
        (fluid - hard).abs() < 1e-12,
        "path model: fluid bound {fluid} should be 1/(a*p) = {hard}"
    );
    assert!(
        r.accepted_load <= hard * EDGE,
        "MIN ADVG+1 accepted {:.5}, more than one global link can carry ({hard:.5})",
        r.accepted_load
    );
    assert!(
        r.accepted_load >= 0.95 * hard,
        "MIN ADVG+1 accepted {:.5}, not within 5% of 1/(a*p) = {hard:.5}",
        r.accepted_load
    );
    assert_eq!(r.misrouted_fraction.unwrap(), 0.0);
    // The one global link from each group to the next is busy nearly every cycle; the
    // group's other a*h - 1 global links carry nothing.
    check_link_use(&r);
    let g = &r.links.global;
    assert!(
        g.max >= 0.95,
        "the bottleneck link sends {:.3} phits/cycle",
        g.max
    );
    assert_eq!(g.min, 0.0, "links off the minimal paths stay idle: {g:?}");
    assert!(
        (g.mean - g.max / (A * H) as f64).abs() < 0.02 * g.mean,
        "one global link in a*h = {} busy: mean {:.4}, max {:.4}",
        A * H,
        g.mean,
        g.max
    );
}

/// A global buffer smaller than the link's credit round trip caps MIN under ADVG+1 below
/// one phit per cycle on its one global link. With `router.credit_return = "packet"` each
/// credit is held exactly 2 L_g cycles (out over the link, back a link delay after the head
/// leaves the downstream buffer): the link carries at most B / (2 L_g) phits per cycle, and
/// reaches it, since nothing else delays the far end. With the default per-phit return, the
/// k-th phit's credit comes back k cycles later still, 3.5 on average over a packet of 8:
/// at most B / (2 L_g + 3.5).
#[test]
fn credit_return_sets_the_bound_of_a_global_buffer_below_the_round_trip() {
    let (b, lg, len) = (64.0, 100.0, 8.0);
    let nodes_per_group = (A * P) as f64;
    let at = |mode: &str| {
        let (buf, ret) = (
            format!("router.buffer_global={b}"),
            format!("router.credit_return={mode}"),
        );
        let cfg = network_with("min", "adv-global", 1, &[&buf, &ret]);
        run(&cfg).accepted_load
    };
    let (packet, phit) = (at("packet"), at("phit"));
    let packet_bound = b / (2.0 * lg) / nodes_per_group;
    let phit_bound = b / (2.0 * lg + (len - 1.0) / 2.0) / nodes_per_group;
    eprintln!(
        "MIN ADVG+1, 64-phit global buffers: per packet {packet:.6} (bound {packet_bound:.6}), \
         per phit {phit:.6} (bound {phit_bound:.6})"
    );
    assert!(
        packet <= packet_bound * EDGE && packet >= 0.99 * packet_bound,
        "credits per packet: accepted {packet:.6}, expected B/(2 L_g) = {packet_bound:.6}"
    );
    assert!(
        phit <= phit_bound * EDGE,
        "credits per phit: accepted {phit:.6}, above B/(2 L_g + 3.5) = {phit_bound:.6}: \
         credits come back before their phits leave"
    );
}

/// With the palm-tree arrangement, the packets of source group S that VAL sends through
/// intermediate group I land on the router holding I's link to S and leave from the router
/// holding I's link to S+h, which is always the previous router: all the traffic landing on
/// router k continues over the single local link k -> k-1. Every packet crosses one such link,
/// and there are a*g of them for a*g*p nodes: accepted <= 1/p = 1/h (hard bound). The same
/// links also carry part of the first and last local hops, so the fluid bound is lower still.
/// VAL-any spreads the hop inside the intermediate group over random routers and escapes it.
#[test]
fn val_and_val_any_under_advg_h() {
    let (_, val1) = saturated("val", "adv-global", 1);
    let (cfg, valh) = saturated("val", "adv-global", H);
    let (cfg_any, anyh) = saturated("val-any", "adv-global", H);
    for r in [&val1, &valh, &anyh] {
        check_link_use(r);
    }
    let one_over_h = 1.0 / H as f64;
    let fluid = Paths::new(&cfg).fluid_bound(&cfg);
    let fluid_any = Paths::new(&cfg_any).fluid_bound(&cfg_any);
    eprintln!(
        "VAL ADVG+h: accepted {:.4} = {:.2}/h, fluid bound {fluid:.4} ({:.0}% of it); VAL ADVG+1 {:.4}",
        valh.accepted_load,
        valh.accepted_load * H as f64,
        100.0 * valh.accepted_load / fluid,
        val1.accepted_load
    );
    eprintln!(
        "VAL-any ADVG+h: accepted {:.4} = {:.2}/h, fluid bound {fluid_any:.4}; {:.2}x VAL",
        anyh.accepted_load,
        anyh.accepted_load * H as f64,
        anyh.accepted_load / valh.accepted_load
    );
    assert!(
        fluid < one_over_h,
        "path model: the shared k -> k-1 links should make the fluid bound {fluid:.4} lower than 1/h"
    );
    assert!(
        valh.accepted_load <= one_over_h * EDGE,
        "VAL ADVG+h accepted {:.4} = {:.2}/h, above the hard bound 1/h",
        valh.accepted_load,
        valh.accepted_load * H as f64
    );
    assert!(
        valh.accepted_load <= fluid * 1.02 && valh.accepted_load >= 0.8 * fluid,
        "VAL ADVG+h accepted {:.4} = {:.2}/h, expected 80-100% of the fluid bound {fluid:.4}",
        valh.accepted_load,
        valh.accepted_load * H as f64
    );
    assert!(
        valh.accepted_load < 0.7 * val1.accepted_load,
        "VAL ADVG+h accepted {:.4}, not clearly below VAL ADVG+1 {:.4}: the intermediate-group bottleneck is missing",
        valh.accepted_load,
        val1.accepted_load
    );
    assert!(
        anyh.accepted_load > one_over_h,
        "VAL-any ADVG+h accepted {:.4} = {:.2}/h, not above VAL's hard bound 1/h",
        anyh.accepted_load,
        anyh.accepted_load * H as f64
    );
    assert!(
        anyh.accepted_load > 1.4 * valh.accepted_load,
        "VAL-any ADVG+h accepted {:.4}, not clearly above VAL's {:.4}",
        anyh.accepted_load,
        valh.accepted_load
    );
    assert!(
        anyh.accepted_load <= fluid_any * EDGE,
        "VAL-any ADVG+h accepted {:.4}, above its fluid bound {fluid_any:.4}",
        anyh.accepted_load
    );
}

/// MIN under uniform traffic: the fluid bound is about 1 on the balanced network; input
/// queueing with one FIFO per input class caps it near the head-of-line blocking limit
/// 2 - sqrt(2) = 0.586 (Karol et al.). An allocator that loses matches, or credits that come
/// back late, falls well below.
#[test]
fn min_under_uniform_traffic_saturates_high() {
    let (cfg, r) = saturated("min", "uniform", 1);
    let fluid = Paths::new(&cfg).fluid_bound(&cfg);
    eprintln!(
        "MIN UN: accepted {:.4} (fluid bound {fluid:.4}; HOL limit 0.586)",
        r.accepted_load
    );
    assert!(
        r.accepted_load > 0.5,
        "MIN UN accepted only {:.4} (expected > 0.5)",
        r.accepted_load
    );
    assert!(
        r.accepted_load <= fluid.min(1.0) * EDGE,
        "MIN UN accepted {:.4}, above the fluid bound {fluid:.4}",
        r.accepted_load
    );
    check_link_use(&r);
}

#[test]
fn ugal_l_beats_min_under_advg1() {
    let (_, r) = saturated("ugal-l", "adv-global", 1);
    let min_bound = 1.0 / (A * P) as f64;
    eprintln!(
        "UGAL-L ADVG+1: accepted {:.4} = {:.1}x MIN's 1/(a*p) = {min_bound:.4}; misrouted {:.2}",
        r.accepted_load,
        r.accepted_load / min_bound,
        r.misrouted_fraction.unwrap()
    );
    assert!(
        r.accepted_load > 4.0 * min_bound,
        "UGAL-L ADVG+1 accepted {:.4}, not well above MIN's {min_bound:.4}",
        r.accepted_load
    );
    assert!(
        r.misrouted_fraction.unwrap() > 0.5,
        "UGAL-L under ADVG+1 should misroute most packets, misrouted {:.2}",
        r.misrouted_fraction.unwrap()
    );
    // Minimal packets share one global link per group; the others cross two global links.
    let hard = (A * H + 1) as f64 / (2 * A * P) as f64;
    assert!(
        r.accepted_load <= hard * EDGE,
        "UGAL-L ADVG+1 accepted {:.4}, above the global-link capacity bound {hard:.4}",
        r.accepted_load
    );
    // The packets UGAL-L leaves on the minimal path (share f) all cross the one global link
    // to the destination group, shared by a*p nodes: accepted <= 1/(a*p*f). This ties the
    // reported misrouted fraction to the throughput.
    let f = 1.0 - r.misrouted_fraction.unwrap();
    let share_bound = 1.0 / ((A * P) as f64 * f);
    eprintln!("UGAL-L ADVG+1: minimal share {f:.3}, bound 1/(a*p*f) = {share_bound:.4}");
    assert!(
        r.accepted_load <= share_bound * EDGE,
        "UGAL-L ADVG+1 accepted {:.4}, above 1/(a*p*f) = {share_bound:.4} for its minimal share {f:.3}",
        r.accepted_load
    );
}

/// UGAL-L and PB choose, per packet, between the minimal path and a Valiant path, so they
/// cannot exceed the best fluid bound of a MIN/VAL mixture. Under ADVG+h that ceiling is
/// below 1/h on this network: the Valiant share meets the intermediate-group local links, the
/// minimal share the single global link to the destination group. Both limits are totals
/// over the group's nodes, so a mixture whose share differs between source routers does not
/// raise them; the 2% slack covers the source-group local links, the only ones where it could
/// matter. PB should get most of the way to the ceiling.
#[test]
fn source_adaptive_routings_stay_below_the_min_val_mixture_ceiling() {
    let (cmin, cval) = (
        network("min", "adv-global", H),
        network("val", "adv-global", H),
    );
    let (f, ceiling) = Paths::new(&cmin).mixture_bound(&cmin, &cval);
    let (_, pb) = saturated("pb", "adv-global", H);
    let (_, ugal) = saturated("ugal-l", "adv-global", H);
    check_link_use(&pb);
    check_link_use(&ugal);
    eprintln!(
        "ADVG+h MIN/VAL mixture ceiling {ceiling:.4} (minimal share {f:.3}); PB {:.4} ({:.0}%), UGAL-L {:.4}",
        pb.accepted_load,
        100.0 * pb.accepted_load / ceiling,
        ugal.accepted_load
    );
    assert!(
        ceiling < 1.0 / H as f64 && ceiling > Paths::new(&cval).fluid_bound(&cval),
        "mixture ceiling {ceiling:.4}: expected between VAL's fluid bound and 1/h"
    );
    for (name, r) in [("PB", &pb), ("UGAL-L", &ugal)] {
        assert!(
            r.accepted_load <= ceiling * 1.02,
            "{name} ADVG+h accepted {:.4}, above the MIN/VAL mixture ceiling {ceiling:.4}",
            r.accepted_load
        );
    }
    assert!(
        pb.accepted_load > 0.8 * ceiling,
        "PB ADVG+h accepted {:.4}, below 80% of the MIN/VAL mixture ceiling {ceiling:.4}",
        pb.accepted_load
    );
}
