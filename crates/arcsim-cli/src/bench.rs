//! `arcsim bench`: simulator speed on a balanced dragonfly under uniform traffic and MIN.

use crate::load::load;
use anyhow::Result;

pub fn bench_command(h: usize, cycles: u64, load_: f64, sets: &[String]) -> Result<()> {
    let mut all = vec![
        format!("topology.h={h}"),
        format!("topology.p={h}"),
        format!("topology.a={}", 2 * h),
        "routing.algorithm=min".to_string(),
        "traffic.pattern=uniform".to_string(),
        format!("traffic.load={load_}"),
        "simulation.warmup_cycles=0".to_string(),
        format!("simulation.measure_cycles={cycles}"),
    ];
    all.extend_from_slice(sets);
    let cfg = load(None, &all)?;
    let r = arcsim::run(&cfg)?;
    println!("network            {}", r.topology);
    println!(
        "workload           {} {} load {}, {} cycles",
        r.routing, r.pattern, load_, r.cycles
    );
    println!("wall time          {:.3} s", r.wall_seconds);
    println!("simulated cycles/s {:.0}", r.cycles_per_second);
    println!(
        "packet-hops/s      {:.3e}  ({} hops)",
        r.packet_hops_per_second, r.packet_hops
    );
    println!(
        "packets delivered  {}  (accepted load {:.4})",
        r.packets.delivered, r.accepted_load
    );
    match peak_rss_mib() {
        Some(m) => println!("peak memory        {m:.1} MiB (VmHWM)"),
        None => println!("peak memory        unavailable (no /proc/self/status)"),
    }
    Ok(())
}

/// Peak resident set size of this process, from Linux's /proc.
fn peak_rss_mib() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}
