//! How much memory a simulation of a configuration needs, estimated from its sizes before
//! anything is allocated, so that a configuration too large for the machine is refused with
//! the keys that make it large instead of aborting on a failed allocation.
//!
//! The estimate follows how [`crate::engine::Simulation`] sizes its vectors: per port its
//! record; per VC its record and its FIFO of packet slots (`buffer / packet_length` slots,
//! in a vector that may be up to twice the size it needs while it grows); a packet record for
//! every slot (every packet in flight is in a buffer or on its way to a slot reserved for it);
//! per router the output arbiters' tables. Statistics, the event wheel and the traffic
//! calendar are small next to them and counted as a fixed share.

use crate::config::{Config, RoutingAlgorithm};
use crate::engine::effective_vcs;
use crate::engine::packet::Packet;
use crate::router::state::{PortState, VcState};

/// What drives the estimate: bytes per part, with the keys that size it.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    pub what: &'static str,
    pub keys: &'static str,
    pub bytes: u64,
}

/// Bytes a simulation of `cfg` needs, about (see the module's documentation).
pub fn estimate(cfg: &Config) -> u64 {
    parts(cfg).iter().map(|p| p.bytes).sum()
}

/// [`estimate`] by part, largest first.
pub fn parts(cfg: &Config) -> Vec<Part> {
    if cfg.uses_kernel() {
        return kernel_parts(cfg);
    }
    let t = &cfg.topology;
    let r = &cfg.router;
    let (p, a, h) = (t.p as u64, t.a as u64, t.h as u64);
    let groups = t.num_groups() as u64;
    let routers = a.saturating_mul(groups);
    let nodes = p.saturating_mul(routers);
    let radix = p + a.saturating_sub(1) + h;
    let auto = crate::routing::default_vcs(cfg.routing.algorithm);
    // OFAR's escape subnetwork: one extra VC per ring (or one for the tree) on every link,
    // at most.
    let escape = match cfg.routing.algorithm {
        RoutingAlgorithm::Ofar | RoutingAlgorithm::OfarL => match cfg.routing.escape {
            crate::config::EscapeKind::Ring => cfg.routing.rings.len() as u64,
            crate::config::EscapeKind::Tree => 1,
            crate::config::EscapeKind::None => 0,
        },
        _ => 0,
    };
    let vl = effective_vcs(r.vcs_local, auto.local) as u64 + escape;
    let vg = effective_vcs(r.vcs_global, auto.global) as u64 + escape;
    let vi = r.vcs_injection as u64;
    let len = u64::from(r.packet_length.max(1));
    let local_vcs = routers
        .saturating_mul(a.saturating_sub(1))
        .saturating_mul(vl);
    let global_vcs = routers.saturating_mul(h).saturating_mul(vg);
    let injection_vcs = nodes.saturating_mul(vi);
    let slot_bytes = (std::mem::size_of::<u32>() * 2 + std::mem::size_of::<Packet>()) as u64;
    let slots = |vcs: u64, buffer: u32| {
        vcs.saturating_mul(u64::from(buffer) / len)
            .saturating_mul(slot_bytes)
    };
    let vc_bytes = (std::mem::size_of::<VcState>() + std::mem::size_of::<u32>()) as u64;
    let vcs = local_vcs + global_vcs + injection_vcs;
    let ports = routers.saturating_mul(radix);
    let mut parts = vec![
        Part {
            what: "local buffers",
            keys: "router.buffer_local, router.vcs_local, router.packet_length",
            bytes: slots(local_vcs, r.buffer_local),
        },
        Part {
            what: "global buffers",
            keys: "router.buffer_global, router.vcs_global, router.packet_length",
            bytes: slots(global_vcs, r.buffer_global),
        },
        Part {
            what: "injection buffers",
            keys: "router.buffer_injection, router.vcs_injection, router.packet_length",
            bytes: slots(injection_vcs, r.buffer_injection),
        },
        Part {
            what: "ports, VCs and arbiters",
            keys: "topology.p, topology.a, topology.h, topology.groups",
            bytes: vcs
                .saturating_mul(vc_bytes)
                .saturating_add(ports.saturating_mul(std::mem::size_of::<PortState>() as u64))
                .saturating_add(routers.saturating_mul(radix * (radix + 1) * 4))
                // Statistics, events and traffic: per node and router, a few hundred bytes.
                .saturating_add(nodes.saturating_add(routers).saturating_mul(256)),
        },
    ];
    parts.sort_by_key(|p| std::cmp::Reverse(p.bytes));
    parts
}

