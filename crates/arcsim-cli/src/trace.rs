//! `arcsim run --trace`: which packets to follow, and `trace.csv`.

use anyhow::{bail, Context, Result};
use arcsim::engine::TraceRecord;
use arcsim::TraceSpec;
use std::path::Path;

/// The packets the `--trace` options pick: `id=N[,N...]` (packets by generation number, from
/// 0), `flow=SRC[:DST]` (from source node SRC, to DST or anywhere; repeatable), or
/// `rate=R` (that share of all packets, 0 < R <= 1). `nodes` bounds the node numbers.
pub fn parse(specs: &[String], nodes: usize) -> Result<TraceSpec> {
    let mut t = TraceSpec::default();
    for spec in specs {
        let (kind, value) = spec.split_once('=').with_context(|| {
            format!("--trace {spec}: expected id=N,N..., flow=SRC:DST, flow=SRC or rate=R")
        })?;
        let num = |s: &str, what: &str| -> Result<u64> {
            s.trim()
                .parse::<u64>()
                .with_context(|| format!("--trace {spec}: {what} '{s}' is not a whole number"))
        };
        let node = |s: &str, what: &str| -> Result<u32> {
            let n = num(s, what)?;
            if n >= nodes as u64 {
                bail!("--trace {spec}: {what} {n} is not a node (0..{nodes})");
            }
            Ok(n as u32)
        };
        match kind.trim() {
            "id" => {
                for item in value.split(',') {
                    t.ids.push(num(item, "packet number")?);
                }
            }
            "flow" => {
                let (src, dst) = match value.split_once(':') {
                    Some((s, d)) => (node(s, "source node")?, Some(node(d, "destination node")?)),
                    None => (node(value, "source node")?, None),
                };
                t.flows.push((src, dst));
            }
            "rate" => {
                let r: f64 = value
                    .trim()
                    .parse()
                    .with_context(|| format!("--trace {spec}: rate '{value}' is not a number"))?;
                if !(r > 0.0 && r <= 1.0) {
                    bail!("--trace {spec}: the rate must satisfy 0 < rate <= 1 (a share of the packets)");
                }
                t.rate = t.rate.max(r);
            }
            other => bail!("--trace {spec}: unknown rule '{other}'; use id=N,N..., flow=SRC:DST, flow=SRC or rate=R"),
        }
    }
    Ok(t)
}

/// `trace.csv`: one row per event of a traced packet, by packet then in time order. `wait`
/// is the cycles since the packet's previous event, so a packet's waits add up to its
/// latency on its `delivered` row.
pub fn write_csv(records: &[TraceRecord], path: &Path) -> Result<()> {
    let mut rows: Vec<&TraceRecord> = records.iter().collect();
    // Stable: a packet's events stay in the order they happened.
    rows.sort_by_key(|r| r.packet);
    let mut w =
        csv::Writer::from_path(path).with_context(|| format!("writing {}", path.display()))?;
    w.write_record([
        "packet",
        "event",
        "cycle",
        "wait",
        "router",
        "in_port",
        "in_vc",
        "out_port",
        "out_vc",
        "out_class",
        "decision",
        "src",
        "dst",
    ])?;
    let opt = |v: Option<u16>| v.map_or(String::new(), |v| v.to_string());
    let mut prev: Option<(u64, u64)> = None;
    for r in rows {
        let wait = match prev {
            Some((p, c)) if p == r.packet => r.cycle - c,
            _ => 0,
        };
        prev = Some((r.packet, r.cycle));
        w.write_record([
            r.packet.to_string(),
            r.event.name().to_string(),
            r.cycle.to_string(),
            wait.to_string(),
            r.router.to_string(),
            r.in_port.to_string(),
            r.in_vc.to_string(),
            opt(r.out_port),
            opt(r.out_vc),
            r.out_class.unwrap_or_default().to_string(),
            r.decision.unwrap_or_default().to_string(),
            r.src.to_string(),
            r.dst.to_string(),
        ])?;
    }
    w.flush()
        .with_context(|| format!("writing {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trace_rules_parse_and_bad_ones_are_named() {
        let s = |v: &[&str]| parse(&v.iter().map(|s| s.to_string()).collect::<Vec<_>>(), 72);
        let t = s(&["id=3,5", "flow=1:70", "flow=2", "rate=0.01"]).unwrap();
        assert_eq!(t.ids, [3, 5]);
        assert_eq!(t.flows, [(1, Some(70)), (2, None)]);
        assert_eq!(t.rate, 0.01);
        let err = |v: &str| format!("{:#}", s(&[v]).unwrap_err());
        assert!(err("flow=1:72").contains("destination node 72 is not a node (0..72)"));
        assert!(err("rate=0").contains("0 < rate <= 1"));
        assert!(err("id=x").contains("packet number 'x'"));
        assert!(err("every").contains("expected id=N"));
        assert!(err("size=3").contains("unknown rule 'size'"));
    }
}
