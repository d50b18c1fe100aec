//! Warnings about a result that a reader could take for a measurement when it is not one: a
//! window with no (or too few) delivered packets, a window too short for whole-packet
//! counting, an accepted load above the offered one, a link above one phit per cycle.

use super::RunResult;
use crate::config::Config;

/// Packets delivered in the window below which the latency means little (its standard error
/// is then at least a tenth of the spread of the latencies).
pub const FEW_PACKETS: u64 = 100;

/// A measurement window shorter than this many packet times counts whole packets at its
/// edges with an error above 1% (accepted load and link use).
pub const SHORT_WINDOW_PACKETS: u64 = 100;

/// Packets delivered in the measurement window (the sum of the hop histogram).
pub fn delivered_in_window(r: &RunResult) -> u64 {
    r.hops.histogram.iter().sum()
}

/// Everything in `r` (run with `cfg`) a reader should not take at face value, one sentence
/// each; empty when nothing is suspicious.
pub fn warnings(cfg: &Config, r: &RunResult) -> Vec<String> {
    let mut out = Vec::new();
    let len = u64::from(cfg.router.packet_length.max(1));
    let burst = r.burst.is_some();
    // A burst measures its whole run; otherwise the window is the measurement cycles.
    let window = if burst {
        r.cycles
    } else {
        cfg.simulation.measure_cycles
    };
    let delivered = delivered_in_window(r);
    if delivered == 0 {
        out.push(
            "no packet was delivered in the measurement window: latency, hops, misrouting, \
             escape use and fairness are missing (null in result.json, \"-\" in tables); \
             raise traffic.load or simulation.measure_cycles"
                .to_string(),
        );
    } else if delivered < FEW_PACKETS {
        out.push(format!(
            "only {delivered} packets were delivered in the measurement window: the latency \
             and the per-packet shares rest on too few samples to mean much; raise \
             simulation.measure_cycles or traffic.load"
        ));
    }
    if !burst && window < SHORT_WINDOW_PACKETS * len {
        out.push(format!(
            "the measurement window of {window} cycles is shorter than {SHORT_WINDOW_PACKETS} \
             packet times ({} cycles): accepted load and link use count whole packets of \
             {len} phits at the window's edges, an error of up to {} phits/(node·cycle) and \
             per link; raise simulation.measure_cycles",
            SHORT_WINDOW_PACKETS * len,
            trim(len as f64 / window.max(1) as f64),
        ));
    }
    // Accepted above offered: possible only by the noise of the Bernoulli sources, by the
    // window's edges (whole packets) or by packets queued before the window; beyond those it
    // is a fault. Not checked when the load changes during the run or in a burst.
    if !burst && cfg.traffic.change.is_none() && r.offered_load > 0.0 && window > 0 {
        let cells = r.nodes as f64 * window as f64;
        let expected_packets = r.offered_load * cells / len as f64;
        // Four standard deviations of the packets generated, plus one packet per node at
        // each edge of the window, in phits/(node·cycle).
        let slack = (4.0 * expected_packets.sqrt() + 2.0 * r.nodes as f64) * len as f64 / cells;
        if r.accepted_load > r.offered_load + slack {
            out.push(format!(
                "accepted load {} is above the offered {} by more than noise and the window's \
                 edges allow ({}): it does not measure the network's throughput",
                trim(r.accepted_load),
                trim(r.offered_load),
                trim(slack)
            ));
        }
    }
    for (class, u) in [("local", &r.links.local), ("global", &r.links.global)] {
        // A packet counts whole when it starts on a link, so the busiest link can show up to
        // one packet more than it sent in the window: 1 + len/window.
        if u.links > 0 && u.max > 1.0 + 0.01 {
            out.push(format!(
                "a {class} link shows {:.3} phits per cycle, above the 1 a link can carry: \
                 each packet ({len} phits) counts whole on the cycle it starts, and the \
                 window of {window} cycles is too short for that to even out; raise \
                 simulation.measure_cycles",
                u.max
            ));
        }
    }
    out
}

/// `x` with up to 4 decimals and no trailing zeros.
fn trim(x: f64) -> String {
    let s = format!("{x:.4}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s.is_empty() || s == "-" {
        "0".into()
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::summary::{Hops, LinkStats, LinkUse};

    fn result(delivered: u64, accepted: f64, link_max: f64) -> RunResult {
        RunResult {
            nodes: 72,
            offered_load: 0.4,
            accepted_load: accepted,
            hops: Hops {
                histogram: vec![0, delivered],
                ..Hops::default()
            },
            links: LinkStats {
                local: LinkUse {
                    links: 10,
                    max: link_max,
                    ..LinkUse::default()
                },
                global: LinkUse::default(),
            },
            ..RunResult::default()
        }
    }

    #[test]
    fn a_sound_result_has_no_warning() {
        let cfg = Config::default();
        assert!(warnings(&cfg, &result(10_000, 0.4, 0.9)).is_empty());
    }

    #[test]
    fn no_packet_and_few_packets_are_flagged() {
        let cfg = Config::default();
        let w = warnings(&cfg, &result(0, 0.0, 0.0));
        assert!(w[0].contains("no packet was delivered"), "{w:?}");
        let w = warnings(&cfg, &result(12, 0.4, 0.5));
        assert!(w[0].contains("only 12 packets"), "{w:?}");
    }

    #[test]
    fn a_short_window_and_its_impossible_values_are_flagged() {
        let mut cfg = Config::default();
        cfg.simulation.measure_cycles = 1;
        let w = warnings(&cfg, &result(10_000, 0.9, 8.0));
        assert!(
            w.iter()
                .any(|m| m.contains("window of 1 cycles is shorter")),
            "{w:?}"
        );
        assert!(
            w.iter().any(|m| m.contains("local link shows 8.000")),
            "{w:?}"
        );
        // With one cycle the window's edges allow anything: accepted above offered is
        // explained by them, not flagged as a fault.
        assert!(!w.iter().any(|m| m.contains("above the offered")), "{w:?}");
    }

    #[test]
    fn accepted_above_offered_beyond_noise_is_flagged() {
        let cfg = Config::default();
        let w = warnings(&cfg, &result(10_000, 0.5, 0.9));
        assert!(w
            .iter()
            .any(|m| m.contains("accepted load 0.5 is above the offered 0.4")));
        // Within noise: not flagged.
        assert!(warnings(&cfg, &result(10_000, 0.401, 0.9)).is_empty());
    }
}
