//! `arcsim bench`: simulator speed on a balanced dragonfly under uniform traffic and MIN.

use crate::load::load;
use anyhow::Result;

pub fn bench_command(
    h: usize,
    cycles: u64,
    load_: f64,
    repeat: u32,
    sets: &[String],
) -> Result<()> {
    if repeat == 0 {
        anyhow::bail!("--repeat 0: use at least 1 run");
    }
    if cycles == 0 {
        anyhow::bail!("--cycles 0: simulate at least 1 cycle (the default is 20000)");
    }
    if !(1..=16).contains(&h) {
        // Checked here: the balanced network's radix is p + a - 1 + h = 4h - 1 <= 64.
        anyhow::bail!("--h {h}: allowed 1..=16 (the router radix 4h - 1 must be at most 64)");
    }
    if !(load_ > 0.0 && load_ <= 1.0) {
        // Checked here: NaN would reach the configuration as the string "NaN".
        anyhow::bail!("--load {load_}: the offered load must be in (0, 1]");
    }
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
    let mut speeds = Vec::new();
    let mut first: Option<arcsim::RunResult> = None;
    for k in 0..repeat {
        let r = arcsim::run(&cfg)?;
        if repeat > 1 {
            eprintln!(
                "run {}/{repeat}: {:.0} cycles/s",
                k + 1,
                r.cycles_per_second
            );
        }
        speeds.push(r.cycles_per_second);
        match &first {
            None => first = Some(r),
            Some(f) => {
                // The same seed must give the same simulation, whatever the timing.
                if (f.packet_hops, f.packets.delivered) != (r.packet_hops, r.packets.delivered) {
                    anyhow::bail!(
                        "run {} differs from run 1 ({} vs {} packet-hops): the simulation is not deterministic",
                        k + 1,
                        r.packet_hops,
                        f.packet_hops
                    );
                }
            }
        }
    }
    let r = first.expect("at least one run");
    speeds.sort_by(f64::total_cmp);
    let median = speeds[speeds.len() / 2];
    println!("network            {}", r.topology);
    println!(
        "workload           {} {} load {}, {} cycles",
        r.routing, r.pattern, load_, r.cycles
    );
    if repeat > 1 {
        println!("runs               {repeat} (identical results); cycles/s median, min-max below");
        println!(
            "simulated cycles/s {median:.0}  ({:.0}-{:.0})",
            speeds[0],
            speeds[speeds.len() - 1]
        );
    } else {
        println!("wall time          {:.3} s", r.wall_seconds);
        println!("simulated cycles/s {median:.0}");
    }
    if let Some(u) = &r.units {
        println!(
            "simulated time/s   {:.3} us per wall second (cycle {} ns)",
            median * u.cycle_ns / 1e3,
            u.cycle_ns
        );
    }
    println!(
        "packet-hops/s      {:.3e}  ({} hops)",
        r.packet_hops as f64 * median / r.cycles as f64,
        r.packet_hops
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