/// The general kernel's parts: input queues (every slot holding a packet), output queues,
/// NIC queues and the routing tables (a row per pair of switches).
fn kernel_parts(cfg: &Config) -> Vec<Part> {
    use crate::config::{QueueScheme, TopologyKind};
    let t = &cfg.topology;
    let r = &cfg.router;
    let (switches, nodes, local_ports, global_ports) = match t.kind {
        TopologyKind::Graph
        | TopologyKind::Tree
        | TopologyKind::Xgft
        | TopologyKind::Rlft
        | TopologyKind::Multistage
        | TopologyKind::DragonflyPlus => {
            let built = crate::topology::generated(t).map(|g| g.graph);
            let g = built.as_ref().unwrap_or(&t.graph);
            let (mut local, mut global) = (0u64, 0u64);
            for l in &g.links {
                if l.class == "global" {
                    global += 2;
                } else {
                    local += 2;
                }
            }
            // A node's further links (rails) are node ports too: counted with the local
            // ports (an upper bound, as the estimate is).
            let rails = g.rails.len() as u64;
            (
                g.switches as u64,
                g.hosts.len() as u64,
                local + rails,
                global,
            )
        }
        TopologyKind::Dragonfly => {
            let (p, a, h) = (t.p as u64, t.a as u64, t.h as u64);
            let routers = a.saturating_mul(t.num_groups() as u64);
            (
                routers,
                p.saturating_mul(routers),
                routers.saturating_mul(a.saturating_sub(1)),
                routers.saturating_mul(h),
            )
        }
    };
    let len = u64::from(r.packet_length.max(1));
    let packet = (std::mem::size_of::<crate::kernel::packet::Packet>() + 4) as u64;
    let ports = nodes + local_ports + global_ports;
    let radix = ports / switches.max(1) + 1;
    // Phits an input port holds, by class.
    let port_phits = |buffer: u32, vcs: usize, floor: usize| match cfg.switch.queues {
        QueueScheme::Vc => u64::from(buffer).saturating_mul(vcs.max(floor) as u64),
        _ => u64::from(buffer),
    };
    let queues_per_port = match cfg.switch.queues {
        QueueScheme::Vc => 3,
        QueueScheme::FourQ => u64::from(cfg.switch.queue_count),
        QueueScheme::VoqSwitch => radix,
        QueueScheme::VoqNet => nodes,
    };
    // A class's buffers ([link_classes]) replace the router's: count the larger (an upper
    // bound, as the estimate is).
    let class = |names: &[&str], router: u32| {
        names
            .iter()
            .filter_map(|n| cfg.link_classes.get(*n).and_then(|c| c.buffer))
            .fold(router, u32::max)
    };
    let injection = class(&["node"], r.buffer_injection);
    let local = class(&["local", "up", "down"], r.buffer_local);
    let global = class(&["global"], r.buffer_global);
    let input = nodes
        .saturating_mul(port_phits(injection, r.vcs_injection, 1))
        .saturating_add(local_ports.saturating_mul(port_phits(local, r.vcs_local, 3)))
        .saturating_add(global_ports.saturating_mul(port_phits(global, r.vcs_global, 3)))
        / len;
    let output_queues = match cfg.switch.output_queues {
        crate::config::OutputQueues::Shared => 1,
        crate::config::OutputQueues::PerVc => queues_per_port,
    };
    let output = ports
        .saturating_mul(output_queues)
        .saturating_mul(u64::from(cfg.switch.output_buffer) / len + 1);
    let mut parts = vec![
        Part {
            what: "input buffers",
            keys: "router.buffer_*, router.vcs_*, switch.queues, router.packet_length",
            bytes: input
                .saturating_mul(packet)
                .saturating_add(ports.saturating_mul(queues_per_port).saturating_mul(64)),
        },
        Part {
            what: "output queues",
            keys: "switch.output_buffer, switch.output_queues, router.packet_length",
            bytes: output.saturating_mul(packet),
        },
        Part {
            what: "NIC queues",
            keys: "nic.queue, router.packet_length",
            bytes: nodes
                .saturating_mul(u64::from(cfg.nic.queue) / len + 1)
                .saturating_mul(packet),
        },
        Part {
            what: "routing tables",
            keys: "the topology (a row per pair of switches)",
            bytes: switches
                .saturating_mul(switches)
                .saturating_mul(6)
                .saturating_add(ports.saturating_mul(128))
                .saturating_add(nodes.saturating_mul(256)),
        },
    ];
    let sim = &cfg.simulation;
    if let Some(w) = (sim.warmup_cycles + sim.measure_cycles).checked_div(sim.port_series_window) {
        // Per output port and window: its snapshot (24 bytes) and its row in the result (40).
        let windows = w + 1;
        parts.push(Part {
            what: "per-window port counters",
            keys: "simulation.port_series_window, simulation.warmup_cycles, simulation.measure_cycles",
            bytes: ports.saturating_mul(windows).saturating_mul(64),
        });
    }
    parts.sort_by_key(|p| std::cmp::Reverse(p.bytes));
    parts
}

/// The machine's memory in bytes (`MemTotal` of /proc/meminfo), or None where it cannot be
/// read (not Linux): then no limit applies.
pub fn machine_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib.saturating_mul(1024))
}

/// The limit a simulation of `cfg` must fit in, in bytes: `simulation.memory_limit_mib`, or
/// (0) the machine's memory; None: no limit known.
pub fn limit(cfg: &Config) -> Option<u64> {
    match cfg.simulation.memory_limit_mib {
        0 => machine_memory(),
        mib => Some(mib.saturating_mul(1 << 20)),
    }
}

/// Bytes as a reader takes them in: 512 KiB, 3.2 MiB, 9.8 GiB.
pub fn human(bytes: u64) -> String {
    let b = bytes as f64;
    if b < 1024.0 * 1024.0 {
        format!("{:.0} KiB", b / 1024.0)
    } else if b < 1024.0 * 1024.0 * 1024.0 {
        format!("{:.1} MiB", b / (1024.0 * 1024.0))
    } else {
        format!("{:.1} GiB", b / (1024.0 * 1024.0 * 1024.0))
    }
}

/// Refuse a configuration whose estimate is above its limit, naming the keys of the largest
/// part.
pub(super) fn check(cfg: &Config) -> Result<(), crate::error::ConfigError> {
    let Some(limit) = limit(cfg) else {
        return Ok(());
    };
    let parts = parts(cfg);
    let total: u64 = parts.iter().map(|p| p.bytes).sum();
    if total <= limit {
        return Ok(());
    }
    let big = &parts[0];
    let limit_text = if cfg.simulation.memory_limit_mib == 0 {
        format!("the machine's memory, {}", human(limit))
    } else {
        format!(
            "simulation.memory_limit_mib = {}",
            cfg.simulation.memory_limit_mib
        )
    };
    Err(crate::config::field_err(
        big.keys.split(',').next().unwrap_or("router").trim(),
        format!(
            "this configuration needs about {} of memory, more than {limit_text}: {} take {} ({}; topology.p, a, h and groups set the number of ports); make them smaller, or raise simulation.memory_limit_mib if the estimate is wrong for this machine",
            human(total),
            big.what,
            human(big.bytes),
            big.keys
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn huge_buffers_are_refused_naming_their_keys() {
        let mut cfg = Config::default();
        cfg.router.buffer_local = 65_535;
        cfg.router.buffer_global = 65_535;
        cfg.router.buffer_injection = 65_535;
        cfg.router.vcs_local = 16;
        cfg.router.vcs_global = 16;
        cfg.simulation.memory_limit_mib = 64 * 1024;
        assert!(estimate(&cfg) > 64 << 30, "{}", human(estimate(&cfg)));
        let err = crate::validate(&cfg).unwrap_err().to_string();
        assert!(err.contains("router.buffer_local"), "{err}");
        assert!(err.contains("router.vcs_local"), "{err}");
        assert!(err.contains("simulation.memory_limit_mib = 65536"), "{err}");
    }

    #[test]
    fn the_default_network_needs_tens_of_megabytes() {
        let e = estimate(&Config::default());
        assert!((10 << 20..1 << 30).contains(&e), "{}", human(e));
        let mut small = Config::default();
        small.simulation.memory_limit_mib = 1;
        assert!(crate::validate(&small).is_err());
    }
}
